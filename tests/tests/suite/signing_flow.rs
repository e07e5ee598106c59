//! After send: the real worker binary delivers over a real SMTP server, signers use their
//! links, and the document ends COMPLETED, DECLINED or EXPIRED with every step audited.

use std::{collections::HashMap, process::Command, time::Duration};

use serde_json::{Value, json};
use signet_tests::{
    LETTER, Mail, Mailbox, TestApp, WorkerProcess, assert_error, eventually, poll_until, read,
};
use uuid::Uuid;

const UA: &str = "signet-e2e/1.0";

/// Sends a two-page document to the given recipients (email, role); each gets one field per
/// entry of `fields` (type), stacked on page 1. Returns the document id.
pub(crate) async fn send_document(
    app: &TestApp,
    account: Uuid,
    key: &str,
    recipients: &[(&str, &str)],
    fields: &[(&str, &str)],
    expiry: &str,
) -> Uuid {
    let doc = app
        .document(account, "Master services agreement", &[LETTER, LETTER])
        .await;
    let people: Vec<Value> = recipients
        .iter()
        .map(|(email, role)| json!({"name": name_of(email), "email": email, "role": role}))
        .collect();
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), key, &json!(people))
            .await
            .0,
        200
    );
    let placed: Vec<Value> = fields
        .iter()
        .enumerate()
        .map(|(i, (email, kind))| {
            json!({"recipientEmail": email, "type": kind, "page": 1, "x": 72, "y": 80 + 60 * i, "width": 220, "height": 40})
        })
        .collect();
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), key, &json!(placed))
            .await
            .0,
        200
    );
    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), key, &json!({"message": "Please sign the MSA.", "description": "Countersigned copy follows.", "expiryDate": expiry}))
        .await;
    assert_eq!(status, 200, "{body}");
    doc
}

fn name_of(email: &str) -> String {
    let local = email.split('@').next().unwrap();
    format!("{}{} Example", local[..1].to_uppercase(), &local[1..])
}

