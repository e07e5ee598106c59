//! The worker through PostgreSQL restarts: a cluster of the test's own (never the shared one)
//! is stopped while a worker is in the middle of e-mails, completions and webhooks, and started
//! again. Nothing may be lost or done twice, the worker must not need a restart, and its
//! `/readyz` must say 503 while the database is gone and 200 once it is back.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use serde_json::Value;
use signet_tests::{
    ApiProcess, Mailbox, PgCluster, Receiver, TestApp, TestDb, WorkerProcess, poll_until,
};
use uuid::Uuid;

use crate::{
    signing_flow::{send_document, sign},
    webhooks::account_with_webhook,
};

/// Documents whose single signer has signed before the worker starts: 50 completions to do.
const COMPLETIONS: usize = 50;
/// Invitations queued besides the completions' own (3 documents × 100 signers, on an account
/// of their own).
const BULK_DOCUMENTS: usize = 3;
const BULK_SIGNERS: usize = 100;

struct Workload {
    key: String,
    to_complete: Vec<Uuid>,
}

/// Queues the work before any worker runs: 350 invitations, 50 documents fully signed (their
/// completions, and the completion e-mails those queue), and a webhook for every event.
async fn queue_work(app: &TestApp, receiver: &Receiver) -> Workload {
    let (account, key, _) = account_with_webhook(app, &receiver.url()).await;
    let mut to_complete = Vec::new();
    for i in 0..COMPLETIONS {
        let email = format!("signer{i}@signet.test");
        let doc = send_document(
            app,
            account,
            &key,
            &[(email.as_str(), "SIGNER")],
            &[(email.as_str(), "SIGNATURE")],
            "2099-01-01T00:00:00Z",
        )
        .await;
        // The invitation has not gone out yet: its row still holds the signing token.
        let token: String = sqlx::query_scalar(
            "SELECT link_token FROM outbound_emails WHERE document_id = $1 AND kind = 'INVITATION'",
        )
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
        let (status, body) = sign(app, &format!("{}/sign/{token}", app.base), &["Signed"]).await;
        assert_eq!(status, 200, "{body}");
        to_complete.push(doc);
    }
    crate::workers::queue_invitations(app, BULK_DOCUMENTS).await;
    Workload { key, to_complete }
}

fn worker(app: &TestApp, mailbox: &Mailbox, extra: &[(&str, &str)]) -> WorkerProcess {
    let mut settings = vec![
        // The production default: these tests have a PostgreSQL cluster of their own.
        ("DATABASE_MAX_CONNECTIONS", "8"),
        ("WEBHOOK_ALLOW_PRIVATE", "true"),
        ("WEBHOOK_RETRY_SCHEDULE", "1,1,1,1,1,1,1,1,1,1"),
    ];
    settings.extend_from_slice(extra);
    WorkerProcess::start(app, &mailbox.url(), &settings)
}

async fn readyz(client: &reqwest::Client, admin: &str) -> Option<(u16, Value)> {
    let response = client
        .get(format!("http://{admin}/readyz"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.ok()?))
}

/// Polls `/readyz` until `accept` holds for its status and body; panics with the worker's log
/// after `within`.
async fn wait_for_health(
    worker: &WorkerProcess,
    what: &str,
    within: Duration,
    accept: impl Fn(u16, &Value) -> bool,
) {
    let client = reqwest::Client::new();
    let admin = worker.admin_addr().await;
    let accepted = |answer: &Option<(u16, Value)>| {
        answer
            .as_ref()
            .is_some_and(|(status, body)| accept(*status, body))
    };
    let last = poll_until(within, || readyz(&client, &admin), accepted).await;
    assert!(
        accepted(&last),
        "waited {within:?} for the worker's /readyz to show {what}; last answer {last:?}\n{}",
        worker.log()
    );
}

async fn wait_for_readiness(worker: &WorkerProcess, status: u16, within: Duration) {
    wait_for_health(worker, &format!("{status}"), within, |s, _| s == status).await;
}

/// Waits until the worker itself has noticed the outage: 503, and no job type polling. (Only
/// an idle worker is sure to notice: a busy one works off the jobs it fetched before it next
/// needs the queue.)
async fn wait_for_workers_down(worker: &WorkerProcess) {
    wait_for_health(
        worker,
        "503 with every job type's worker down",
        Duration::from_secs(60),
        |status, body| {
            status == 503
                && body["workers"]
                    .as_object()
                    .is_some_and(|w| !w.is_empty() && w.values().all(|polling| polling == false))
        },
    )
    .await;
}

