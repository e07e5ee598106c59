//! Throttled reminders (issue #29): at most one reminder per signer per
//! REMINDER_MIN_INTERVAL_HOURS whoever asks (the API, the console, the CLI, the sweep), every
//! reminder to a signer with the same link, and the console's e-mail actions counted against
//! the account's usage. Real worker and CLI binaries, a real SMTP server (aiosmtpd).

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, SubsecRound, TimeDelta, Utc};
use futures::future::join_all;
use serde_json::{Value, json};
use signet_tests::{Mailbox, TestApp, WorkerProcess, assert_error, binary};
use uuid::Uuid;

use crate::{
    console::Browser,
    delivery_failures::{BouncingSmtp, recipient_where},
    sender_workflow::{
        WAIT, audit_messages, draft, link_in, make_due, next_reminders, queued, send, sweeps_pass,
        wait_for_invitation,
    },
    signing_flow::{session, sign},
};

const NO_THROTTLE: (&str, &str) = ("REMINDER_MIN_INTERVAL_HOURS", "0");
const SWEEP_EVERY_SECOND: (&str, &str) = ("EXPIRY_SWEEP_CRON", "* * * * * *");

async fn last_reminded(app: &TestApp, doc: Uuid) -> HashMap<String, Option<DateTime<Utc>>> {
    sqlx::query_as::<_, (String, Option<DateTime<Utc>>)>(
        "SELECT email, last_reminded_at FROM recipients WHERE document_id = $1",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
    .into_iter()
    .collect()
}

/// Moves the signer's last reminder back, as the passing of hours would.
async fn reminded_hours_ago(app: &TestApp, doc: Uuid, email: &str, hours: i32) {
    sqlx::query(
        "UPDATE recipients SET last_reminded_at = now() - make_interval(hours => $3)
         WHERE document_id = $1 AND email = $2",
    )
    .bind(doc)
    .bind(email)
    .bind(hours)
    .execute(&app.db.pool)
    .await
    .unwrap();
}

async fn signing_links(app: &TestApp, doc: Uuid) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM signing_links l JOIN recipients r ON r.id = l.recipient_id
         WHERE r.document_id = $1",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}

/// When a signer reminded `at` may be reminded again under the default 24 hours, to the
/// second (rounded up), as the refusal says it.
fn next_allowed(at: DateTime<Utc>) -> DateTime<Utc> {
    let next = at + TimeDelta::hours(24);
    let whole = DateTime::from_timestamp(next.timestamp(), 0).unwrap();
    if whole == next {
        whole
    } else {
        whole + TimeDelta::seconds(1)
    }
}

fn refusal(next: DateTime<Utc>) -> String {
    format!(
        "Signers were reminded less than 24 hours ago; the next reminder can be sent after {}",
        next.to_rfc3339_opts(SecondsFormat::Secs, true)
    )
}

#[tokio::test]
async fn a_second_reminder_within_the_interval_is_refused_by_the_api_the_console_and_the_cli() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(10_000).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let people = [
        ("ann@signet.test", "SIGNER", None),
        ("ben@signet.test", "SIGNER", None),
    ];
    let doc = draft(&app, account, &key, &people).await;
    send(&app, &key, doc, json!({})).await;
    wait_for_invitation(&mailbox, "ann@signet.test").await;
    wait_for_invitation(&mailbox, "ben@signet.test").await;

    // Eight reminders at once: the document's row lock lets exactly one through.
    let path = format!("/documents/{doc}/remind");
    let empty = json!({});
    let answers = join_all((0..8).map(|_| app.post(&path, &key, &empty))).await;
    let accepted: Vec<&Value> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| body)
        .collect();
    assert_eq!(accepted.len(), 1, "{answers:#?}");
    assert_eq!(
        accepted[0]["data"],
        json!({"reminded": ["ann@signet.test", "ben@signet.test"], "skipped": []})
    );
    let reminded = last_reminded(&app, doc).await;
    let first = reminded.values().map(|at| at.unwrap()).min().unwrap();
    let expected = refusal(next_allowed(first));
    for (status, body) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_error(&(*status, body.clone()), 400, "ERROR", &expected);
    }
    mailbox
        .wait_for(2, WAIT, |m| m.subject.starts_with("Reminder:"))
        .await;
    let trail = audit_messages(&app, &key, doc).await;
    let links = signing_links(&app, doc).await;

    // Again from the API, the console and the CLI: refused, with when; nothing changes.
    assert_error(
        &app.post(&path, &key, &json!({})).await,
        400,
        "ERROR",
        &expected,
    );
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    let refused = browser
        .post(
            &format!("/app/documents/{doc}/remind"),
            &[("csrf", &page.csrf())],
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.body.contains(&expected), "{}", refused.body);
    assert!(refused.body.contains("Last reminded"), "{}", refused.body);
    let output = tokio::process::Command::new(binary("signet-api"))
        .args(["document", "remind", "--account", &account.to_string()])
        .args(["--id", &doc.to_string()])
        .env("DATABASE_URL", app.db.url())
        .env("RUST_LOG", "error")
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains(&expected), "{stderr}");

    assert_eq!(
        queued(&app, doc, "REMINDER").await,
        ["ann@signet.test", "ben@signet.test"],
        "no e-mail"
    );
    assert_eq!(
        audit_messages(&app, &key, doc).await,
        trail,
        "no audit entry"
    );
    assert_eq!(signing_links(&app, doc).await, links, "no new link");
    assert_eq!(last_reminded(&app, doc).await, reminded);
}

