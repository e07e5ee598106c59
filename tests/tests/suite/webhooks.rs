//! Webhooks end to end: a real HTTP receiver on loopback, the real worker binary.

use std::{process::Command, time::Duration};

use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::Value;
use signet_common::store::accounts::{self, AccountUpdate};
use signet_tests::{
    Mailbox, Received, Receiver, TestApp, WorkerProcess, binary, eventually, poll_until,
};
use uuid::Uuid;

use crate::signing_flow::{invitations, send_document, sign, wait_for_status};

/// Checks a Standard Webhooks signature the way a receiver would, without the project's code.
pub(crate) fn verify(secret: &str, request: &Received) -> bool {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.trim_start_matches("whsec_"))
        .unwrap();
    let signed = format!(
        "{}.{}.{}",
        request.headers["webhook-id"], request.headers["webhook-timestamp"], request.body
    );
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(signed.as_bytes());
    let expected = format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    );
    request.headers["webhook-signature"]
        .split(' ')
        .any(|s| s == expected)
}

pub(crate) async fn account_with_webhook(app: &TestApp, url: &str) -> (Uuid, String, String) {
    let (account, key) = app.account(10_000).await;
    let updated = accounts::update(
        &app.db.pool,
        account.into(),
        &AccountUpdate {
            usage_limit: None,
            webhook_url: Some(Some(url.to_owned())),
        },
    )
    .await
    .unwrap();
    (account, key, updated.webhook_secret)
}

fn worker(app: &TestApp, smtp: &str, schedule: &str) -> WorkerProcess {
    WorkerProcess::start(
        app,
        smtp,
        &[
            ("WEBHOOK_ALLOW_PRIVATE", "true"),
            ("WEBHOOK_RETRY_SCHEDULE", schedule),
        ],
    )
}

/// The deliveries once none is still PENDING (each DELIVERED, or FAILED for good): nothing more
/// is sent for them after that, so what a receiver got by then is all it gets.
async fn settled(app: &TestApp) -> Vec<(String, String, i32, Option<i32>)> {
    eventually(
        "every webhook delivery settled",
        Duration::from_secs(60),
        || async {
            let all = deliveries(app).await;
            (!all.is_empty() && all.iter().all(|(_, status, _, _)| status != "PENDING"))
                .then_some(all)
        },
    )
    .await
}

