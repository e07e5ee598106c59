//! Support for the end-to-end suite: a fresh PostgreSQL database per test (cloned from a
//! migrated template), the real application on a loopback socket, generated PDFs, and the
//! paths of the real binaries.

mod eventually;
pub mod hostile;

pub use eventually::eventually;

use std::{
    collections::HashMap,
    net::SocketAddr,
    path::{Path, PathBuf},
};

use reqwest::{Client, Method, Response};
use serde_json::Value;
use signet_api::{AppState, Server};
use signet_common::{
    Config,
    flows::drafting,
    infra::{
        db::{self, Db},
        files::FileStore,
        secrets,
    },
    model::{AccountId, Actor},
    store::{accounts, api_keys},
};
use sqlx::{
    AssertSqlSafe, Connection, Executor, PgConnection, PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};
use uuid::Uuid;

/// A PostgreSQL server the tests create their databases on, by its admin URL.
#[derive(Debug, Clone)]
pub struct PgServer {
    pub url: String,
}

impl PgServer {
    /// The machine's shared server: `DATABASE_URL` (scripts/test.sh sets it).
    pub fn shared() -> Self {
        Self {
            url: std::env::var("DATABASE_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned()),
        }
    }

    pub fn options(&self) -> PgConnectOptions {
        self.url.parse().expect("a PostgreSQL URL")
    }

    /// The URL of another database on the same server, with the same credentials.
    pub fn database_url(&self, database: &str) -> String {
        let base = self.url.split('?').next().unwrap_or(&self.url);
        let prefix = base.rsplit_once('/').map_or(base, |(prefix, _)| prefix);
        format!("{prefix}/{database}")
    }
}

/// The shared server's admin connection options.
pub fn admin_options() -> PgConnectOptions {
    PgServer::shared().options()
}

/// A database of its own for one test, dropped when the test ends (pass or fail).
pub struct TestDb {
    pub name: String,
    pub options: PgConnectOptions,
    pub pool: PgPool,
    pub server: PgServer,
}

impl TestDb {
    /// A database on the shared server.
    pub async fn new() -> Self {
        Self::on(PgServer::shared()).await
    }

    /// A database on `server`, cloned from a migrated template built there once.
    pub async fn on(server: PgServer) -> Self {
        let template = template_database(&server).await;
        let name = format!("signet_test_{}", Uuid::new_v4().simple());
        let mut admin = PgConnection::connect_with(&server.options())
            .await
            .expect("connect to the admin database");
        admin
            .execute(AssertSqlSafe(format!(
                r#"CREATE DATABASE "{name}" TEMPLATE "{template}""#
            )))
            .await
            .expect("create the test database");
        let options = server.options().database(&name);
        // The test's own view of its database: a few connections, none kept idle for long.
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .idle_timeout(std::time::Duration::from_secs(10))
            .connect_with(options.clone())
            .await
            .expect("connect to the test database");
        Self {
            name,
            options,
            pool,
            server,
        }
    }

    pub fn url(&self) -> String {
        self.server.database_url(&self.name)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        let admin_options = self.server.options();
        // Drop runs outside any async context we could borrow; use a short-lived runtime.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async {
                if let Ok(mut admin) = PgConnection::connect_with(&admin_options).await {
                    let _ = admin
                        .execute(AssertSqlSafe(format!(
                            r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#
                        )))
                        .await;
                }
            });
        })
        .join();
    }
}