#[tokio::test]
async fn signers_reminded_recently_are_skipped_and_named_and_the_sweep_waits_for_them() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(10_000).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[SWEEP_EVERY_SECOND]);
    let people = [
        ("ann@signet.test", "SIGNER", None),
        ("ben@signet.test", "SIGNER", None),
    ];
    let doc = draft(&app, account, &key, &people).await;
    send(&app, &key, doc, json!({})).await;
    let path = format!("/documents/{doc}/remind");
    let (status, body) = app.post(&path, &key, &json!({})).await;
    assert_eq!(status, 200, "{body}");

    // A day later for Ann only: she is reminded, Ben is skipped and named, with when.
    reminded_hours_ago(&app, doc, "ann@signet.test", 25).await;
    let ben_reminded = last_reminded(&app, doc).await["ben@signet.test"].unwrap();
    let (status, body) = app.post(&path, &key, &json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["reminded"], json!(["ann@signet.test"]));
    let skipped = body["data"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{body}");
    assert_eq!(skipped[0]["email"], "ben@signet.test");
    let at = |field: &str| {
        skipped[0][field]
            .as_str()
            .unwrap()
            .parse::<DateTime<Utc>>()
            .unwrap()
    };
    assert_eq!(at("remindedAt"), ben_reminded.trunc_subsecs(3), "{body}");
    assert_eq!(at("nextReminderAfter"), next_allowed(ben_reminded));
    assert_eq!(
        queued(&app, doc, "REMINDER").await,
        ["ann@signet.test", "ann@signet.test", "ben@signet.test"]
    );
    let reminders_in_trail = audit_messages(&app, &key, doc)
        .await
        .into_iter()
        .filter(|(_, message)| message.starts_with("Reminder sent to "))
        .count();
    assert_eq!(reminders_in_trail, 3);

    // The schedule's reminders fall due now: the sweep sends none, moving each to the end of
    // its signer's interval.
    make_due(&app, doc, &["ann@signet.test", "ben@signet.test"]).await;
    sweeps_pass(&app).await;
    assert_eq!(queued(&app, doc, "REMINDER").await.len(), 3);
    let next = next_reminders(&app, doc).await;
    for (email, last) in last_reminded(&app, doc).await {
        assert_eq!(next[&email], Some(last.unwrap() + TimeDelta::hours(24)));
    }

    // Once Ben's interval has passed, his deferred reminder goes.
    reminded_hours_ago(&app, doc, "ben@signet.test", 25).await;
    make_due(&app, doc, &["ben@signet.test"]).await;
    sweeps_pass(&app).await;
    assert_eq!(
        queued(&app, doc, "REMINDER").await,
        [
            "ann@signet.test",
            "ann@signet.test",
            "ben@signet.test",
            "ben@signet.test"
        ]
    );
}

#[tokio::test]
async fn every_reminder_to_a_signer_carries_the_same_working_link() {
    let app = TestApp::spawn_with(&[NO_THROTTLE]).await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(10_000).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[NO_THROTTLE, SWEEP_EVERY_SECOND]);
    let doc = draft(&app, account, &key, &[("ann@signet.test", "SIGNER", None)]).await;
    send(&app, &key, doc, json!({})).await;
    let invitation = wait_for_invitation(&mailbox, "ann@signet.test").await;

    // Two from the API, one from the CLI, one from the worker's sweep.
    let path = format!("/documents/{doc}/remind");
    for _ in 0..2 {
        let (status, body) = app.post(&path, &key, &json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    let output = tokio::process::Command::new(binary("signet-api"))
        .args(["document", "remind", "--account", &account.to_string()])
        .args(["--id", &doc.to_string()])
        .env("DATABASE_URL", app.db.url())
        .env("FILE_URL_SECRET", "test-file-url-secret-0123456789abcdef")
        .env(NO_THROTTLE.0, NO_THROTTLE.1)
        .env("RUST_LOG", "error")
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        printed,
        json!({"reminded": ["ann@signet.test"], "skipped": []})
    );
    make_due(&app, doc, &["ann@signet.test"]).await;

    let reminders = mailbox
        .wait_for(4, WAIT, |m| m.subject.starts_with("Reminder:"))
        .await;
    let links: Vec<String> = reminders.iter().map(link_in).collect();
    assert_eq!(links.len(), 4, "{reminders:#?}");
    assert!(links.iter().all(|link| *link == links[0]), "{links:#?}");
    assert_ne!(
        links[0], invitation,
        "the reminder link is not the invitation's"
    );
    assert_eq!(signing_links(&app, doc).await, 1, "one reminder link");

    // The link works, and so does the invitation's.
    assert_eq!(session(&app, &invitation).await["canSign"], true);
    assert_eq!(sign(&app, &links[0], &["Ann Example"]).await.0, 200);
}

