//! The deployment a soak runs: real processes, each restartable, with a proxy in front of every
//! peer the service dials (SMTP, SMS, webhooks, S3) so that a fault can cut it.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use serde_json::Value;
use signet_common::{
    Config,
    infra::files::FileStore,
    model::{AccountId, EmailAddress},
    store::{accounts, api_keys},
};

use super::options::{Options, StoreKind};
use crate::{
    Mailbox, PgCluster, Receiver, S3Server, SmsProvider, TcpProxy, TestDb, file_store::s3_settings,
    process::free_port, wait_for_listener,
};

/// One process of the deployment (an API or a worker): started, killed and started again with
/// the same command, its resident memory sampled all along.
pub(crate) struct Service {
    pub name: String,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    log: PathBuf,
    child: Mutex<Option<Child>>,
    peak_rss_kib: AtomicU64,
    /// Times the process was found to have exited without the soak killing it.
    crashes: AtomicU64,
}

impl Service {
    fn new(
        name: &str,
        program: PathBuf,
        args: &[&str],
        env: Vec<(String, String)>,
        dir: &Path,
    ) -> Self {
        let service = Self {
            name: name.to_owned(),
            program,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env,
            log: dir.join(format!("{name}.log")),
            child: Mutex::new(None),
            peak_rss_kib: AtomicU64::new(0),
            crashes: AtomicU64::new(0),
        };
        service.start();
        service
    }

    /// Starts the process unless it runs; its output is appended to its log.
    pub(crate) fn start(&self) {
        let mut child = self.child.lock().unwrap();
        if let Some(running) = child.as_mut() {
            if running.try_wait().ok().flatten().is_none() {
                return;
            }
            self.crashes.fetch_add(1, Ordering::Relaxed);
        }
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("the service's log");
        *child = Some(
            Command::new(&self.program)
                .args(&self.args)
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .envs(self.env.iter().map(|(k, v)| (k, v)))
                .stdout(log.try_clone().expect("log"))
                .stderr(log)
                .spawn()
                .unwrap_or_else(|e| panic!("start {}: {e}", self.program.display())),
        );
    }

    /// SIGKILL: no chance to clean up.
    pub(crate) fn kill(&self) {
        if let Some(mut child) = self.child.lock().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub(crate) fn signal(&self, signal: &str) {
        if let Some(pid) = self.pid() {
            let _ = Command::new("kill")
                .args([&format!("-{signal}"), &pid.to_string()])
                .status();
        }
    }

    fn pid(&self) -> Option<u32> {
        self.child.lock().unwrap().as_ref().map(Child::id)
    }

    fn sample_memory(&self) {
        let Some(pid) = self.pid() else { return };
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            return;
        };
        let rss = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0);
        self.peak_rss_kib.fetch_max(rss, Ordering::Relaxed);
    }

    pub(crate) fn crashes(&self) -> u64 {
        // One that died since it was last started counts too.
        let dead = self
            .child
            .lock()
            .unwrap()
            .as_mut()
            .is_some_and(|c| c.try_wait().ok().flatten().is_some());
        self.crashes.load(Ordering::Relaxed) + u64::from(dead)
    }

    pub(crate) fn peak_mib(&self) -> u64 {
        self.peak_rss_kib.load(Ordering::Relaxed) / 1024
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.signal("CONT");
        self.kill();
    }
}

/// Every process and peer of the soak.
pub(crate) struct Deployment {
    pub cluster: PgCluster,
    pub db: TestDb,
    pub database_up: AtomicBool,
    /// The store as the checks read it: directly, not through the proxy.
    direct_store: FileStore,
    _s3: Option<S3Server>,
    pub s3_proxy: Option<TcpProxy>,
    pub mailbox: Mailbox,
    pub smtp_proxy: TcpProxy,
    pub sms: SmsProvider,
    pub sms_proxy: TcpProxy,
    pub hooks: Receiver,
    pub hooks_proxy: TcpProxy,
    pub apis: Vec<Arc<Service>>,
    pub api_bases: Vec<String>,
    pub workers: Vec<Arc<Service>>,
    pub seal_root: String,
    pub bin_dir: PathBuf,
    pub out_dir: PathBuf,
    common_env: Vec<(String, String)>,
    sampler: tokio::task::JoinHandle<()>,
}