/// A migrated database to clone, named after the migrations it holds; built once per
/// migration set and server, under an advisory lock so that concurrent test processes build it
/// once.
async fn template_database(server: &PgServer) -> String {
    let migrations = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&migrations)
        .expect("read migrations")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut content = Vec::new();
    for file in files {
        content.extend(std::fs::read(file).expect("read migration"));
    }
    content.extend(b"apalis-postgres 1.0.0");

    let mut admin = PgConnection::connect_with(&server.options())
        .await
        .expect("connect to the admin database (is PostgreSQL running? see scripts/test.sh)");
    // Only the owner (or a superuser) may copy a database, and tests alter the tables they
    // get, so each role builds its own template.
    let role: String = sqlx::query_scalar("SELECT current_user::text")
        .fetch_one(&mut admin)
        .await
        .expect("current user");
    content.extend(role.as_bytes());
    let name = format!("signet_template_{}", &secrets::sha256_hex(&content)[..16]);
    admin
        .execute("SELECT pg_advisory_lock(727274)")
        .await
        .expect("lock");
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut admin)
            .await
            .expect("look up template");
    if !exists {
        let building = format!("{name}_building");
        admin
            .execute(AssertSqlSafe(format!(
                r#"DROP DATABASE IF EXISTS "{building}" WITH (FORCE)"#
            )))
            .await
            .expect("drop a half-built template");
        admin
            .execute(AssertSqlSafe(format!(r#"CREATE DATABASE "{building}""#)))
            .await
            .expect("create template");
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(server.options().database(&building))
            .await
            .expect("connect to template");
        db::migrate(&pool).await.expect("migrate template");
        pool.close().await;
        admin
            .execute(AssertSqlSafe(format!(
                r#"ALTER DATABASE "{building}" RENAME TO "{name}""#
            )))
            .await
            .expect("publish template");
    }
    admin
        .execute("SELECT pg_advisory_unlock(727274)")
        .await
        .expect("unlock");
    name
}

/// A PostgreSQL cluster of the test's own (initdb into a temporary directory, its own port),
/// for tests that stop, restart or starve a database: the shared server is never touched.
/// Run as the `postgres` OS user when the tests run as root (the server refuses root).
pub struct PgCluster {
    pub port: u16,
    dir: tempfile::TempDir,
    bin: PathBuf,
    max_connections: u32,
}

impl PgCluster {
    /// Creates and starts a cluster that accepts at most `max_connections` connections.
    pub async fn start(max_connections: u32) -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL's server binaries in /usr/lib/postgresql (scripts/test.sh installs them)")
            .flatten()
            .map(|e| e.path().join("bin"))
            .filter(|bin| bin.join("initdb").exists())
            .max_by_key(|bin| {
                bin.parent()
                    .and_then(|v| v.file_name())
                    .and_then(|v| v.to_str())
                    .and_then(|v| v.parse::<u32>().ok())
                    .unwrap_or(0)
            })
            .expect("an initdb under /usr/lib/postgresql/<version>/bin");
        let dir = tempfile::Builder::new()
            .prefix("signet-pg-")
            .tempdir()
            .expect("cluster directory");
        if running_as_root() {
            run(std::process::Command::new("chown").args([
                "-R",
                "postgres:postgres",
                &dir.path().display().to_string(),
            ]));
        }
        let cluster = Self {
            port: free_port(),
            dir,
            bin,
            max_connections,
        };
        run(cluster.command("initdb").args([
            "-D",
            &cluster.data_dir(),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
        ]));
        cluster.start_again();
        cluster
    }

    fn data_dir(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn command(&self, program: &str) -> std::process::Command {
        let program = self.bin.join(program);
        if running_as_root() {
            let mut command = std::process::Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command.current_dir("/");
            command
        } else {
            std::process::Command::new(program)
        }
    }

    /// Starts the (stopped) cluster and waits until it accepts connections.
    pub fn start_again(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections={} -c fsync=off -c full_page_writes=off",
            self.port,
            self.dir.path().display(),
            self.max_connections
        );
        run(self.command("pg_ctl").args([
            "-D",
            &self.data_dir(),
            "-l",
            &self.dir.path().join("server.log").display().to_string(),
            "-o",
            &options,
            "-w",
            "-t",
            "120",
            "start",
        ]));
    }

    /// Stops the cluster the way a restart or failover does: every session is ended.
    pub fn stop(&self) {
        run(self.command("pg_ctl").args([
            "-D",
            &self.data_dir(),
            "-m",
            "fast",
            "-w",
            "-t",
            "120",
            "stop",
        ]));
    }

    pub fn server(&self) -> PgServer {
        PgServer {
            url: format!("postgres://postgres@127.0.0.1:{}/postgres", self.port),
        }
    }

    /// The server as seen by a new non-superuser login role `name` that may create databases
    /// (its test databases and their template are its own).
    pub async fn role(&self, name: &str) -> PgServer {
        let mut admin = PgConnection::connect_with(&self.server().options())
            .await
            .expect("connect to the cluster");
        admin
            .execute(AssertSqlSafe(format!(
                r#"CREATE ROLE "{name}" LOGIN CREATEDB"#
            )))
            .await
            .expect("create role");
        PgServer {
            url: format!("postgres://{name}@127.0.0.1:{}/postgres", self.port),
        }
    }

    /// Runs one statement as the superuser.
    pub async fn execute(&self, sql: &str) {
        let mut admin = PgConnection::connect_with(&self.server().options())
            .await
            .expect("connect to the cluster");
        admin
            .execute(AssertSqlSafe(sql.to_owned()))
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The server's log, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-D", &self.data_dir(), "-m", "immediate", "-w", "stop"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}

/// Runs a command to completion; panics with its output if it fails.
fn run(command: &mut std::process::Command) {
    let output = command.output().expect("run a PostgreSQL command");
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The application on a loopback port, over its own database and file store.
/// Whether this test binary runs the suite against an S3 bucket: `suite_s3` runs the very
/// same tests as `suite` (its modules are `suite`'s files), with every process of a test
/// sharing a bucket on an S3-compatible server instead of a directory.
pub fn s3_under_test() -> bool {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .is_some_and(|name| name.starts_with("suite_s3"))
}

/// An S3-compatible server on loopback: moto's server mode (PyPI `moto[server]`, which
/// `scripts/test.sh` installs), a real S3 API over HTTP with SigV4, buckets, ranges and
/// presigned URLs. `scripts/test.sh` starts one for the whole run and names it in
/// `SIGNET_TEST_S3_ENDPOINT`; without it, each test starts its own.
pub struct S3Server {
    pub endpoint: String,
    child: Option<std::process::Child>,
}

impl S3Server {
    pub fn start() -> Self {
        use std::io::BufRead as _;
        if let Ok(endpoint) = std::env::var("SIGNET_TEST_S3_ENDPOINT") {
            return Self {
                endpoint,
                child: None,
            };
        }
        let mut child = std::process::Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", "0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("moto_server runs (scripts/test.sh installs moto[server])");
        let mut lines = std::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
        let endpoint = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                line.split_once("Running on ")
                    .map(|(_, url)| url.trim().to_owned())
            })
            .expect("moto_server says where it listens");
        // It logs every request: keep reading, or it blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Self {
            endpoint,
            child: Some(child),
        }
    }

    /// A new, empty bucket.
    pub async fn bucket(&self) -> String {
        let bucket = format!("signet-{}", Uuid::new_v4().simple());
        let response = reqwest::Client::new()
            .put(format!("{}/{bucket}", self.endpoint))
            .send()
            .await
            .expect("the S3 server answers");
        assert!(
            response.status().is_success(),
            "create bucket: {}",
            response.status()
        );
        bucket
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The file store the processes of one test share: a directory, or (in `suite_s3`) a bucket of
/// its own on the S3 server, with the keys under a prefix as an operator sharing a bucket
/// would set.
pub struct TestStore {
    pub dir: tempfile::TempDir,
    s3: Option<(S3Server, String)>,
}

impl TestStore {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let s3 = if s3_under_test() {
            let server = S3Server::start();
            let bucket = server.bucket().await;
            Some((server, bucket))
        } else {
            None
        };
        Self { dir, s3 }
    }

    /// The settings that name this store, for `Config` and the binaries' environment.
    pub fn settings(&self) -> Vec<(String, String)> {
        match &self.s3 {
            None => vec![(
                "FILE_STORE_DIR".into(),
                self.dir.path().display().to_string(),
            )],
            Some((server, bucket)) => [
                ("FILE_STORE", "s3"),
                ("FILE_STORE_S3_BUCKET", bucket.as_str()),
                ("FILE_STORE_S3_ENDPOINT", server.endpoint.as_str()),
                ("FILE_STORE_S3_REGION", "us-east-1"),
                ("FILE_STORE_S3_PREFIX", "signet"),
                ("FILE_STORE_S3_ACCESS_KEY_ID", "signet-test"),
                ("FILE_STORE_S3_SECRET_ACCESS_KEY", "signet-test-secret"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
        }
    }

    pub fn store(&self) -> FileStore {
        let settings: HashMap<String, String> = self.settings().into_iter().collect();
        let config = Config::from_lookup(|k| settings.get(k).cloned()).expect("config");
        FileStore::from_config(&config.file_store).expect("the file store")
    }

    /// Every key stored.
    pub async fn keys(&self) -> Vec<String> {
        self.store().keys().await.expect("the store lists")
    }
}

pub struct TestApp {
    pub addr: SocketAddr,
    pub base: String,
    pub db: TestDb,
    pub config: Config,
    /// Scratch space for the test's own files (logs, downloads).
    pub files: tempfile::TempDir,
    /// Where the API and the test's workers keep PDFs.
    pub file_store: TestStore,
    pub client: Client,
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(&[]).await
    }

    /// Starts the app with extra environment-style settings (e.g. `API_USAGE_WINDOW_SECS`).
    pub async fn spawn_with(settings: &[(&str, &str)]) -> Self {
        let db = TestDb::new().await;
        Self::spawn_on(db, settings).await
    }

    pub async fn spawn_on(db: TestDb, settings: &[(&str, &str)]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let files = tempfile::tempdir().expect("tempdir");
        let file_store = TestStore::new().await;
        let mut vars: HashMap<String, String> = file_store.settings().into_iter().collect();
        vars.extend([
            ("DATABASE_URL".into(), db.url()),
            ("PUBLIC_URL".into(), format!("http://{addr}")),
            (
                "FILE_URL_SECRET".into(),
                "test-file-url-secret-0123456789abcdef".into(),
            ),
            // Tests share the machine's PostgreSQL with each other (and with whatever else runs
            // there): each in-process API keeps to a small budget.
            ("DATABASE_MAX_CONNECTIONS".into(), "4".into()),
            // The in-process API is the test binary, which is no sandbox child: the real one is.
            (
                "PDF_SANDBOX_PROGRAM".into(),
                binary("signet-api").display().to_string(),
            ),
        ]);
        for (k, v) in settings {
            vars.insert((*k).into(), (*v).into());
        }
        let config = Config::from_lookup(|k| vars.get(k).cloned()).expect("config");
        let app_db = Db::connect_lazy(
            &config.database_url,
            "signet-tests",
            db::PoolBudget::from_config(&config),
        )
        .expect("pool");
        let state = AppState::new(config.clone(), app_db).expect("the file store");
        let server = Server::with_listener(listener, state);
        tokio::spawn(server.run_until(std::future::pending()));
        Self {
            addr,
            base: format!("http://{addr}"),
            db,
            config,
            files,
            file_store,
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
        }
    }

    pub fn store(&self) -> FileStore {
        self.file_store.store()
    }

    /// An account with an API key; returns (account id, key).
    pub async fn account(&self, usage_limit: i32) -> (Uuid, String) {
        let email = format!("owner-{}@example.com", Uuid::new_v4().simple());
        let account = accounts::create(&self.db.pool, "Owner", &email, usage_limit)
            .await
            .expect("account");
        let key = api_keys::generate(&self.db.pool, account.id)
            .await
            .expect("key");
        (account.id.0, key.key)
    }

    /// An account that signs in to the console with `password` and has no API key yet;
    /// returns (account id, e-mail).
    pub async fn console_account(&self, password: &str) -> (Uuid, String) {
        let (id, _) = self.account(1000).await;
        let account = AccountId(id);
        api_keys::revoke(&self.db.pool, account)
            .await
            .expect("revoke");
        signet_common::flows::sign_in::set_password(&self.db.pool, account, password)
            .await
            .expect("password");
        let email = accounts::find(&self.db.pool, account)
            .await
            .expect("account")
            .email;
        (id, email)
    }

    /// Uploads a generated PDF with the given page sizes as a DRAFT document.
    pub async fn document(&self, account_id: Uuid, title: &str, pages: &[(f64, f64)]) -> Uuid {
        self.document_from(account_id, title, pdf(pages)).await
    }

    /// A DRAFT of the PDF `bytes`, uploaded as the API does.
    pub async fn document_from(&self, account_id: Uuid, title: &str, bytes: Vec<u8>) -> Uuid {
        drafting::upload_document(
            &self.db.pool,
            &self.store(),
            AccountId(account_id),
            title,
            bytes,
            &signet_common::infra::pdf_sandbox::PdfSandbox::new(
                &self.config.limits.pdf_sandbox,
                self.config.limits.pdf,
            )
            .expect("the PDF sandbox"),
            &Actor::Operator,
        )
        .await
        .expect("upload")
        .id
        .0
    }

    /// A request under the API base path; `key` None sends no X-API-KEY header.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> Response {
        let mut request = self
            .client
            .request(method, format!("{}/external/api/v1{path}", self.base));
        if let Some(key) = key {
            request = request.header("X-API-KEY", key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.expect("request")
    }

    pub async fn get(&self, path: &str, key: &str) -> (u16, Value) {
        read(self.call(Method::GET, path, Some(key), None).await).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> (u16, Value) {
        read(self.call(Method::POST, path, Some(key), Some(body)).await).await
    }
}

/// Status and JSON body of a response (panics if the body is not JSON: every response must be).
pub async fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let json = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("response {status} is not JSON ({e}): {text:?}"));
    (status, json)
}

/// Asserts an error envelope: status, code, message and `data: {}`.
#[track_caller]
pub fn assert_error(actual: &(u16, Value), status: u16, code: &str, message: &str) {
    let (actual_status, body) = actual;
    assert_eq!(
        (
            *actual_status,
            body["code"].as_str(),
            body["message"].as_str()
        ),
        (status, Some(code), Some(message)),
        "body: {body}"
    );
    assert_eq!(
        body["data"],
        serde_json::json!({}),
        "data must be {{}}: {body}"
    );
}

/// A PDF with one empty page per size (width, height in points), made with lopdf.
pub fn pdf(pages: &[(f64, f64)]) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let kids: Vec<Object> = pages
        .iter()
        .map(|(w, h)| {
            let content = doc.add_object(Stream::new(dictionary! {}, b"".to_vec()));
            doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "MediaBox" => vec![0.into(), 0.into(), Object::Real(*w as f32), Object::Real(*h as f32)],
                "Contents" => content,
            })
            .into()
        })
        .collect();
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Count" => kids.len() as i64,
            "Kids" => kids,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save pdf");
    bytes
}

