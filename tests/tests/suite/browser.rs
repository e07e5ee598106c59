//! The console and the signing pages in a real browser (Debian's Chromium driven by
//! playwright-core; tests/browser/journey.mjs), against the real stack: the API, the worker
//! binary, an SMTP server and a webhook receiver on loopback.

use signet_tests::{
    BrowserScript, Mailbox, Receiver, TestApp, WorkerProcess, fixtures_dir, screenshots_dir,
};

#[tokio::test]
async fn from_upload_to_signed_pdf_in_a_browser() {
    let app = TestApp::spawn_with(&[("WEBHOOK_ALLOW_PRIVATE", "true")]).await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    // A webhook attempt that fails on a loaded machine (a browser and the suite beside it) is
    // tried again within seconds, not after the default schedule's 5 minutes: what the journey
    // checks is that the console shows the delivery, and it waits for one, not for a retry.
    let _worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("WEBHOOK_ALLOW_PRIVATE", "true"),
            ("WEBHOOK_RETRY_SCHEDULE", "1,1,1,1,1,1"),
        ],
    );
    let password = "a long browser password";
    let (_, email) = app.console_account(password).await;
    let shots = screenshots_dir();

    let findings = BrowserScript::new("journey.mjs")
        .env("BASE", &app.base)
        .env("EMAIL", &email)
        .env("PASSWORD", password)
        .env("PDF", fixtures_dir().join("pdflatex-4-pages.pdf"))
        .env("MAILDIR", mailbox.dir.path())
        .env("WEBHOOK_URL", receiver.url())
        .env("SHOTS", &shots)
        .findings()
        .await;
    println!("screenshots in {}", shots.display());
    assert!(
        findings.get("error").is_none(),
        "the journey failed: {}",
        findings["error"]
    );
    assert_eq!(
        findings["invitations"],
        serde_json::json!(["ann@signet.test", "bob@signet.test"])
    );
    for signer in ["ann@signet.test", "bob@signet.test"] {
        let state = findings[format!("{signer} state")]
            .as_str()
            .unwrap_or_default();
        // The last signer sees that everyone has signed, or already the completed state.
        assert!(
            state.contains("You have signed")
                || state.contains("everyone has now signed")
                || state.contains("This document is complete"),
            "{signer}: {state}"
        );
    }
    assert!(
        findings["finalStatus"]
            .as_str()
            .unwrap()
            .contains("COMPLETED"),
        "{findings}"
    );
    assert_eq!(findings["finalPdfStart"], "%PDF-");
    assert_eq!(
        (
            findings["keyWorks"].as_i64(),
            findings["oldKeyAfterRegenerate"].as_i64()
        ),
        (Some(200), Some(401))
    );
    if findings["deliveredInLog"].as_i64().unwrap() < 1 {
        // Everything that says why, for the run that shows it.
        let attempts: Vec<(i32, Option<i32>, Option<String>)> = sqlx::query_as(
            "SELECT attempt, response_status, error FROM webhook_attempts ORDER BY attempt",
        )
        .fetch_all(&app.db.pool)
        .await
        .unwrap();
        panic!(
            "no delivery shows in the log: {}; attempts {attempts:?}; the receiver got {} requests",
            findings["deliveryLog"],
            receiver.requests().len()
        );
    }
    assert_eq!(
        findings["consoleErrors"],
        serde_json::json!([]),
        "pages without console errors"
    );

    // What the browser did, as the database recorded it.
    let fields: Vec<(String, f64, f64, Option<String>)> = sqlx::query_as(
        "SELECT r.email, f.x, f.y, f.value FROM fields f JOIN recipients r ON r.id = f.recipient_id
         JOIN documents d ON d.id = f.document_id WHERE d.title = 'Browser journey' ORDER BY r.email",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(fields.len(), 2);
    assert!(
        fields[0]
            .3
            .as_deref()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "Ann drew her signature"
    );
    assert_eq!(fields[1].3.as_deref(), Some("Bob Typed"));
    // A click on a line puts the field on it (issue #30 item 2): its bottom edge at the click.
    let ann_bottom = findings["annPlaced"]["bottom"].as_f64().unwrap();
    assert!(
        (ann_bottom - 96.0).abs() <= 1.0,
        "{}",
        findings["annPlaced"]
    );
    // Bob's field was dropped at (420, 120) px = (336, 96) pt and dragged down: saved exactly
    // where the page showed it.
    let shown = &findings["bobAfterDrag"];
    let (x, y) = (shown["x"].as_f64().unwrap(), shown["y"].as_f64().unwrap());
    assert!(
        (x - 336.0).abs() <= 1.0 && y > 96.0 + 10.0,
        "the drag moved the field: {shown}"
    );
    assert!(
        (fields[1].1 - x).abs() <= 1.0 && (fields[1].2 - y).abs() <= 1.0,
        "{:?} vs {shown}",
        fields[1]
    );
    assert_eq!(findings["typedPreview"]["text"], "Bob Typed", "{findings}");
    // The value on the page is the stamp's size (issue #30 item 2), not a fixed small font.
    let on_page = &findings["typedOnPage"];
    let (size, box_height) = (
        on_page["fontSize"].as_f64().unwrap(),
        on_page["boxHeight"].as_f64().unwrap(),
    );
    assert!(
        size <= 0.7 * box_height + 0.5 && size >= 0.5 * box_height,
        "{on_page}"
    );
    assert!(
        findings["typedPreview"]["font"]
            .as_str()
            .unwrap()
            .contains("Signet Text"),
        "{findings}"
    );
    // Reopened, the placement page showed both saved fields; Ann's was resized from 200 × 50 by
    // dragging its corner, and saved at the size the page showed.
    assert_eq!(findings["savedFieldsShown"], 2, "{findings}");
    let resized = &findings["annAfterResize"];
    let (width, height) = (
        resized["width"].as_f64().unwrap(),
        resized["height"].as_f64().unwrap(),
    );
    assert!(
        (width - 240.0).abs() <= 2.0 && (height - 70.0).abs() <= 2.0,
        "the corner drag resized the field: {resized}"
    );
    let ann: (f64, f64) = sqlx::query_as(
        "SELECT f.width, f.height FROM fields f JOIN recipients r ON r.id = f.recipient_id
         JOIN documents d ON d.id = f.document_id
         WHERE d.title = 'Browser journey' AND r.email = 'ann@signet.test'",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert!(
        (ann.0 - width).abs() <= 0.01 && (ann.1 - height).abs() <= 0.01,
        "{ann:?} vs {resized}"
    );
    for shot in [
        "01-sign-in",
        "02-place-fields",
        "04-signing-page-phone",
        "05-document-completed",
        "06-api-settings",
    ] {
        assert!(shots.join(format!("{shot}.png")).exists(), "{shot}");
    }
}

