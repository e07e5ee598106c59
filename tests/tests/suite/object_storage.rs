//! Files in an S3-compatible bucket (issue #18), with a bucket of each test's own on the S3
//! server (moto): an API, a worker and the CLI that share nothing but PostgreSQL and the bucket
//! complete a document; the bucket going away answers uploads with a clear 503 and leaves
//! nothing behind, and holds completion back until it returns; and `signet-api files
//! copy-from-dir` moves a local store into a bucket, checking every file's SHA-256.
//! (`suite_s3` runs the rest of the suite against a bucket too; this module brings its own.)

use std::{path::Path, process::Command};

use serde_json::{Value, json};
use signet_common::infra::files::FileStore;
use signet_tests::{
    ApiProcess, LETTER, Mailbox, S3Server, TcpProxy, TestApp, TestDb, WorkerProcess, binary, pdf,
    s3_settings,
};
use uuid::Uuid;

use crate::console::Browser;
use crate::signing_flow::{invitations, sign};

/// The settings of `bucket` at `endpoint`, keys under `signet/`, and a local directory of the
/// process's own that must stay empty.
fn bucket_settings(endpoint: &str, bucket: &str, own_dir: &Path) -> Vec<(String, String)> {
    let mut settings = s3_settings(endpoint, bucket);
    settings.push(("FILE_STORE_DIR".to_owned(), own_dir.display().to_string()));
    settings
}

fn as_env(settings: &[(String, String)]) -> Vec<(&str, &str)> {
    settings
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

fn store(settings: &[(String, String)]) -> FileStore {
    let settings: std::collections::HashMap<_, _> = settings.iter().cloned().collect();
    let config = signet_common::Config::from_vars(settings.clone()).unwrap();
    FileStore::from_config(&config.files.store).unwrap()
}

fn is_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).map_or(true, |mut entries| entries.next().is_none())
}

/// `signet-api document upload` with `settings`; (exit code, stdout, stderr). Awaited, not
/// blocking: the test's proxy runs on the same thread.
async fn cli_upload(
    db: &TestDb,
    settings: &[(String, String)],
    account: Uuid,
) -> (i32, Value, String) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), pdf(&[LETTER])).unwrap();
    let out = tokio::process::Command::new(binary("signet-api"))
        .args(["document", "upload", "--title", "Lease", "--account"])
        .arg(account.to_string())
        .arg("--file")
        .arg(file.path())
        .env("DATABASE_URL", db.url())
        .env("RUST_LOG", "error")
        .envs(settings.iter().cloned())
        .output()
        .await
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn api_call(base: &str, key: &str, path: &str, body: Option<Value>) -> Value {
    let client = reqwest::Client::new();
    let url = format!("{base}/external/api/v1{path}");
    let request = match &body {
        Some(body) => client.post(url).json(body),
        None => client.get(url),
    };
    let response = request.header("X-API-KEY", key).send().await.unwrap();
    let status = response.status();
    let value: Value = response.json().await.unwrap();
    assert!(status.is_success(), "{path}: {status} {value}");
    value
}