#[tokio::test]
async fn the_consoles_e_mail_actions_count_against_the_accounts_usage() {
    let app = TestApp::spawn_with(&[NO_THROTTLE]).await;
    let (account, key) = app.account(10_000).await;
    let doc = draft(&app, account, &key, &[("ann@signet.test", "SIGNER", None)]).await;
    send(&app, &key, doc, json!({})).await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    let csrf = page.csrf();
    // Two actions left in the window.
    sqlx::query("UPDATE accounts SET api_usage_limit = api_usage_count + 2 WHERE id = $1")
        .bind(account)
        .execute(&app.db.pool)
        .await
        .unwrap();

    let remind = format!("/app/documents/{doc}/remind");
    for _ in 0..2 {
        let done = browser.post(&remind, &[("csrf", &csrf)]).await;
        assert_eq!(done.status, 303, "{}", done.body);
    }
    let limited = browser.post(&remind, &[("csrf", &csrf)]).await;
    assert_eq!(limited.status, 429, "{}", limited.body);
    assert!(
        limited
            .body
            .contains("API rate limit exceeded; try again in"),
        "{}",
        limited.body
    );
    assert_eq!(queued(&app, doc, "REMINDER").await.len(), 2);
    // The same count as the API's: its requests are refused too.
    let (status, _) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(status, 429);
    // Cancelling sends e-mail too: refused, the document stays SENT.
    let cancel = browser
        .post(
            &format!("/app/documents/{doc}/cancel"),
            &[("csrf", &csrf), ("reason", "")],
        )
        .await;
    assert_eq!(cancel.status, 429, "{}", cancel.body);
    let status: String = sqlx::query_scalar("SELECT status FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(status, "SENT");
}

#[tokio::test]
async fn correcting_a_failed_address_revokes_the_reminder_link_sent_to_it() {
    let app = TestApp::spawn().await;
    let smtp = BouncingSmtp::start().await;
    let (account, key) = app.account(10_000).await;
    let people = [
        ("ann@signet.test", "SIGNER", None),
        ("bounce@signet.test", "SIGNER", None),
    ];
    let doc = draft(&app, account, &key, &people).await;
    send(&app, &key, doc, json!({})).await;

    // Reminded before a worker runs, so before the invitation bounces: the reminder's link
    // is in its outbox row until the e-mail is tried.
    let (status, body) = app
        .post(&format!("/documents/{doc}/remind"), &key, &json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    let token: String = sqlx::query_scalar(
        "SELECT e.link_token FROM outbound_emails e JOIN recipients r ON r.id = e.recipient_id
         WHERE e.document_id = $1 AND e.kind = 'REMINDER' AND r.email = 'bounce@signet.test'",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    let sent_to_old_address = format!("{}/sign/{token}", app.base);
    assert_eq!(session(&app, &sent_to_old_address).await["canSign"], true);

    let _worker = WorkerProcess::start(&app, &smtp.url(), &[]);
    let bounced = recipient_where(&app, &key, doc, "bounce@signet.test", "FAILED").await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    let resend = format!(
        "/app/documents/{doc}/recipients/{}/resend",
        bounced["id"].as_str().unwrap()
    );
    let corrected = browser
        .post(
            &resend,
            &[("csrf", &page.csrf()), ("email", "bob@signet.test")],
        )
        .await;
    assert_eq!(corrected.status, 303, "{}", corrected.body);

    let response = app
        .client
        .get(format!("{sent_to_old_address}/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        404,
        "the old address's reminder link is revoked"
    );
    let bob_links: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM signing_links l JOIN recipients r ON r.id = l.recipient_id
         WHERE r.document_id = $1 AND r.email = 'bob@signet.test'",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(bob_links, 0);
}