/// Issue #32 item 5: a template made from a PDF is given roles and fields on the placement page
/// in a real browser, by clicks and a drag, with a label and a read-only mark typed in its
/// list; a blank role name is refused on the page, named, and nothing saved until it is fixed.
#[tokio::test]
async fn a_template_s_roles_and_fields_are_placed_in_a_browser() {
    let app = TestApp::spawn().await;
    let password = "a long browser password";
    let (account, email) = app.console_account(password).await;
    let key = signet_common::store::api_keys::generate(&app.db.pool, account.into())
        .await
        .unwrap()
        .key;
    let template =
        crate::template_editing::template_from_pdf(&app, &key, Some("Browser template")).await;
    let shots = screenshots_dir();
    let findings = BrowserScript::new("template-placement.mjs")
        .env("BASE", &app.base)
        .env("EMAIL", &email)
        .env("PASSWORD", password)
        .env(
            "TEMPLATE_URL",
            format!("{}/app/templates/{template}", app.base),
        )
        .env("SHOTS", &shots)
        .findings()
        .await;
    assert!(
        findings.get("error").is_none(),
        "the template placement failed: {}\n{findings}",
        findings["error"]
    );
    assert_eq!(
        findings["consoleErrors"],
        serde_json::json!([]),
        "{findings}"
    );
    assert_eq!(
        findings["refusedLoads"].as_array().map(Vec::len),
        Some(1),
        "{findings}"
    );
    assert!(
        findings["nextStep"]
            .as_str()
            .unwrap()
            .contains("give the template its roles and fields"),
        "{findings}"
    );
    assert_eq!(
        findings["roleChoices"],
        serde_json::json!(["Tenant", "(no name)"]),
        "{findings}"
    );
    assert_eq!(
        findings["readOnlyBoxes"], 1,
        "only the TEXT field: {findings}"
    );
    assert_eq!(findings["rowsAfterRemove"], 3, "{findings}");
    let refusal = findings["refusal"].as_str().unwrap();
    assert!(
        refusal.contains("Role 2, name: a role's name has 1 to 100 characters"),
        "{findings}"
    );
    assert_eq!(findings["urlAfterRefusal"], findings["placementUrl"]);
    assert!(
        findings["renamedBox"]
            .as_str()
            .unwrap()
            .contains("Landlord"),
        "the field's box follows its role's new name: {findings}"
    );
    assert!(
        findings["afterSave"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/app/templates/{template}")),
        "{findings}"
    );
    assert!(
        findings["templatePage"]
            .as_str()
            .unwrap()
            .contains("Landlord.signature.1"),
        "{findings}"
    );

    // What the page saved, as the API shows it.
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let roles = &detail["data"]["roles"];
    assert_eq!(
        (
            roles[0]["name"].as_str(),
            roles[0]["role"].as_str(),
            roles[0]["signingOrder"].as_i64()
        ),
        (Some("Tenant"), Some("SIGNER"), Some(1)),
        "{detail}"
    );
    let tenant = roles[0]["fields"].as_array().unwrap();
    assert_eq!(tenant.len(), 2, "{detail}");
    assert_eq!(
        (tenant[0]["label"].as_str(), tenant[0]["type"].as_str()),
        (Some("Tenant.signature.1"), Some("SIGNATURE"))
    );
    // The click's point is the field's bottom edge: 120 px down at 1.25 px per point.
    let bottom = tenant[0]["y"].as_f64().unwrap() + tenant[0]["height"].as_f64().unwrap();
    assert!((bottom - 96.0).abs() <= 1.0, "{detail}");
    assert_eq!(
        (
            tenant[1]["label"].as_str(),
            tenant[1]["type"].as_str(),
            tenant[1]["readOnly"].as_bool()
        ),
        (Some("Rent"), Some("TEXT"), Some(true))
    );
    assert_eq!(roles[1]["name"], "Landlord", "{detail}");
    let landlord = &roles[1]["fields"][0];
    assert_eq!(landlord["label"], "Landlord.signature.1");
    let dragged = &findings["draggedTo"];
    assert!(
        (landlord["x"].as_f64().unwrap() - dragged["x"].as_f64().unwrap()).abs() <= 0.01
            && (landlord["y"].as_f64().unwrap() - dragged["y"].as_f64().unwrap()).abs() <= 0.01
            && dragged["y"].as_f64().unwrap() > 96.0,
        "saved where the page showed it after the drag: {landlord} vs {dragged}"
    );
    assert!(shots.join("template-placement.png").exists());
}