/// The worker processes: one per kind, e-mail twice (the busiest).
const WORKERS: [(&str, &str); 6] = [
    ("worker-email-1", "email"),
    ("worker-email-2", "email"),
    ("worker-sms", "sms"),
    ("worker-webhook", "webhook"),
    ("worker-completion", "completion"),
    ("worker-sweep-bulk", "sweep,bulk"),
];

/// Attempts of every message, spaced so that the longest outage a fault makes (a minute) is
/// outlasted many times over: some 11 minutes in all.
const RETRY_SCHEDULE: &str = "2,4,8,15,30,30,60,60,60,60,60,60,60,60";

fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

impl Deployment {
    pub(crate) async fn start(options: &Options) -> Self {
        let out = options.out_dir.clone();
        let cluster = PgCluster::start(100).await;
        let db = TestDb::on(cluster.server()).await;

        let (s3, s3_proxy, store_settings, direct_settings) = match options.store {
            StoreKind::Local => {
                let dir = out.join("files");
                std::fs::create_dir_all(&dir).expect("the file store's directory");
                let settings = vec![("FILE_STORE_DIR".to_owned(), dir.display().to_string())];
                (None, None, settings.clone(), settings)
            }
            StoreKind::S3 => {
                let server = S3Server::start();
                let bucket = server.bucket().await;
                let port: u16 = server
                    .endpoint
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.trim_end_matches('/').parse().ok())
                    .expect("the S3 endpoint's port");
                let proxy = TcpProxy::start(loopback(port)).await;
                let through_proxy =
                    s3_settings(&format!("http://127.0.0.1:{}", proxy.port), &bucket);
                let direct = s3_settings(&server.endpoint, &bucket);
                (Some(server), Some(proxy), through_proxy, direct)
            }
        };
        let direct_store = FileStore::from_config(
            &Config::from_vars(
                direct_settings
                    .into_iter()
                    .collect::<std::collections::HashMap<String, String>>(),
            )
            .expect("the store's settings")
            .files
            .store,
        )
        .expect("the file store");

        let mailbox = Mailbox::start().await;
        let smtp_proxy = TcpProxy::start(loopback(mailbox.port)).await;
        let sms = SmsProvider::start().await;
        let sms_proxy = TcpProxy::start(loopback(sms.port)).await;
        let hooks = Receiver::start().await;
        let hooks_proxy = TcpProxy::start(loopback(hooks.port)).await;

        let seal_dir = out.join("seal");
        let sealed = Command::new(options.bin_dir.join("signet-api"))
            .args(["seal", "create-development", "--dir"])
            .arg(&seal_dir)
            .output()
            .expect("signet-api seal create-development");
        assert!(
            sealed.status.success(),
            "{}",
            String::from_utf8_lossy(&sealed.stderr)
        );
        let seal: Value = serde_json::from_slice(&sealed.stdout).expect("the seal's files");
        let seal_file = |name: &str| seal[name].as_str().expect("a seal file").to_owned();

