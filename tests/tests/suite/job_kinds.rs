//! Each kind of work on processes of its own (`signet-worker --jobs …`): the real binaries, a
//! real SMTP server and a real webhook receiver. A process runs only the kinds it was given; a
//! hanging webhook receiver does not hold up invitations; sweeps on several processes at once
//! expire each document once; and the queue signals an autoscaler reads move with the traffic.

use std::time::Duration;

use serde_json::{Value, json};
use signet_tests::{
    LETTER, Mailbox, Receiver, TestApp, WorkerProcess, described_by, eventually, poll_until,
};
use uuid::Uuid;

use crate::{
    observability::metric,
    signing_flow::{invitations, send_document, sign, wait_for_status},
    webhooks::account_with_webhook,
};

const EMAIL: &str = "signet.dispatch_email";
const COMPLETION: &str = "signet.check_completion";
const WEBHOOK: &str = "signet.deliver_webhook";
const SWEEP: &str = "signet.expiry_sweep";

/// Scrapes `worker` until `done` holds for its metrics; returns the last scrape.
async fn metrics_until(
    worker: &WorkerProcess,
    waiting_for: &str,
    timeout: Duration,
    done: impl Fn(&str) -> bool,
) -> String {
    let text = poll_until(timeout, || worker.metrics(), |text| done(text)).await;
    assert!(
        done(&text),
        "waited {timeout:?} for {waiting_for}; last scrape:\n{text}\nworker log:\n{}",
        worker.log()
    );
    text
}

fn has_series(text: &str, name: &str, job_type: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with(name) && l.contains(&format!("job_type=\"{job_type}\"")))
}

/// The apalis worker types (queues) a process registered, by its pid.
async fn registered_queues(app: &TestApp, worker: &WorkerProcess) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT DISTINCT worker_type FROM apalis.workers WHERE id LIKE $1 ORDER BY 1",
    )
    .bind(format!("%:{}", worker.child.id()))
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

/// Rows of the outbox `table` ever claimed by a process other than `worker`.
async fn outbox_claimed_elsewhere(app: &TestApp, table: &str, worker: &WorkerProcess) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {table} WHERE lease_owner IS NOT NULL AND lease_owner NOT LIKE $1"
    )))
    .bind(format!("%:{}", worker.child.id()))
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}

/// Jobs of `job_type` ever claimed by a process other than `worker`.
async fn claimed_elsewhere(app: &TestApp, job_type: &str, worker: &WorkerProcess) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM apalis.jobs
         WHERE job_type = $1 AND lock_by IS NOT NULL AND lock_by NOT LIKE $2",
    )
    .bind(job_type)
    .bind(format!("%:{}", worker.child.id()))
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}