pub const LETTER: (f64, f64) = (612.0, 792.0);

/// A built binary of the workspace (`signet-api`, `signet-worker`) in the target directory
/// this test runs from.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test binary>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile_dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build the binaries first (`cargo build --workspace --bins`, as scripts/test.sh does)",
        path.display()
    );
    path
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo root")
        .to_path_buf()
}

/// The real-world PDF fixtures, in the repository (`tests/fixtures/pdf`).
pub fn fixtures_dir() -> PathBuf {
    repo_root().join("tests/fixtures/pdf")
}

/// A real SMTP server on loopback (aiosmtpd, from PyPI) delivering into a Maildir.
pub struct Mailbox {
    pub port: u16,
    pub dir: tempfile::TempDir,
    child: std::process::Child,
}

/// One received e-mail, decoded.
#[derive(Debug, Clone)]
pub struct Mail {
    pub message_id: String,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

impl Mailbox {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    pub async fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().expect("maildir");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("maildir");
        }
        let child = std::process::Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start aiosmtpd (python3 -m pip install aiosmtpd; scripts/test.sh does)");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(
                std::time::Instant::now() < deadline,
                "aiosmtpd did not start on port {port}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        Self { port, dir, child }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Freezes the server (SIGSTOP): connections are accepted by the kernel but nothing is
    /// answered, so sends in flight hang until `resume`.
    pub fn pause(&self) {
        signal(self.child.id(), "STOP");
    }