        let ports: Vec<u16> = (0..2).map(|_| free_port()).collect();
        let api_bases: Vec<String> = ports
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect();
        let mut common_env: Vec<(String, String)> = [
            ("DATABASE_URL", db.url()),
            ("PUBLIC_URL", api_bases[0].clone()),
            (
                "FILE_URL_SECRET",
                "soak-file-url-secret-0123456789abcdef".to_owned(),
            ),
            ("MAIL_FROM", "Signet <no-reply@signet.test>".to_owned()),
            ("SMS_STATUS_CALLBACKS", "false".to_owned()),
            ("WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
            ("SEAL_KEY_FILE", seal_file("keyFile")),
            ("SEAL_CERT_FILE", seal_file("certFile")),
            ("NO_COLOR", "1".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        common_env.extend(store_settings.iter().cloned());
        // The SMS provider's settings, with the requests sent through the proxy the faults cut.
        let sms_through_proxy = format!("http://127.0.0.1:{}", sms_proxy.port);
        common_env.extend(sms.settings().into_iter().map(|(k, v)| {
            let v = if k == "SMS_TWILIO_BASE_URL" {
                sms_through_proxy.clone()
            } else {
                v
            };
            (k.to_owned(), v)
        }));

        let apis: Vec<Arc<Service>> = ports
            .iter()
            .enumerate()
            .map(|(i, port)| {
                let mut env = common_env.clone();
                env.extend(
                    [
                        ("BIND_ADDR", format!("127.0.0.1:{port}")),
                        ("DATABASE_MAX_CONNECTIONS", "8".to_owned()),
                        ("RUST_LOG", "warn".to_owned()),
                    ]
                    .map(|(k, v)| (k.to_owned(), v)),
                );
                Arc::new(Service::new(
                    &format!("api-{}", i + 1),
                    options.bin_dir.join("signet-api"),
                    &["serve"],
                    env,
                    &out,
                ))
            })
            .collect();
        for port in &ports {
            wait_for_listener("signet-api", *port).await;
        }
        let worker_env = || {
            let mut env = common_env.clone();
            env.extend(
                [
                    ("SMTP_URL", format!("smtp://127.0.0.1:{}", smtp_proxy.port)),
                    ("DATABASE_MAX_CONNECTIONS", "6".to_owned()),
                    ("WORKER_HEARTBEAT_SECS", "1".to_owned()),
                    ("WORKER_POLL_MS", "200".to_owned()),
                    ("WORKER_SHUTDOWN_SECS", "5".to_owned()),
                    ("WORKER_ADMIN_ADDR", "127.0.0.1:0".to_owned()),
                    ("EMAIL_RETRY_SCHEDULE", RETRY_SCHEDULE.to_owned()),
                    ("SMS_RETRY_SCHEDULE", RETRY_SCHEDULE.to_owned()),
                    ("WEBHOOK_RETRY_SCHEDULE", RETRY_SCHEDULE.to_owned()),
                    ("EXPIRY_SWEEP_CRON", "*/5 * * * * *".to_owned()),
                    ("RUST_LOG", "info,sqlx=warn".to_owned()),
                ]
                .map(|(k, v)| (k.to_owned(), v)),
            );
            env
        };
        let workers = WORKERS
            .iter()
            .map(|(name, kinds)| {
                Arc::new(Service::new(
                    name,
                    options.bin_dir.join("signet-worker"),
                    &["--jobs", kinds],
                    worker_env(),
                    &out,
                ))
            })
            .collect();
        let mut deployment = Self {
            cluster,
            db,
            database_up: AtomicBool::new(true),
            direct_store,
            _s3: s3,
            s3_proxy,
            mailbox,
            smtp_proxy,
            sms,
            sms_proxy,
            hooks,
            hooks_proxy,
            apis,
            api_bases,
            workers,
            seal_root: seal_file("rootFile"),
            bin_dir: options.bin_dir.clone(),
            out_dir: out,
            common_env,
            sampler: tokio::spawn(async {}),
        };
        deployment.sampler = deployment.sample_memory();
        deployment
    }

    /// Samples every process's resident memory each second.
    fn sample_memory(&self) -> tokio::task::JoinHandle<()> {
        let services: Vec<Arc<Service>> = self.services().cloned().collect();
        tokio::spawn(async move {
            loop {
                for service in &services {
                    service.sample_memory();
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        })
    }

    pub(crate) fn services(&self) -> impl Iterator<Item = &Arc<Service>> {
        self.apis.iter().chain(&self.workers)
    }

    /// Accounts with an API key each and the receiver as their webhook URL: `(id, key)`.
    pub(crate) async fn accounts(&self, n: usize) -> Vec<(AccountId, String)> {
        let mut made = Vec::new();
        for i in 0..n {
            let email =
                EmailAddress::parse(&format!("owner-{i}@soak.signet.test")).expect("an address");
            let account = accounts::create(&self.db.pool, &format!("Soak {i}"), &email, 1 << 30)
                .await
                .expect("an account");
            let key = api_keys::generate(&self.db.pool, account.id)
                .await
                .expect("a key");
            sqlx::query("UPDATE accounts SET webhook_url = $1 WHERE id = $2")
                .bind(format!("http://127.0.0.1:{}/hooks", self.hooks_proxy.port))
                .bind(account.id)
                .execute(&self.db.pool)
                .await
                .expect("the webhook URL");
            made.push((account.id, key.key));
        }
        made
    }

    /// A DRAFT of the PDF at `file`, uploaded by the operator command (`signet-api document
    /// upload`: sandboxed inspection, the file stored, the document committed); its id.
    pub(crate) async fn upload(
        &self,
        account: AccountId,
        file: &Path,
        title: &str,
    ) -> Result<uuid::Uuid, String> {
        let out = tokio::process::Command::new(self.bin_dir.join("signet-api"))
            .args([
                "document",
                "upload",
                "--account",
                &account.0.to_string(),
                "--file",
            ])
            .arg(file)
            .args(["--title", title])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(self.common_env.iter().map(|(k, v)| (k, v)))
            .output()
            .await
            .map_err(|e| format!("signet-api document upload: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        serde_json::from_slice::<Value>(&out.stdout)
            .ok()
            .and_then(|v| v["id"].as_str()?.parse().ok())
            .ok_or_else(|| format!("no id in {}", String::from_utf8_lossy(&out.stdout)))
    }

    /// Every fault undone: every peer reachable and answering, every process running.
    pub(crate) async fn heal(&self) {
        if !self.database_up.swap(true, Ordering::SeqCst) {
            self.cluster.start_again();
        }
        for proxy in [
            Some(&self.smtp_proxy),
            Some(&self.sms_proxy),
            Some(&self.hooks_proxy),
            self.s3_proxy.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            proxy.cut().await;
            proxy.restore().await;
        }
        self.hooks.release();
        self.sms.release();
        self.mailbox.resume();
        for service in self.services() {
            service.signal("CONT");
            service.start();
        }
    }

    /// A worker that sweeps files written for documents never committed as soon as they are a
    /// second old, as an operator's sweep would once its grace has passed; stopped when dropped.
    pub(crate) fn final_sweep(&self) -> Service {
        let mut env = self.common_env.clone();
        env.extend(
            [
                ("DATABASE_MAX_CONNECTIONS", "3"),
                ("WORKER_HEARTBEAT_SECS", "1"),
                ("WORKER_ADMIN_ADDR", "127.0.0.1:0"),
                ("FILE_ORPHAN_GRACE_SECS", "1"),
                ("EXPIRY_SWEEP_CRON", "* * * * * *"),
                ("SMTP_URL", "smtp://127.0.0.1:9"),
                ("RUST_LOG", "info,sqlx=warn"),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned())),
        );
        Service::new(
            "final-sweep",
            self.bin_dir.join("signet-worker"),
            &["--jobs", "sweep"],
            env,
            &self.out_dir,
        )
    }

    /// Every key in the file store, read directly.
    pub(crate) async fn stored_keys(&self) -> Vec<String> {
        self.direct_store.keys().await.expect("the store lists")
    }

    /// Each process's peak resident memory, `name NNN MiB`.
    pub(crate) fn peak_memory(&self) -> String {
        self.services()
            .map(|s| format!("{} {} MiB", s.name, s.peak_mib()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Drop for Deployment {
    fn drop(&mut self) {
        self.sampler.abort();
        for service in self.services() {
            service.signal("CONT");
            service.kill();
        }
    }
}
