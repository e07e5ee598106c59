//! Bulk send from a template (issue #32, part 3): rows as CSV or JSON checked whole before
//! anything is stored, made into sent documents by a real `signet-worker --jobs bulk`, whose
//! invitations reach a real SMTP server; progress, cancel, the limit on rows, and
//! `bulk_send.completed` at a real webhook receiver.

use std::{
    collections::{BTreeSet, HashSet},
    time::Duration,
};

use serde_json::{Value, json};
use signet_tests::{Mailbox, Receiver, TestApp, WorkerProcess, described_by, eventually, read};
use uuid::Uuid;

use crate::{
    idempotency::post_with_key,
    sender_workflow::{WAIT, draft},
    webhooks::account_with_webhook,
};

const SEND: &str = "message=Please%20sign&expiryDate=2099-01-01T00:00:00Z";

/// A template of the account with a role per person of `roles` (`(email on the draft, role)`).
pub(crate) async fn template(
    app: &TestApp,
    account: Uuid,
    key: &str,
    roles: &[(&str, &str)],
) -> String {
    let people: Vec<(&str, &str, Option<i64>)> = roles
        .iter()
        .map(|(email, _)| (*email, "SIGNER", None))
        .collect();
    let source = draft(app, account, key, &people).await;
    let names: serde_json::Map<String, Value> = roles
        .iter()
        .map(|(email, role)| ((*email).to_owned(), json!(role)))
        .collect();
    let (status, made) = app
        .post(
            "/templates",
            key,
            &json!({"documentId": source, "title": "Lease", "roles": names}),
        )
        .await;
    assert_eq!(status, 200, "{made}");
    made["data"]["id"].as_str().unwrap().to_owned()
}

/// POSTs `csv` as `text/csv` to the template's bulk sends, with `query`.
pub(crate) async fn post_csv(
    app: &TestApp,
    key: &str,
    template: &str,
    query: &str,
    csv: String,
) -> (u16, Value) {
    let response = app
        .client
        .post(format!(
            "{}/external/api/v1/templates/{template}/bulk-sends?{query}",
            app.base
        ))
        .header("X-API-KEY", key)
        .header("Content-Type", "text/csv; charset=utf-8")
        .body(csv)
        .send()
        .await
        .expect("request");
    read(response).await
}

async fn documents_of(app: &TestApp, account: Uuid) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM documents WHERE account_id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

async fn bulk_sends_of(app: &TestApp, account: Uuid) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM bulk_sends WHERE account_id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

/// The row numbers the `errors` of a refusal name (`rows[17].Tenant.email` → 17).
fn rows_named(answer: &Value) -> BTreeSet<usize> {
    answer["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors: {answer}"))
        .iter()
        .filter_map(|e| {
            let field = e["field"].as_str()?;
            let rest = field.strip_prefix("rows[")?;
            rest[..rest.find(']')?].parse().ok()
        })
        .collect()
}

/// Polls the bulk send until `done` holds; returns its last view.
/// How long a bulk send may take to get somewhere: a thousand documents made and e-mailed take
/// 72 s at a load of 4 on this 2-core machine and more than 120 s at a load of 12 (seen in a
/// full run beside other builds). A safety net for a send that never gets there, under
/// nextest's 5-minute kill; the test ends as soon as the send does.
const PROGRESS_WAIT: Duration = Duration::from_secs(240);

async fn progress_until(
    app: &TestApp,
    key: &str,
    id: &str,
    worker: &WorkerProcess,
    done: impl Fn(&Value) -> bool,
) -> Value {
    eventually(
        described_by(|| format!("the bulk send to get there; worker log:\n{}", worker.log())),
        PROGRESS_WAIT,
        || async {
            let (status, view) = app.get(&format!("/bulk-sends/{id}"), key).await;
            assert_eq!(status, 200, "{view}");
            done(&view["data"]).then_some(view["data"].clone())
        },
    )
    .await
}