struct Progress {
    emails: i64,
    /// Sent, or withdrawn: an invitation whose document completed before it went out (the
    /// worker may run a completion before that document's invitation) is withdrawn, not sent.
    emails_settled: i64,
    emails_sent: i64,
    deliveries: i64,
    delivered: i64,
    completed: i64,
}

async fn progress(app: &TestApp, to_complete: &[Uuid]) -> Progress {
    // One statement, so one snapshot: read one table at a time, a completion that commits
    // between the reads would count as done while its e-mails and webhook are still queued.
    let (emails, emails_settled, emails_sent, deliveries, delivered, completed): (
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
    ) = sqlx::query_as(
        "SELECT e.total, e.settled, e.sent, w.total, w.delivered, d.completed
         FROM (SELECT count(*) AS total,
                      count(*) FILTER (WHERE status IN ('SENT', 'WITHDRAWN')) AS settled,
                      count(*) FILTER (WHERE status = 'SENT') AS sent
               FROM outbound_emails) e,
              (SELECT count(*) AS total, count(*) FILTER (WHERE status = 'DELIVERED') AS delivered
               FROM webhook_deliveries) w,
              (SELECT count(*) AS completed FROM documents
               WHERE id = ANY($1) AND status = 'COMPLETED') d",
    )
    .bind(to_complete)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    Progress {
        emails,
        emails_settled,
        emails_sent,
        deliveries,
        delivered,
        completed,
    }
}

impl Progress {
    fn done(&self) -> bool {
        self.emails_settled == self.emails
            && self.delivered == self.deliveries
            && self.completed == COMPLETIONS as i64
    }

    fn describe(&self) -> String {
        format!(
            "{}/{} e-mails sent or withdrawn, {}/{} webhooks delivered, {}/{COMPLETIONS} documents completed",
            self.emails_settled, self.emails, self.delivered, self.deliveries, self.completed
        )
    }
}

/// Waits until every queued e-mail, webhook and completion is done.
async fn wait_until_done(app: &TestApp, work: &Workload, worker: &WorkerProcess) -> Progress {
    let now = poll_until(
        Duration::from_secs(240),
        || progress(app, &work.to_complete),
        Progress::done,
    )
    .await;
    assert!(
        now.done(),
        "after 240 s: {}\n{}",
        now.describe(),
        worker.log()
    );
    now
}

