//! The console's layout at phone size and at desktop size, in a real browser (Debian's
//! Chromium driven by playwright-core; tests/browser/phone.mjs), against the real API and
//! worker.

use signet_common::store::{
    accounts::{self, AccountUpdate},
    api_keys,
};
use signet_tests::{
    BrowserScript, Mailbox, Receiver, TestApp, WorkerProcess, fixtures_dir, screenshots_dir,
};

use crate::signing_flow::{invitations, send_document, sign, wait_for_status};

/// Issue #30 item 6: every console page on a phone (360 × 740, touch) and still on a desktop,
/// with nothing scrolling the page sideways and every key control on the screen and large
/// enough to tap; and a field placed by a tap on the page, drawn to fit the phone's width,
/// stored in PDF points by the desktop's rule (its bottom edge at the tap).
#[tokio::test]
async fn every_console_page_fits_a_phone() {
    let app = TestApp::spawn_with(&[("WEBHOOK_ALLOW_PRIVATE", "true")]).await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);
    let password = "a long browser password";
    let (account, email) = app.console_account(password).await;
    accounts::update(
        &app.db.pool,
        account.into(),
        &AccountUpdate {
            usage_limit: None,
            webhook_url: Some(Some(receiver.url())),
        },
    )
    .await
    .unwrap();
    let key = api_keys::generate(&app.db.pool, account.into())
        .await
        .unwrap()
        .key;
    // A SENT document and a COMPLETED one, each with a long unbroken address that must wrap,
    // and webhook deliveries for the settings page's log.
    let expiry = (chrono::Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let waiting = "a.recipient.with.a.very.long.address@subsidiary.example-holdings.test";
    let signer = "carol.completes@example.test";
    let sent = send_document(
        &app,
        account,
        &key,
        &[(waiting, "SIGNER")],
        &[(waiting, "SIGNATURE")],
        &expiry,
    )
    .await;
    let completed = send_document(
        &app,
        account,
        &key,
        &[(signer, "SIGNER")],
        &[(signer, "SIGNATURE")],
        &expiry,
    )
    .await;
    let links = invitations(&mailbox, 2).await;
    assert_eq!(sign(&app, &links[signer], &["Carol"]).await.0, 200);
    wait_for_status(&app, &key, completed, "COMPLETED").await;
    // A template made from a draft, for the templates list and the template's page.
    let draft = app
        .document(account, "Lease", &[signet_tests::LETTER])
        .await;
    let steps = [
        (
            "recipients",
            serde_json::json!([{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]),
        ),
        (
            "fields",
            serde_json::json!([{"recipientEmail": "ann@example.com", "type": "TEXT", "page": 1, "x": 72, "y": 72}]),
        ),
    ];
    for (step, body) in &steps {
        let (status, answer) = app
            .post(&format!("/documents/{draft}/{step}"), &key, body)
            .await;
        assert_eq!(status, 200, "{step}: {answer}");
    }
    let body = serde_json::json!({"documentId": draft, "roles": {"ann@example.com": "Tenant"}});
    let (status, template) = app.post("/templates", &key, &body).await;
    assert_eq!(status, 200, "{template}");
    let template = template["data"]["id"].as_str().unwrap().to_owned();
    // A bulk send of it, for its progress page.
    let rows = serde_json::json!({
        "rows": [{"Tenant.name": "Ann", "Tenant.email": "ann@example.com"}],
        "message": "Please sign",
        "expiryDate": "2099-01-01T00:00:00Z",
    });
    let (status, bulk) = app
        .post(&format!("/templates/{template}/bulk-sends"), &key, &rows)
        .await;
    assert_eq!(status, 202, "{bulk}");
    let bulk = bulk["data"]["id"].as_str().unwrap().to_owned();
    let shots = screenshots_dir();
    let title = "Phone upload: Quarterly_report_for_the_board_with_every_appendix_attached.pdf";

    let findings = BrowserScript::new("phone.mjs")
        .env("BASE", &app.base)
        .env("EMAIL", &email)
        .env("PASSWORD", password)
        .env("PDF", fixtures_dir().join("pdflatex-4-pages.pdf"))
        .env("TITLE", title)
        .env("SENT_URL", format!("{}/app/documents/{sent}", app.base))
        .env(
            "COMPLETED_URL",
            format!("{}/app/documents/{completed}", app.base),
        )
        .env(
            "TEMPLATE_URL",
            format!("{}/app/templates/{template}", app.base),
        )
        .env("BULK_URL", format!("{}/app/bulk-sends/{bulk}", app.base))
        .env("SHOTS", &shots)
        .findings()
        .await;
    println!("screenshots in {}", shots.display());
    assert!(
        findings.get("error").is_none(),
        "the phone run failed: {}",
        findings["error"]
    );
    assert_eq!(
        findings["consoleErrors"],
        serde_json::json!([]),
        "pages without console errors"
    );

    // Every page, at both sizes: no sideways scrolling, every key control usable.
    let mut seen = Vec::new();
    let mut wrong = Vec::new();
    for page in findings["pages"].as_array().unwrap() {
        let name = format!(
            "{} {}",
            page["size"].as_str().unwrap(),
            page["name"].as_str().unwrap()
        );
        let (scroll, inner, screen) = (
            page["scrollWidth"].as_i64().unwrap(),
            page["innerWidth"].as_i64().unwrap(),
            page["screen"].as_i64().unwrap(),
        );
        // A phone zooms out to show a page wider than itself, and its innerWidth grows to the
        // page's width: hence the screen's width too.
        if scroll > inner || inner > screen {
            wrong.push(format!(
                "{name}: the page is {scroll} px wide on a {screen} px screen (innerWidth {inner})"
            ));
        }
        for (control, verdict) in page["controls"].as_object().unwrap() {
            if verdict != "ok" {
                wrong.push(format!("{name}: {control} is {verdict}"));
            }
        }
        seen.push(name);
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    seen.sort();
    let mut expected: Vec<String> = [
        "documents",
        "draft",
        "placement",
        "sent",
        "cancel-confirmation",
        "completed",
        "api-settings",
        "verify",
        "sign-in",
        "templates",
        "template",
        "template-placement",
        "bulk-send",
    ]
    .iter()
    .flat_map(|page| [format!("phone {page}"), format!("desktop {page}")])
    .collect();
    expected.sort();
    assert_eq!(seen, expected);

    // The tap, in PDF points: the page is shown `scale` CSS px per point, whatever the screen.
    let stored: Vec<(f64, f64, f64, f64, f64)> = sqlx::query_as(
        "SELECT (d.page_sizes->0->>'width')::float8, f.x, f.y, f.width, f.height
         FROM fields f JOIN documents d ON d.id = f.document_id WHERE d.title = $1",
    )
    .bind(title)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    // Two tapped, the second removed by a tap on its ×, large enough for a finger.
    assert_eq!(stored.len(), 1, "{stored:?}");
    let remove = &findings["removeButton"];
    assert!(
        remove["width"].as_f64().unwrap() >= 24.0 && remove["height"].as_f64().unwrap() >= 24.0,
        "{remove}"
    );
    let (page_width, x, y, width, height) = stored[0];
    let tap = &findings["phoneTap"];
    let scale = tap["canvasWidth"].as_f64().unwrap() / page_width;
    assert!(
        scale < 1.0,
        "the page is drawn to fit the phone, not at the desktop's 1.25: {tap}"
    );
    let (tap_x, tap_y) = (
        tap["x"].as_f64().unwrap() / scale,
        tap["y"].as_f64().unwrap() / scale,
    );
    assert_eq!((width, height), (200.0, 50.0));
    assert!(
        (x - tap_x).abs() <= 1.0 && (y + height - tap_y).abs() <= 1.0,
        "stored ({x}, {y}); the tap was at ({tap_x}, {tap_y}) pt: {tap}"
    );
    // And the page showed the field where it is stored.
    let shown = &findings["phoneFieldShown"];
    assert!(
        (shown["left"].as_f64().unwrap() / scale - x).abs() <= 1.0
            && (shown["bottom"].as_f64().unwrap() / scale - (y + height)).abs() <= 1.0
            && (shown["width"].as_f64().unwrap() / scale - width).abs() <= 1.0,
        "{shown} at scale {scale}"
    );
    assert!(
        findings["afterSave"]
            .as_str()
            .unwrap()
            .ends_with(findings["draftUrl"].as_str().unwrap()),
        "{findings}"
    );
    // The desktop still draws the page at 1.25 px per point.
    let desktop = findings["desktopCanvasWidth"].as_f64().unwrap();
    assert!((desktop - 1.25 * page_width).abs() <= 1.0, "{desktop}");
    // Narrowed to a phone's width, the desktop's placement page fits it again, the field with
    // its page.
    let narrowed = &findings["narrowed"];
    let (scroll, canvas, field) = (
        narrowed["scrollWidth"].as_f64().unwrap(),
        narrowed["canvasWidth"].as_f64().unwrap(),
        narrowed["fieldWidth"].as_f64().unwrap(),
    );
    assert!(scroll <= 360.0 && canvas < 360.0, "{narrowed}");
    assert!(
        (field / canvas - width / page_width).abs() < 0.005,
        "{narrowed}"
    );
    for shot in ["phone-placement", "phone-documents", "desktop-placement"] {
        assert!(shots.join(format!("{shot}.png")).exists(), "{shot}");
    }
}
