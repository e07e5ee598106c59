//! The sender's workflow (issue #21): signing order, reminders, cancel with a reason. Real
//! worker binaries, a real SMTP server (aiosmtpd) and a real webhook receiver.

use std::{collections::HashMap, time::Duration};

use serde_json::{Value, json};
use signet_tests::{
    LETTER, Mail, Mailbox, Received, Receiver, TestApp, WorkerProcess, assert_error, binary,
};
use uuid::Uuid;

use crate::{
    console::Browser,
    signing_flow::{session, sign, wait_for_status},
    webhooks::{account_with_webhook, verify},
};

pub(crate) const WAIT: Duration = Duration::from_secs(120);

/// A DRAFT whose `people` (email, role, signingOrder) each have a SIGNATURE field (the contract
/// asks every recipient to have one; a viewer's is never filled).
pub(crate) async fn draft(
    app: &TestApp,
    account: Uuid,
    key: &str,
    people: &[(&str, &str, Option<i64>)],
) -> Uuid {
    let doc = app
        .document(account, "Share purchase agreement", &[LETTER])
        .await;
    let recipients: Vec<Value> = people
        .iter()
        .map(|(email, role, order)| {
            json!({"name": format!("{} Example", &email[..1].to_uppercase()), "email": email, "role": role, "signingOrder": order})
        })
        .collect();
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            key,
            &json!(recipients),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let fields: Vec<Value> = people
        .iter()
        .enumerate()
        .map(|(i, (email, _, _))| {
            json!({"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 72, "y": 60 + 55 * i, "width": 200, "height": 40})
        })
        .collect();
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), key, &json!(fields))
        .await;
    assert_eq!(status, 200, "{body}");
    doc
}

pub(crate) async fn send(app: &TestApp, key: &str, doc: Uuid, extra: Value) {
    let mut body =
        json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let (status, answer) = app
        .post(&format!("/documents/{doc}/send"), key, &body)
        .await;
    assert_eq!(status, 200, "{answer}");
}

/// The link in a mail that carries one.
pub(crate) fn link_in(mail: &Mail) -> String {
    let at = mail.text.find("/sign/").expect("a signing link");
    let begin = mail.text[..at].rfind("http").unwrap();
    mail.text[begin..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect()
}

/// Invitations delivered so far, by recipient.
fn invitations(mailbox: &Mailbox) -> HashMap<String, Vec<String>> {
    let mut by_recipient: HashMap<String, Vec<String>> = HashMap::new();
    for mail in mailbox.messages() {
        if mail.subject.contains("sent you") {
            by_recipient
                .entry(mail.to.clone())
                .or_default()
                .push(link_in(&mail));
        }
    }
    by_recipient
}

pub(crate) async fn wait_for_invitation(mailbox: &Mailbox, to: &str) -> String {
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.to == to && m.subject.contains("sent you"))
        .await;
    assert_eq!(mails.len(), 1, "one invitation to {to}: {mails:#?}");
    link_in(&mails[0])
}

/// Queued e-mails (the outbox, written in the transaction of the change) of a kind, by recipient.
pub(crate) async fn queued(app: &TestApp, doc: Uuid, kind: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT r.email FROM outbound_emails e JOIN recipients r ON r.id = e.recipient_id
         WHERE e.document_id = $1 AND e.kind = $2 ORDER BY r.email, e.created_at",
    )
    .bind(doc)
    .bind(kind)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

