//! The real `signet-worker` and `signet-api serve` processes, configured like the test app.

use std::{path::PathBuf, process::Command};

use uuid::Uuid;

use crate::{
    app::TestApp,
    eventually::{described_by, eventually, poll_until, poll_until_blocking},
    process::{binary, free_port},
};

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
        Self::spawn(app, Some(smtp_url), args, extra)
    }

    /// A worker without `SMTP_URL`, as `scripts/up.sh` runs it: e-mails are written as `.eml`
    /// files into `MAIL_DIR`, which `extra` gives (else `./data/mail` of the test's directory).
    pub fn start_writing_mail_files(app: &TestApp, extra: &[(&str, &str)]) -> Self {
        Self::spawn(app, None, &[], extra)
    }

    fn spawn(app: &TestApp, smtp_url: Option<&str>, args: &[&str], extra: &[(&str, &str)]) -> Self {
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
        match smtp_url {
            Some(url) => command.env("SMTP_URL", url),
            None => command
                .env_remove("SMTP_URL")
                .env("MAIL_DIR", app.files.path().join("data/mail")),
        };
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

    /// The log once it contains `needle`, polled for up to a minute (then the log as it is:
    /// the caller asserts).
    pub async fn wait_for_log(&self, needle: &str) -> String {
        poll_until(
            std::time::Duration::from_secs(60),
            || async { self.log() },
            |log| log.contains(needle),
        )
        .await
    }

    /// The admin port's address, as the worker logged it when it bound it.
    pub async fn admin_addr(&self) -> String {
        eventually(
            described_by(|| format!("the worker to log its admin port:\n{}", self.log())),
            std::time::Duration::from_secs(10),
            || async {
                self.log()
                    .lines()
                    .find(|l| l.contains("admin port listening"))
                    .and_then(|l| l.split("addr=").nth(1))
                    .map(|a| a.split_whitespace().next().unwrap_or_default().to_owned())
            },
        )
        .await
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
        self.wait_for_exit(within)
    }

    /// Waits (bounded) for the process to exit by itself, e.g. refusing its configuration.
    pub fn wait_for_exit(
        &mut self,
        within: std::time::Duration,
    ) -> Option<std::process::ExitStatus> {
        poll_until_blocking(
            within,
            || self.child.try_wait().ok().flatten(),
            Option::is_some,
        )
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
        // A test failing with a worker running shows what the worker did: a wait that ran out
        // (an e-mail that never came) is then explained by the log, not guessed at.
        if std::thread::panicking() {
            let log = self.log();
            let lines: Vec<&str> = log.lines().collect();
            let tail = &lines[lines.len().saturating_sub(120)..];
            eprintln!(
                "--- the last {} lines of the worker's log ({}) ---\n{}",
                tail.len(),
                self.log.display(),
                tail.join("\n")
            );
        }
    }
}

impl WorkerProcess {
    /// A worker whose sweep runs every second and takes pending files older than a second, once
    /// it has emptied `pending_files` (polled for up to 30 s): with the count left, which the
    /// caller asserts is 0, and the worker, still running.
    pub async fn sweeping_pending_files(app: &TestApp, smtp_url: &str) -> (Self, i64) {
        let worker = Self::start(
            app,
            smtp_url,
            &[
                ("FILE_ORPHAN_GRACE_SECS", "1"),
                ("EXPIRY_SWEEP_CRON", "* * * * * *"),
            ],
        );
        let pending: i64 = poll_until(
            std::time::Duration::from_secs(30),
            || async {
                sqlx::query_scalar("SELECT count(*) FROM pending_files")
                    .fetch_one(&app.db.pool)
                    .await
                    .expect("count pending files")
            },
            |pending| *pending == 0,
        )
        .await;
        (worker, pending)
    }
}

/// A real `signet-api serve` process for `app`'s database and files; killed when dropped.
pub struct ApiProcess {
    pub base: String,
    child: std::process::Child,
    /// Its warnings and errors, when started with [`ApiProcess::spawn`].
    pub log: Option<PathBuf>,
}

impl ApiProcess {
    /// `signet-api serve` for `app` on `base`'s port, configured like the test app; output
    /// discarded.
    fn command(app: &TestApp, port: u16, base: &str, extra: &[(&str, &str)]) -> Command {
        let mut command = Command::new(binary("signet-api"));
        command
            .arg("serve")
            .env("DATABASE_URL", app.db.url())
            .env("BIND_ADDR", format!("127.0.0.1:{port}"))
            .env("PUBLIC_URL", base)
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
        command
    }

    /// Starts the API and returns at once, without waiting for it to listen; its warnings and
    /// errors go to a log in the test's directory.
    pub fn spawn(app: &TestApp, extra: &[(&str, &str)]) -> Self {
        let port = free_port();
        let base = format!("http://127.0.0.1:{port}");
        let log = app
            .files
            .path()
            .join(format!("api-{}.log", Uuid::new_v4().simple()));
        let file = std::fs::File::create(&log).expect("api log");
        let mut command = Self::command(app, port, &base, extra);
        command.stdout(file.try_clone().expect("log")).stderr(file);
        Self {
            child: command.spawn().expect("start signet-api"),
            base,
            log: Some(log),
        }
    }

    /// The log (see [`ApiProcess::spawn`]).
    pub fn log(&self) -> String {
        self.log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .unwrap_or_default()
    }

    /// Whether the process has exited, and how.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    pub async fn start(app: &TestApp, extra: &[(&str, &str)]) -> Self {
        let port = free_port();
        let base = format!("http://127.0.0.1:{port}");
        // Owned by the guard at once, so that a failed start still kills the process.
        let api = Self {
            child: Self::command(app, port, &base, extra)
                .spawn()
                .expect("start signet-api"),
            base,
            log: None,
        };
        let client = reqwest::Client::new();
        let healthz = format!("{}/healthz", api.base);
        eventually(
            format!("signet-api to start on {}", api.base),
            std::time::Duration::from_secs(10),
            || async { client.get(&healthz).send().await.ok().map(drop) },
        )
        .await;
        api
    }
}

impl ApiProcess {
    /// The process id, e.g. to read its memory use from `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The API's `/metrics` text.
    pub async fn metrics(&self) -> String {
        reqwest::get(format!("{}/metrics", self.base))
            .await
            .expect("the API's /metrics answers")
            .text()
            .await
            .expect("metrics text")
    }
}

impl Drop for ApiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