async fn deliveries(app: &TestApp) -> Vec<(String, String, i32, Option<i32>)> {
    sqlx::query_as("SELECT event_type, status, attempt, response_status FROM webhook_deliveries ORDER BY created_at")
        .fetch_all(&app.db.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_completed_document_is_announced_signed_with_its_detail() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, secret) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = worker(&app, &mailbox.url(), "1,1,1");
    let doc = send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let links = invitations(&mailbox, 1).await;
    assert_eq!(
        sign(&app, &links["ann@signet.test"], &["Ann Example"])
            .await
            .0,
        200
    );
    wait_for_status(&app, &key, doc, "COMPLETED").await;

    let events = receiver
        .wait_for(4, Duration::from_secs(30), |_| true)
        .await;
    let mut types: Vec<String> = events.iter().map(Received::event_type).collect();
    types.sort();
    assert_eq!(
        types,
        [
            "document.completed",
            "document.sent",
            "document.signed",
            "document.viewed"
        ]
    );
    let completed = events
        .iter()
        .find(|e| e.event_type() == "document.completed")
        .unwrap();
    assert!(
        verify(&secret, completed),
        "the signature verifies with the account's secret"
    );
    assert_eq!(completed.headers["content-type"], "application/json");
    assert!(completed.headers["user-agent"].starts_with("Signet-Webhooks/"));
    assert!(completed.headers["webhook-id"].starts_with("msg_"));
    let age = chrono::Utc::now().timestamp()
        - completed.headers["webhook-timestamp"]
            .parse::<i64>()
            .unwrap();
    assert!((0..60).contains(&age));
    assert_eq!(completed.path, "/hooks");

    let body: Value = serde_json::from_str(&completed.body).unwrap();
    let mut detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
    let mut data = body["data"].clone();
    // filePath is a fresh signed link in each; everything else is the detail, exactly.
    for link in [&mut detail["filePath"], &mut data["filePath"]] {
        assert!(
            link.as_str()
                .unwrap()
                .contains(&format!("/files/{doc}?expires="))
        );
        *link = Value::Null;
    }
    assert_eq!(data, detail);
    assert_eq!(body["data"]["status"], "COMPLETED");
    assert!(body["timestamp"].as_str().unwrap().ends_with('Z'));
    let final_pdf = reqwest::get(body["data"]["filePath"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(final_pdf.status(), 200, "the payload's file link works");
    // A tampered body does not verify.
    let mut forged = completed.clone();
    forged.body = forged.body.replace("COMPLETED", "DECLINED");
    assert!(!verify(&secret, &forged));
}

#[tokio::test]
async fn failures_are_retried_with_one_webhook_id_until_delivered() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    receiver.respond_with(&[500, 500, 200]);
    let mailbox = Mailbox::start().await;
    let (account, key, secret) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = worker(&app, &mailbox.url(), "1,1,1");
    send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let attempts = receiver
        .wait_for(3, Duration::from_secs(30), |_| true)
        .await;
    assert_eq!(attempts.len(), 3);
    let ids: std::collections::HashSet<&str> = attempts
        .iter()
        .map(|a| a.headers["webhook-id"].as_str())
        .collect();
    assert_eq!(ids.len(), 1, "one webhook-id across retries");
    assert!(attempts.iter().all(|a| verify(&secret, a)));
    assert_eq!(
        settled(&app).await,
        [("document.sent".into(), "DELIVERED".into(), 3, Some(200))]
    );
    let logged: Vec<(i32, Option<i32>, Option<String>)> = sqlx::query_as(
        "SELECT attempt, response_status, response_body FROM webhook_attempts ORDER BY attempt",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        logged,
        [
            (1, Some(500), Some("answered 500".into())),
            (2, Some(500), Some("answered 500".into())),
            (3, Some(200), Some("answered 200".into()))
        ]
    );
}

#[tokio::test]
async fn gone_stops_a_redirect_fails_and_replay_tries_again() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    receiver.respond_with(&[410]);
    let mailbox = Mailbox::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = worker(&app, &mailbox.url(), "1");
    send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    receiver
        .wait_for(1, Duration::from_secs(30), |_| true)
        .await;
    assert_eq!(
        settled(&app).await,
        [("document.sent".into(), "FAILED".into(), 1, Some(410))]
    );
    assert_eq!(receiver.requests().len(), 1, "410 Gone stops the retries");

    // The operator lists failed deliveries and replays one: same webhook-id, delivered now.
    let cli = |args: &[&str]| {
        let out = Command::new(binary("signet-api"))
            .args(args)
            .env("DATABASE_URL", app.db.url())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let listed = cli(&[
        "webhook",
        "deliveries",
        "--account",
        &account.to_string(),
        "--status",
        "failed",
    ]);
    let lines: Vec<Value> = listed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    // Piped into a reader that has gone (`| head`), the listing stops quietly: no panic.
    let (reader, closed) = std::io::pipe().unwrap();
    drop(reader);
    let piped = Command::new(binary("signet-api"))
        .args(["webhook", "deliveries", "--account", &account.to_string()])
        .env("DATABASE_URL", app.db.url())
        .stdout(closed)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        piped.status.success() && !stderr.contains("panicked"),
        "{:?}: {stderr}",
        piped.status
    );
    assert_eq!(
        (
            lines[0]["eventType"].as_str(),
            lines[0]["responseStatus"].as_i64()
        ),
        (Some("document.sent"), Some(410))
    );
    assert!(
        cli(&[
            "webhook",
            "deliveries",
            "--account",
            &account.to_string(),
            "--status",
            "delivered"
        ])
        .is_empty()
    );
    let replayed: Value = serde_json::from_str(&cli(&[
        "webhook",
        "replay",
        "--delivery",
        lines[0]["id"].as_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(replayed["queued"], true);
    let both = receiver
        .wait_for(2, Duration::from_secs(30), |_| true)
        .await;
    assert_eq!(both[0].headers["webhook-id"], both[1].headers["webhook-id"]);
    assert_eq!(
        settled(&app).await,
        [("document.sent".into(), "DELIVERED".into(), 2, Some(200))]
    );

    // A redirect is a failure and is not followed.
    receiver.respond_with(&[302, 302]);
    send_document(
        &app,
        account,
        &key,
        &[("bob@signet.test", "SIGNER")],
        &[("bob@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let hits = receiver
        .wait_for(4, Duration::from_secs(30), |_| true)
        .await;
    assert_eq!(hits.len(), 4);
    let last = settled(&app).await.pop().unwrap();
    assert!(
        receiver.requests().iter().all(|r| r.path == "/hooks"),
        "the Location was never followed"
    );
    assert_eq!(
        last,
        ("document.sent".into(), "FAILED".into(), 2, Some(302))
    );
}

#[tokio::test]
async fn every_event_arrives_when_the_receiver_comes_back() {
    let app = TestApp::spawn().await;
    let port = signet_tests::free_port();
    let mailbox = Mailbox::start().await;
    let url = format!("http://127.0.0.1:{port}/hooks");
    let (account, key, secret) = account_with_webhook(&app, &url).await;
    // Retries every 2 s for far longer than the scenario takes on any machine, so that no
    // delivery gives up before the receiver is back: what is tested is that none is lost.
    let schedule = vec!["2"; 600].join(",");
    let _worker = worker(&app, &mailbox.url(), &schedule);
    let mut documents = Vec::new();
    for i in 0..100 {
        let email = format!("s{i}@signet.test");
        documents.push(
            send_document(
                &app,
                account,
                &key,
                &[(email.as_str(), "SIGNER")],
                &[(email.as_str(), "SIGNATURE")],
                "2099-01-01T00:00:00Z",
            )
            .await,
        );
    }
    let links = invitations(&mailbox, 100).await;
    for (email, link) in &links {
        assert_eq!(sign(&app, link, &[email.as_str()]).await.0, 200);
    }
    for doc in &documents {
        wait_for_status(&app, &key, *doc, "COMPLETED").await;
    }
    let failed_attempts: i64 =
        sqlx::query_scalar("SELECT count(*) FROM webhook_attempts WHERE response_status IS NULL")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert!(
        failed_attempts > 0,
        "the receiver was down while the documents completed"
    );

    let receiver = Receiver::start_on(port).await;
    let completed = receiver
        .wait_for(100, Duration::from_secs(180), |r| {
            r.event_type() == "document.completed"
        })
        .await;
    let ids: std::collections::HashSet<String> = completed
        .iter()
        .map(|r| r.headers["webhook-id"].clone())
        .collect();
    assert_eq!(ids.len(), 100, "every document.completed arrives");
    assert!(completed.iter().all(|r| verify(&secret, r)));
    let all = receiver
        .wait_for(400, Duration::from_secs(180), |_| true)
        .await;
    let distinct: std::collections::HashSet<&str> = all
        .iter()
        .map(|r| r.headers["webhook-id"].as_str())
        .collect();
    assert_eq!(
        distinct.len(),
        400,
        "sent, viewed, signed and completed for each of the 100 documents"
    );
}

#[tokio::test]
async fn internal_targets_are_refused_when_the_guard_is_on() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    // Set directly (the CLI would refuse it): the worker must refuse it at delivery too.
    let (account, key, _) =
        account_with_webhook(&app, &format!("http://localhost:{}/hooks", receiver.port)).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_RETRY_SCHEDULE", "1")]);
    send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let errors: Vec<Option<String>> = poll_until(
        Duration::from_secs(20),
        || async {
            sqlx::query_scalar("SELECT error FROM webhook_attempts ORDER BY attempt")
                .fetch_all(&app.db.pool)
                .await
                .unwrap()
        },
        |errors: &Vec<Option<String>>| errors.len() >= 2,
    )
    .await;
    assert_eq!(errors.len(), 2, "two attempts, both refused");
    let errors: Vec<String> = errors.into_iter().map(Option::unwrap).collect();
    assert!(
        errors.iter().all(|e| e.contains("internal address")),
        "{errors:?}"
    );
    assert!(receiver.requests().is_empty(), "nothing was dialled");
    assert_eq!(settled(&app).await[0].1, "FAILED");

    // The operator command refuses such URLs, with the reason; the development switch allows them.
    for url in [
        "http://127.0.0.1:9/x",
        "http://[::1]/x",
        "http://169.254.169.254/latest",
        "http://localhost/x",
        "http://[::ffff:10.0.0.1]/",
    ] {
        let out = Command::new(binary("signet-api"))
            .args([
                "account",
                "update",
                "--id",
                &account.to_string(),
                "--webhook-url",
                url,
            ])
            .env("DATABASE_URL", app.db.url())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{url}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("internal address") && stderr.contains("WEBHOOK_ALLOW_PRIVATE"),
            "{url}: {stderr}"
        );
    }
    let out = Command::new(binary("signet-api"))
        .args([
            "account",
            "update",
            "--id",
            &account.to_string(),
            "--webhook-url",
            "http://127.0.0.1:9/x",
        ])
        .env("DATABASE_URL", app.db.url())
        .env("WEBHOOK_ALLOW_PRIVATE", "true")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