pub(crate) async fn audit_messages(app: &TestApp, key: &str, doc: Uuid) -> Vec<(String, String)> {
    let (status, trail) = app.get(&format!("/documents/{doc}/audit"), key).await;
    assert_eq!(status, 200);
    trail["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_owned(),
                e["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn events_of(receiver: &Receiver, doc: Uuid) -> Vec<(String, Value)> {
    receiver
        .requests()
        .iter()
        .map(|r| {
            (
                r.event_type(),
                serde_json::from_str::<Value>(&r.body).unwrap(),
            )
        })
        .filter(|(_, body)| body["data"]["id"] == doc.to_string())
        .collect()
}

#[tokio::test]
async fn a_three_group_signing_order_invites_group_by_group_and_completes() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, secret) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);

    // Group 1: Ana. Group 2: Bo and Vi (a viewer, invited with her group). Group 3: Dee.
    let doc = draft(
        &app,
        account,
        &key,
        &[
            ("dee@signet.test", "SIGNER", Some(3)),
            ("ana@signet.test", "SIGNER", Some(1)),
            ("bo@signet.test", "SIGNER", Some(2)),
            ("vi@signet.test", "VIEWER", Some(2)),
        ],
    )
    .await;
    send(&app, &key, doc, json!({})).await;

    // The send queued Ana's invitation alone, in its transaction.
    assert_eq!(queued(&app, doc, "INVITATION").await, ["ana@signet.test"]);
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let invited: HashMap<String, bool> = detail["data"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["email"].as_str().unwrap().to_owned(),
                !r["invitedAt"].is_null(),
            )
        })
        .collect();
    assert!(invited["ana@signet.test"]);
    assert!(
        !invited["bo@signet.test"] && !invited["vi@signet.test"] && !invited["dee@signet.test"]
    );
    let ana = wait_for_invitation(&mailbox, "ana@signet.test").await;
    assert_eq!(sign(&app, &ana, &["Ana Example"]).await.0, 200);

    // Ana's signature opened group 2 in its transaction: Bo and Vi, not Dee.
    assert_eq!(
        queued(&app, doc, "INVITATION").await,
        ["ana@signet.test", "bo@signet.test", "vi@signet.test"]
    );
    let bo = wait_for_invitation(&mailbox, "bo@signet.test").await;
    let vi = wait_for_invitation(&mailbox, "vi@signet.test").await;
    assert_eq!(session(&app, &vi).await["canSign"], false, "a viewer views");
    assert_eq!(sign(&app, &bo, &["Bo Example"]).await.0, 200);

    assert_eq!(queued(&app, doc, "INVITATION").await.len(), 4);
    let dee = wait_for_invitation(&mailbox, "dee@signet.test").await;
    assert_eq!(sign(&app, &dee, &["Dee Example"]).await.0, 200);
    wait_for_status(&app, &key, doc, "COMPLETED").await;

    // One invitation each, and everyone got the signed PDF.
    let completed = mailbox
        .wait_for(4, WAIT, |m| m.subject.contains("is complete"))
        .await;
    assert_eq!(completed.len(), 4);
    let delivered = invitations(&mailbox);
    assert_eq!(delivered.len(), 4);
    assert!(
        delivered.values().all(|links| links.len() == 1),
        "{delivered:#?}"
    );

    // The audit trail and the webhooks show each step.
    let trail = audit_messages(&app, &key, doc).await;
    let has = |event: &str, message: &str| trail.iter().any(|(e, m)| e == event && m == message);
    assert!(
        has(
            "SENT",
            "Document sent to 1 recipient; 3 more follow in signing order"
        ),
        "{trail:#?}"
    );
    assert!(
        has(
            "UPDATED",
            "Signing order: group 2 invited: bo@signet.test, vi@signet.test"
        ),
        "{trail:#?}"
    );
    assert!(
        has("UPDATED", "Signing order: group 3 invited: dee@signet.test"),
        "{trail:#?}"
    );
    let order: Vec<&str> = trail.iter().map(|(e, _)| e.as_str()).collect();
    let position = |event: &str, message: &str| {
        trail
            .iter()
            .position(|(e, m)| e == event && m.contains(message))
            .unwrap()
    };
    assert!(position("SIGNED", "ana@") < position("UPDATED", "group 2"));
    assert!(position("UPDATED", "group 2") < position("SIGNED", "bo@"));
    assert!(position("SIGNED", "bo@") < position("UPDATED", "group 3"));
    assert!(position("UPDATED", "group 3") < position("SIGNED", "dee@"));
    assert_eq!(order.last(), Some(&"COMPLETED"));

    receiver
        .wait_for(1, WAIT, |r| r.event_type() == "document.completed")
        .await;
    let events = events_of(&receiver, doc);
    let groups: Vec<Vec<String>> = events
        .iter()
        .filter(|(t, _)| t == "document.group_invited")
        .map(|(_, body)| {
            let mut invited: Vec<String> = body["data"]["recipients"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| !r["invitedAt"].is_null())
                .map(|r| r["email"].as_str().unwrap().to_owned())
                .collect();
            invited.sort();
            invited
        })
        .collect();
    assert_eq!(groups.len(), 2, "{events:#?}");
    assert!(groups.contains(&vec![
        "ana@signet.test".into(),
        "bo@signet.test".into(),
        "vi@signet.test".into()
    ]));
    assert_eq!(groups.iter().map(Vec::len).max(), Some(4));
    assert!(receiver.requests().iter().all(|r| verify(&secret, r)));
    let signing_orders: Vec<Value> = events[0].1["data"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["signingOrder"].clone())
        .collect();
    assert_eq!(signing_orders, [json!(3), json!(1), json!(2), json!(2)]);
}