    pub fn resume(&self) {
        signal(self.child.id(), "CONT");
    }

    pub fn messages(&self) -> Vec<Mail> {
        let mut mails = Vec::new();
        for sub in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.path().join(sub)) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(raw) = std::fs::read(entry.path()) else {
                    continue;
                };
                let Some(parsed) = mail_parser::MessageParser::default().parse(&raw) else {
                    continue;
                };
                mails.push(Mail {
                    message_id: parsed.message_id().unwrap_or_default().to_owned(),
                    to: parsed
                        .to()
                        .and_then(|to| to.first())
                        .and_then(|a| a.address())
                        .unwrap_or_default()
                        .to_owned(),
                    subject: parsed.subject().unwrap_or_default().to_owned(),
                    text: parsed.body_text(0).unwrap_or_default().into_owned(),
                    html: parsed.body_html(0).unwrap_or_default().into_owned(),
                });
            }
        }
        mails
    }

    /// Waits until at least `count` messages matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Mail) -> bool,
    ) -> Vec<Mail> {
        wait_for_matching(|| self.messages(), count, timeout, filter).await
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// A real `signet-worker` process configured like the test app; killed when dropped.
pub struct WorkerProcess {
    pub child: std::process::Child,
    pub log: PathBuf,
}

impl WorkerProcess {
    /// Starts a worker for `app`, sending mail to `smtp_url`; `extra` overrides settings.
    pub fn start(app: &TestApp, smtp_url: &str, extra: &[(&str, &str)]) -> Self {
        Self::start_with_args(app, smtp_url, &[], extra)
    }

    /// Like `start`, with command-line arguments (e.g. `["--jobs", "email"]`).
    pub fn start_with_args(
        app: &TestApp,
        smtp_url: &str,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> Self {
        let log = app
            .files
            .path()
            .join(format!("worker-{}.log", Uuid::new_v4().simple()));
        let log_file = std::fs::File::create(&log).expect("worker log");
        let mut command = std::process::Command::new(binary("signet-worker"));
        command
            .args(args)
            .env("DATABASE_URL", app.db.url())
            .env("PUBLIC_URL", &app.base)
            .envs(app.file_store.settings())
            .env("FILE_URL_SECRET", "test-file-url-secret-0123456789abcdef")
            .env("SMTP_URL", smtp_url)
            .env("MAIL_FROM", "Signet <no-reply@signet.test>")
            .env("WORKER_HEARTBEAT_SECS", "1")
            .env("WORKER_POLL_MS", "200")
            .env("WORKER_SHUTDOWN_SECS", "10")
            .env("WORKER_ADMIN_ADDR", "127.0.0.1:0")
            .env("EMAIL_RETRY_SCHEDULE", "1,1,1,1")
            .env("SMS_RETRY_SCHEDULE", "1,1,1,1")
            // SMS to recipients with a number go to files in the test's directory unless the
            // test names a provider.
            .env("SMS_DIR", app.files.path().join("sms"))
            // Three for the queue, two for the jobs: small, since tests run side by side.
            .env("DATABASE_MAX_CONNECTIONS", "5")
            .env("RUST_LOG", "info,sqlx=warn")
            .env("NO_COLOR", "1")
            .stdout(log_file.try_clone().expect("log"))
            .stderr(log_file);
        for (k, v) in extra {
            command.env(k, v);
        }
        Self {
            child: command.spawn().expect("start signet-worker"),
            log,
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The log once it contains `needle`, polled every 100 ms for up to a minute (then the
    /// log as it is: the caller asserts).
    pub async fn wait_for_log(&self, needle: &str) -> String {
        for _ in 0..600 {
            let log = self.log();
            if log.contains(needle) {
                return log;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        self.log()
    }

    /// The admin port's address, as the worker logged it when it bound it.
    pub async fn admin_addr(&self) -> String {
        for _ in 0..200 {
            if let Some(addr) = self
                .log()
                .lines()
                .find(|l| l.contains("admin port listening"))
                .and_then(|l| l.split("addr=").nth(1))
                .map(|a| a.split_whitespace().next().unwrap_or_default().to_owned())
            {
                return addr;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the worker never logged its admin port:\n{}", self.log());
    }

    /// The worker's `/metrics` text.
    pub async fn metrics(&self) -> String {
        let admin = self.admin_addr().await;
        reqwest::get(format!("http://{admin}/metrics"))
            .await
            .expect("the worker's /metrics answers")
            .text()
            .await
            .expect("metrics text")
    }

    /// SIGTERM, then waits (bounded) for the exit status.
    pub fn terminate(&mut self, within: std::time::Duration) -> Option<std::process::ExitStatus> {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if std::time::Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Waits (bounded) for the process to exit by itself, e.g. refusing its configuration.
    pub fn wait_for_exit(
        &mut self,
        within: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + within;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        None
    }

    /// SIGKILL: no chance to clean up.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A real HTTP server on loopback that receives webhooks: it records every request and answers
/// the statuses it was told to, in order (then 200). A 3xx answer points at `/redirected`.
pub struct Receiver {
    pub port: u16,
    received: std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
    answered: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    plan: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
    /// True while requests are held unanswered.
    holding: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Receiver {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    pub async fn start_on(port: u16) -> Self {
        use axum::{extract::State, http::StatusCode, response::IntoResponse};
        type Shared = (
            std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
            std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
            tokio::sync::watch::Receiver<bool>,
            std::sync::Arc<std::sync::atomic::AtomicUsize>,
        );
        async fn receive(
            State((received, plan, mut holding, answered)): State<Shared>,
            request: axum::extract::Request,
        ) -> axum::response::Response {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, 10 << 20)
                .await
                .unwrap_or_default();
            received.lock().unwrap().push(Received {
                path: parts.uri.path().to_owned(),
                headers: parts
                    .headers
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().to_owned(),
                            v.to_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect(),
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            let _ = holding.wait_for(|held| !held).await;
            answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let status = plan.lock().unwrap().pop_front().unwrap_or(200);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            if status.is_redirection() {
                (status, [("location", "/redirected")], "moved").into_response()
            } else {
                (status, format!("answered {}", status.as_u16())).into_response()
            }
        }
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let plan = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
        let (holding, held) = tokio::sync::watch::channel(false);
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let router = axum::Router::new().fallback(receive).with_state((
            received.clone(),
            plan.clone(),
            held,
            answered.clone(),
        ));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind the receiver");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self {
            port,
            received,
            answered,
            plan,
            holding,
            task,
        }
    }

    /// Requests arriving from now on are recorded but not answered until `release`.
    pub fn hold(&self) {
        self.holding.send_replace(true);
    }

    pub fn release(&self) {
        self.holding.send_replace(false);
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks", self.port)
    }

    /// How many requests it has answered (a held request is not answered until `release`).
    pub fn answered(&self) -> usize {
        self.answered.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn respond_with(&self, statuses: &[u16]) {
        self.plan.lock().unwrap().extend(statuses);
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until at least `count` requests matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Received) -> bool,
    ) -> Vec<Received> {
        wait_for_matching(|| self.requests(), count, timeout, filter).await
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Received {
    /// The `type` of a webhook body.
    pub fn event_type(&self) -> String {
        serde_json::from_str::<Value>(&self.body)
            .ok()
            .and_then(|b| b["type"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}

/// A TCP proxy in front of a real server (PostgreSQL, the S3 server) that a test can cut
/// (dropping every connection and refusing new ones) and restore, to see the service through
/// an outage.
pub struct TcpProxy {
    pub port: u16,
    upstream: SocketAddr,
    state: std::sync::Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>>,
    connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
}

impl TcpProxy {
    pub async fn start(upstream: SocketAddr) -> Self {
        let proxy = Self {
            port: free_port(),
            upstream,
            state: Default::default(),
            connections: Default::default(),
        };
        proxy.restore().await;
        proxy
    }

    /// The URL of `db` reached through the proxy: the same URL with the proxy's host and port.
    pub fn url_for(&self, db: &TestDb) -> String {
        let url = db.url();
        let (prefix, rest) = match url.split_once('@') {
            Some((credentials, rest)) => (format!("{credentials}@"), rest),
            None => url
                .split_once("://")
                .map(|(s, r)| (format!("{s}://"), r))
                .expect("a URL"),
        };
        let path = rest.split_once('/').map_or("", |(_, path)| path);
        format!("{prefix}127.0.0.1:{}/{path}", self.port)
    }

    pub async fn cut(&self) {
        if let Some(listener) = self.state.lock().unwrap().take() {
            listener.abort();
        }
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    pub async fn restore(&self) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .expect("bind the proxy");
        let upstream = self.upstream;
        let connections = self.connections.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let connection = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                connections.lock().unwrap().push(connection);
            }
        });
        *self.state.lock().unwrap() = Some(task);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        if let Some(listener) = self.state.lock().unwrap().take() {
            listener.abort();
        }
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

/// A real `signet-api serve` process for `app`'s database and files; killed when dropped.
pub struct ApiProcess {
    pub base: String,
    child: std::process::Child,
}

impl ApiProcess {
    pub async fn start(app: &TestApp, extra: &[(&str, &str)]) -> Self {
        let port = free_port();
        let base = format!("http://127.0.0.1:{port}");
        let mut command = std::process::Command::new(binary("signet-api"));
        command
            .arg("serve")
            .env("DATABASE_URL", app.db.url())
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("PUBLIC_URL", &base)
            .envs(app.file_store.settings())
            .env("FILE_URL_SECRET", "test-file-url-secret-0123456789abcdef")
            .env("MAIL_FROM", "Signet <no-reply@signet.test>")
            .env("DATABASE_MAX_CONNECTIONS", "4")
            .env("RUST_LOG", "warn")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        for (k, v) in extra {
            command.env(k, v);
        }
        // Owned by the guard at once, so that a failed start still kills the process.
        let api = Self {
            child: command.spawn().expect("start signet-api"),
            base,
        };
        let client = reqwest::Client::new();
        for _ in 0..200 {
            if client
                .get(format!("{}/healthz", api.base))
                .send()
                .await
                .is_ok()
            {
                return api;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("signet-api did not start on {}", api.base);
    }
}

impl ApiProcess {
    /// The process id, e.g. to read its memory use from `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ApiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A real HTTP server on loopback that speaks the shape of Twilio's Messages API:
/// `POST /2010-04-01/Accounts/{sid}/Messages.json`, form-encoded `To`, `From`, `Body` (and
/// `StatusCallback`), HTTP basic auth with the account SID and token. It answers the statuses
/// it was told to, in order (then 201), with Twilio's JSON bodies, and can post delivery
/// reports back to the callback URL as Twilio does.
pub struct SmsProvider {
    pub port: u16,
    received: std::sync::Arc<std::sync::Mutex<Vec<Texted>>>,
    plan: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
    holding: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

/// One request the provider received, with what it answered (`None` while held).
#[derive(Debug, Clone)]
pub struct Texted {
    pub to: String,
    pub from: String,
    pub body: String,
    pub status_callback: Option<String>,
    pub answered: Option<u16>,
    /// The `sid` given in a 201 answer.
    pub sid: Option<String>,
}

pub const TWILIO_SID: &str = "ACtest0123456789";
pub const TWILIO_TOKEN: &str = "twilio-test-token-not-a-secret";

impl SmsProvider {
    pub async fn start() -> Self {
        use axum::{
            extract::{Path, State},
            http::{HeaderMap, StatusCode},
            response::IntoResponse,
        };
        type Shared = (
            std::sync::Arc<std::sync::Mutex<Vec<Texted>>>,
            std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
            tokio::sync::watch::Receiver<bool>,
        );
        async fn messages(
            State((received, plan, mut holding)): State<Shared>,
            Path(sid): Path<String>,
            headers: HeaderMap,
            axum::Form(form): axum::Form<HashMap<String, String>>,
        ) -> axum::response::Response {
            use base64::Engine;
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{TWILIO_SID}:{TWILIO_TOKEN}"))
            );
            let authorised = sid == TWILIO_SID
                && headers.get("authorization").and_then(|v| v.to_str().ok())
                    == Some(expected.as_str());
            if !authorised {
                let body =
                    serde_json::json!({"code": 20003, "message": "Authenticate", "status": 401});
                return (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
            }
            let index = {
                let mut received = received.lock().unwrap();
                received.push(Texted {
                    to: form.get("To").cloned().unwrap_or_default(),
                    from: form.get("From").cloned().unwrap_or_default(),
                    body: form.get("Body").cloned().unwrap_or_default(),
                    status_callback: form.get("StatusCallback").cloned(),
                    answered: None,
                    sid: None,
                });
                received.len() - 1
            };
            let _ = holding.wait_for(|held| !held).await;
            let status = plan.lock().unwrap().pop_front().unwrap_or(201);
            let sid = format!("SM{}", Uuid::new_v4().simple());
            {
                let mut received = received.lock().unwrap();
                received[index].answered = Some(status);
                if status == 201 {
                    received[index].sid = Some(sid.clone());
                }
            }
            let body = match status {
                201 => serde_json::json!({"sid": sid, "status": "queued", "to": form.get("To")}),
                429 => {
                    serde_json::json!({"code": 20429, "message": "Too Many Requests", "status": 429})
                }
                400 => serde_json::json!({
                    "code": 21211,
                    "message": format!("The 'To' number {} is not a valid phone number.", form.get("To").cloned().unwrap_or_default()),
                    "status": 400
                }),
                other => {
                    serde_json::json!({"code": 20500, "message": "Internal Server Error", "status": other})
                }
            };
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::CREATED);
            (status, axum::Json(body)).into_response()
        }
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let plan = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
        let (holding, held) = tokio::sync::watch::channel(false);
        let router = axum::Router::new()
            .route(
                "/2010-04-01/Accounts/{sid}/Messages.json",
                axum::routing::post(messages),
            )
            .with_state((received.clone(), plan.clone(), held));
        let (port, task) = serve_on_loopback(router, "the SMS provider").await;
        Self {
            port,
            received,
            plan,
            holding,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The settings of an API and a worker that send SMS through this provider.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("SMS_PROVIDER", "twilio".into()),
            ("SMS_TWILIO_BASE_URL", self.base_url()),
            ("TWILIO_ACCOUNT_SID", TWILIO_SID.into()),
            ("TWILIO_AUTH_TOKEN", TWILIO_TOKEN.into()),
            ("SMS_FROM", "+15005550006".into()),
            ("SMS_PROVIDER_ALLOW_PRIVATE", "true".into()),
        ]
    }

    pub fn respond_with(&self, statuses: &[u16]) {
        self.plan.lock().unwrap().extend(statuses);
    }

    /// Requests arriving from now on are recorded but not answered until `release`.
    pub fn hold(&self) {
        self.holding.send_replace(true);
    }

    pub fn release(&self) {
        self.holding.send_replace(false);
    }

    pub fn requests(&self) -> Vec<Texted> {
        self.received.lock().unwrap().clone()
    }

    /// The messages it accepted (answered 201).
    pub fn accepted(&self) -> Vec<Texted> {
        self.requests()
            .into_iter()
            .filter(|t| t.answered == Some(201))
            .collect()
    }

    /// Waits until at least `count` requests matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Texted) -> bool,
    ) -> Vec<Texted> {
        wait_for_matching(|| self.requests(), count, timeout, filter).await
    }

    /// Posts a delivery report for `message` to its callback URL, as Twilio does; the status
    /// the callback answered.
    pub async fn report(&self, message: &Texted, status: &str, error_code: Option<&str>) -> u16 {
        let url = message
            .status_callback
            .as_ref()
            .expect("the message asked for delivery reports");
        let mut form = vec![
            ("MessageSid", message.sid.clone().unwrap_or_default()),
            ("MessageStatus", status.to_owned()),
            ("To", message.to.clone()),
        ];
        if let Some(code) = error_code {
            form.push(("ErrorCode", code.to_owned()));
        }
        Client::new()
            .post(url)
            .form(&form)
            .send()
            .await
            .expect("the callback answers")
            .status()
            .as_u16()
    }
}

impl Drop for SmsProvider {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A real RFC 3161 timestamp authority on loopback: `openssl ts -reply` behind a small HTTP
/// server, with a root and a timestamping certificate made by `openssl` at start. It can be
/// made unavailable (answering 503) to show what a completion does then.
pub struct Tsa {
    pub port: u16,
    pub dir: tempfile::TempDir,
    available: std::sync::Arc<std::sync::atomic::AtomicBool>,
    answered: std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Tsa {
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_owned();
        let openssl = |args: &[&str]| openssl(&path, args);
        openssl_root(&path, "tsa-root", "/CN=Test TSA root", "keyCertSign");
        openssl_key_and_csr(&path, "tsa", "/CN=Test TSA");
        std::fs::write(
            path.join("tsa-ext.cnf"),
            "extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "tsa.csr",
            "-CA",
            "tsa-root.pem",
            "-CAkey",
            "tsa-root.key",
            "-CAcreateserial",
            "-out",
            "tsa.pem",
            "-days",
            "30",
            "-sha256",
            "-extfile",
            "tsa-ext.cnf",
        ]);
        std::fs::write(path.join("serial"), "01\n").unwrap();
        std::fs::write(
            path.join("tsa.cnf"),
            format!(
                "[ tsa ]\ndefault_tsa = tsa_config\n[ tsa_config ]\ndir = {}\nserial = $dir/serial\n\
                 crypto_device = builtin\nsigner_cert = $dir/tsa.pem\ncerts = $dir/tsa-root.pem\n\
                 signer_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\n\
                 digests = sha256, sha384, sha512\naccuracy = secs:1\nordering = yes\ntsa_name = yes\n\
                 ess_cert_id_chain = no\ness_cert_id_alg = sha256\n",
                path.display()
            ),
        )
        .unwrap();

        type Shared = (
            std::path::PathBuf,
            std::sync::Arc<std::sync::atomic::AtomicBool>,
            std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
        );
        async fn reply(
            axum::extract::State((dir, available, answered)): axum::extract::State<Shared>,
            body: axum::body::Bytes,
        ) -> axum::response::Response {
            use axum::response::IntoResponse;
            if !available.load(std::sync::atomic::Ordering::SeqCst) {
                answered.lock().unwrap().push(503);
                return (axum::http::StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            let name = Uuid::new_v4().simple().to_string();
            let query = dir.join(format!("{name}.tsq"));
            let reply = dir.join(format!("{name}.tsr"));
            std::fs::write(&query, &body).unwrap();
            let out = tokio::process::Command::new("openssl")
                .args(["ts", "-reply", "-config"])
                .arg(dir.join("tsa.cnf"))
                .arg("-queryfile")
                .arg(&query)
                .arg("-out")
                .arg(&reply)
                .output()
                .await
                .unwrap();
            if !out.status.success() {
                answered.lock().unwrap().push(500);
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
                    .into_response();
            }
            answered.lock().unwrap().push(200);
            (
                [("content-type", "application/timestamp-reply")],
                std::fs::read(&reply).unwrap(),
            )
                .into_response()
        }
        let available = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let answered = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let router = axum::Router::new()
            .route("/", axum::routing::post(reply))
            .with_state((path.clone(), available.clone(), answered.clone()));
        let (port, task) = serve_on_loopback(router, "the TSA").await;
        Self {
            port,
            dir,
            available,
            answered,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The root that issued the TSA's certificate, to trust when validating.
    pub fn root_pem(&self) -> String {
        self.dir.path().join("tsa-root.pem").display().to_string()
    }

    pub fn set_available(&self, available: bool) {
        self.available
            .store(available, std::sync::atomic::Ordering::SeqCst);
    }

    /// The HTTP statuses it has answered, in order.
    pub fn answered(&self) -> Vec<u16> {
        self.answered.lock().unwrap().clone()
    }
}

impl Drop for Tsa {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Runs `openssl` in `dir` and asserts that it succeeded.
fn openssl(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A self-signed P-256 CA certificate `{stem}.pem` with its key `{stem}.key`, valid 30 days,
/// for key usages `usage` (e.g. `keyCertSign,cRLSign`).
fn openssl_root(dir: &Path, stem: &str, subject: &str, usage: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{stem}.key"),
            "-out",
            &format!("{stem}.pem"),
            "-days",
            "30",
            "-subj",
            subject,
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            &format!("keyUsage=critical,{usage}"),
        ],
    );
}

/// A P-256 key `{stem}.key` (PKCS#8) and a certificate request `{stem}.csr` for `subject`.
fn openssl_key_and_csr(dir: &Path, stem: &str, subject: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{stem}.key"),
            "-out",
            &format!("{stem}.csr"),
            "-subj",
            subject,
        ],
    );
}

/// A small certificate authority with revocation services on loopback, made with OpenSSL's
/// own CA (`openssl ca`): a root, an intermediate CA whose status the root's CRL gives (served
/// at `GET /root.crl`, made afresh by `openssl ca -gencrl` for each request), and a seal
/// certificate whose status the intermediate's OCSP responder gives (`POST /ocsp`, answered
/// by `openssl ocsp -index` for each request). Revoking the seal certificate takes effect at
/// the next request.
pub struct Pki {
    pub dir: tempfile::TempDir,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Pki {
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_owned();
        type Shared = (
            std::path::PathBuf,
            std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        );
        async fn answer(
            dir: &Path,
            args: Vec<std::ffi::OsString>,
            out_file: &str,
        ) -> axum::response::Response {
            use axum::response::IntoResponse;
            let out = tokio::process::Command::new("openssl")
                .args(&args)
                .current_dir(dir)
                .output()
                .await
                .unwrap();
            if !out.status.success() {
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
                    .into_response();
            }
            std::fs::read(dir.join(out_file)).unwrap().into_response()
        }
        async fn crl(
            axum::extract::State((dir, asked)): axum::extract::State<Shared>,
        ) -> axum::response::Response {
            asked.lock().unwrap().push("crl".into());
            let name = Uuid::new_v4().simple().to_string();
            let pem = format!("{name}.crl.pem");
            let made = answer(
                &dir,
                ["ca", "-gencrl", "-config", "root.cnf", "-out", &pem]
                    .map(Into::into)
                    .to_vec(),
                &pem,
            )
            .await;
            if !made.status().is_success() {
                return made;
            }
            let der = format!("{name}.crl");
            answer(
                &dir,
                ["crl", "-in", &pem, "-outform", "DER", "-out", &der]
                    .map(Into::into)
                    .to_vec(),
                &der,
            )
            .await
        }
        async fn ocsp(
            axum::extract::State((dir, asked)): axum::extract::State<Shared>,
            body: axum::body::Bytes,
        ) -> axum::response::Response {
            asked.lock().unwrap().push("ocsp".into());
            let name = Uuid::new_v4().simple().to_string();
            let request = format!("{name}.ocsq");
            let response = format!("{name}.ocsr");
            std::fs::write(dir.join(&request), &body).unwrap();
            answer(
                &dir,
                [
                    "ocsp",
                    "-index",
                    "inter-index.txt",
                    "-CA",
                    "inter.pem",
                    "-rsigner",
                    "inter.pem",
                    "-rkey",
                    "inter.key",
                    "-ndays",
                    "1",
                    "-reqin",
                    &request,
                    "-respout",
                    &response,
                ]
                .map(Into::into)
                .to_vec(),
                &response,
            )
            .await
        }
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let router = axum::Router::new()
            .route("/root.crl", axum::routing::get(crl))
            .route("/ocsp", axum::routing::post(ocsp))
            .with_state((path.clone(), asked.clone()));
        let (port, task) = serve_on_loopback(router, "the CA's revocation services").await;

        for ca in ["root", "inter"] {
            std::fs::write(path.join(format!("{ca}-index.txt")), "").unwrap();
            std::fs::write(path.join(format!("{ca}-serial")), "1000\n").unwrap();
            std::fs::write(path.join(format!("{ca}-crlnumber")), "01\n").unwrap();
            std::fs::write(
                path.join(format!("{ca}.cnf")),
                format!(
                    "[ ca ]\ndefault_ca = this\n[ this ]\ndir = {dir}\n\
                     database = $dir/{ca}-index.txt\nnew_certs_dir = $dir\n\
                     serial = $dir/{ca}-serial\ncrlnumber = $dir/{ca}-crlnumber\n\
                     certificate = $dir/{ca}.pem\nprivate_key = $dir/{ca}.key\n\
                     default_md = sha256\ndefault_days = 30\ndefault_crl_days = 7\n\
                     policy = any\nunique_subject = no\n[ any ]\ncommonName = supplied\n\
                     [ intermediate ]\nbasicConstraints = critical,CA:TRUE\n\
                     keyUsage = critical,keyCertSign,cRLSign\n\
                     crlDistributionPoints = URI:http://127.0.0.1:{port}/root.crl\n\
                     [ seal ]\nbasicConstraints = critical,CA:FALSE\n\
                     keyUsage = critical,digitalSignature,nonRepudiation\n\
                     authorityInfoAccess = OCSP;URI:http://127.0.0.1:{port}/ocsp\n",
                    dir = path.display(),
                ),
            )
            .unwrap();
        }
        openssl_root(&path, "root", "/CN=Test CA root", "keyCertSign,cRLSign");
        let issue = |ca: &str, name: &str, extensions: &str| {
            openssl(
                &path,
                &[
                    "ca",
                    "-batch",
                    "-notext",
                    "-config",
                    &format!("{ca}.cnf"),
                    "-extensions",
                    extensions,
                    "-in",
                    &format!("{name}.csr"),
                    "-out",
                    &format!("{name}.pem"),
                ],
            )
        };
        openssl_key_and_csr(&path, "inter", "/CN=Test CA intermediate");
        issue("root", "inter", "intermediate");
        openssl_key_and_csr(&path, "seal", "/CN=Test seal with revocation services");
        issue("inter", "seal", "seal");
        let chain: String = ["seal.pem", "inter.pem", "root.pem"]
            .iter()
            .map(|file| std::fs::read_to_string(path.join(file)).unwrap())
            .collect();
        std::fs::write(path.join("seal-chain.pem"), chain).unwrap();
        Self {
            dir,
            asked,
            task: Some(task),
        }
    }

    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The seal's key (PKCS#8 PEM).
    pub fn seal_key(&self) -> String {
        self.file("seal.key")
    }

    /// The seal's chain, leaf first, root last.
    pub fn seal_chain(&self) -> String {
        self.file("seal-chain.pem")
    }

    pub fn root_pem(&self) -> String {
        self.file("root.pem")
    }

    /// Which services were asked ("ocsp", "crl"), in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }

    /// Revokes the seal certificate in the intermediate's database: its OCSP responder says so
    /// from the next request on.
    pub fn revoke_seal(&self) {
        openssl(
            self.dir.path(),
            &["ca", "-config", "inter.cnf", "-revoke", "seal.pem"],
        );
    }

    /// Takes the services down: what a validator does from now on, it does offline.
    pub fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Serves `router` on a free loopback port until the task is aborted: the port and the task.
async fn serve_on_loopback(router: axum::Router, what: &str) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap_or_else(|e| panic!("bind {what}: {e}"));
    let port = listener.local_addr().expect("addr").port();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (port, task)
}

/// Polls `items` every 100 ms until at least `count` of them match `filter`, or `timeout`
/// passes; returns the matching ones (fewer on timeout: the caller asserts).
async fn wait_for_matching<T>(
    items: impl Fn() -> Vec<T>,
    count: usize,
    timeout: std::time::Duration,
    filter: impl Fn(&T) -> bool,
) -> Vec<T> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let found: Vec<T> = items().into_iter().filter(|item| filter(item)).collect();
        if found.len() >= count || std::time::Instant::now() >= deadline {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// The findings a browser script (tests/browser/*.mjs) prints as its last JSON line, or a
/// panic showing all it printed.
pub fn browser_findings(output: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| {
            panic!(
                "no findings from the browser:\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}