async fn readyz(worker: &WorkerProcess) -> (u16, Value) {
    let admin = worker.admin_addr().await;
    let response = reqwest::get(format!("http://{admin}/readyz"))
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

pub(crate) async fn ready(worker: &WorkerProcess) -> Value {
    eventually(
        described_by(|| format!("the worker to become ready:\n{}", worker.log())),
        Duration::from_secs(30),
        || async {
            let (status, body) = readyz(worker).await;
            (status == 200).then_some(body)
        },
    )
    .await
}

#[tokio::test]
async fn an_email_worker_and_a_completion_worker_each_run_only_their_own_jobs() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(10_000).await;
    let mailbox = Mailbox::start().await;
    let email_worker =
        WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "email"], &[]);
    let body = ready(&email_worker).await;
    assert_eq!(body["jobs"], "email", "{body}");
    assert_eq!(body["workers"], json!({"dispatch-email": true}), "{body}");

    // A burst of 100 completions: 100 documents, each signed by its one signer.
    const DOCUMENTS: usize = 100;
    let mut documents = Vec::new();
    for i in 0..DOCUMENTS {
        let signer = format!("signer{i}@signet.test");
        documents.push(
            send_document(
                &app,
                account,
                &key,
                &[(&signer, "SIGNER")],
                &[(&signer, "SIGNATURE")],
                "2099-01-01T00:00:00Z",
            )
            .await,
        );
    }
    let links = invitations(&mailbox, DOCUMENTS).await;
    for link in links.values() {
        assert_eq!(sign(&app, link, &["Signed"]).await.0, 200);
    }

    // The completions wait, ready, for a process that takes them: the e-mail worker does not.
    let text = metrics_until(
        &email_worker,
        "100 ready completions and 100 invitations sent",
        Duration::from_secs(60),
        |text| {
            metric(text, "signet_queue_ready_jobs", &[("job_type", COMPLETION)]) == DOCUMENTS as f64
                && metric(
                    text,
                    "signet_jobs_total",
                    &[("job_type", EMAIL), ("outcome", "ok")],
                ) == DOCUMENTS as f64
        },
    )
    .await;
    assert!(
        metric(
            &text,
            "signet_queue_oldest_ready_age_seconds",
            &[("job_type", COMPLETION)]
        ) > 0.0,
        "{text}"
    );
    assert!(
        !has_series(&text, "signet_jobs_running", COMPLETION),
        "{text}"
    );
    // E-mails are no apalis queue: their outbox rows are claimed directly.
    assert!(registered_queues(&app, &email_worker).await.is_empty());
    let untouched: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM apalis.jobs WHERE job_type = $1 AND status = 'Pending' AND lock_by IS NULL",
    )
    .bind(COMPLETION)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(untouched, DOCUMENTS as i64, "no completion job was claimed");

    // A completion-only worker takes the burst; meanwhile 100 new invitations go out through
    // the e-mail worker, whose slots and connections the completions cannot take.
    let completion_worker =
        WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "completion"], &[]);
    let started = std::time::Instant::now();
    let (other, other_key) = app.account(10_000).await;
    send_batch(&app, other, &other_key, 1, 100).await;
    let burst_invitations = mailbox
        .wait_for(100, Duration::from_secs(120), |m| {
            m.to.starts_with("p0-") && m.text.contains("/sign/")
        })
        .await;
    assert_eq!(burst_invitations.len(), 100, "{}", email_worker.log());
    let completed_meanwhile: i64 =
        sqlx::query_scalar("SELECT count(*) FROM documents WHERE status = 'COMPLETED'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    println!(
        "100 invitations delivered in {:?} during a burst of 100 completions ({completed_meanwhile} completed by then)",
        started.elapsed()
    );

    for doc in &documents {
        wait_for_status(&app, &key, *doc, "COMPLETED").await;
    }
    let completed = mailbox
        .wait_for(DOCUMENTS, Duration::from_secs(120), |m| {
            m.subject.ends_with("is complete")
        })
        .await;
    assert_eq!(completed.len(), DOCUMENTS, "completion e-mails");
    println!(
        "burst of {DOCUMENTS} completions done, with their e-mails, in {:?}",
        started.elapsed()
    );

    assert_eq!(
        registered_queues(&app, &completion_worker).await,
        [COMPLETION]
    );
    assert_eq!(
        outbox_claimed_elsewhere(&app, "outbound_emails", &email_worker).await,
        0
    );
    assert_eq!(
        claimed_elsewhere(&app, COMPLETION, &completion_worker).await,
        0
    );
    let text = metrics_until(
        &completion_worker,
        "100 completions counted and none left waiting",
        Duration::from_secs(30),
        |text| {
            metric(
                text,
                "signet_jobs_total",
                &[("job_type", COMPLETION), ("outcome", "ok")],
            ) == DOCUMENTS as f64
                && metric(text, "signet_queue_ready_jobs", &[("job_type", COMPLETION)]) == 0.0
        },
    )
    .await;
    assert!(!has_series(&text, "signet_jobs_running", EMAIL), "{text}");
    assert_eq!(
        metric(&text, "signet_jobs_running", &[("job_type", COMPLETION)]),
        0.0
    );
    // No process runs the sweep: every process says so.
    assert_eq!(
        metric(&text, "signet_sweep_last_finished_timestamp_seconds", &[]),
        0.0,
        "{text}"
    );
}