#[tokio::test]
async fn a_bad_signing_order_is_refused_by_name_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Lease", &[LETTER]).await;
    for bad in [json!(0), json!(1001), json!(1.5), json!("2")] {
        let answer = app
            .post(
                &format!("/documents/{doc}/recipients"),
                &key,
                &json!([{"name": "Zoë", "email": "zoe@signet.test", "role": "SIGNER", "signingOrder": bad}]),
            )
            .await;
        assert_eq!(answer.0, 400, "{bad}: {}", answer.1);
    }
    let answer = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([{"name": "Zoë", "email": "zoe@signet.test", "role": "SIGNER", "signingOrder": 0}]),
        )
        .await;
    assert_eq!(answer.1["errors"][0]["field"], "[0].signingOrder");
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(detail["data"]["recipients"], json!([]));
}

/// Makes every reminder of the document's listed recipients due now, as the passing of days
/// would.
pub(crate) async fn make_due(app: &TestApp, doc: Uuid, emails: &[&str]) {
    sqlx::query(
        "UPDATE recipients SET next_reminder_at = now() - interval '1 second'
         WHERE document_id = $1 AND email = ANY($2)",
    )
    .bind(doc)
    .bind(emails.iter().map(|e| e.to_string()).collect::<Vec<_>>())
    .execute(&app.db.pool)
    .await
    .unwrap();
}