/// How many messages of a worker were sent just before the database went, and recorded after
/// (the recorder says so once per batch, with the batch's size).
fn late_records(log: &str, worker: &str) -> usize {
    log.lines()
        .filter(|l| l.contains(worker) && l.contains("sent, but the database went away"))
        .filter_map(|l| {
            let rows = l.split("rows=").nth(1)?;
            rows.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum()
}

/// How the database goes away.
enum Outage {
    /// Stopped (every session ended) and started again after `down`.
    Restart { down: Duration },
    /// Every connection of the application's role ended and new ones refused ("too many
    /// connections for role") for `during`.
    Refuse { during: Duration },
}

/// Takes the database away once per outage while the worker is in the middle of the work;
/// then checks that all of it was done exactly once.
async fn survive(outages: &[Outage]) {
    let cluster = PgCluster::start(100).await;
    let app_server = cluster.role("signet_app").await;
    let app = TestApp::spawn_on(TestDb::on(app_server).await, &[]).await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    let work = queue_work(&app, &receiver).await;
    let worker = worker(&app, &mailbox, &[]);
    wait_for_readiness(&worker, 200, Duration::from_secs(60)).await;

    // Mid-way: some e-mails and webhooks out, the rest still to go.
    mailbox
        .wait_for(30, Duration::from_secs(60), |_| true)
        .await;
    receiver
        .wait_for(10, Duration::from_secs(60), |_| true)
        .await;
    for (i, outage) in outages.iter().enumerate() {
        // Hold the SMTP server and the receiver so that sends and posts are in flight when
        // the database goes, and finish only after it is gone: their outcomes must still be
        // written once it is back, and they must not be sent again.
        mailbox.pause();
        receiver.hold();
        let before = progress(&app, &work.to_complete).await;
        if i == 0 {
            assert!(
                !before.done(),
                "the outage must come mid-way: {}",
                before.describe()
            );
        }
        let began = Instant::now();
        let length = match outage {
            Outage::Restart { down } => {
                cluster.stop();
                *down
            }
            Outage::Refuse { during } => {
                cluster
                    .execute("ALTER ROLE signet_app CONNECTION LIMIT 0")
                    .await;
                cluster
                    .execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'signet_app'")
                    .await;
                *during
            }
        };
        // Released as soon as the database is gone, not once the worker has noticed (which
        // can take seconds on a busy machine): a post held past the webhook client's 15 s
        // timeout is a failed attempt, rightly posted again later, which is not what this
        // test is about (a CI run once saw nine such posts twice).
        mailbox.resume();
        receiver.release();
        wait_for_readiness(&worker, 503, Duration::from_secs(60)).await;
        // The outage lasts as long as the scenario says, however quickly the worker noticed.
        tokio::time::sleep(length.saturating_sub(began.elapsed())).await;
        match outage {
            Outage::Restart { .. } => cluster.start_again(),
            Outage::Refuse { .. } => {
                cluster
                    .execute("ALTER ROLE signet_app CONNECTION LIMIT -1")
                    .await
            }
        }
        println!(
            "outage {}: began with {}; lasted {:?}",
            i + 1,
            before.describe(),
            began.elapsed()
        );
    }
    let returned = Instant::now();
    wait_for_readiness(&worker, 200, Duration::from_secs(120)).await;
    println!(
        "ready again {:?} after the database came back",
        returned.elapsed()
    );
    let done = wait_until_done(&app, &work, &worker).await;
    println!(
        "all done {:?} after the database came back: {}",
        returned.elapsed(),
        done.describe()
    );

    // Exactly once: one message per outbox row, one request per webhook event.
    let mut copies: HashMap<String, usize> = HashMap::new();
    for mail in mailbox.messages() {
        *copies.entry(mail.message_id).or_default() += 1;
    }
    let log = worker.log();
    println!(
        "sent/posted before the database went and recorded after it came back: {} e-mails, {} webhooks",
        late_records(&log, "dispatch-email"),
        late_records(&log, "deliver-webhook")
    );
    let twice: Vec<_> = copies.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "e-mails sent more than once: {twice:?}");
    assert_eq!(
        copies.len() as i64,
        done.emails_sent,
        "one message per e-mail sent"
    );
    let wrongly_withdrawn: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails e JOIN documents d ON d.id = e.document_id
         WHERE e.status = 'WITHDRAWN' AND (e.kind <> 'INVITATION' OR d.status <> 'COMPLETED')",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        wrongly_withdrawn, 0,
        "only invitations of completed documents are withdrawn"
    );
    let mut posts: HashMap<String, usize> = HashMap::new();
    for request in receiver.requests() {
        *posts
            .entry(request.headers["webhook-id"].clone())
            .or_default() += 1;
    }
    let twice: Vec<_> = posts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        twice.is_empty(),
        "webhooks posted more than once: {twice:?}"
    );
    assert_eq!(posts.len() as i64, done.deliveries, "one request per event");
    let invitations: i64 =
        sqlx::query_scalar("SELECT count(*) FROM outbound_emails WHERE kind = 'INVITATION'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(
        invitations,
        (COMPLETIONS + BULK_DOCUMENTS * BULK_SIGNERS) as i64
    );
    for doc in &work.to_complete {
        let detail = app.get(&format!("/documents/{doc}"), &work.key).await.1;
        assert_eq!(detail["data"]["status"], "COMPLETED");
    }
    drop(cluster);
}

#[tokio::test]
async fn a_database_restart_loses_nothing_and_needs_no_worker_restart() {
    survive(&[Outage::Restart {
        down: Duration::from_secs(5),
    }])
    .await;
}

#[tokio::test]
async fn a_minute_without_the_database_loses_nothing() {
    survive(&[Outage::Restart {
        down: Duration::from_secs(60),
    }])
    .await;
}

#[tokio::test]
async fn two_restarts_in_a_row_lose_nothing() {
    let restart = || Outage::Restart {
        down: Duration::from_secs(3),
    };
    survive(&[restart(), restart()]).await;
}

/// PostgreSQL answers but refuses every connection of the application ("too many connections
/// for role"), as when other tenants have taken every slot: nothing fails for good meanwhile.
#[tokio::test]
async fn twenty_seconds_of_refused_connections_lose_nothing() {
    survive(&[Outage::Refuse {
        during: Duration::from_secs(20),
    }])
    .await;
}

