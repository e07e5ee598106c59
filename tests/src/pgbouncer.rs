//! A PgBouncer of the test's own (Debian's package, `scripts/test.sh` installs it) in front of a
//! PostgreSQL server: its own port, ini and user list in a temporary directory, run as the
//! `postgres` OS user when the tests run as root (PgBouncer refuses root); killed when dropped.

use std::path::PathBuf;

use crate::{
    eventually::eventually,
    postgres::running_as_root,
    process::{free_port, run},
};

/// PgBouncer's program, where Debian's package puts it.
pub const PGBOUNCER: &str = "/usr/sbin/pgbouncer";

pub struct PgBouncer {
    pub port: u16,
    dir: tempfile::TempDir,
    child: std::process::Child,
}

/// How a PgBouncer pools.
#[derive(Debug, Clone, Copy)]
pub struct Pooling {
    /// `session` or `transaction`.
    pub mode: &'static str,
    /// Server connections per database and user (`default_pool_size`).
    pub pool_size: u32,
    /// Clients it accepts at once (`max_client_conn`).
    pub max_clients: u32,
}

impl PgBouncer {
    /// Starts PgBouncer on a free loopback port in front of the PostgreSQL server on
    /// `server_port` (every database, trusted users `users`), and waits until it listens.
    pub async fn start(server_port: u16, pooling: Pooling, users: &[&str]) -> Self {
        assert!(
            std::path::Path::new(PGBOUNCER).exists(),
            "{PGBOUNCER} is missing: scripts/test.sh installs Debian's pgbouncer"
        );
        let dir = tempfile::Builder::new()
            .prefix("signet-pgbouncer-")
            .tempdir()
            .expect("pgbouncer directory");
        let port = free_port();
        let userlist: String = users.iter().map(|u| format!("\"{u}\" \"\"\n")).collect();
        std::fs::write(dir.path().join("userlist.txt"), userlist).expect("userlist");
        let ini = format!(
            "[databases]\n\
             * = host=127.0.0.1 port={server_port}\n\
             [pgbouncer]\n\
             listen_addr = 127.0.0.1\n\
             listen_port = {port}\n\
             unix_socket_dir =\n\
             auth_type = trust\n\
             auth_file = {dir}/userlist.txt\n\
             admin_users = postgres\n\
             pool_mode = {mode}\n\
             default_pool_size = {pool_size}\n\
             max_client_conn = {max_clients}\n\
             ignore_startup_parameters = extra_float_digits\n\
             server_idle_timeout = 5\n\
             logfile = {dir}/pgbouncer.log\n",
            dir = dir.path().display(),
            mode = pooling.mode,
            pool_size = pooling.pool_size,
            max_clients = pooling.max_clients,
        );
        let ini_path = dir.path().join("pgbouncer.ini");
        std::fs::write(&ini_path, ini).expect("pgbouncer.ini");
        let mut command = if running_as_root() {
            run(std::process::Command::new("chown").args([
                "-R",
                "postgres:postgres",
                &dir.path().display().to_string(),
            ]));
            let mut command = std::process::Command::new("runuser");
            command.args(["-u", "postgres", "--", PGBOUNCER]);
            command.current_dir("/");
            command
        } else {
            std::process::Command::new(PGBOUNCER)
        };
        let child = command
            .arg(&ini_path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start pgbouncer");
        let bouncer = Self { port, dir, child };
        crate::process::wait_for_listener("pgbouncer", port).await;
        bouncer
    }

    /// The URL of `database` through this PgBouncer, as `user`.
    pub fn url(&self, user: &str, database: &str) -> String {
        format!("postgres://{user}@127.0.0.1:{}/{database}", self.port)
    }

    /// One `SHOW …` of the admin console (simple protocol only, hence psql), as rows of
    /// `|`-separated values with a header line first.
    pub fn show(&self, what: &str) -> Vec<String> {
        Self::show_on(self.port, what)
    }

    /// [`show`](Self::show) on the PgBouncer listening on `port` (for a task that holds only
    /// the port).
    pub fn show_on(port: u16, what: &str) -> Vec<String> {
        let output = std::process::Command::new("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                "postgres",
                "-d",
                "pgbouncer",
                "-A",
                "-c",
                &format!("SHOW {what}"),
            ])
            .output()
            .expect("psql");
        assert!(
            output.status.success(),
            "SHOW {what}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|l| !l.starts_with('(') && !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// `SHOW POOLS` as (column → value) maps, one per pool of `database`.
    pub fn pools(&self, database: &str) -> Vec<std::collections::HashMap<String, String>> {
        Self::pools_on(self.port, database)
    }

    /// [`pools`](Self::pools) of the PgBouncer listening on `port`.
    pub fn pools_on(port: u16, database: &str) -> Vec<std::collections::HashMap<String, String>> {
        let rows = Self::show_on(port, "POOLS");
        let Some((header, rows)) = rows.split_first() else {
            return Vec::new();
        };
        let names: Vec<&str> = header.split('|').collect();
        rows.iter()
            .map(|row| {
                names
                    .iter()
                    .map(|n| (*n).to_owned())
                    .zip(row.split('|').map(str::to_owned))
                    .collect::<std::collections::HashMap<_, _>>()
            })
            .filter(|pool| pool.get("database").is_some_and(|d| d == database))
            .collect()
    }

    /// PgBouncer's log, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("pgbouncer.log")
    }

    /// Waits until PgBouncer holds at most `at_most` server connections to `database`
    /// (`sv_active + sv_idle + sv_used + sv_tested + sv_login`), e.g. after clients went away.
    pub async fn wait_for_servers(&self, database: &str, at_most: u32) {
        eventually(
            format!("pgbouncer to hold at most {at_most} server connections"),
            std::time::Duration::from_secs(30),
            || async { (self.servers(database) <= at_most).then_some(()) },
        )
        .await;
    }

    /// The server connections PgBouncer holds to `database` now.
    pub fn servers(&self, database: &str) -> u32 {
        self.pools(database)
            .iter()
            .map(|pool| {
                ["sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"]
                    .iter()
                    .filter_map(|c| pool.get(*c).and_then(|v| v.parse::<u32>().ok()))
                    .sum::<u32>()
            })
            .sum()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        // runuser's child is PgBouncer: end it by its pid file-less way, the process group.
        let _ = std::process::Command::new("pkill")
            .args(["-TERM", "-P", &self.child.id().to_string()])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