pub(crate) async fn next_reminders(
    app: &TestApp,
    doc: Uuid,
) -> HashMap<String, Option<chrono::DateTime<chrono::Utc>>> {
    sqlx::query_as::<_, (String, Option<chrono::DateTime<chrono::Utc>>)>(
        "SELECT email, next_reminder_at FROM recipients WHERE document_id = $1",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
    .into_iter()
    .collect()
}

/// Waits until sweeps that began after this call have finished: the last finish time moves
/// three times (the first move may be a sweep already under way on either worker).
pub(crate) async fn sweeps_pass(app: &TestApp) {
    let finished = || async {
        sqlx::query_scalar::<_, chrono::DateTime<chrono::Utc>>(
            "SELECT finished_at FROM sweep_runs WHERE sweep = $1",
        )
        .bind(signet_common::store::queues::EXPIRY_SWEEP)
        .fetch_optional(&app.db.pool)
        .await
        .unwrap()
    };
    let last = std::cell::Cell::new(finished().await);
    let moves = std::cell::Cell::new(0);
    signet_tests::eventually(
        "three sweeps to finish (the sweep stopped running)",
        WAIT,
        || async {
            let now = finished().await;
            if now != last.get() {
                moves.set(moves.get() + 1);
                last.set(now);
            }
            (moves.get() >= 3).then_some(())
        },
    )
    .await;
}

#[tokio::test]
async fn reminders_go_once_per_due_time_across_two_workers_and_stop_when_the_document_closes() {
    // Due times come closer together than a day here: no throttle (reminder_throttle.rs has it).
    let no_throttle = ("REMINDER_MIN_INTERVAL_HOURS", "0");
    let app = TestApp::spawn_with(&[no_throttle]).await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(10_000).await;
    let sweep_every_second = [("EXPIRY_SWEEP_CRON", "* * * * * *"), no_throttle];
    let _first = WorkerProcess::start(&app, &mailbox.url(), &sweep_every_second);
    let _second = WorkerProcess::start(&app, &mailbox.url(), &sweep_every_second);

    let doc = draft(
        &app,
        account,
        &key,
        &[
            ("ann@signet.test", "SIGNER", None),
            ("ben@signet.test", "SIGNER", None),
        ],
    )
    .await;
    send(
        &app,
        &key,
        doc,
        json!({"reminders": {"firstAfterDays": 2, "everyDays": 3}}),
    )
    .await;
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["reminders"],
        json!({"firstAfterDays": 2, "everyDays": 3})
    );
    let scheduled = next_reminders(&app, doc).await;
    let invited: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT invited_at FROM recipients WHERE document_id = $1 LIMIT 1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    for next in scheduled.values() {
        assert_eq!(
            *next,
            Some(invited + chrono::Duration::days(2)),
            "the first after two days"
        );
    }
    let ann = wait_for_invitation(&mailbox, "ann@signet.test").await;
    wait_for_invitation(&mailbox, "ben@signet.test").await;

    // The first due time: each signer gets exactly one reminder, though two workers sweep
    // every second; the next is three days after the one that was due.
    make_due(&app, doc, &["ann@signet.test", "ben@signet.test"]).await;
    let reminders = mailbox
        .wait_for(2, WAIT, |m| m.subject.starts_with("Reminder:"))
        .await;
    assert_eq!(reminders.len(), 2);
    sweeps_pass(&app).await;
    assert_eq!(
        queued(&app, doc, "REMINDER").await,
        ["ann@signet.test", "ben@signet.test"]
    );
    for next in next_reminders(&app, doc).await.values() {
        let next = next.expect("a next reminder");
        assert!(
            next > chrono::Utc::now() + chrono::Duration::days(2),
            "{next}"
        );
    }
    // A reminder's link is one of its own (not the invitation's), and works; so does the
    // invitation's.
    let ben_reminder = reminders
        .iter()
        .find(|m| m.to == "ben@signet.test")
        .unwrap();
    assert!(ben_reminder.text.contains("Share purchase agreement"));
    let ben = link_in(ben_reminder);
    assert_eq!(session(&app, &ben).await["canSign"], true);
    assert_eq!(session(&app, &ann).await["canSign"], true);

    // Ben signs through the reminder's link; at the next due time only Ann is reminded.
    assert_eq!(sign(&app, &ben, &["Ben Example"]).await.0, 200);
    make_due(&app, doc, &["ann@signet.test", "ben@signet.test"]).await;
    mailbox
        .wait_for(3, WAIT, |m| m.subject.starts_with("Reminder:"))
        .await;
    sweeps_pass(&app).await;
    assert_eq!(
        queued(&app, doc, "REMINDER").await,
        ["ann@signet.test", "ann@signet.test", "ben@signet.test"]
    );
    assert_eq!(next_reminders(&app, doc).await["ben@signet.test"], None);

    // The owner's reminder, through the API: Ann alone, at once.
    let (status, body) = app
        .post(&format!("/documents/{doc}/remind"), &key, &json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["reminded"], json!(["ann@signet.test"]));
    assert_eq!(queued(&app, doc, "REMINDER").await.len(), 4);

    // Ann signs: COMPLETED. A reminder made due afterwards is dropped by the sweep, unsent.
    assert_eq!(sign(&app, &ann, &["Ann Example"]).await.0, 200);
    wait_for_status(&app, &key, doc, "COMPLETED").await;
    make_due(&app, doc, &["ann@signet.test", "ben@signet.test"]).await;
    sweeps_pass(&app).await;
    assert!(
        next_reminders(&app, doc)
            .await
            .values()
            .all(Option::is_none)
    );
    assert_eq!(queued(&app, doc, "REMINDER").await.len(), 4);
    assert_error(
        &app.post(&format!("/documents/{doc}/remind"), &key, &json!({}))
            .await,
        400,
        "ERROR",
        "Document is COMPLETED; only SENT documents have signers to remind",
    );

    // A cancelled document's due reminder is dropped too.
    let other = draft(&app, account, &key, &[("cal@signet.test", "SIGNER", None)]).await;
    send(&app, &key, other, json!({})).await;
    let (status, _) = app
        .post(&format!("/documents/{other}/cancel"), &key, &json!({}))
        .await;
    assert_eq!(status, 200);
    make_due(&app, other, &["cal@signet.test"]).await;
    sweeps_pass(&app).await;
    assert_eq!(next_reminders(&app, other).await["cal@signet.test"], None);
    assert!(queued(&app, other, "REMINDER").await.is_empty());

    let reminders = mailbox.messages();
    let sent: Vec<&Mail> = reminders
        .iter()
        .filter(|m| m.subject.starts_with("Reminder:"))
        .collect();
    assert_eq!(sent.len(), 4, "{sent:#?}");
}