#[tokio::test]
async fn a_thousand_rows_are_refused_for_their_bad_rows_then_sent_once_each() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    // Room for the progress polls of a slow machine (one request each 50 ms).
    let (account, key) = app.account(100_000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let before = documents_of(&app, account).await;

    let row = |n: usize| match n {
        17 => format!("Person {n},not-an-address,en"),
        500 => format!(",person{n}@example.com,"),
        873 => format!("\"Person, {n}\",person{n}@example.com,xx"),
        _ => format!("\"Person, {n}\",person{n}@example.com,"),
    };
    let csv = |row: &dyn Fn(usize) -> String| {
        let mut csv = String::from("\u{feff}Tenant.name,Tenant.email,Tenant.language\r\n");
        for n in 1..=1000 {
            csv.push_str(&row(n));
            csv.push_str("\r\n");
        }
        csv
    };
    let (status, answer) = post_csv(&app, &key, &template, SEND, csv(&row)).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "Invalid request body or validation error"
    );
    assert_eq!(
        rows_named(&answer),
        BTreeSet::from([17, 500, 873]),
        "{answer}"
    );
    let errors = answer["errors"].as_array().unwrap();
    let email = errors
        .iter()
        .find(|e| e["field"] == "rows[17].Tenant.email")
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(
        email["reason"].as_str().unwrap().ends_with("(line 18)"),
        "the CSV's line: {email}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e["field"] == "rows[873].Tenant.language"),
        "{answer}"
    );
    assert_eq!(bulk_sends_of(&app, account).await, 0, "nothing stored");

    // Fixed: accepted whole, then made by the workers.
    let fixed = |n: usize| format!("\"Person, {n}\",person{n}@example.com,");
    let (status, accepted) = post_csv(&app, &key, &template, SEND, csv(&fixed)).await;
    assert_eq!(status, 202, "{accepted}");
    assert_eq!(accepted["message"], "Bulk send accepted");
    assert_eq!(accepted["data"]["total"], 1000);
    let id = accepted["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        documents_of(&app, account).await,
        before,
        "made by the workers, not the request"
    );

    let worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "bulk,email"],
        &[
            ("DATABASE_MAX_CONNECTIONS", "10"),
            ("WORKER_EMAIL_CONCURRENCY", "6"),
        ],
    );
    let done = progress_until(&app, &key, &id, &worker, |view| {
        view["status"] == "COMPLETED"
    })
    .await;
    assert_eq!(
        (
            &done["total"],
            &done["created"],
            &done["sent"],
            &done["failed"],
            &done["pending"]
        ),
        (
            &json!(1000),
            &json!(1000),
            &json!(1000),
            &json!(0),
            &json!(0)
        ),
        "{done}"
    );
    assert_eq!(done["templateId"], template.as_str());
    assert!(done["finishedAt"].is_string(), "{done}");
    let sent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM documents WHERE account_id = $1 AND status = 'SENT'",
    )
    .bind(account)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(sent, 1000);
    // Queued in the account's outbox, which workers take round robin by account
    // (`job_kinds::an_accounts_backlog_does_not_hold_back_another_accounts_message`).
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails WHERE account_id = $1 AND kind = 'INVITATION'",
    )
    .bind(account)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(queued, 1000, "every invitation queued");

    let invitations = mailbox
        .wait_for(1000, WAIT, |m| m.subject.contains("sent you"))
        .await;
    assert_eq!(invitations.len(), 1000);
    let everything = mailbox.messages();
    let recipients: HashSet<&str> = everything.iter().map(|m| m.to.as_str()).collect();
    assert_eq!(
        (everything.len(), recipients.len()),
        (1000, 1000),
        "one invitation to each, none twice"
    );
    assert!(recipients.contains("person1000@example.com"));
}