/// Recipients, one signature field and send, through the API at `base`.
async fn send(base: &str, key: &str, doc: &str, email: &str) {
    api_call(
        base,
        key,
        &format!("/documents/{doc}/recipients"),
        Some(json!([{"name": "Ada Lovelace", "email": email, "role": "SIGNER"}])),
    )
    .await;
    api_call(
        base,
        key,
        &format!("/documents/{doc}/fields"),
        Some(json!([{"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 40, "y": 40, "width": 200, "height": 30}])),
    )
    .await;
    api_call(
        base,
        key,
        &format!("/documents/{doc}/send"),
        Some(json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"})),
    )
    .await;
}

async fn status_of(app: &TestApp, doc: &str) -> String {
    sqlx::query_scalar("SELECT status::text FROM documents WHERE id = $1::uuid")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

async fn final_key(app: &TestApp, doc: &str) -> String {
    sqlx::query_scalar("SELECT final_file_key FROM documents WHERE id = $1::uuid")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

async fn wait_for_completed(app: &TestApp, doc: &str) {
    signet_tests::eventually(
        format!("{doc} to be completed"),
        std::time::Duration::from_secs(60),
        || async { (status_of(app, doc).await == "COMPLETED").then_some(()) },
    )
    .await;
}

#[tokio::test]
async fn an_api_a_worker_and_the_cli_sharing_only_the_database_and_a_bucket_complete_a_document() {
    let s3 = S3Server::start();
    let bucket = s3.bucket().await;
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let [api_settings, worker_settings, cli_settings] =
        [0, 1, 2].map(|i| bucket_settings(&s3.endpoint, &bucket, dirs[i].path()));
    let api = ApiProcess::start(&app, &as_env(&api_settings)).await;
    let mut worker_env = as_env(&worker_settings);
    worker_env.push(("PUBLIC_URL", &api.base));
    let worker = WorkerProcess::start(&app, &mailbox.url(), &worker_env);
    let (account, key) = app.account(1000).await;

    let (code, uploaded, stderr) = cli_upload(&app.db, &cli_settings, account).await;
    assert_eq!(code, 0, "{stderr}");
    let doc = uploaded["id"].as_str().unwrap().to_owned();
    send(&api.base, &key, &doc, "ada@signet.test").await;
    let link = invitations(&mailbox, 1).await["ada@signet.test"].clone();
    assert!(link.starts_with(&api.base), "{link}");
    assert_eq!(sign(&app, &link, &["Ada Lovelace"]).await.0, 200);
    wait_for_completed(&app, &doc).await;

    let detail = api_call(&api.base, &key, &format!("/documents/{doc}"), None).await;
    let file_path = detail["data"]["filePath"].as_str().unwrap();
    let downloaded = reqwest::get(file_path).await.unwrap();
    assert_eq!(downloaded.status(), 200);
    let downloaded = downloaded.bytes().await.unwrap();
    let final_key = final_key(&app, &doc).await;
    let bucket_store = store(&api_settings);
    assert_eq!(bucket_store.get(&final_key).await.unwrap(), downloaded);
    let keys = bucket_store.keys().await.unwrap();
    assert_eq!(
        keys,
        {
            let mut expected = vec![format!("{account}/{doc}/original.pdf"), final_key];
            expected.sort();
            expected
        },
        "the original and the sealed final PDF, and nothing else"
    );
    for dir in &dirs {
        assert!(
            is_empty(dir.path()),
            "nothing was stored on a process's disk"
        );
    }
    drop(worker);
}

/// The bucket unreachable (a proxy in front of it cut): an upload is answered `503` with
/// `Retry-After` and a page that says so, and leaves no document, no pending file and no
/// object; a completion waits, the document still SENT with its signature, and is done once
/// the bucket is back.
#[tokio::test]
async fn while_the_bucket_is_unreachable_uploads_get_503_and_completion_waits() {
    let s3 = S3Server::start();
    let bucket = s3.bucket().await;
    let upstream: std::net::SocketAddr = s3.endpoint.trim_start_matches("http://").parse().unwrap();
    let proxy = TcpProxy::start(upstream).await;
    let own = tempfile::tempdir().unwrap();
    let settings = bucket_settings(
        &format!("http://127.0.0.1:{}", proxy.port),
        &bucket,
        own.path(),
    );
    let app = TestApp::spawn_with(&as_env(&settings)).await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &as_env(&settings));
    let (account, key) = app.account(1000).await;
    let direct = store(&bucket_settings(&s3.endpoint, &bucket, own.path()));

    proxy.cut().await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let csrf = browser.get("/app/documents").await.csrf();
    let refused = browser
        .upload(Some(&csrf), "Lease", "lease.pdf", pdf(&[LETTER]))
        .await;
    assert_eq!(refused.status, reqwest::StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        refused
            .body
            .contains("The file store cannot be reached right now"),
        "{}",
        refused.body
    );
    let (code, _, stderr) = cli_upload(&app.db, &settings, account).await;
    assert_eq!(code, 1);
    assert!(stderr.contains("file store"), "{stderr}");
    let (documents, pending): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM pending_files)",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!((documents, pending), (0, 0), "nothing half-written");
    assert!(direct.keys().await.unwrap().is_empty());

    // Back for the upload and the send; away again when the last signature comes.
    proxy.restore().await;
    let (code, uploaded, stderr) = cli_upload(&app.db, &settings, account).await;
    assert_eq!(code, 0, "{stderr}");
    let doc = uploaded["id"].as_str().unwrap().to_owned();
    send(&app.base, &key, &doc, "ada@signet.test").await;
    let link = invitations(&mailbox, 1).await["ada@signet.test"].clone();
    proxy.cut().await;
    assert_eq!(sign(&app, &link, &["Ada Lovelace"]).await.0, 200);
    let log = worker
        .wait_for_log("file store unreachable; will try again")
        .await;
    assert!(
        log.contains("file store unreachable; will try again"),
        "{log}"
    );
    assert_eq!(status_of(&app, &doc).await, "SENT");

    proxy.restore().await;
    wait_for_completed(&app, &doc).await;
    let final_key = final_key(&app, &doc).await;
    assert!(
        direct.get(&final_key).await.is_ok(),
        "the final PDF is there"
    );
}

/// `signet-api files copy-from-dir`: every document's files from a local store into the
/// bucket, each read back and checked against the SHA-256 the database records (or, for a
/// final PDF completed before it was recorded, against the source); a file whose bytes differ
/// from the record is named and not copied, and the command exits 1. Running it again is safe.
#[tokio::test]
async fn a_local_store_is_copied_into_a_bucket_and_every_file_checked() {
    let s3 = S3Server::start();
    let bucket = s3.bucket().await;
    let db = TestDb::new().await;
    let local = tempfile::tempdir().unwrap();
    let local_settings = vec![(
        "FILE_STORE_DIR".to_owned(),
        local.path().display().to_string(),
    )];
    let account = signet_common::store::accounts::create(
        &db.pool,
        "Owner",
        &signet_common::model::EmailAddress::parse(&format!(
            "o-{}@example.com",
            Uuid::new_v4().simple()
        ))
        .unwrap(),
        1000,
    )
    .await
    .unwrap()
    .id
    .0;
    let mut docs = Vec::new();
    for _ in 0..3 {
        let (code, uploaded, stderr) = cli_upload(&db, &local_settings, account).await;
        assert_eq!(code, 0, "{stderr}");
        docs.push(uploaded["id"].as_str().unwrap().to_owned());
    }
    // Two of them completed: one with its final PDF's SHA-256 recorded, one from before it was.
    for (doc, recorded) in [(&docs[0], true), (&docs[1], false)] {
        let bytes = pdf(&[LETTER, LETTER]);
        let key = format!("{account}/{doc}/final-x.pdf");
        std::fs::write(local.path().join(&key), &bytes).unwrap();
        sqlx::query(
            "UPDATE documents SET status = 'COMPLETED', completed_at = now(),
                    final_file_key = $2, final_sha256 = $3 WHERE id = $1::uuid",
        )
        .bind(doc)
        .bind(&key)
        .bind(recorded.then(|| signet_common::infra::secrets::sha256_hex(&bytes)))
        .execute(&db.pool)
        .await
        .unwrap();
    }
    let own = tempfile::tempdir().unwrap();
    let settings = bucket_settings(&s3.endpoint, &bucket, own.path());
    let copy = || {
        let out = Command::new(binary("signet-api"))
            .args(["files", "copy-from-dir", "--dir"])
            .arg(local.path())
            .env("DATABASE_URL", db.url())
            .env("RUST_LOG", "error")
            .envs(settings.iter().cloned())
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = copy();
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(report["documents"], 3, "{report}");
    assert_eq!(
        report["verified"], 4,
        "three originals and one final: {report}"
    );
    assert_eq!(report["verifiedAgainstSource"], 1, "{report}");
    assert_eq!(report["failed"], json!([]), "{report}");
    let bucket_store = store(&settings);
    let local_store = FileStore::local(local.path().to_owned()).unwrap();
    let keys = bucket_store.keys().await.unwrap();
    assert_eq!(keys, local_store.keys().await.unwrap());
    for key in &keys {
        assert_eq!(
            bucket_store.get(key).await.unwrap(),
            local_store.get(key).await.unwrap()
        );
    }

    // A local file that no longer matches its record is named, not copied over the good copy.
    let damaged = format!("{account}/{}/original.pdf", docs[2]);
    let mut bytes = std::fs::read(local.path().join(&damaged)).unwrap();
    bytes[20] ^= 1;
    std::fs::write(local.path().join(&damaged), &bytes).unwrap();
    let (code, _, stderr) = copy();
    assert_eq!(code, 1);
    assert!(stderr.contains(&damaged), "{stderr}");
    assert!(stderr.contains("the database records"), "{stderr}");
    assert_ne!(bucket_store.get(&damaged).await.unwrap().as_ref(), bytes);
}
