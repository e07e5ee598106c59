//! Scaled out on one PostgreSQL: three API processes and four workers (the real binaries,
//! default budgets) on a cluster of the test's own, and back-pressure when PostgreSQL refuses
//! connections.

use std::{
    collections::HashMap,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicI64, Ordering},
    },
    time::{Duration, Instant},
};

use futures::{StreamExt, stream};
use serde_json::{Value, json};
use signet_tests::{ApiProcess, LETTER, Mailbox, PgCluster, TestApp, TestDb, WorkerProcess};
use sqlx::{Connection, PgConnection};

const APIS: usize = 3;
const WORKERS: usize = 4;
const DOCUMENTS: usize = 300;
/// The default `DATABASE_MAX_CONNECTIONS` of each process.
const BUDGET: i64 = 8;

/// Connections the deployment holds right now (the test's own are named otherwise).
async fn deployment_connections(admin: &mut PgConnection, database: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity
         WHERE datname = $1 AND application_name IN ('signet-api', 'signet-worker')",
    )
    .bind(database)
    .fetch_one(admin)
    .await
    .unwrap()
}

async fn call(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    path: &str,
    body: Option<Value>,
) -> u16 {
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

#[tokio::test]
async fn three_apis_and_four_workers_share_one_database_within_budget() {
    let cluster = PgCluster::start(100).await;
    let app = TestApp::spawn_on(TestDb::on(cluster.role("signet_app").await).await, &[]).await;
    let mailbox = Mailbox::start().await;
    let defaults = [("DATABASE_MAX_CONNECTIONS", "8")];
    let mut apis = Vec::new();
    for _ in 0..APIS {
        apis.push(ApiProcess::start(&app, &defaults).await);
    }
    let workers: Vec<WorkerProcess> = (0..WORKERS)
        .map(|_| WorkerProcess::start(&app, &mailbox.url(), &defaults))
        .collect();
    let (account, key) = app.account(1_000_000).await;
    let mut documents = Vec::new();
    for i in 0..DOCUMENTS {
        documents.push(
            app.document(account, &format!("Contract {i}"), &[LETTER])
                .await,
        );
    }

    // Sample the deployment's connections while it works.
    let peak = Arc::new(AtomicI64::new(0));
    let working = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, working) = (peak.clone(), working.clone());
        let mut admin = PgConnection::connect_with(&cluster.server().options())
            .await
            .unwrap();
        let database = app.db.name.clone();
        tokio::spawn(async move {
            while working.load(Ordering::SeqCst) {
                let now = deployment_connections(&mut admin, &database).await;
                peak.fetch_max(now, Ordering::SeqCst);
                // The sampling rate, not a wait: the sampler runs until the work is done.
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };

    let client = reqwest::Client::new();
    let bases: Vec<String> = apis.iter().map(|a| a.base.clone()).collect();
    // Lists read all along, through every API.
    let readers = {
        let (client, bases, key, working) =
            (client.clone(), bases.clone(), key.clone(), working.clone());
        tokio::spawn(async move {
            let mut answers: HashMap<u16, usize> = HashMap::new();
            let mut i = 0;
            while working.load(Ordering::SeqCst) {
                let base = &bases[i % bases.len()];
                let status = call(
                    &client,
                    base,
                    &key,
                    "/documents?limit=10&sortBy=dateCreated&sortOrder=DESC",
                    None,
                )
                .await;
                *answers.entry(status).or_default() += 1;
                i += 1;
            }
            answers
        })
    };
    let started = Instant::now();
    let sends: Vec<u16> = stream::iter(documents.iter().enumerate())
        .map(|(i, doc)| {
            let (client, base, key) = (client.clone(), bases[i % APIS].clone(), key.clone());
            async move {
                let email = format!("signer{i}@signet.test");
                let steps = [
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
                ];
                let mut statuses = Vec::new();
                for (path, body) in steps {
                    statuses.push(call(&client, &base, &key, &path, Some(body)).await);
                }
                statuses
            }
        })
        .buffer_unordered(24)
        .flat_map(stream::iter)
        .collect()
        .await;
    let sent_in = started.elapsed();

    let delivered = mailbox
        .wait_for(DOCUMENTS, Duration::from_secs(240), |m| {
            m.text.contains("/sign/")
        })
        .await;
    let all_in = started.elapsed();
    working.store(false, Ordering::SeqCst);
    let reads = readers.await.unwrap();
    sampler.await.unwrap();
    let peak = peak.load(Ordering::SeqCst);
    let budget = APIS as i64 * BUDGET + WORKERS as i64 * BUDGET;
    println!(
        "{DOCUMENTS} documents sent through {APIS} APIs in {sent_in:?}, all invitations in {all_in:?} \
         by {WORKERS} workers; list reads meanwhile: {reads:?}; peak connections {peak} \
         (budget {APIS} × {BUDGET} + {WORKERS} × {BUDGET} = {budget})"
    );

    let failed: Vec<&u16> = sends.iter().filter(|s| **s != 200).collect();
    assert!(failed.is_empty(), "non-200 answers to sends: {failed:?}");
    assert_eq!(sends.len(), DOCUMENTS * 3);
    assert_eq!(
        reads.keys().copied().collect::<Vec<_>>(),
        vec![200],
        "list reads: {reads:?}"
    );
    let mut copies: HashMap<String, usize> = HashMap::new();
    for mail in &delivered {
        *copies.entry(mail.message_id.clone()).or_default() += 1;
    }
    let logs: Vec<String> = workers.iter().map(|w| w.log()).collect();
    assert_eq!(
        copies.len(),
        DOCUMENTS,
        "every invitation arrives:\n{}",
        logs.join("\n")
    );
    assert!(
        copies.values().all(|n| *n == 1),
        "each invitation exactly once: {:?}",
        copies.iter().filter(|(_, n)| **n > 1).collect::<Vec<_>>()
    );
    assert!(
        peak <= budget,
        "peak {peak} connections exceed the budget of {budget}"
    );
    drop(cluster);
}

/// When PostgreSQL refuses the API's connections, a request waits for
/// `DATABASE_ACQUIRE_TIMEOUT_MS` and is answered 503 with `Retry-After`; once connections are
/// allowed again the same request succeeds, with no restart.
#[tokio::test]
async fn refused_connections_answer_503_with_retry_after() {
    let cluster = PgCluster::start(100).await;
    let app = TestApp::spawn_on(TestDb::on(cluster.role("signet_app").await).await, &[]).await;
    let api = ApiProcess::start(&app, &[("DATABASE_ACQUIRE_TIMEOUT_MS", "1000")]).await;
    let (_, key) = app.account(1000).await;
    let client = reqwest::Client::new();
    let list = || {
        client
            .get(format!("{}/external/api/v1/documents", api.base))
            .header("X-API-KEY", &key)
            .send()
    };
    assert_eq!(list().await.unwrap().status(), 200);

    cluster
        .execute("ALTER ROLE signet_app CONNECTION LIMIT 0")
        .await;
    cluster
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'signet_app'",
        )
        .await;
    let refused = list().await.unwrap();
    assert_eq!(refused.status(), 503);
    assert_eq!(
        refused.headers()["retry-after"],
        "2",
        "503 says when to come back"
    );
    let body: Value = refused.json().await.unwrap();
    assert_eq!(
        body,
        json!({"code": "ERROR", "message": "Service unavailable", "data": {}})
    );

    cluster
        .execute("ALTER ROLE signet_app CONNECTION LIMIT -1")
        .await;
    assert_eq!(list().await.unwrap().status(), 200);
}