#[tokio::test]
async fn rows_are_checked_without_sending_and_a_cancelled_bulk_send_makes_nothing() {
    let app = TestApp::spawn_with(&[("BULK_SEND_MAX_ROWS", "3")]).await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(1000).await;
    let template = template(
        &app,
        account,
        &key,
        &[
            ("ann@example.com", "Tenant"),
            ("bob@example.com", "Landlord"),
        ],
    )
    .await;
    let path = format!("/templates/{template}/bulk-sends");
    let person = |n: u32| {
        json!({"Tenant.name": format!("Tenant {n}"), "Tenant.email": format!("t{n}@example.com"),
               "Landlord.name": "Lena Landlord", "Landlord.email": "lena@example.com"})
    };
    let before = documents_of(&app, account).await;

    // dryRun: the report, nothing created.
    let body = json!({"rows": [person(1), person(2), person(3)], "dryRun": true,
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, report) = app.post(&path, &key, &body).await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["data"], json!({"valid": true, "rows": 3}));
    assert_eq!(bulk_sends_of(&app, account).await, 0);
    assert_eq!(documents_of(&app, account).await, before);

    // An unknown column, the same e-mail twice in a row, too many rows: each named.
    let mut twice = person(2);
    twice["Landlord.email"] = json!("t2@example.com");
    let mut unknown = person(3);
    unknown["Agent.email"] = json!("a@example.com");
    let body = json!({"rows": [person(1), twice, unknown],
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["message"],
        "Invalid request body or validation error"
    );
    let fields: BTreeSet<&str> = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        BTreeSet::from(["rows[2].Landlord.email", "rows[3].Agent.email"]),
        "{answer}"
    );
    let twice = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["field"] == "rows[2].Landlord.email")
        .unwrap();
    assert_eq!(
        twice["reason"],
        "t2@example.com is given more than once in this request (also rows[2].Tenant.email)"
    );
    let body = json!({"rows": [person(1), person(2), person(3), person(4)],
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["errors"][0]["field"], "rows", "{answer}");
    assert!(
        answer["errors"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("at most 3 rows"),
        "{answer}"
    );
    let (status, answer) = post_csv(&app, &key, &template, SEND, String::new()).await;
    assert_eq!(
        (status, &answer["errors"][0]["field"]),
        (400, &json!("rows")),
        "{answer}"
    );
    assert_eq!(bulk_sends_of(&app, account).await, 0);

    // Accepted with an Idempotency-Key: a retry gets the same answer and stores nothing more.
    let body = json!({"rows": [person(1), person(2), person(3)],
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"})
    .to_string();
    let (status, replayed, first) = post_with_key(&app, &path, &key, "bulk-1", &body).await;
    assert_eq!((status, replayed), (202, None), "{first}");
    let (status, replayed, again) = post_with_key(&app, &path, &key, "bulk-1", &body).await;
    assert_eq!((status, replayed.as_deref()), (202, Some("true")));
    assert_eq!(first, again);
    assert_eq!(bulk_sends_of(&app, account).await, 1);
    let id = first["data"]["id"].as_str().unwrap().to_owned();

    // Cancelled before any worker runs: the worker then makes nothing.
    let (status, answer) = app
        .post(&format!("/bulk-sends/{id}/cancel"), &key, &json!({}))
        .await;
    assert_eq!(status, 200, "{answer}");
    let worker = WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "bulk"], &[]);
    worker.wait_for_log("bulk send run").await;
    let (_, view) = app.get(&format!("/bulk-sends/{id}"), &key).await;
    let view = &view["data"];
    assert_eq!(view["status"], "CANCELLED", "{view}");
    assert_eq!(
        (&view["cancelled"], &view["created"], &view["pending"]),
        (&json!(3), &json!(0), &json!(0)),
        "{view}"
    );
    assert_eq!(
        documents_of(&app, account).await,
        before,
        "{}",
        worker.log()
    );
    let (status, answer) = app
        .post(&format!("/bulk-sends/{id}/cancel"), &key, &json!({}))
        .await;
    assert_eq!(status, 200, "cancelling again changes nothing: {answer}");

    // Another account's: not found. An archived template takes no bulk send.
    let (_, other) = app.account(1000).await;
    let (status, answer) = app.get(&format!("/bulk-sends/{id}"), &other).await;
    assert_eq!(
        (status, &answer["message"]),
        (404, &json!("Bulk send not found"))
    );
    let (status, _) = app
        .post(&format!("/bulk-sends/{id}/cancel"), &other, &json!({}))
        .await;
    assert_eq!(status, 404);
    let (status, _) = app
        .post(&format!("/templates/{template}/archive"), &key, &json!({}))
        .await;
    assert_eq!(status, 200);
    let body = json!({"rows": [person(1)], "message": "Please sign.",
        "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(
        (status, &answer["message"]),
        (409, &json!("Template is archived"))
    );
    let (status, answer) = app
        .post(
            &format!("/templates/{}/bulk-sends", Uuid::new_v4()),
            &key,
            &body,
        )
        .await;
    assert_eq!(
        (status, &answer["message"]),
        (404, &json!("Template not found"))
    );
}

#[tokio::test]
async fn a_completed_bulk_send_is_announced_and_a_template_archived_meanwhile_fails_its_rows() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let path = format!("/templates/{template}/bulk-sends");
    let rows = |ns: &[u32]| -> Value {
        ns.iter()
            .map(|n| json!({"Tenant.name": format!("Tenant {n}"), "Tenant.email": format!("t{n}@example.com")}))
            .collect()
    };
    let body = json!({"rows": rows(&[1, 2]), "message": "Please sign.",
        "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, accepted) = app.post(&path, &key, &body).await;
    assert_eq!(status, 202, "{accepted}");
    let first = accepted["data"]["id"].as_str().unwrap().to_owned();

    let mut worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "bulk,webhook"],
        &[("WEBHOOK_ALLOW_PRIVATE", "true")],
    );
    let completed = receiver
        .wait_for(1, WAIT, |r| r.event_type() == "bulk_send.completed")
        .await;
    let event: Value = serde_json::from_str(&completed[0].body).unwrap();
    assert_eq!(
        event["data"],
        json!({"id": first, "templateId": template, "total": 2, "sent": 2, "failed": 0}),
        "{event}"
    );
    let view = progress_until(&app, &key, &first, &worker, |v| v["status"] == "COMPLETED").await;
    assert_eq!(view["sent"], 2, "{view}");
    let (status, answer) = app
        .post(&format!("/bulk-sends/{first}/cancel"), &key, &json!({}))
        .await;
    assert_eq!(status, 409, "{answer}");
    assert_eq!(
        answer["message"],
        "Bulk send is already completed: every row was made"
    );

    // Accepted, then the template archived before its rows are made: they fail, with why.
    worker.kill();
    let body = json!({"rows": rows(&[3]), "message": "Please sign.",
        "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, accepted) = app.post(&path, &key, &body).await;
    assert_eq!(status, 202, "{accepted}");
    let second = accepted["data"]["id"].as_str().unwrap().to_owned();
    let (status, _) = app
        .post(&format!("/templates/{template}/archive"), &key, &json!({}))
        .await;
    assert_eq!(status, 200);
    let worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "bulk,webhook"],
        &[("WEBHOOK_ALLOW_PRIVATE", "true")],
    );
    let view = progress_until(&app, &key, &second, &worker, |v| v["status"] == "COMPLETED").await;
    assert_eq!(
        (&view["sent"], &view["failed"]),
        (&json!(0), &json!(1)),
        "{view}"
    );
    assert_eq!(
        view["failures"],
        json!([{"row": 1, "reason": "Template is archived"}])
    );
    let announced = receiver
        .wait_for(2, WAIT, |r| r.event_type() == "bulk_send.completed")
        .await;
    assert!(
        announced
            .iter()
            .any(|r| r.body.contains(&second) && r.body.contains("\"failed\":1")),
        "{announced:?}"
    );
}

#[tokio::test]
async fn a_worker_killed_in_the_middle_of_a_chunk_is_resumed_and_no_row_is_made_twice() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    // Room for the progress polls of a slow machine (one request each 50 ms).
    let (account, key) = app.account(100_000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let before = documents_of(&app, account).await;
    let mut csv = String::from("Tenant.name,Tenant.email\n");
    for n in 1..=600 {
        csv.push_str(&format!("Person {n},person{n}@example.com\n"));
    }
    let (status, accepted) = post_csv(&app, &key, &template, SEND, csv).await;
    assert_eq!(status, 202, "{accepted}");
    let id: Uuid = accepted["data"]["id"].as_str().unwrap().parse().unwrap();
    let sent = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM bulk_send_rows WHERE bulk_send_id = $1 AND status = 'SENT'",
        )
        .bind(id)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
    };

    let mut worker = WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "bulk"], &[]);
    eventually(
        described_by(|| format!("a first chunk made; worker log:\n{}", worker.log())),
        WAIT,
        || async { (sent().await >= 100).then_some(()) },
    )
    .await;
    // The account's row locked: the next document the worker inserts waits for it (its foreign
    // key), in the middle of a chunk whose rows it holds.
    let mut hold = app.db.pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE")
        .bind(account)
        .execute(&mut *hold)
        .await
        .unwrap();
    eventually("the worker to wait on the account's row", WAIT, || async {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        )
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
        (waiting > 0).then_some(())
    })
    .await;
    let made_before_the_kill = sent().await;
    assert!(made_before_the_kill < 600, "stopped midway");
    worker.kill();
    hold.rollback().await.unwrap();

    // Another worker takes the job once the first misses its heartbeats, and makes the rest.
    let worker = WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "bulk"], &[]);
    let done = progress_until(&app, &key, &id.to_string(), &worker, |view| {
        view["status"] == "COMPLETED"
    })
    .await;
    assert_eq!(
        (&done["sent"], &done["failed"]),
        (&json!(600), &json!(0)),
        "{done}"
    );
    assert_eq!(
        documents_of(&app, account).await,
        before + 600,
        "each row made once"
    );
    let distinct: i64 = sqlx::query_scalar(
        "SELECT count(DISTINCT document_id) FROM bulk_send_rows WHERE bulk_send_id = $1",
    )
    .bind(id)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(distinct, 600);
}