#[tokio::test]
async fn reminder_settings_on_send_are_checked_and_off_means_none() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = draft(&app, account, &key, &[("ann@signet.test", "SIGNER", None)]).await;
    for (bad, field) in [
        (json!({"firstAfterDays": 0}), "reminders.firstAfterDays"),
        (json!({"firstAfterDays": 366}), "reminders.firstAfterDays"),
        (json!({"everyDays": -1}), "reminders.everyDays"),
    ] {
        let answer = app
            .post(
                &format!("/documents/{doc}/send"),
                &key,
                &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z", "reminders": bad}),
            )
            .await;
        assert_eq!(answer.0, 400, "{bad}");
        assert_eq!(answer.1["errors"][0]["field"], field, "{}", answer.1);
    }
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(detail["data"]["status"], "DRAFT");
    send(&app, &key, doc, json!({"reminders": {"enabled": false}})).await;
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(detail["data"]["reminders"], Value::Null);
    assert_eq!(
        detail["data"]["recipients"][0]["nextReminderAt"],
        Value::Null
    );

    // Without settings: the operator's default (3 and 3 days unless configured).
    let doc = draft(&app, account, &key, &[("ann@signet.test", "SIGNER", None)]).await;
    send(&app, &key, doc, json!({})).await;
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["reminders"],
        json!({"firstAfterDays": 3, "everyDays": 3})
    );
}

fn cancelled_mail<'a>(mails: &'a [Mail], to: &str) -> Option<&'a Mail> {
    mails
        .iter()
        .find(|m| m.to == to && m.subject.contains("was cancelled"))
}