/// Sends `documents` documents of `per_document` signers each for `account`.
async fn send_batch(
    app: &TestApp,
    account: Uuid,
    key: &str,
    documents: usize,
    per_document: usize,
) {
    for d in 0..documents {
        let doc = app
            .document(account, &format!("Batch {d}"), &[LETTER])
            .await;
        let people: Vec<Value> = (0..per_document)
            .map(|i| json!({"name": format!("Person {d}-{i}"), "email": format!("p{d}-{i}@signet.test"), "role": "SIGNER"}))
            .collect();
        let path = format!("/documents/{doc}/recipients");
        assert_eq!(app.post(&path, key, &json!(people)).await.0, 200);
        let fields: Vec<Value> = (0..per_document)
            .map(|i| json!({"recipientEmail": format!("p{d}-{i}@signet.test"), "type": "SIGNATURE", "page": 1, "x": (i % 10) * 60, "y": (i / 10) * 70, "width": 50, "height": 20}))
            .collect();
        let path = format!("/documents/{doc}/fields");
        assert_eq!(app.post(&path, key, &json!(fields)).await.0, 200);
        let (status, body) = app
            .post(
                &format!("/documents/{doc}/send"),
                key,
                &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
}

#[tokio::test]
async fn a_hanging_webhook_receiver_does_not_delay_invitations() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    receiver.hold();
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;

    // Two webhook slots; four documents announce themselves, so two attempts hang at the
    // receiver and two wait in the queue behind them.
    const WEBHOOK_SLOTS: usize = 2;
    let webhook_worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "webhook"],
        &[
            ("WEBHOOK_ALLOW_PRIVATE", "true"),
            ("WORKER_WEBHOOK_CONCURRENCY", "2"),
            ("WEBHOOK_RETRY_SCHEDULE", "1,1,1,1,1,1,1,1,1,1"),
        ],
    );
    send_batch(&app, account, &key, 4, 50).await;
    let hanging = receiver
        .wait_for(WEBHOOK_SLOTS, Duration::from_secs(60), |_| true)
        .await;
    assert_eq!(
        hanging.len(),
        WEBHOOK_SLOTS,
        "the webhook worker's slots are taken by the hanging receiver:\n{}",
        webhook_worker.log()
    );
    let text = metrics_until(
        &webhook_worker,
        "two webhook attempts running, two ready, 200 invitations ready",
        Duration::from_secs(30),
        |text| {
            metric(text, "signet_jobs_running", &[("job_type", WEBHOOK)]) == 2.0
                && metric(text, "signet_queue_ready_jobs", &[("job_type", WEBHOOK)]) == 2.0
                && metric(text, "signet_queue_ready_jobs", &[("job_type", EMAIL)]) == 200.0
        },
    )
    .await;
    assert!(
        metric(
            &text,
            "signet_queue_oldest_ready_age_seconds",
            &[("job_type", EMAIL)]
        ) > 0.0,
        "{text}"
    );

    let started = std::time::Instant::now();
    let email_worker =
        WorkerProcess::start_with_args(&app, &mailbox.url(), &["--jobs", "email"], &[]);
    let delivered = mailbox
        .wait_for(200, Duration::from_secs(180), |m| m.text.contains("/sign/"))
        .await;
    let took = started.elapsed();
    assert_eq!(
        delivered.len(),
        200,
        "every invitation arrives while the receiver hangs:\n{}",
        email_worker.log()
    );
    // …and meanwhile no webhook attempt was answered, nor any delivery made.
    assert_eq!(receiver.answered(), 0);
    let delivered_webhooks: i64 =
        sqlx::query_scalar("SELECT count(*) FROM webhook_deliveries WHERE status = 'DELIVERED'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(delivered_webhooks, 0);
    println!("200 invitations delivered in {took:?} while every webhook attempt hung");

    let text = metrics_until(
        &email_worker,
        "200 e-mail jobs done and none left waiting",
        Duration::from_secs(30),
        |text| {
            metric(
                text,
                "signet_jobs_total",
                &[("job_type", EMAIL), ("outcome", "ok")],
            ) == 200.0
                && metric(text, "signet_queue_ready_jobs", &[("job_type", EMAIL)]) == 0.0
        },
    )
    .await;
    assert!(!has_series(&text, "signet_jobs_running", WEBHOOK), "{text}");

    // Once the receiver answers, the webhooks follow.
    receiver.release();
    poll_until(
        Duration::from_secs(120),
        || async {
            sqlx::query_scalar::<_, i64>(
                "SELECT count(*) FROM webhook_deliveries WHERE status = 'DELIVERED'",
            )
            .fetch_one(&app.db.pool)
            .await
            .unwrap()
        },
        |delivered| *delivered == 4,
    )
    .await;
    let outcomes: Vec<(String, String)> =
        sqlx::query_as("SELECT event_type, status FROM webhook_deliveries ORDER BY created_at")
            .fetch_all(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(
        outcomes,
        vec![("document.sent".to_owned(), "DELIVERED".to_owned()); 4],
        "{}",
        webhook_worker.log()
    );
    assert!(registered_queues(&app, &webhook_worker).await.is_empty());
    assert_eq!(
        outbox_claimed_elsewhere(&app, "webhook_deliveries", &webhook_worker).await,
        0
    );
    assert_eq!(
        outbox_claimed_elsewhere(&app, "outbound_emails", &email_worker).await,
        0
    );
}

#[tokio::test]
async fn sweeps_on_several_processes_expire_each_document_once_and_every_process_shows_the_last_one()
 {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let api_metrics = || async {
        app.client
            .get(format!("{}/metrics", app.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    assert_eq!(
        metric(
            &api_metrics().await,
            "signet_sweep_last_finished_timestamp_seconds",
            &[]
        ),
        0.0,
        "no sweep has run yet, and the API says so"
    );

    const DOCUMENTS: usize = 6;
    // Sent with a distant expiry, then made due in the database: an expiry a few seconds
    // ahead could pass before the last send on a busy machine.
    let expiry = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    let mut documents = Vec::new();
    for i in 0..DOCUMENTS {
        let (ann, bob) = (format!("ann{i}@signet.test"), format!("bob{i}@signet.test"));
        documents.push(
            send_document(
                &app,
                account,
                &key,
                &[(&ann, "SIGNER"), (&bob, "SIGNER")],
                &[(&ann, "SIGNATURE"), (&bob, "SIGNATURE")],
                &expiry,
            )
            .await,
        );
    }
    sqlx::query(
        "UPDATE documents SET expiry_date = now() - interval '1 minute' WHERE id = ANY($1)",
    )
    .bind(&documents)
    .execute(&app.db.pool)
    .await
    .unwrap();
    let started = chrono::Utc::now().timestamp() as f64;
    // Two sweep-only processes, sweeping every second; no SMTP server is needed.
    let sweep = |_| {
        WorkerProcess::start_with_args(
            &app,
            "smtp://127.0.0.1:9",
            &["--jobs", "sweep"],
            &[
                ("EXPIRY_SWEEP_CRON", "* * * * * *"),
                ("DATABASE_MAX_CONNECTIONS", "4"),
            ],
        )
    };
    let sweepers: Vec<WorkerProcess> = (0..2).map(sweep).collect();
    for sweeper in &sweepers {
        let body = ready(sweeper).await;
        assert_eq!(body["jobs"], "sweep", "{body}");
        assert_eq!(body["workers"], json!({}), "{body}");
        assert!(body.get("listenerConnected").is_none(), "{body}");
    }
    for doc in &documents {
        wait_for_status(&app, &key, *doc, "EXPIRED").await;
    }
    // Both processes sweep, again and again, without failing on each other.
    for sweeper in &sweepers {
        let text = metrics_until(
            sweeper,
            "three sweeps finished in this process",
            Duration::from_secs(60),
            |text| {
                metric(
                    text,
                    "signet_jobs_total",
                    &[("job_type", SWEEP), ("outcome", "ok")],
                ) >= 3.0
            },
        )
        .await;
        assert_eq!(
            metric(
                &text,
                "signet_jobs_total",
                &[("job_type", SWEEP), ("outcome", "error")]
            ),
            0.0,
            "{text}\n{}",
            sweeper.log()
        );
        assert!(
            metric(&text, "signet_sweep_last_finished_timestamp_seconds", &[]) >= started,
            "{text}"
        );
    }
    assert!(
        metric(
            &api_metrics().await,
            "signet_sweep_last_finished_timestamp_seconds",
            &[]
        ) >= started
    );

    // Each document expired once: one audit entry, one webhook event, one notice per recipient.
    let per_document: Vec<(i64, i64, i64)> = sqlx::query_as(
        "SELECT (SELECT count(*) FROM audit_entries a WHERE a.document_id = d.id AND a.event = 'EXPIRED'),
                (SELECT count(*) FROM webhook_deliveries w
                  WHERE w.event_type = 'document.expired' AND w.document_id = d.id),
                (SELECT count(*) FROM outbound_emails e WHERE e.document_id = d.id AND e.kind = 'EXPIRED')
         FROM documents d ORDER BY d.id",
    )
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(per_document, vec![(1, 1, 2); DOCUMENTS]);
}

/// Outbox rows are claimed round robin by account: an account with hundreds of queued
/// invitations takes one turn in a claim like an account with one, whichever was queued first.
#[tokio::test]
async fn an_accounts_backlog_does_not_hold_back_another_accounts_message() {
    use signet_common::store::{
        emails,
        outbox::{self, ClaimRequest},
    };
    let app = TestApp::spawn().await;
    let (backlog, key) = app.account(10_000).await;
    send_batch(&app, backlog, &key, 3, 100).await;
    let (other, key) = app.account(10_000).await;
    send_batch(&app, other, &key, 1, 1).await;
    let single: Uuid = sqlx::query_scalar("SELECT id FROM outbound_emails WHERE account_id = $1")
        .bind(other)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();

    let mut conn = app.db.pool.acquire().await.unwrap();
    let request = |after| ClaimRequest {
        owner: "probe:1",
        lease: Duration::from_secs(60),
        limit: 10,
        per_account: 5,
        after,
    };
    let first = outbox::claim(&mut conn, emails::OUTBOX, &request(None))
        .await
        .unwrap();
    assert_eq!(first.accounts_visited, 2);
    assert_eq!(first.ids.len(), 6, "five of the backlog and the single one");
    assert!(
        first.ids[..2].contains(&single),
        "the single invitation is among each account's first: {:?}",
        first.ids
    );
    // The next claim goes on from where the walk stopped, and the backlog keeps its order.
    let second = outbox::claim(&mut conn, emails::OUTBOX, &request(first.last_account))
        .await
        .unwrap();
    assert_eq!(second.ids.len(), 5);
    assert!(second.ids.iter().all(|id| !first.ids.contains(id)));
    let held: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails WHERE lease_owner = 'probe:1' AND due_at > now()",
    )
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    assert_eq!(held, 11, "every claimed row is leased");
}

/// A process runs one sweep at a time, however long a sweep takes: the next tick waits for it.
/// Without the limit, each tick of a schedule shorter than a sweep started another, and 100,000
/// expiries a second apart had dozens of sweeps racing for the same batches.
#[tokio::test]
async fn a_process_runs_one_sweep_at_a_time_however_long_it_takes() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    // The sweep's last step records that it finished; holding that row holds every sweep there.
    let mut holder = app.db.pool.begin().await.unwrap();
    sqlx::query(
        "INSERT INTO sweep_runs (sweep, finished_at, finished_by) VALUES ($1, now(), 'test')
         ON CONFLICT (sweep) DO UPDATE SET finished_by = 'test'",
    )
    .bind(signet_common::store::queues::EXPIRY_SWEEP)
    .execute(&mut *holder)
    .await
    .unwrap();
    let worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "sweep"],
        &[("EXPIRY_SWEEP_CRON", "* * * * * *")],
    );
    let waiting_sweeps = || async {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'
               AND query LIKE 'INSERT INTO sweep_runs%'",
        )
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
    };
    let first = poll_until(Duration::from_secs(30), waiting_sweeps, |n| *n >= 1).await;
    assert_eq!(first, 1, "one sweep waits on the held row");
    // Three more ticks of the schedule pass while that sweep waits.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        waiting_sweeps().await,
        1,
        "the ticks while a sweep runs start no other sweep"
    );

    holder.rollback().await.unwrap();
    // The held row was the test's insert: rolled back, there is none until a sweep writes it.
    let finished = || async {
        sqlx::query_as::<_, (String, chrono::DateTime<chrono::Utc>)>(
            "SELECT finished_by, finished_at FROM sweep_runs WHERE sweep = $1",
        )
        .bind(signet_common::store::queues::EXPIRY_SWEEP)
        .fetch_optional(&app.db.pool)
        .await
        .unwrap()
    };
    let Some((_, held_finished_at)) =
        poll_until(Duration::from_secs(30), finished, Option::is_some).await
    else {
        panic!("the held sweep finishes once the row is free");
    };
    // A sweep longer than the schedule's period must not end the sweep's worker: apalis-cron
    // computes the next tick when one fires, and a backend not polled meanwhile found it past
    // ("Tick out of range"), which ended the worker for the monitor to restart. The next sweep
    // needs the next tick, so by the time it has finished any such restart has been logged.
    let next = poll_until(Duration::from_secs(30), finished, |row| {
        row.as_ref().is_some_and(|(_, at)| *at > held_finished_at)
    })
    .await;
    assert!(
        next.is_some_and(|(_, at)| at > held_finished_at),
        "the next tick's sweep runs"
    );
    // The sweep's worker is apalis's, not one of the supervised queues: only its log tells.
    let log = worker.log();
    assert!(
        !log.contains("Tick out of range") && !log.contains("restarting worker"),
        "the sweep's worker ran on after a sweep longer than its period:\n{log}"
    );
}

