//! Worker processes under stress: SIGKILL in the middle of 500 e-mails, two workers sharing a
//! queue, and graceful shutdown.

use std::{collections::HashMap, time::Duration};

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, poll_until};

const CONCURRENCY: usize = 8;

/// Sends `documents` documents with 100 recipients each: 100 × `documents` invitations.
pub(crate) async fn queue_invitations(app: &TestApp, documents: usize) {
    let (account, key) = app.account(10_000).await;
    for d in 0..documents {
        let doc = app
            .document(account, &format!("Batch {d}"), &[LETTER])
            .await;
        let people: Vec<Value> = (0..100)
            .map(|i| json!({"name": format!("Person {d}-{i}"), "email": format!("p{d}-{i}@signet.test"), "role": "SIGNER"}))
            .collect();
        assert_eq!(
            app.post(
                &format!("/documents/{doc}/recipients"),
                &key,
                &json!(people)
            )
            .await
            .0,
            200
        );
        let fields: Vec<Value> = (0..100)
            .map(|i| json!({"recipientEmail": format!("p{d}-{i}@signet.test"), "type": "SIGNATURE", "page": 1, "x": (i % 10) * 60, "y": (i / 10) * 70, "width": 50, "height": 20}))
            .collect();
        assert_eq!(
            app.post(&format!("/documents/{doc}/fields"), &key, &json!(fields))
                .await
                .0,
            200
        );
        let (status, body) = app
            .post(
                &format!("/documents/{doc}/send"),
                &key,
                &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
}

/// Message-ID → how many copies arrived.
fn copies(mailbox: &Mailbox) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for mail in mailbox.messages() {
        *seen.entry(mail.message_id).or_insert(0) += 1;
    }
    seen
}

async fn wait_for_distinct(
    mailbox: &Mailbox,
    count: usize,
    timeout: Duration,
) -> HashMap<String, usize> {
    poll_until(
        timeout,
        || async { copies(mailbox) },
        |seen| seen.len() >= count,
    )
    .await
}

/// The outbox rows marked SENT and all rows, once every row is SENT or the wait runs out: a
/// row is marked after its SMTP exchange ends, so the mailbox can see the last message a moment
/// before its row says so.
async fn all_rows_sent(app: &TestApp) -> (i64, i64) {
    poll_until(
        Duration::from_secs(30),
        || async {
            sqlx::query_as::<_, (i64, i64)>(
                "SELECT count(*) FILTER (WHERE status = 'SENT'), count(*) FROM outbound_emails",
            )
            .fetch_one(&app.db.pool)
            .await
            .unwrap()
        },
        |(sent, all)| sent == all,
    )
    .await
}

#[tokio::test]
async fn a_killed_worker_loses_no_e_mail() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    queue_invitations(&app, 5).await;
    let concurrency = CONCURRENCY.to_string();
    let mut first = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[("WORKER_CONCURRENCY", &concurrency)],
    );
    let before_kill = wait_for_distinct(&mailbox, 100, Duration::from_secs(60))
        .await
        .len();
    assert!(before_kill >= 100, "the first worker was delivering");
    let pid = first.child.id();
    first.kill();
    let at_kill = copies(&mailbox).values().sum::<usize>();
    // What the killed worker had claimed and not finished: rows still PENDING under its lease
    // (its name ends in ":<pid>"). Only these can be sent twice.
    let in_flight: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails WHERE status = 'PENDING' AND lease_owner LIKE $1",
    )
    .bind(format!("%:{pid}"))
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert!(in_flight > 0, "the kill caught jobs in flight");
    let in_flight = in_flight as usize;
    assert!(
        at_kill < 500,
        "the kill came in the middle of the batch ({at_kill} delivered)"
    );

    let second = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[("WORKER_CONCURRENCY", &concurrency)],
    );
    let seen = wait_for_distinct(&mailbox, 500, Duration::from_secs(120)).await;
    assert_eq!(seen.len(), 500, "every e-mail arrives after the restart");
    let total: usize = seen.values().sum();
    let duplicates = total - seen.len();
    println!(
        "killed after {at_kill} deliveries with {in_flight} jobs in flight (concurrency {CONCURRENCY}); {total} messages for 500 e-mails: {duplicates} duplicate(s)"
    );
    if duplicates > in_flight {
        let logs = [first.log(), second.log()];
        let evidence: Vec<String> = seen
            .iter()
            .filter(|(_, n)| **n > 1)
            .flat_map(|(id, n)| {
                let email = id.split('@').next().unwrap_or(id).to_owned();
                let lines: Vec<String> = logs
                    .iter()
                    .enumerate()
                    .flat_map(|(w, log)| {
                        log.lines()
                            .filter(|l| l.contains(&email))
                            .map(move |l| format!("  worker {w}: {l}"))
                    })
                    .collect();
                std::iter::once(format!("{id} ×{n}")).chain(lines)
            })
            .collect();
        panic!(
            "{duplicates} duplicates exceed the {in_flight} jobs in flight at the kill:\n{}",
            evidence.join("\n")
        );
    }
    assert_eq!(all_rows_sent(&app).await, (500, 500));
}

#[tokio::test]
async fn two_workers_deliver_each_e_mail_once_and_stop_gracefully() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    queue_invitations(&app, 5).await;
    let mut a = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let mut b = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let seen = wait_for_distinct(&mailbox, 500, Duration::from_secs(120)).await;
    assert_eq!(seen.len(), 500);
    for (name, worker) in [("a", &mut a), ("b", &mut b)] {
        let status = worker
            .terminate(Duration::from_secs(20))
            .unwrap_or_else(|| panic!("worker {name} did not stop on SIGTERM:\n{}", worker.log()));
        assert!(
            status.success(),
            "worker {name} exit status {status}:\n{}",
            worker.log()
        );
    }
    // Both workers have exited: no duplicate can still be on its way.
    let total: usize = copies(&mailbox).values().sum();
    assert_eq!(total, 500, "each e-mail delivered exactly once");
    assert_eq!(all_rows_sent(&app).await, (500, 500));
}

/// Issue #30 item 10: a worker without FILE_URL_SECRET signs its links (completion e-mails, SMS
/// delivery reports) with a secret of its own that the API refuses; it says so at start, as
/// the API does.
#[tokio::test]
async fn a_worker_without_a_file_url_secret_says_its_links_will_be_refused() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[("FILE_URL_SECRET", "")]);
    let line = worker.wait_for_log("FILE_URL_SECRET is unset").await;
    assert!(
        line.contains("are refused by every other")
            && line.contains("Set the same FILE_URL_SECRET"),
        "{line}"
    );
}