#[tokio::test]
async fn a_document_is_cancelled_with_a_reason_from_the_api_the_console_and_the_cli() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);

    // The API, on a SENT document whose second group was not reached: only those invited hear.
    let by_api = draft(
        &app,
        account,
        &key,
        &[
            ("ana@signet.test", "SIGNER", Some(1)),
            ("bo@signet.test", "SIGNER", Some(2)),
        ],
    )
    .await;
    send(&app, &key, by_api, json!({})).await;
    let ana = wait_for_invitation(&mailbox, "ana@signet.test").await;
    // Bad input is refused by name and changes nothing.
    let refused = app
        .post(
            &format!("/documents/{by_api}/cancel"),
            &key,
            &json!({"reason": "a\u{0}b"}),
        )
        .await;
    assert_eq!(refused.0, 400, "{}", refused.1);
    assert_eq!(refused.1["errors"][0]["field"], "reason");
    let refused = app
        .post(
            &format!("/documents/{by_api}/cancel"),
            &key,
            &json!({"reason": "x".repeat(1001)}),
        )
        .await;
    assert_eq!(refused.0, 400);
    assert_eq!(
        app.get(&format!("/documents/{by_api}"), &key).await.1["data"]["status"],
        "SENT"
    );

    let reason = "Les conditions ont changé — a new version follows, 李雷";
    let (status, body) = app
        .post(
            &format!("/documents/{by_api}/cancel"),
            &key,
            &json!({"reason": format!("  {reason} ")}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Document cancelled successfully");
    assert_eq!(body["data"]["status"], "CANCELLED");
    assert_eq!(body["data"]["cancelReason"], reason);
    assert_eq!(queued(&app, by_api, "CANCELLED").await, ["ana@signet.test"]);
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.subject.contains("was cancelled"))
        .await;
    let told = cancelled_mail(&mails, "ana@signet.test").unwrap();
    assert!(
        told.text.contains(&format!("Reason: {reason}")),
        "{}",
        told.text
    );
    assert_eq!(session(&app, &ana).await["canSign"], false);
    let page = app
        .client
        .get(&ana)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("The sender cancelled this document, giving this reason:")
            && page.contains(reason),
        "the signing page tells why: {page}"
    );
    assert_error(
        &app.post(&format!("/documents/{by_api}/cancel"), &key, &json!({}))
            .await,
        400,
        "ERROR",
        "Document is CANCELLED; only DRAFT or SENT documents can be cancelled",
    );
    let trail = audit_messages(&app, &key, by_api).await;
    assert!(trail.contains(&("UPDATED".into(), format!("Document cancelled: {reason}"))));
    let (_, trash) = app.get("/documents?status=TRASH", &key).await;
    assert!(
        trash["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == by_api.to_string())
    );

    // The console: a confirmation page first, naming who will be told; then the reason.
    let by_console = draft(&app, account, &key, &[("cy@signet.test", "SIGNER", None)]).await;
    send(&app, &key, by_console, json!({})).await;
    wait_for_invitation(&mailbox, "cy@signet.test").await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/documents/{by_console}")).await;
    assert!(
        page.body
            .contains(&format!("href=\"/app/documents/{by_console}/cancel\""))
    );
    let confirm = browser
        .get(&format!("/app/documents/{by_console}/cancel"))
        .await;
    assert_eq!(confirm.status, reqwest::StatusCode::OK);
    assert!(confirm.body.contains("cy@signet.test") && confirm.body.contains("cannot be undone"));
    assert_eq!(
        app.get(&format!("/documents/{by_console}"), &key).await.1["data"]["status"],
        "SENT",
        "asking is not cancelling"
    );
    let csrf = confirm.csrf();
    let done = browser
        .post(
            &format!("/app/documents/{by_console}/cancel"),
            &[("csrf", &csrf), ("reason", "Signed on paper instead")],
        )
        .await;
    assert_eq!(done.status, reqwest::StatusCode::SEE_OTHER);
    let after = browser.get(&format!("/app/documents/{by_console}")).await;
    assert!(
        after
            .body
            .contains("Cancelled because: <bdi>Signed on paper instead</bdi>")
    );
    let mails = mailbox
        .wait_for(2, WAIT, |m| m.subject.contains("was cancelled"))
        .await;
    assert!(
        cancelled_mail(&mails, "cy@signet.test")
            .unwrap()
            .text
            .contains("Reason: Signed on paper instead")
    );

    // The CLI, on a DRAFT: no one was invited, so no one is told; the webhook still goes.
    let by_cli = draft(&app, account, &key, &[("di@signet.test", "SIGNER", None)]).await;
    let output = tokio::process::Command::new(binary("signet-api"))
        .args([
            "document",
            "cancel",
            "--account",
            &account.to_string(),
            "--id",
            &by_cli.to_string(),
        ])
        .args(["--reason", "Duplicate of another draft"])
        .env("DATABASE_URL", app.db.url())
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
    assert_eq!(printed["status"], "CANCELLED");
    let (_, detail) = app.get(&format!("/documents/{by_cli}"), &key).await;
    assert_eq!(detail["data"]["cancelReason"], "Duplicate of another draft");
    assert!(queued(&app, by_cli, "CANCELLED").await.is_empty());

    let cancelled: Vec<Received> = receiver
        .wait_for(3, WAIT, |r| r.event_type() == "document.cancelled")
        .await;
    let reasons: Vec<Value> = cancelled
        .iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).unwrap()["data"]["cancelReason"].clone())
        .collect();
    for expected in [
        reason,
        "Signed on paper instead",
        "Duplicate of another draft",
    ] {
        assert!(reasons.contains(&json!(expected)), "{reasons:#?}");
    }
}
