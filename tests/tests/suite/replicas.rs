//! Reads from a streaming replica (issue #37): a PostgreSQL cluster of the test's own and a
//! replica of it made with `pg_basebackup -R`, two real `signet-api` processes reading from it
//! (as two replicas of the API behind a round-robin balancer would), and the replica made to
//! lag (its replay paused: deterministic, no timing), promoted and stopped.

use std::time::Duration;

use serde_json::{Value, json};
use signet_tests::{ApiProcess, LETTER, PgCluster, TestApp, TestDb, eventually};
use sqlx::{Connection, PgConnection};

/// A counter or gauge of the API's `/metrics` (0 when the series is absent).
async fn metric(api: &ApiProcess, series: &str) -> f64 {
    let text = reqwest::get(format!("{}/metrics", api.base))
        .await
        .expect("/metrics")
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0.0)
}

const BY_REPLICA: &str = r#"signet_db_reads_total{served_by="replica"}"#;
const BY_PRIMARY: &str = r#"signet_db_reads_total{served_by="primary"}"#;

/// Waits until the API's sampler shows the replica usable (or not).
async fn replica_usable(api: &ApiProcess, replica_port: u16, usable: bool) {
    let series = format!(r#"signet_db_replica_usable{{replica="127.0.0.1:{replica_port}"}}"#);
    let want = if usable { 1.0 } else { 0.0 };
    eventually(
        format!("{series} to be {want}"),
        Duration::from_secs(30),
        || async { (metric(api, &series).await == want).then_some(()) },
    )
    .await;
}

async fn get(api: &ApiProcess, key: &str, path: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .get(format!("{}/external/api/v1{path}", api.base))
        .header("X-API-KEY", key)
        .send()
        .await
        .expect("request");
    signet_tests::read(response).await
}

/// `get`, and which of the primary or the replica answered it (by the API's counters).
async fn get_served(api: &ApiProcess, key: &str, path: &str) -> (u16, Value, &'static str) {
    let (replica, primary) = (metric(api, BY_REPLICA).await, metric(api, BY_PRIMARY).await);
    let (status, body) = get(api, key, path).await;
    let served_by = match (
        (metric(api, BY_REPLICA).await - replica) as i64,
        (metric(api, BY_PRIMARY).await - primary) as i64,
    ) {
        (1, 0) => "replica",
        (0, 1) => "primary",
        counted => panic!("one read counted once, got {counted:?}"),
    };
    (status, body, served_by)
}

#[tokio::test]
async fn reads_go_to_a_fresh_replica_and_never_miss_the_callers_writes() {
    let primary = PgCluster::start(100).await;
    let replica = primary.replica().await;
    let app = TestApp::spawn_on(TestDb::on(primary.server()).await, &[]).await;
    let read_url = replica.database_url(&app.db.name);
    // Two API processes, as behind a round-robin balancer: A tolerates a minute of lag, B one
    // second.
    let reading = |max_lag_ms| {
        [
            ("DATABASE_READ_URL", read_url.as_str()),
            ("DATABASE_READ_MAX_LAG_MS", max_lag_ms),
            ("DATABASE_READ_SAMPLE_MS", "100"),
        ]
    };
    let api_a = ApiProcess::start(&app, &reading("60000")).await;
    let api_b = ApiProcess::start(&app, &reading("1000")).await;
    let (account, key) = app.account(1_000_000).await;
    let document = app.document(account, "Replicated", &[LETTER]).await;
    replica_usable(&api_a, replica.port, true).await;
    replica_usable(&api_b, replica.port, true).await;

    // A fresh replica serves the list (it has the document: created before it was sampled).
    let (status, list, served_by) = get_served(&api_a, &key, "/documents").await;
    assert_eq!((status, served_by), (200, "replica"), "{list}");
    assert_eq!(list["data"]["total"], 1);

    // The replica stops replaying: it lags by whatever the primary writes from now on.
    replica.pause_replay(true).await;
    let unseen = app
        .document(account, "Written behind the API's back", &[LETTER])
        .await;
    // A (a minute of lag allowed) still reads the replica: the list it serves lacks the document
    // written directly on the primary, which proves who answered.
    let (status, list, served_by) = get_served(&api_a, &key, "/documents").await;
    assert_eq!((status, served_by), (200, "replica"), "{list}");
    assert_eq!(list["data"]["total"], 1, "the replica's view: {list}");

    // The caller writes through A; its next reads, through A or B, see the write (the replica,
    // paused, has not got it: they are served by the primary).
    let response = reqwest::Client::new()
        .post(format!(
            "{}/external/api/v1/documents/{document}/recipients",
            api_a.base
        ))
        .header("X-API-KEY", &key)
        .json(&json!([{"name": "Ann Signer", "email": "ann@signet.test", "role": "SIGNER"}]))
        .send()
        .await
        .expect("add a recipient");
    let (status, body) = signet_tests::read(response).await;
    assert_eq!(status, 200, "{body}");
    let mut on_replica = PgConnection::connect(&read_url).await.expect("replica");
    let replicated: i64 =
        sqlx::query_scalar("SELECT count(*) FROM recipients WHERE document_id = $1")
            .bind(document)
            .fetch_one(&mut on_replica)
            .await
            .expect("count on the replica");
    assert_eq!(replicated, 0, "the replica must not have the write yet");
    for api in [&api_a, &api_b] {
        let (status, detail, served_by) =
            get_served(api, &key, &format!("/documents/{document}")).await;
        assert_eq!((status, served_by), (200, "primary"), "{detail}");
        assert_eq!(detail["data"]["recipients"][0]["email"], "ann@signet.test");
        let (_, list, served_by) = get_served(api, &key, "/documents").await;
        assert_eq!(
            (list["data"]["total"].clone(), served_by),
            (json!(2), "primary")
        );
    }
    // The account's position is shared through the database: B, which did not take the
    // write, honours it as A does.

    // B allows one second of lag: the paused replica falls out of its bound and B reads the
    // primary, for an account that has never written too.
    replica_usable(&api_b, replica.port, false).await;
    let (_, other_key) = app.account(1_000_000).await;
    let (status, _, served_by) = get_served(&api_b, &other_key, "/documents").await;
    assert_eq!((status, served_by), (200, "primary"));

    // Replay resumes: the replica catches up and serves again, with everything.
    replica.pause_replay(false).await;
    replica_usable(&api_b, replica.port, true).await;
    let (status, list, served_by) = get_served(&api_b, &other_key, "/documents").await;
    assert_eq!((status, served_by), (200, "replica"), "{list}");
    let (_, detail) = get(&api_b, &key, &format!("/documents/{unseen}")).await;
    assert_eq!(detail["data"]["title"], "Written behind the API's back");

    // Promoted, it follows the primary no more: skipped.
    replica.promote();
    replica_usable(&api_a, replica.port, false).await;
    let (status, _, served_by) = get_served(&api_a, &key, "/documents").await;
    assert_eq!((status, served_by), (200, "primary"));

    // Stopped: skipped, and nothing fails.
    drop(on_replica);
    replica.stop();
    for api in [&api_a, &api_b] {
        let (status, list) = get(api, &key, "/documents").await;
        assert_eq!(status, 200, "{list}");
        replica_usable(api, replica.port, false).await;
        let (status, _, served_by) = get_served(api, &key, "/documents").await;
        assert_eq!((status, served_by), (200, "primary"));
    }
}

/// A replica that goes away between two samples: the read it was given fails there and runs
/// again on the primary, so the caller never sees the outage.
#[tokio::test]
async fn a_replica_stopped_between_samples_costs_no_request() {
    let primary = PgCluster::start(100).await;
    let replica = primary.replica().await;
    let app = TestApp::spawn_on(TestDb::on(primary.server()).await, &[]).await;
    let read_url = replica.database_url(&app.db.name);
    // Sampled once a minute at most: the stop below is not noticed by a sample first.
    let api = ApiProcess::start(
        &app,
        &[
            ("DATABASE_READ_URL", read_url.as_str()),
            ("DATABASE_READ_MAX_LAG_MS", "120000"),
            ("DATABASE_READ_SAMPLE_MS", "60000"),
        ],
    )
    .await;
    let (account, key) = app.account(1_000_000).await;
    app.document(account, "One", &[LETTER]).await;
    // The first sample runs at start; the replica is usable once it has the account.
    eventually(
        "a read served by the replica",
        Duration::from_secs(60),
        || async {
            let (status, _) = get(&api, &key, "/documents").await;
            assert_eq!(status, 200);
            (metric(&api, BY_REPLICA).await >= 1.0).then_some(())
        },
    )
    .await;
    replica.stop();
    let (status, list, served_by) = get_served(&api, &key, "/documents").await;
    assert_eq!((status, served_by), (200, "primary"), "{list}");
    assert_eq!(list["data"]["total"], 1);
}
