//! PgBouncer in front of PostgreSQL (issue #37): which pool mode sqlx can run under, and the
//! connections ten APIs and twenty workers need through it, measured on a cluster of the
//! test's own with Debian's PgBouncer (1.18).

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use futures::{StreamExt, stream};
use serde_json::json;
use signet_tests::{
    ApiProcess, LETTER, Mailbox, PgBouncer, PgCluster, Pooling, TEST_APPLICATION_NAME, TestApp,
    TestDb, WorkerProcess,
};
use sqlx::{ConnectOptions, Connection, PgConnection, postgres::PgConnectOptions};

/// sqlx 0.9 prepares every statement it runs with arguments under a name (`sqlx_s_<n>`, counted
/// per connection), in a Parse/Describe/Sync of its own before the Bind/Execute/Sync, and with
/// its statement cache off (`statement_cache_capacity(0)`) it still names them and never closes
/// them. In transaction pooling, PgBouncer 1.18 (which tracks no prepared statements; 1.21 does)
/// gives each of those Syncs to whichever server connection is free: a second client's first
/// statement meets the first client's on the same server. So the deployment runs in session
/// mode; this test fails, telling the docs to change, the day it does not.
#[tokio::test]
async fn transaction_pooling_breaks_sqlx_statements_so_sessions_it_is() {
    let cluster = PgCluster::start(20).await;
    let statement = |options: PgConnectOptions| async move {
        let mut connection = options
            .statement_cache_capacity(0)
            .connect()
            .await
            .expect("connect through pgbouncer");
        let answer = sqlx::query_scalar::<_, i32>("SELECT $1::int4 + 1")
            .bind(41)
            .fetch_one(&mut connection)
            .await;
        (connection, answer)
    };
    let url = |bouncer: &PgBouncer| -> PgConnectOptions {
        bouncer.url("postgres", "postgres").parse().expect("url")
    };

    let transaction = PgBouncer::start(
        cluster.port,
        Pooling {
            mode: "transaction",
            pool_size: 1,
            max_clients: 10,
        },
        &["postgres"],
    )
    .await;
    let (first, answer) = statement(url(&transaction)).await;
    assert_eq!(answer.expect("the first client's statement"), 42);
    let (_second, answer) = statement(url(&transaction)).await;
    let error = answer.expect_err("a second client's statement on the same server connection");
    let code = error
        .as_database_error()
        .and_then(|e| e.code().map(|c| c.into_owned()));
    assert_eq!(
        code.as_deref(),
        Some("42P05"),
        "prepared statement already exists: {error}"
    );
    first.close().await.ok();

    let session = PgBouncer::start(
        cluster.port,
        Pooling {
            mode: "session",
            pool_size: 2,
            max_clients: 10,
        },
        &["postgres"],
    )
    .await;
    let (_first, answer) = statement(url(&session)).await;
    assert_eq!(answer.expect("first client"), 42);
    let (_second, answer) = statement(url(&session)).await;
    assert_eq!(answer.expect("second client"), 42);
}

const APIS: usize = 10;
const WORKERS: usize = 20;
const DOCUMENTS: usize = 40;
/// The server connections PgBouncer may open to the database (`default_pool_size`). Session
/// pooling gives a client a server for as long as it keeps its connection, and each worker
/// keeps its queue pool's 3 busy (fetches, heartbeats, lease renewals): 20 workers hold 60
/// servers. With a pool of 60 the workers took all of them and the APIs' clients waited until
/// they gave up; the pool must cover the workers' 3 each and leave the APIs a share.
const POOL_SIZE: u32 = 100;

/// This deployment's sessions on PostgreSQL itself (PgBouncer's and the direct ones): all but
/// the test's own. A server PgBouncer keeps idle has no `application_name` (its reset query
/// dropped the last client's).
async fn server_sessions(admin: &mut PgConnection, database: &str) -> HashMap<String, i64> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT application_name, count(*) FROM pg_stat_activity
          WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2 GROUP BY 1",
    )
    .bind(database)
    .bind(TEST_APPLICATION_NAME)
    .fetch_all(admin)
    .await
    .expect("pg_stat_activity");
    rows.into_iter().collect()
}