/// With polling all but off, only the job listener can tell the worker about a new job: after
/// the database returns it must be listening again, and say so in its metrics.
#[tokio::test]
async fn new_jobs_are_heard_of_at_once_after_the_database_returns() {
    let cluster = PgCluster::start(100).await;
    let app = TestApp::spawn_on(TestDb::on(cluster.server()).await, &[]).await;
    let mailbox = Mailbox::start().await;
    let worker = worker(&app, &mailbox, &[("WORKER_POLL_MS", "600000")]);
    wait_for_readiness(&worker, 200, Duration::from_secs(60)).await;
    cluster.stop();
    wait_for_workers_down(&worker).await;
    cluster.start_again();
    wait_for_readiness(&worker, 200, Duration::from_secs(120)).await;

    let (account, key) = app.account(100).await;
    send_document(
        &app,
        account,
        &key,
        &[("late@signet.test", "SIGNER")],
        &[("late@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let arrived = mailbox
        .wait_for(1, Duration::from_secs(60), |m| m.to == "late@signet.test")
        .await;
    assert_eq!(
        arrived.len(),
        1,
        "the invitation arrives without a poll:\n{}",
        worker.log()
    );

    let admin = worker.admin_addr().await;
    let metrics = reqwest::get(format!("http://{admin}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let scrape =
        prometheus_parse::Scrape::parse(metrics.lines().map(|l| Ok(l.to_owned()))).unwrap();
    let value = |name: &str, job: Option<&str>| -> f64 {
        scrape
            .samples
            .iter()
            .filter(|s| s.metric == name && job.is_none_or(|j| s.labels.get("job") == Some(j)))
            .map(|s| match s.value {
                prometheus_parse::Value::Counter(v)
                | prometheus_parse::Value::Gauge(v)
                | prometheus_parse::Value::Untyped(v) => v,
                _ => 0.0,
            })
            .sum()
    };
    for job in signet_worker_labels() {
        assert_eq!(
            value("signet_worker_running", Some(job)),
            1.0,
            "{job} polls"
        );
    }
    assert!(
        value("signet_worker_restarts_total", None) >= 1.0,
        "the restarts were counted:\n{metrics}"
    );
    assert_eq!(value("signet_worker_listener_connected", None), 1.0);
}

fn signet_worker_labels() -> [&'static str; 3] {
    ["dispatch-email", "check-completion", "deliver-webhook"]
}

/// A worker that cannot get back to its queue although the database answers (here: the queue
/// table is gone) is reported by `/healthz`, so that an orchestrator restarts the process; it
/// recovers by itself once the cause is mended.
#[tokio::test]
async fn a_worker_that_cannot_recover_fails_its_liveness_check() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let worker = worker(&app, &mailbox, &[("WORKER_STUCK_SECS", "2")]);
    wait_for_readiness(&worker, 200, Duration::from_secs(60)).await;
    let admin = worker.admin_addr().await;
    let healthz = || async {
        let response = reqwest::get(format!("http://{admin}/healthz"))
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json::<Value>().await.unwrap())
    };
    assert_eq!(healthz().await.0, 200);

    sqlx::query("ALTER TABLE apalis.jobs RENAME TO jobs_moved_away")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let stuck = poll_until(Duration::from_secs(60), &healthz, |(status, _)| {
        *status == 503
    })
    .await;
    assert_eq!(stuck.0, 503, "{}\n{}", stuck.1, worker.log());
    assert_eq!(stuck.1["database"], true, "the database itself answers");
    assert!(
        !stuck.1["stuck"].as_array().unwrap().is_empty(),
        "{}",
        stuck.1
    );

    sqlx::query("ALTER TABLE apalis.jobs_moved_away RENAME TO jobs")
        .execute(&app.db.pool)
        .await
        .unwrap();
    wait_for_readiness(&worker, 200, Duration::from_secs(60)).await;
    assert_eq!(healthz().await.0, 200);
}

/// An API replica started while PostgreSQL is down (a restart or failover under way) waits for
/// it and then serves, as the workers do, instead of exiting and needing a person to start it
/// again. Found by the soak (issue #36): a killed API restarted during a database restart exited
/// with "pool timed out while waiting for an open connection".
#[tokio::test]
async fn an_api_started_while_the_database_is_down_waits_for_it() {
    let cluster = PgCluster::start(100).await;
    let app = TestApp::spawn_on(TestDb::on(cluster.server()).await, &[]).await;
    let (_, key) = app.account(100).await;
    cluster.stop();
    let mut api = ApiProcess::spawn(&app, &[("DATABASE_ACQUIRE_TIMEOUT_MS", "500")]);
    // It met the database down at least once (its migrations could not connect) ...
    let started = Instant::now();
    let (log, exited) = loop {
        let (log, exited) = (api.log(), api.exited());
        if log.contains("waiting for the database")
            || exited.is_some()
            || started.elapsed() > Duration::from_secs(60)
        {
            break (log, exited);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // ... and is still there.
    assert_eq!(exited, None, "the API exited: {log}");
    assert!(log.contains("waiting for the database"), "{log}");
    cluster.start_again();
    let client = reqwest::Client::new();
    let status = poll_until(
        Duration::from_secs(60),
        || async {
            client
                .get(format!("{}/external/api/v1/documents", api.base))
                .header("X-API-KEY", &key)
                .send()
                .await
                .map_or(0, |r| r.status().as_u16())
        },
        |status| *status == 200,
    )
    .await;
    assert_eq!(status, 200, "{}", api.log());
}
