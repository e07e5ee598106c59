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