/// Ten `signet-api` and twenty `signet-worker` processes through one PgBouncer in session
/// mode, each worker's `LISTEN` connection direct (`DATABASE_DIRECT_URL`): 40 documents sent
/// through every API while lists are read, every invitation delivered once, and the sessions
/// on PostgreSQL counted all along against what the same processes would open without it.
#[tokio::test]
async fn ten_apis_and_twenty_workers_through_pgbouncer() {
    // The pool, the workers' direct listeners and this test's own sessions.
    let cluster = PgCluster::start(POOL_SIZE + WORKERS as u32 + 20).await;
    let app = TestApp::spawn_on(TestDb::on(cluster.server()).await, &[]).await;
    let database = app.db.name.clone();
    let bouncer = PgBouncer::start(
        cluster.port,
        Pooling {
            mode: "session",
            pool_size: POOL_SIZE,
            max_clients: 1000,
        },
        &["postgres"],
    )
    .await;
    let pooled = bouncer.url("postgres", &database);
    let direct = app.db.url();
    let mailbox = Mailbox::start().await;
    let settings = [
        ("DATABASE_URL", pooled.as_str()),
        ("DATABASE_DIRECT_URL", direct.as_str()),
        ("DATABASE_MAX_CONNECTIONS", "8"),
        ("DATABASE_IDLE_SECS", "1"),
    ];
    let mut apis = Vec::new();
    for _ in 0..APIS {
        apis.push(ApiProcess::start(&app, &settings).await);
    }
    let workers: Vec<WorkerProcess> = (0..WORKERS)
        .map(|_| WorkerProcess::start(&app, &mailbox.url(), &settings))
        .collect();
    let (account, key) = app.account(1_000_000).await;
    let mut documents = Vec::new();
    for i in 0..DOCUMENTS {
        documents.push(
            app.document(account, &format!("Pooled {i}"), &[LETTER])
                .await,
        );
    }

    let peak = Arc::new(AtomicI64::new(0));
    let peak_waiting = Arc::new(AtomicI64::new(0));
    let working = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, peak_waiting, working) = (peak.clone(), peak_waiting.clone(), working.clone());
        let mut admin = PgConnection::connect_with(&cluster.server().options())
            .await
            .expect("admin");
        let database = database.clone();
        let port = bouncer.port;
        tokio::spawn(async move {
            let mut seen: HashMap<String, i64> = HashMap::new();
            while working.load(Ordering::SeqCst) {
                let now = server_sessions(&mut admin, &database).await;
                let total: i64 = now.values().sum();
                if total > peak.fetch_max(total, Ordering::SeqCst) {
                    seen = now;
                }
                // Clients of the database's pool waiting for a server connection now.
                let pool_of = database.clone();
                let waiting: i64 = tokio::task::spawn_blocking(move || {
                    PgBouncer::pools_on(port, &pool_of)
                        .iter()
                        .filter_map(|pool| pool.get("cl_waiting")?.parse::<i64>().ok())
                        .sum()
                })
                .await
                .expect("show pools");
                peak_waiting.fetch_max(waiting, Ordering::SeqCst);
                // The sampling rate, not a wait: the sampler runs until the work is done.
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            seen
        })
    };

    let client = reqwest::Client::new();
    let bases: Vec<String> = apis.iter().map(|a| a.base.clone()).collect();
    let call = |base: String, path: String, body: Option<serde_json::Value>| {
        let (client, key) = (client.clone(), key.clone());
        async move {
            let url = format!("{base}/external/api/v1{path}");
            let request = match body {
                Some(body) => client.post(url).json(&body),
                None => client.get(url),
            };
            match request.header("X-API-KEY", key).send().await {
                Ok(response) => response.status().as_u16(),
                Err(_) => 0,
            }
        }
    };
    let started = Instant::now();
    let sends: Vec<u16> = stream::iter(documents.iter().enumerate())
        .map(|(i, doc)| {
            let base = bases[i % APIS].clone();
            let call = &call;
            async move {
                let email = format!("pooled{i}@signet.test");
                let mut statuses = Vec::new();
                for (path, body) in [
                    (
                        format!("/documents/{doc}/recipients"),
                        json!([{"name": format!("Signer {i}"), "email": email, "role": "SIGNER"}]),
                    ),
                    (
                        format!("/documents/{doc}/fields"),
                        json!([{"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 72, "y": 72, "width": 200, "height": 40}]),
                    ),
                    (
                        format!("/documents/{doc}/send"),
                        json!({"message": "Please sign", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
                    ),
                ] {
                    statuses.push(call(base.clone(), path, Some(body)).await);
                    statuses.push(call(base.clone(), "/documents?limit=10".to_owned(), None).await);
                }
                statuses
            }
        })
        .buffer_unordered(20)
        .flat_map(stream::iter)
        .collect()
        .await;
    let delivered = mailbox
        .wait_for(DOCUMENTS, Duration::from_secs(240), |m| {
            m.text.contains("/sign/")
        })
        .await;
    let all_in = started.elapsed();
    working.store(false, Ordering::SeqCst);
    let at_peak = sampler.await.expect("sampler");
    let peak = peak.load(Ordering::SeqCst);
    let pools = bouncer.pools(&database);
    let without = (APIS + WORKERS) as i64 * 8;
    println!(
        "{APIS} APIs + {WORKERS} workers through PgBouncer (session, pool {POOL_SIZE}): {DOCUMENTS} \
         documents sent and delivered in {all_in:?}; peak sessions on PostgreSQL {peak} \
         ({at_peak:?}); most clients waiting for a server at once: {}; SHOW POOLS at the end: \
         {pools:?}; the same processes' budgets without PgBouncer: {without}",
        peak_waiting.load(Ordering::SeqCst)
    );

    let failed: Vec<&u16> = sends.iter().filter(|s| **s != 200).collect();
    assert!(failed.is_empty(), "non-200 answers: {failed:?}");
    let mut copies: HashMap<String, usize> = HashMap::new();
    for mail in &delivered {
        *copies.entry(mail.message_id.clone()).or_default() += 1;
    }
    assert_eq!(copies.len(), DOCUMENTS, "every invitation arrives");
    assert!(copies.values().all(|n| *n == 1), "each exactly once");
    // PgBouncer never opens more than its pool; the direct sessions are the workers' listeners.
    let listeners = WORKERS as i64;
    assert!(
        peak <= i64::from(POOL_SIZE) + listeners + 1,
        "peak {peak} sessions: more than the pool ({POOL_SIZE}) and {listeners} listeners"
    );
    drop(workers);
    drop(apis);
}