/// Renewing leases never waits for a row another transaction holds (the recorder writing its
/// outcome): it renews the others and leaves that one, where waiting deadlocked with the
/// recorder locking the same rows in another order.
#[tokio::test]
async fn a_lease_renewal_skips_the_rows_being_recorded() {
    use signet_common::store::{
        emails,
        outbox::{self, ClaimRequest},
    };
    let app = TestApp::spawn().await;
    let (account, key) = app.account(10_000).await;
    send_batch(&app, account, &key, 1, 3).await;
    let mut conn = app.db.pool.acquire().await.unwrap();
    let lease = Duration::from_secs(60);
    let claimed = outbox::claim(
        &mut conn,
        emails::OUTBOX,
        &ClaimRequest {
            owner: "probe:1",
            lease,
            limit: 10,
            per_account: 10,
            after: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(claimed.ids.len(), 3);

    let mut recording = app.db.pool.begin().await.unwrap();
    sqlx::query("SELECT 1 FROM outbound_emails WHERE id = $1 FOR UPDATE")
        .bind(claimed.ids[0])
        .execute(&mut *recording)
        .await
        .unwrap();
    // A renewal that waited would wait until the holder ends; the guard only stops the test.
    let renewed = tokio::time::timeout(
        Duration::from_secs(60),
        outbox::renew(&mut conn, emails::OUTBOX, "probe:1", &claimed.ids, lease),
    )
    .await
    .expect("the renewal does not wait for the held row")
    .unwrap();
    assert_eq!(renewed, 2, "the two rows nobody else holds are renewed");
    recording.rollback().await.unwrap();
    assert_eq!(
        outbox::renew(&mut conn, emails::OUTBOX, "probe:1", &claimed.ids, lease)
            .await
            .unwrap(),
        3
    );
}