#[tokio::test]
async fn ten_thousand_rows_of_more_than_a_mebibyte_are_taken_in_one_request() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let template = template(&app, account, &key, &[("ann@example.com", "Tenant")]).await;
    let mut csv = String::from("Tenant.name,Tenant.email\n");
    let long_name = "Zoë Ñúñez-O'Brien ".repeat(5);
    for n in 1..=10_000 {
        csv.push_str(&format!("{long_name}{n},person{n}@example.com\n"));
    }
    assert!(csv.len() > 1024 * 1024, "past the other routes' limit");
    let (status, report) = post_csv(
        &app,
        &key,
        &template,
        &format!("dryRun=true&{SEND}"),
        csv.clone(),
    )
    .await;
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["data"], json!({"valid": true, "rows": 10_000}));

    // With an Idempotency-Key, which reads the body first under the same limit.
    let response = app
        .client
        .post(format!(
            "{}/external/api/v1/templates/{template}/bulk-sends?{SEND}",
            app.base
        ))
        .header("X-API-KEY", &key)
        .header("Idempotency-Key", "ten-thousand")
        .header("Content-Type", "text/csv")
        .body(csv)
        .send()
        .await
        .expect("request");
    let (status, accepted) = read(response).await;
    assert_eq!(status, 202, "{accepted}");
    assert_eq!(accepted["data"]["total"], 10_000);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM bulk_send_rows")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(rows, 10_000);
}
