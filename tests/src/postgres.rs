//! A PostgreSQL server the tests create their databases on, a database of its own per test,
//! and a cluster of its own for a test that must stop or starve one.

use std::path::{Path, PathBuf};

use signet_common::infra::{
    db::{self},
    secrets,
};
use sqlx::{
    AssertSqlSafe, Connection, Executor, PgConnection, PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};
use uuid::Uuid;

use crate::process::{free_port, run};

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

/// `url` with its host and port replaced by 127.0.0.1:`port` (user, password, path kept).
fn through_port(url: &str, port: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let credentials = authority
        .rsplit_once('@')
        .map_or(String::new(), |(c, _)| format!("{c}@"));
    format!("{scheme}://{credentials}127.0.0.1:{port}/{path}")
}

/// The shared server's admin connection options.
pub fn admin_options() -> PgConnectOptions {
    PgServer::shared().options()
}

/// The `application_name` of a test's own sessions ([`TestDb::pool`]).
pub const TEST_APPLICATION_NAME: &str = "signet-tests";

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
        // The test's own view of its database: a few connections, none kept idle for long,
        // named so that a count of the processes' sessions can leave them out.
        let pool = PgPoolOptions::new()
            .max_connections(4)
            .idle_timeout(std::time::Duration::from_secs(10))
            .connect_with(options.clone().application_name(TEST_APPLICATION_NAME))
            .await
            .expect("connect to the test database");
        Self {
            name,
            options,
            pool,
            server,
        }
    }

    /// The URL the applications under test get. With `SIGNET_TEST_PGBOUNCER_PORT` (set by
    /// `SIGNET_TEST_PGBOUNCER=1 scripts/test.sh`), a database on the shared server is reached
    /// through that PgBouncer; the test's own `pool` always connects directly.
    pub fn url(&self) -> String {
        let direct = self.direct_url();
        match std::env::var("SIGNET_TEST_PGBOUNCER_PORT") {
            Ok(port) if self.server.url == PgServer::shared().url => through_port(&direct, &port),
            _ => direct,
        }
    }

    /// The URL of the database on PostgreSQL itself.
    pub fn direct_url(&self) -> String {
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
        let cluster = Self::unstarted(max_connections);
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

    /// A streaming replica of this cluster (`pg_basebackup -R`: a standby that follows it
    /// over a replication connection, hot standby on), started on a port of its own. initdb's
    /// defaults allow it: `wal_level = replica`, ten WAL senders, and `host replication`
    /// lines in pg_hba.conf.
    pub async fn replica(&self) -> Self {
        let replica = Self::unstarted(self.max_connections);
        run(replica.command("pg_basebackup").args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
            "-D",
            &replica.data_dir(),
            "-R",
            "-X",
            "stream",
            "--no-sync",
        ]));
        replica.start_again();
        replica
    }

    /// Makes this replica a primary of its own (`pg_ctl promote`): it stops following.
    pub fn promote(&self) {
        run(self
            .command("pg_ctl")
            .args(["-D", &self.data_dir(), "-w", "promote"]));
    }

    /// Pauses (or resumes) this replica's replay of the primary's WAL: it keeps receiving and
    /// answering queries, and falls behind by exactly what the primary writes meanwhile.
    pub async fn pause_replay(&self, paused: bool) {
        let function = if paused {
            "pg_wal_replay_pause"
        } else {
            "pg_wal_replay_resume"
        };
        self.execute(&format!("SELECT {function}()")).await;
    }

    /// The replica's URL of `database` on this cluster, as the superuser.
    pub fn database_url(&self, database: &str) -> String {
        self.server().database_url(database)
    }

    fn unstarted(max_connections: u32) -> Self {
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
        Self {
            port: free_port(),
            dir,
            bin,
            max_connections,
        }
    }

    /// The cluster's directory (its data, its server log, its socket).
    pub fn dir(&self) -> &Path {
        self.dir.path()
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
        self.stop_in("fast");
    }

    /// Stops the cluster as a crash would: no checkpoint, sessions cut, recovery at the next
    /// start (commits made without waiting for the disk may be lost).
    pub fn stop_immediately(&self) {
        self.stop_in("immediate");
    }

    fn stop_in(&self, mode: &str) {
        run(self.command("pg_ctl").args([
            "-D",
            &self.data_dir(),
            "-m",
            mode,
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

pub(crate) fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"0")
}