/// The signing link in an invitation, checked in both parts.
pub(crate) fn link(mail: &Mail) -> String {
    let start = mail
        .text
        .find("/sign/")
        .expect("invitation has a signing link");
    let begin = mail.text[..start].rfind("http").unwrap();
    let url: String = mail.text[begin..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    assert!(
        mail.html.contains(&url),
        "the HTML part carries the same link"
    );
    url
}

pub(crate) async fn invitations(mailbox: &Mailbox, count: usize) -> HashMap<String, String> {
    let mails = mailbox
        .wait_for(count, Duration::from_secs(120), |m| {
            m.text.contains("/sign/")
        })
        .await;
    assert_eq!(mails.len(), count, "invitations: {mails:#?}");
    mails.iter().map(|m| (m.to.clone(), link(m))).collect()
}

pub(crate) async fn session(app: &TestApp, link: &str) -> Value {
    let response = app
        .client
        .get(format!("{link}/session"))
        .header("user-agent", UA)
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

/// The signer agrees to use electronic records and signatures, as the page's first step.
pub(crate) async fn consent(app: &TestApp, link: &str) {
    let (status, body) = read(
        app.client
            .post(format!("{link}/consent"))
            .header("user-agent", UA)
            .json(&json!({"language": "en"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

pub(crate) async fn sign(app: &TestApp, link: &str, values: &[&str]) -> (u16, Value) {
    let mut opened = session(app, link).await;
    if opened["recipient"]["consentedAt"].is_null() && opened["canSign"] == true {
        consent(app, link).await;
        opened = session(app, link).await;
        assert!(
            opened["recipient"]["consentedAt"].is_string(),
            "the session says when the signer consented: {opened}"
        );
    }
    let fields = opened["fields"].clone();
    let given: Vec<Value> = fields
        .as_array()
        .unwrap()
        .iter()
        .zip(values)
        .map(|(f, v)| json!({"id": f["id"], "value": v}))
        .collect();
    read(
        app.client
            .post(format!("{link}/submit"))
            .header("user-agent", UA)
            .json(&json!({"fields": given}))
            .send()
            .await
            .unwrap(),
    )
    .await
}

pub(crate) async fn wait_for_status(app: &TestApp, key: &str, doc: Uuid, status: &str) -> Value {
    // Up to 120 s: generous for a loaded machine; the wait ends as soon as the status is there.
    eventually(
        format!("document {doc} to become {status}"),
        Duration::from_secs(120),
        || async {
            let detail = app.get(&format!("/documents/{doc}"), key).await.1;
            (detail["data"]["status"] == status).then(|| detail["data"].clone())
        },
    )
    .await
}

async fn audit(app: &TestApp, key: &str, doc: Uuid) -> Vec<Value> {
    app.get(&format!("/documents/{doc}/audit"), key).await.1["data"]
        .as_array()
        .unwrap()
        .clone()
}

pub(crate) fn pdftotext(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils; scripts/test.sh installs it)");
    assert!(out.status.success(), "pdftotext refused the PDF");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn png_data_url() -> String {
    use base64::Engine;
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, 4, 2);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&[0, 0, 128, 255].repeat(8))
            .unwrap();
    }
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

#[tokio::test]
async fn sent_document_is_signed_and_completed_with_a_stamped_pdf() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send_document(
        &app,
        account,
        &key,
        &[
            ("ann@signet.test", "SIGNER"),
            ("bob@signet.test", "SIGNER"),
            ("vic@signet.test", "VIEWER"),
        ],
        &[
            ("ann@signet.test", "SIGNATURE"),
            ("ann@signet.test", "DATE"),
            ("bob@signet.test", "SIGNATURE"),
            ("bob@signet.test", "TEXT"),
            ("vic@signet.test", "TEXT"),
        ],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let links = invitations(&mailbox, 3).await;
    let invitation = mailbox
        .messages()
        .into_iter()
        .find(|m| m.to == "ann@signet.test")
        .unwrap();
    assert!(
        invitation.subject.contains("Master services agreement"),
        "{}",
        invitation.subject
    );
    for expected in [
        "Please sign the MSA.",
        "Countersigned copy follows.",
        // The expiry, written for people (issue #30 item 9).
        "1 Jan 2099, 00:00",
    ] {
        assert!(
            invitation.text.contains(expected) && invitation.html.contains(expected),
            "{expected}"
        );
    }

    // The page a person opens works and records the view.
    let page = app
        .client
        .get(&links["vic@signet.test"])
        .header("user-agent", UA)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    assert!(html.contains("Master services agreement"));
    // Who asks, and their message (issue #49 item 5), as the invitation says it.
    assert!(
        invitation.subject.starts_with("Owner sent you"),
        "{}",
        invitation.subject
    );
    assert!(
        html.contains(r#"<p id="sender">From <bdi>Owner</bdi></p>"#),
        "{html}"
    );
    assert!(html.contains("Please sign the MSA."), "{html}");
    let viewer = session(&app, &links["vic@signet.test"]).await;
    assert_eq!(viewer["document"]["sender"], "Owner", "{viewer}");
    assert_eq!(viewer["document"]["message"], "Please sign the MSA.");
    assert_eq!(
        (
            viewer["recipient"]["status"].as_str(),
            viewer["canSign"].as_bool()
        ),
        (Some("VIEWED"), Some(false))
    );
    session(&app, &links["ann@signet.test"]).await;
    session(&app, &links["bob@signet.test"]).await;
    // A viewer cannot sign.
    assert_error(
        &sign(&app, &links["vic@signet.test"], &["x"]).await,
        400,
        "ERROR",
        "Only signers can sign or decline this document",
    );

    // Signing needs the consent step first.
    let refused = read(
        app.client
            .post(format!("{}/submit", links["ann@signet.test"]))
            .json(&json!({"fields": []}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(
        &refused,
        400,
        "ERROR",
        "Agree to use electronic records and signatures before signing",
    );
    // Ann backdates her DATE field: the server sets the signing date instead.
    assert_eq!(
        sign(
            &app,
            &links["ann@signet.test"],
            &["Ann Example", "1999-12-31"]
        )
        .await
        .0,
        200
    );
    let (date_value, signing_date): (String, String) = sqlx::query_as(
        "SELECT f.value, to_char(r.signed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')
         FROM fields f JOIN recipients r ON r.id = f.recipient_id
         WHERE f.document_id = $1 AND f.type = 'DATE'",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        date_value, signing_date,
        "the DATE field is the signing date"
    );
    assert_error(
        &sign(
            &app,
            &links["ann@signet.test"],
            &["Ann Example", "1999-12-31"],
        )
        .await,
        409,
        "ERROR",
        "You have already signed this document",
    );
    assert_eq!(
        completion_jobs(&app, doc).await,
        0,
        "a signature that leaves a signer waiting queues no completion"
    );
    let png = png_data_url();
    assert_eq!(
        sign(
            &app,
            &links["bob@signet.test"],
            &[&png, "Purchase order 4711"]
        )
        .await
        .0,
        200
    );

    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    assert_eq!(
        completion_jobs(&app, doc).await,
        1,
        "one job renders and seals"
    );
    let statuses: Vec<&str> = detail["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["SIGNED", "SIGNED", "VIEWED"]);

    let trail = audit(&app, &key, doc).await;
    let events: Vec<&str> = trail.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        [
            "CREATED",
            "UPDATED",
            "UPDATED",
            "SENT",
            "VIEWED",
            "VIEWED",
            "VIEWED",
            "SIGNED",
            "SIGNED",
            "COMPLETED"
        ]
    );
    assert_eq!(trail[4]["message"], "Document viewed by vic@signet.test");
    // The consent, given before signing, is part of the SIGNED entry (the event list is fixed).
    let signed = trail[7]["message"].as_str().unwrap();
    assert!(
        signed.starts_with(
            "Document signed by ann@signet.test, who agreed to use electronic records and \
             signatures at "
        ) && signed.ends_with(&format!(" from 127.0.0.1 ({UA})")),
        "{signed}"
    );
    assert_eq!(trail[9]["message"], "All recipients have signed");
    for entry in &trail[4..9] {
        assert_eq!(
            (entry["ipAddress"].as_str(), entry["userAgent"].as_str()),
            (Some("127.0.0.1"), Some(UA))
        );
    }
    assert_eq!(
        trail[9]["userAgent"],
        format!("signet-worker/{}", signet_common::VERSION)
    );

    // The final PDF: original pages plus the certificate, the values stamped in.
    let final_pdf = app
        .client
        .get(detail["filePath"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let inspected = signet_pdf::inspect(&final_pdf).expect("the final PDF opens");
    assert!(
        inspected.pages >= 3,
        "2 original pages + certificate, got {}",
        inspected.pages
    );
    let text = pdftotext(&final_pdf);
    assert!(
        !text.contains("1999-12-31"),
        "the backdated date is not stamped"
    );
    for expected in [
        "Ann Example",
        signing_date.as_str(),
        "Purchase order 4711",
        "Certificate of completion",
        "ann@signet.test",
        "bob@signet.test",
        "vic@signet.test",
        "All recipients have signed",
        // Each signer's consent, with the words they agreed to.
        "Consent to electronic records: agreed",
        "You are asked to sign this document electronically",
    ] {
        assert!(
            text.contains(expected),
            "final PDF lacks {expected:?}:\n{text}"
        );
    }
    let original_sha: String = sqlx::query_scalar("SELECT sha256 FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert!(
        text.contains(&original_sha[..32]),
        "certificate shows the original's SHA-256"
    );
    let (final_sha,): (String,) =
        sqlx::query_as("SELECT final_sha256 FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(
        final_sha,
        signet_common::infra::secrets::sha256_hex(&final_pdf)
    );

    // Completion e-mails to everyone, with a working download link.
    let done = mailbox
        .wait_for(3, Duration::from_secs(30), |m| {
            m.subject.contains("is complete")
        })
        .await;
    assert_eq!(done.len(), 3);
    let download = done[0]
        .text
        .lines()
        .find(|l| l.contains("/files/"))
        .expect("download link")
        .trim()
        .to_owned();
    assert_eq!(
        app.client
            .get(&download)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap(),
        final_pdf
    );

    // The link accepts nothing more.
    assert_error(
        &sign(&app, &links["bob@signet.test"], &["again", "again"]).await,
        409,
        "ERROR",
        "Document is no longer open for signing",
    );
    let (code, out) = audit_verify(&app, doc);
    assert_eq!((code, out["ok"].as_bool()), (0, Some(true)), "{out}");
}

fn audit_verify(app: &TestApp, doc: Uuid) -> (i32, Value) {
    let out = Command::new(signet_tests::binary("signet-api"))
        .args(["audit", "verify", "--document", &doc.to_string()])
        .env("DATABASE_URL", app.db.url())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn a_decline_ends_the_document_and_tells_the_others() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER"), ("bob@signet.test", "SIGNER")],
        &[
            ("ann@signet.test", "SIGNATURE"),
            ("bob@signet.test", "SIGNATURE"),
        ],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let links = invitations(&mailbox, 2).await;
    let response = app
        .client
        .post(format!("{}/decline", links["ann@signet.test"]))
        .header("user-agent", UA)
        .json(&json!({"reason": "Wrong billing address"}))
        .send()
        .await
        .unwrap();
    let (status, body) = read(response).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Document declined successfully"))
    );
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
    assert_eq!(detail["status"], "DECLINED");
    assert_eq!(detail["recipients"][0]["status"], "DECLINED");
    let trail = audit(&app, &key, doc).await;
    let last = trail.last().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["message"].as_str()),
        (
            Some("DECLINED"),
            Some("Document declined by ann@signet.test: Wrong billing address")
        )
    );
    assert_eq!(last["userAgent"], UA);

    let notices = mailbox
        .wait_for(1, Duration::from_secs(30), |m| {
            m.subject.contains("was declined")
        })
        .await;
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].to, "bob@signet.test");
    assert!(notices[0].text.contains("Wrong billing address"));
    assert_error(
        &sign(&app, &links["bob@signet.test"], &["Bob"]).await,
        409,
        "ERROR",
        "Document is no longer open for signing",
    );
    let trash = app.get("/documents?status=TRASH", &key).await.1;
    assert_eq!(trash["data"]["items"][0]["id"], doc.to_string());
    // The page shows the final state.
    let page = app
        .client
        .get(&links["bob@signet.test"])
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("declined"), "{page}");
}

#[tokio::test]
async fn an_unsigned_document_expires() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[("EXPIRY_SWEEP_CRON", "* * * * * *")],
    );
    // Sent with a distant expiry and made due once the invitation is out: an expiry a few
    // seconds ahead could pass before the send (or the invitation) on a busy machine.
    let expiry = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    let doc = send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        &expiry,
    )
    .await;
    let links = invitations(&mailbox, 1).await;
    sqlx::query("UPDATE documents SET expiry_date = now() - interval '1 minute' WHERE id = $1")
        .bind(doc)
        .execute(&app.db.pool)
        .await
        .unwrap();
    wait_for_status(&app, &key, doc, "EXPIRED").await;
    let last = audit(&app, &key, doc).await.last().unwrap().clone();
    assert_eq!(
        (
            last["event"].as_str(),
            last["message"].as_str(),
            last["ipAddress"].as_str()
        ),
        (Some("EXPIRED"), Some("Document expired"), Some("0.0.0.0"))
    );
    assert_error(
        &sign(&app, &links["ann@signet.test"], &["Ann"]).await,
        409,
        "ERROR",
        "Document is no longer open for signing",
    );
    assert_eq!(
        mailbox
            .wait_for(1, Duration::from_secs(30), |m| m
                .subject
                .contains("has expired"))
            .await
            .len(),
        1
    );
}

#[tokio::test]
async fn e_mails_are_retried_until_the_smtp_server_answers() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    // Nothing listens yet on the port the worker is told about.
    let port = signet_tests::free_port();
    let _worker = WorkerProcess::start(
        &app,
        &format!("smtp://127.0.0.1:{port}"),
        &[("EMAIL_RETRY_SCHEDULE", "2,2,2,2,2,2")],
    );
    let doc = send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    // Until the first attempt has failed (on a busy machine it may take a while to come).
    let (attempts, error): (i32, Option<String>) = poll_until(
        Duration::from_secs(60),
        || async {
            sqlx::query_as(
                "SELECT attempts, last_error FROM outbound_emails WHERE document_id = $1",
            )
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap()
        },
        |(attempts, _)| *attempts >= 1,
    )
    .await;
    assert!(
        attempts >= 1 && error.is_some(),
        "the failure is recorded: {attempts} {error:?}"
    );
    let mailbox = Mailbox::start_on(port).await;
    let mails = mailbox.wait_for(1, Duration::from_secs(30), |_| true).await;
    assert_eq!(mails.len(), 1);
    // The worker commits the row after the server accepted the message, so the message can be
    // in the Maildir a moment before the row says SENT.
    let row: (String, Option<String>) = poll_until(
        Duration::from_secs(60),
        || async {
            sqlx::query_as("SELECT status, link_token FROM outbound_emails WHERE document_id = $1")
                .bind(doc)
                .fetch_one(&app.db.pool)
                .await
                .unwrap()
        },
        |row: &(String, Option<String>)| row.0 != "PENDING",
    )
    .await;
    assert_eq!(
        (row.0.as_str(), row.1),
        ("SENT", None),
        "sent, and the clear token is gone"
    );
}

/// Issue #30 item 3: a link scanner or a chat preview fetching the signing page is not a person
/// viewing the document. Fetching the page records nothing; the page's script asks for the
/// session once it has drawn the document, and that records VIEWED, with that client's agent.
#[tokio::test]
async fn fetching_the_page_is_not_viewing_it() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let doc =
        crate::real_names::send_to(&app, account, &key, &[("Ann Lee", "ann@signet.test", "x")])
            .await;
    let link = invitations(&mailbox, 1).await["ann@signet.test"].clone();
    for agent in [
        "Slackbot-LinkExpanding 1.0",
        "Mozilla/5.0 (compatible; SafeLinks scanner)",
    ] {
        let page = app
            .client
            .get(&link)
            .header("user-agent", agent)
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
    }
    let viewed = |trail: &[Value]| trail.iter().filter(|e| e["event"] == "VIEWED").count();
    assert_eq!(
        viewed(&audit(&app, &key, doc).await),
        0,
        "a fetch of the page is no view"
    );
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["recipients"][0]["status"], "PENDING");

    // The console says it in words (issue #30 item 4), as the certificate does.
    let mut console = owners_console(&app, account).await;
    let state = |page: &str| {
        let at = page.find("class=\"state\"").expect("the recipient's state");
        page[at..]
            .split('>')
            .nth(1)
            .unwrap()
            .split('<')
            .next()
            .unwrap()
            .to_owned()
    };
    let page = console.get(&format!("/app/documents/{doc}")).await.body;
    assert!(page.contains("Signer · <span class=\"state\""), "{page}");
    assert_eq!(state(&page), "has not opened the document");

    session(&app, &link).await;
    let trail = audit(&app, &key, doc).await;
    assert_eq!(viewed(&trail), 1);
    let view = trail.iter().find(|e| e["event"] == "VIEWED").unwrap();
    assert_eq!(view["userAgent"], UA, "{view}");
    let page = console.get(&format!("/app/documents/{doc}")).await.body;
    assert_eq!(state(&page), "opened the document; has not signed");
}

/// The console of `account`, signed in.
async fn owners_console(app: &TestApp, account: Uuid) -> crate::security::Console {
    let password = crate::security::PASSWORD;
    let id = signet_common::model::AccountId(account);
    signet_common::flows::sign_in::set_password(&app.db.pool, id, password)
        .await
        .unwrap();
    let email = signet_common::store::accounts::find(&app.db.pool, id)
        .await
        .unwrap()
        .email;
    let mut console = crate::security::Console::new(&app.base);
    assert_eq!(console.sign_in(&email, password).await.status, 303);
    console
}

/// Completion jobs queued for `doc`, done or not.
async fn completion_jobs(app: &TestApp, doc: Uuid) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM apalis.jobs
         WHERE job_type = 'signet.check_completion' AND position($1 in convert_from(job, 'UTF8')) > 0",
    )
    .bind(doc.to_string())
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}
