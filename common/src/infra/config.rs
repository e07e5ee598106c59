//! Configuration: environment variables read once at start into a typed struct.

use std::{net::SocketAddr, path::PathBuf, str::FromStr, time::Duration};

use ipnet::IpNet;

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {name}: {reason}")]
pub struct ConfigError {
    pub name: &'static str,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone)]
pub struct Config {
    pub database_url: String,
    /// The most connections this process opens to PostgreSQL (`DATABASE_MAX_CONNECTIONS`).
    pub database_max_connections: u32,
    /// How long a request or job waits for a connection before giving up (503 / retry).
    pub database_acquire_timeout: Duration,
    /// Idle connections are closed after this long.
    pub database_idle_timeout: Duration,
    pub bind_addr: SocketAddr,
    /// Base URL that links in e-mails and `filePath` start with; no trailing slash.
    pub public_url: String,
    pub smtp_url: Option<String>,
    pub mail_dir: PathBuf,
    pub mail_from: String,
    /// DEFAULT_LANGUAGE: the language of e-mails and certificates for recipients and documents
    /// that were given none (docs/languages.md).
    pub default_language: signet_i18n::Language,
    /// REMINDER_FIRST_AFTER_DAYS (0: none) and REMINDER_EVERY_DAYS (0: just one): the reminder
    /// schedule of documents sent without one of their own.
    pub reminders: crate::model::ReminderDefaults,
    /// REMINDER_MIN_INTERVAL_HOURS: at most one reminder per recipient in this many hours,
    /// whoever asks (0: no throttle; docs/security.md, "Reminders").
    pub reminder_min_interval_hours: u32,
    /// Where PDFs are stored: FILE_STORE=local (FILE_STORE_DIR) or s3 (FILE_STORE_S3_*).
    pub file_store: FileStoreConfig,
    /// FILE_DOWNLOADS: how `GET /files/{id}` serves a file from a bucket.
    pub file_downloads: FileDownloads,
    /// FILE_ORPHAN_GRACE_SECS: how old a file written for a document that was never committed
    /// (a failed upload, a discarded rendering) must be before the sweep removes it.
    pub file_orphan_grace: Duration,
    pub file_url_secret: Vec<u8>,
    /// True when FILE_URL_SECRET was unset and a random per-process secret is used.
    pub file_url_secret_generated: bool,
    pub file_url_ttl: Duration,
    pub api_usage_window_secs: i64,
    pub api_usage_default_limit: i32,
    pub trusted_proxies: Vec<IpNet>,
    pub webhook_allow_private: bool,
    pub webhook_retry_schedule: Vec<Duration>,
    pub email_retry_schedule: Vec<Duration>,
    pub expiry_sweep_cron: String,
    /// How many jobs of each kind one worker process runs at once.
    pub worker_concurrency: WorkerConcurrency,
    /// How often a worker proves it is alive; a worker silent for three intervals is presumed
    /// dead and its jobs run again elsewhere.
    pub worker_heartbeat: Duration,
    /// How long a stopping worker waits for running jobs.
    pub worker_shutdown_timeout: Duration,
    /// How often workers look for delayed jobs (new jobs arrive by NOTIFY at once).
    pub worker_poll_interval: Duration,
    /// The worker's small HTTP port for /healthz, /readyz and /metrics.
    pub worker_admin_addr: SocketAddr,
    /// A job type's worker that has not polled its queue for this long while the database
    /// answers makes the worker's `/healthz` fail, so that an orchestrator restarts it.
    pub worker_stuck_after: Duration,
    pub log_format: LogFormat,
    /// SIGNING_CONSENT_TEXT: the operator's own electronic-records disclosure, shown (in every
    /// language) instead of the catalogues' default before a signer's first field.
    pub signing_consent_text: Option<String>,
    /// Bounds on untrusted input (docs/security.md).
    pub limits: Limits,
    /// Text messages to recipients with a phone number (docs/sms.md).
    pub sms: SmsConfig,
    /// The seal's key and chain (docs/signing.md, "The seal"); `None`: a development seal made
    /// at start.
    pub seal: Option<SealSource>,
    /// SEAL_CERT_FILE: the seal's PEM chain, whose root `/verify` trusts (with PEM keys it is
    /// also the chain the seal carries).
    pub seal_cert_file: Option<PathBuf>,
    /// TSA_URL: an RFC 3161 timestamp authority; each seal then carries its timestamp (PAdES
    /// B-T), and a completion waits (and is retried) until the authority answers.
    pub tsa_url: Option<String>,
}

/// SMS: which provider, who sends, how failures are retried, and the daily caps.
#[derive(Clone, PartialEq, Eq)]
pub struct SmsConfig {
    pub provider: SmsProvider,
    /// SMS_FROM: the sender, a number in E.164 or an alphanumeric sender id where allowed.
    pub from: String,
    /// SMS_RETRY_SCHEDULE: seconds to wait after each failed attempt (429, 5xx, network).
    pub retry_schedule: Vec<Duration>,
    /// SMS_DAILY_CAP_PER_NUMBER: SMS one account may queue to one number per UTC day.
    pub daily_cap_per_number: i32,
    /// SMS_DAILY_CAP_PER_ACCOUNT: SMS one account may queue per UTC day.
    pub daily_cap_per_account: i32,
    /// SMS_PROVIDER_ALLOW_PRIVATE: let the provider URL resolve to an internal address (tests,
    /// a provider gateway on the operator's own network).
    pub allow_private: bool,
}

/// Where PDFs are stored.
#[derive(Clone, PartialEq, Eq)]
pub enum FileStoreConfig {
    /// FILE_STORE=local (the default): the directory FILE_STORE_DIR, shared by the API and
    /// workers of one machine (or one volume).
    Local { dir: PathBuf },
    /// FILE_STORE=s3: an S3-compatible bucket, shared by processes on any machine.
    S3(S3Config),
}

/// An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2, GCS's XML API).
/// Credentials and region not set here come from the standard AWS variables
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, web
/// identity, the instance's role…).
#[derive(Clone, PartialEq, Eq)]
pub struct S3Config {
    /// FILE_STORE_S3_BUCKET (required).
    pub bucket: String,
    /// FILE_STORE_S3_ENDPOINT: the service's URL (MinIO, R2…); unset for AWS.
    pub endpoint: Option<String>,
    /// FILE_STORE_S3_REGION.
    pub region: Option<String>,
    /// FILE_STORE_S3_PREFIX: keys start with it (`signet/` for a bucket shared with others).
    pub prefix: String,
    /// FILE_STORE_S3_ADDRESSING: `virtual` (`bucket.host/key`) or `path` (`host/bucket/key`);
    /// the default is `path` with an endpoint (what MinIO and most self-hosted servers expect)
    /// and `virtual` without one (AWS).
    pub virtual_hosted: bool,
    /// FILE_STORE_S3_ACCESS_KEY_ID and FILE_STORE_S3_SECRET_ACCESS_KEY, both or neither.
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
}

impl std::fmt::Debug for FileStoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Local { dir } => write!(f, "local:{}", dir.display()),
            Self::S3(s3) => write!(
                f,
                "s3://{}/{} (endpoint {}, {} addressing)",
                s3.bucket,
                s3.prefix,
                s3.endpoint.as_deref().unwrap_or("AWS"),
                if s3.virtual_hosted {
                    "virtual-host"
                } else {
                    "path"
                }
            ),
        }
    }
}

/// How `GET /files/{id}` serves a file kept in a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileDownloads {
    /// The API streams it (the default): one URL that works for as long as the signed link,
    /// ranges and ETags, and the bucket never exposed.
    Stream,
    /// The API answers `307` to a presigned URL of the bucket valid for five minutes: the bytes
    /// go from the bucket to the client, not through the API.
    Redirect,
}

/// Where the seal's key and chain come from.
#[derive(Clone, PartialEq, Eq)]
pub enum SealSource {
    /// SEAL_KEY_FILE (PKCS#8 PEM) and SEAL_CERT_FILE (PEM chain, the seal's own first).
    Pem {
        key_file: PathBuf,
        chain_file: PathBuf,
    },
    /// SEAL_PKCS12_FILE, opened with SEAL_PKCS12_PASSWORD or the first line of
    /// SEAL_PKCS12_PASSWORD_FILE (read by the worker at start).
    Pkcs12 {
        file: PathBuf,
        password: Option<String>,
        password_file: Option<PathBuf>,
    },
}

impl std::fmt::Debug for SealSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Pem {
                key_file,
                chain_file,
            } => f
                .debug_struct("Pem")
                .field("key_file", key_file)
                .field("chain_file", chain_file)
                .finish(),
            // The password is never printed.
            Self::Pkcs12 {
                file,
                password_file,
                ..
            } => f
                .debug_struct("Pkcs12")
                .field("file", file)
                .field("password_file", password_file)
                .finish_non_exhaustive(),
        }
    }
}

/// SMS_PROVIDER: where SMS go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmsProvider {
    /// `none`: no SMS are queued; phone numbers are only validated and stored.
    Off,
    /// `file` (the default): each SMS is written as a text file under SMS_DIR.
    Files { dir: PathBuf },
    /// `twilio`: Twilio's Messages API, or any provider that speaks it.
    Twilio(TwilioConfig),
}

/// Twilio-compatible provider settings. The credentials are read from the environment only
/// (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN) and checked by the worker, which alone needs them.
#[derive(Clone, PartialEq, Eq)]
pub struct TwilioConfig {
    /// SMS_TWILIO_BASE_URL, `https://api.twilio.com` by default; no trailing slash.
    pub base_url: String,
    pub account_sid: Option<String>,
    pub auth_token: Option<String>,
    /// SMS_STATUS_CALLBACKS: ask the provider to report delivery to a signed URL under
    /// PUBLIC_URL (on by default).
    pub status_callbacks: bool,
}

impl std::fmt::Debug for TwilioConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwilioConfig")
            .field("base_url", &self.base_url)
            .field("account_sid", &self.account_sid)
            .field(
                "auth_token",
                &self.auth_token.as_ref().map(|_| "<redacted>"),
            )
            .field("status_callbacks", &self.status_callbacks)
            .finish()
    }
}

impl std::fmt::Debug for SmsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let provider = match &self.provider {
            SmsProvider::Off => "none".to_owned(),
            SmsProvider::Files { dir } => format!("file:{}", dir.display()),
            SmsProvider::Twilio(t) => format!("twilio:{}", t.base_url),
        };
        f.debug_struct("SmsConfig")
            .field("provider", &provider)
            .field("from", &self.from)
            .field("daily_cap_per_number", &self.daily_cap_per_number)
            .field("daily_cap_per_account", &self.daily_cap_per_account)
            .finish_non_exhaustive()
    }
}

impl SmsConfig {
    pub fn enabled(&self) -> bool {
        self.provider != SmsProvider::Off
    }
}

/// Jobs of each kind a worker process runs at once. `WORKER_EMAIL_CONCURRENCY`,
/// `WORKER_COMPLETION_CONCURRENCY`, `WORKER_WEBHOOK_CONCURRENCY` and
/// `WORKER_SMS_CONCURRENCY`; an unset one falls back to
/// `WORKER_CONCURRENCY`, then to its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerConcurrency {
    /// Default: the jobs pool (`DATABASE_MAX_CONNECTIONS` − 3), since each e-mail being sent
    /// holds a connection (its outbox row stays locked while the SMTP server answers).
    pub email: usize,
    /// Default: the CPU count; rendering the final PDF is CPU-bound and holds no connection.
    pub completion: usize,
    /// Default: the jobs pool, since each attempt holds a connection while the receiver answers.
    pub webhook: usize,
    /// Default: the jobs pool, since each SMS being sent holds its row lock while the provider
    /// answers.
    pub sms: usize,
}

/// The connections a worker keeps for its queue; the rest of its budget is its jobs pool.
pub const WORKER_QUEUE_CONNECTIONS: u32 = 3;

/// Bounds on the work untrusted input can cause; each is described in docs/security.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// PDF_MAX_INFLATED_MIB and PDF_MAX_INSPECT_SECS.
    pub pdf: signet_pdf::Limits,
    /// UPLOAD_CONCURRENCY: PDF uploads read and inspected at once, over all accounts.
    pub upload_concurrency: usize,
    /// UPLOAD_CONCURRENCY_PER_ACCOUNT.
    pub upload_concurrency_per_account: usize,
    /// SIGN_IN_HASH_CONCURRENCY: password hashes computed at once (default: the CPU count).
    pub sign_in_hash_concurrency: usize,
    /// SIGN_IN_HASH_QUEUE: sign-ins that may wait for a hashing slot; more are refused.
    pub sign_in_hash_queue: usize,
    /// SIGN_IN_FREE_FAILURES: failed sign-ins for one e-mail address from one source before
    /// each further attempt must wait.
    pub sign_in_free_failures: i32,
    /// SIGN_IN_SOURCE_FREE_FAILURES: failed sign-ins from one source, whatever the address.
    pub sign_in_source_free_failures: i32,
    /// SIGN_IN_FIRST_DELAY_SECS: the first wait once the free failures are used up; it doubles
    /// with each further failure, up to 15 minutes.
    pub sign_in_first_delay_secs: i32,
    /// The child processes untrusted PDFs are parsed in.
    pub pdf_sandbox: SandboxSettings,
    /// The public `/verify` page's own admission.
    pub verify: VerifyLimits,
}

/// The PDF sandbox (`infra::pdf_sandbox`): its children's limits, set by the OS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// PDF_SANDBOX_PROGRAM: the binary started as a child (default: the running one).
    pub program: Option<std::path::PathBuf>,
    /// PDF_SANDBOX_MEMORY_MIB: each child's address space (RLIMIT_AS).
    pub memory_mib: u64,
    /// PDF_SANDBOX_CHILDREN: children at once per process.
    pub children: usize,
    /// PDF_SANDBOX_RENDER_SECS: the deadline of a final PDF's rendering (reading an upload or
    /// a file to verify has PDF_MAX_INSPECT_SECS).
    pub render_time: Duration,
}

/// `/verify` takes files from anyone: how many it checks at once and from one client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyLimits {
    /// VERIFY_CONCURRENCY: files checked at once, over all clients; none wait.
    pub concurrency: usize,
    /// VERIFY_PER_CLIENT_PER_MINUTE: checks one client (IP address, or the /64 of an IPv6
    /// one) may start per minute.
    pub per_client_per_minute: u32,
    /// VERIFY_MAX_MIB: the largest file it takes.
    pub max_bytes: usize,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("bind_addr", &self.bind_addr)
            .field("public_url", &self.public_url)
            .field("file_store", &self.file_store)
            .field("api_usage_window_secs", &self.api_usage_window_secs)
            .field("api_usage_default_limit", &self.api_usage_default_limit)
            .finish_non_exhaustive()
    }
}

pub const DEFAULT_DATABASE_URL: &str = "postgres://signet:signet@127.0.0.1:5432/signet";

impl Config {
    /// What the API and every worker say at start when FILE_URL_SECRET is unset: each process
    /// then signs with a secret of its own, which no other process accepts.
    pub fn generated_secret_warning(&self) -> Option<&'static str> {
        self.file_url_secret_generated.then_some(
            "FILE_URL_SECRET is unset: file links are signed with a random per-process secret; \
             they stop working on restart, and links one process signs (a worker's completion \
             e-mails, say) are refused by every other. Set the same FILE_URL_SECRET on every API \
             and worker",
        )
    }

    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Builds the configuration from any variable source; unset and empty values take defaults.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let or = |name: &str, default: &str| get(name).unwrap_or_else(|| default.to_owned());
        let (file_url_secret, file_url_secret_generated) = match get("FILE_URL_SECRET") {
            Some(secret) => (file_url_secret(secret)?, false),
            None => (crate::infra::secrets::random_bytes(32), true),
        };
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let database_max_connections = positive(
            "DATABASE_MAX_CONNECTIONS",
            &or("DATABASE_MAX_CONNECTIONS", "8"),
        )?
        .min(u32::MAX as u64) as u32;
        let jobs_pool = database_max_connections
            .saturating_sub(WORKER_QUEUE_CONNECTIONS)
            .max(1);
        let fallback = get("WORKER_CONCURRENCY")
            .map(|v| positive("WORKER_CONCURRENCY", &v))
            .transpose()?;
        let concurrency = |name: &'static str, default: usize| -> Result<usize, ConfigError> {
            match get(name) {
                Some(value) => Ok(positive(name, &value)? as usize),
                None => Ok(fallback.map_or(default, |n| n as usize)),
            }
        };
        let seal_cert_file = get("SEAL_CERT_FILE").map(PathBuf::from);
        let seal = match (get("SEAL_KEY_FILE"), get("SEAL_PKCS12_FILE")) {
            (Some(_), Some(_)) => {
                return Err(ConfigError {
                    name: "SEAL_PKCS12_FILE",
                    reason: "set either SEAL_KEY_FILE (with SEAL_CERT_FILE) or SEAL_PKCS12_FILE"
                        .into(),
                });
            }
            (Some(key), None) => Some(SealSource::Pem {
                key_file: PathBuf::from(key),
                chain_file: seal_cert_file.clone().ok_or(ConfigError {
                    name: "SEAL_CERT_FILE",
                    reason: "must be set with SEAL_KEY_FILE".into(),
                })?,
            }),
            (None, Some(file)) => {
                let password = lookup("SEAL_PKCS12_PASSWORD");
                let password_file = get("SEAL_PKCS12_PASSWORD_FILE").map(PathBuf::from);
                if password.is_none() && password_file.is_none() {
                    return Err(ConfigError {
                        name: "SEAL_PKCS12_PASSWORD",
                        reason: "set it or SEAL_PKCS12_PASSWORD_FILE with SEAL_PKCS12_FILE".into(),
                    });
                }
                Some(SealSource::Pkcs12 {
                    file: PathBuf::from(file),
                    password,
                    password_file,
                })
            }
            (None, None) if seal_cert_file.is_some() => {
                return Err(ConfigError {
                    name: "SEAL_KEY_FILE",
                    reason: "must be set with SEAL_CERT_FILE (or use SEAL_PKCS12_FILE)".into(),
                });
            }
            (None, None) => None,
        };
        Ok(Self {
            seal,
            seal_cert_file,
            tsa_url: get("TSA_URL"),
            signing_consent_text: get("SIGNING_CONSENT_TEXT").map(|t| t.trim().to_owned()),
            database_url: or("DATABASE_URL", DEFAULT_DATABASE_URL),
            database_max_connections,
            database_acquire_timeout: Duration::from_millis(positive(
                "DATABASE_ACQUIRE_TIMEOUT_MS",
                &or("DATABASE_ACQUIRE_TIMEOUT_MS", "5000"),
            )?),
            database_idle_timeout: Duration::from_secs(positive(
                "DATABASE_IDLE_SECS",
                &or("DATABASE_IDLE_SECS", "60"),
            )?),
            bind_addr: parse("BIND_ADDR", &or("BIND_ADDR", "127.0.0.1:8080"))?,
            public_url: or("PUBLIC_URL", "http://localhost:8080")
                .trim_end_matches('/')
                .to_owned(),
            smtp_url: get("SMTP_URL"),
            mail_dir: PathBuf::from(or("MAIL_DIR", "./data/mail")),
            mail_from: or("MAIL_FROM", "Signet <no-reply@localhost>"),
            default_language: language("DEFAULT_LANGUAGE", &or("DEFAULT_LANGUAGE", "en"))?,
            reminders: crate::model::ReminderDefaults {
                first_after_days: reminder_days(
                    "REMINDER_FIRST_AFTER_DAYS",
                    &or("REMINDER_FIRST_AFTER_DAYS", "3"),
                )?,
                every_days: reminder_days("REMINDER_EVERY_DAYS", &or("REMINDER_EVERY_DAYS", "3"))?,
            },
            reminder_min_interval_hours: reminder_interval_hours(&or(
                "REMINDER_MIN_INTERVAL_HOURS",
                "24",
            ))?,
            file_store: file_store(&get)?,
            file_downloads: match or("FILE_DOWNLOADS", "stream").as_str() {
                "stream" => FileDownloads::Stream,
                "redirect" => FileDownloads::Redirect,
                other => {
                    return Err(ConfigError {
                        name: "FILE_DOWNLOADS",
                        reason: format!("{other:?} is not stream or redirect"),
                    });
                }
            },
            file_orphan_grace: Duration::from_secs(positive(
                "FILE_ORPHAN_GRACE_SECS",
                &or("FILE_ORPHAN_GRACE_SECS", "3600"),
            )?),
            file_url_secret,
            file_url_secret_generated,
            file_url_ttl: Duration::from_secs(positive(
                "FILE_URL_TTL_SECS",
                &or("FILE_URL_TTL_SECS", "3600"),
            )?),
            api_usage_window_secs: positive(
                "API_USAGE_WINDOW_SECS",
                &or("API_USAGE_WINDOW_SECS", "3600"),
            )? as i64,
            api_usage_default_limit: parse(
                "API_USAGE_DEFAULT_LIMIT",
                &or("API_USAGE_DEFAULT_LIMIT", "1000"),
            )?,
            trusted_proxies: parse_list("TRUSTED_PROXIES", get("TRUSTED_PROXIES"), parse_net)?,
            webhook_allow_private: parse_bool(
                "WEBHOOK_ALLOW_PRIVATE",
                &or("WEBHOOK_ALLOW_PRIVATE", "false"),
            )?,
            webhook_retry_schedule: parse_list(
                "WEBHOOK_RETRY_SCHEDULE",
                Some(or(
                    "WEBHOOK_RETRY_SCHEDULE",
                    "5,300,1800,7200,18000,36000,36000",
                )),
                |name, v| parse::<u64>(name, v).map(Duration::from_secs),
            )?,
            email_retry_schedule: parse_list(
                "EMAIL_RETRY_SCHEDULE",
                Some(or("EMAIL_RETRY_SCHEDULE", "10,60,300,1800")),
                |name, v| parse::<u64>(name, v).map(Duration::from_secs),
            )?,
            expiry_sweep_cron: or("EXPIRY_SWEEP_CRON", "0 * * * * *"),
            worker_heartbeat: Duration::from_secs(positive(
                "WORKER_HEARTBEAT_SECS",
                &or("WORKER_HEARTBEAT_SECS", "30"),
            )?),
            worker_shutdown_timeout: Duration::from_secs(positive(
                "WORKER_SHUTDOWN_SECS",
                &or("WORKER_SHUTDOWN_SECS", "30"),
            )?),
            worker_admin_addr: parse(
                "WORKER_ADMIN_ADDR",
                &or("WORKER_ADMIN_ADDR", "127.0.0.1:9091"),
            )?,
            worker_stuck_after: Duration::from_secs(positive(
                "WORKER_STUCK_SECS",
                &or("WORKER_STUCK_SECS", "300"),
            )?),
            worker_poll_interval: Duration::from_millis(positive(
                "WORKER_POLL_MS",
                &or("WORKER_POLL_MS", "1000"),
            )?),
            worker_concurrency: WorkerConcurrency {
                email: concurrency("WORKER_EMAIL_CONCURRENCY", jobs_pool as usize)?,
                completion: concurrency("WORKER_COMPLETION_CONCURRENCY", cores)?,
                webhook: concurrency("WORKER_WEBHOOK_CONCURRENCY", jobs_pool as usize)?,
                sms: concurrency("WORKER_SMS_CONCURRENCY", jobs_pool as usize)?,
            },
            log_format: match or("LOG_FORMAT", "text").to_ascii_lowercase().as_str() {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                other => {
                    return Err(ConfigError {
                        name: "LOG_FORMAT",
                        reason: format!("expected text or json, got {other:?}"),
                    });
                }
            },
            limits: Limits {
                pdf: signet_pdf::Limits {
                    max_inflated_bytes: positive(
                        "PDF_MAX_INFLATED_MIB",
                        &or("PDF_MAX_INFLATED_MIB", "64"),
                    )?
                    .min(4096) as usize
                        * 1024
                        * 1024,
                    max_time: Duration::from_secs(positive(
                        "PDF_MAX_INSPECT_SECS",
                        &or("PDF_MAX_INSPECT_SECS", "10"),
                    )?),
                },
                upload_concurrency: positive("UPLOAD_CONCURRENCY", &or("UPLOAD_CONCURRENCY", "2"))?
                    as usize,
                upload_concurrency_per_account: positive(
                    "UPLOAD_CONCURRENCY_PER_ACCOUNT",
                    &or("UPLOAD_CONCURRENCY_PER_ACCOUNT", "1"),
                )? as usize,
                sign_in_hash_concurrency: positive(
                    "SIGN_IN_HASH_CONCURRENCY",
                    &or("SIGN_IN_HASH_CONCURRENCY", &cores.to_string()),
                )? as usize,
                sign_in_hash_queue: parse("SIGN_IN_HASH_QUEUE", &or("SIGN_IN_HASH_QUEUE", "16"))?,
                sign_in_free_failures: positive(
                    "SIGN_IN_FREE_FAILURES",
                    &or("SIGN_IN_FREE_FAILURES", "5"),
                )?
                .min(1000) as i32,
                sign_in_source_free_failures: positive(
                    "SIGN_IN_SOURCE_FREE_FAILURES",
                    &or("SIGN_IN_SOURCE_FREE_FAILURES", "20"),
                )?
                .min(1_000_000) as i32,
                sign_in_first_delay_secs: positive(
                    "SIGN_IN_FIRST_DELAY_SECS",
                    &or("SIGN_IN_FIRST_DELAY_SECS", "1"),
                )?
                .min(900) as i32,
                pdf_sandbox: SandboxSettings {
                    program: get("PDF_SANDBOX_PROGRAM").map(std::path::PathBuf::from),
                    // Less than that and a child cannot even map the binary and its heap.
                    memory_mib: positive(
                        "PDF_SANDBOX_MEMORY_MIB",
                        &or("PDF_SANDBOX_MEMORY_MIB", "1024"),
                    )?
                    .clamp(256, 64 * 1024),
                    children: positive("PDF_SANDBOX_CHILDREN", &or("PDF_SANDBOX_CHILDREN", "2"))?
                        as usize,
                    render_time: Duration::from_secs(positive(
                        "PDF_SANDBOX_RENDER_SECS",
                        &or("PDF_SANDBOX_RENDER_SECS", "120"),
                    )?),
                },
                verify: VerifyLimits {
                    concurrency: positive("VERIFY_CONCURRENCY", &or("VERIFY_CONCURRENCY", "2"))?
                        as usize,
                    per_client_per_minute: positive(
                        "VERIFY_PER_CLIENT_PER_MINUTE",
                        &or("VERIFY_PER_CLIENT_PER_MINUTE", "10"),
                    )?
                    .min(u32::MAX.into()) as u32,
                    max_bytes: positive("VERIFY_MAX_MIB", &or("VERIFY_MAX_MIB", "25"))?
                        .min(signet_pdf::sandbox::MAX_PAYLOAD_BYTES as u64 / (1024 * 1024))
                        as usize
                        * 1024
                        * 1024,
                },
            },
            sms: SmsConfig {
                provider: match or("SMS_PROVIDER", "file").to_ascii_lowercase().as_str() {
                    "none" | "off" => SmsProvider::Off,
                    "file" => SmsProvider::Files {
                        dir: PathBuf::from(or("SMS_DIR", "./data/sms")),
                    },
                    "twilio" => SmsProvider::Twilio(TwilioConfig {
                        base_url: or("SMS_TWILIO_BASE_URL", "https://api.twilio.com")
                            .trim_end_matches('/')
                            .to_owned(),
                        account_sid: get("TWILIO_ACCOUNT_SID"),
                        auth_token: get("TWILIO_AUTH_TOKEN"),
                        status_callbacks: parse_bool(
                            "SMS_STATUS_CALLBACKS",
                            &or("SMS_STATUS_CALLBACKS", "true"),
                        )?,
                    }),
                    other => {
                        return Err(ConfigError {
                            name: "SMS_PROVIDER",
                            reason: format!("expected file, twilio or none, got {other:?}"),
                        });
                    }
                },
                from: or("SMS_FROM", "Signet"),
                retry_schedule: parse_list(
                    "SMS_RETRY_SCHEDULE",
                    Some(or("SMS_RETRY_SCHEDULE", "10,60,300,1800")),
                    |name, v| parse::<u64>(name, v).map(Duration::from_secs),
                )?,
                daily_cap_per_number: positive(
                    "SMS_DAILY_CAP_PER_NUMBER",
                    &or("SMS_DAILY_CAP_PER_NUMBER", "10"),
                )?
                .min(i32::MAX as u64) as i32,
                daily_cap_per_account: positive(
                    "SMS_DAILY_CAP_PER_ACCOUNT",
                    &or("SMS_DAILY_CAP_PER_ACCOUNT", "1000"),
                )?
                .min(i32::MAX as u64) as i32,
                allow_private: parse_bool(
                    "SMS_PROVIDER_ALLOW_PRIVATE",
                    &or("SMS_PROVIDER_ALLOW_PRIVATE", "false"),
                )?,
            },
        })
    }
}

impl Config {
    /// The domain of `Message-ID`s: the sender's, else the public URL's host.
    pub fn message_id_domain(&self) -> String {
        let address = self
            .mail_from
            .rsplit_once('<')
            .map_or(self.mail_from.as_str(), |(_, a)| a.trim_end_matches('>'));
        address
            .rsplit_once('@')
            .map(|(_, domain)| domain.trim().to_owned())
            .filter(|d| !d.is_empty())
            .or_else(|| {
                url::Url::parse(&self.public_url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
            })
            .unwrap_or_else(|| "signet.invalid".to_owned())
    }
}

/// Values that appear in examples and must never sign real links.
const PLACEHOLDER_SECRETS: &[&str] = &[
    "change-me",
    "changeme",
    "change-me-to-a-long-random-string",
    "secret",
    "password",
];

/// FILE_URL_SECRET signs file links: anyone who knows it can make them. A short value or a
/// known placeholder is refused.
fn file_url_secret(secret: String) -> Result<Vec<u8>, ConfigError> {
    let normalised = secret.trim().to_ascii_lowercase();
    let reason = if PLACEHOLDER_SECRETS.contains(&normalised.as_str())
        || normalised.starts_with("change-me")
        || normalised.starts_with("changeme")
    {
        "is a placeholder; set a random value, e.g. `openssl rand -hex 32`"
    } else if secret.len() < 32 {
        "must be at least 32 bytes; set a random value, e.g. `openssl rand -hex 32`"
    } else {
        return Ok(secret.into_bytes());
    };
    Err(ConfigError {
        name: "FILE_URL_SECRET",
        reason: reason.into(),
    })
}

fn parse<T: FromStr>(name: &'static str, value: &str) -> Result<T, ConfigError>
where
    T::Err: std::fmt::Display,
{
    value.trim().parse().map_err(|e: T::Err| ConfigError {
        name,
        reason: format!("{value:?}: {e}"),
    })
}

fn positive(name: &'static str, value: &str) -> Result<u64, ConfigError> {
    match parse::<u64>(name, value)? {
        0 => Err(ConfigError {
            name,
            reason: "must be greater than zero".into(),
        }),
        n => Ok(n),
    }
}

/// A number of days for a reminder setting: 0 to 365, as the API accepts.
fn reminder_days(name: &'static str, value: &str) -> Result<u32, ConfigError> {
    match parse::<u32>(name, value)? {
        days if i64::from(days) <= crate::model::MAX_REMINDER_DAYS => Ok(days),
        _ => Err(ConfigError {
            name,
            reason: format!("at most {} days", crate::model::MAX_REMINDER_DAYS),
        }),
    }
}

/// REMINDER_MIN_INTERVAL_HOURS: 0 (no throttle) to a year.
fn reminder_interval_hours(value: &str) -> Result<u32, ConfigError> {
    const NAME: &str = "REMINDER_MIN_INTERVAL_HOURS";
    match parse::<u32>(NAME, value)? {
        hours if hours <= MAX_REMINDER_INTERVAL_HOURS => Ok(hours),
        _ => Err(ConfigError {
            name: NAME,
            reason: format!("at most {MAX_REMINDER_INTERVAL_HOURS} hours"),
        }),
    }
}

const MAX_REMINDER_INTERVAL_HOURS: u32 = 366 * 24;

/// FILE_STORE and its settings.
fn file_store(get: &impl Fn(&str) -> Option<String>) -> Result<FileStoreConfig, ConfigError> {
    match get("FILE_STORE").as_deref().unwrap_or("local") {
        "local" => Ok(FileStoreConfig::Local {
            dir: PathBuf::from(get("FILE_STORE_DIR").unwrap_or_else(|| "./data/files".into())),
        }),
        "s3" => {
            let bucket = get("FILE_STORE_S3_BUCKET").ok_or(ConfigError {
                name: "FILE_STORE_S3_BUCKET",
                reason: "must be set with FILE_STORE=s3".into(),
            })?;
            let endpoint = get("FILE_STORE_S3_ENDPOINT");
            let virtual_hosted = match get("FILE_STORE_S3_ADDRESSING").as_deref() {
                None => endpoint.is_none(),
                Some("virtual") => true,
                Some("path") => false,
                Some(other) => {
                    return Err(ConfigError {
                        name: "FILE_STORE_S3_ADDRESSING",
                        reason: format!("{other:?} is not path or virtual"),
                    });
                }
            };
            let access_key_id = get("FILE_STORE_S3_ACCESS_KEY_ID");
            let secret_access_key = get("FILE_STORE_S3_SECRET_ACCESS_KEY");
            if access_key_id.is_some() != secret_access_key.is_some() {
                return Err(ConfigError {
                    name: "FILE_STORE_S3_SECRET_ACCESS_KEY",
                    reason: "set both FILE_STORE_S3_ACCESS_KEY_ID and \
                             FILE_STORE_S3_SECRET_ACCESS_KEY, or neither"
                        .into(),
                });
            }
            Ok(FileStoreConfig::S3(S3Config {
                bucket,
                endpoint,
                region: get("FILE_STORE_S3_REGION"),
                prefix: get("FILE_STORE_S3_PREFIX")
                    .unwrap_or_default()
                    .trim_matches('/')
                    .to_owned(),
                virtual_hosted,
                access_key_id,
                secret_access_key,
            }))
        }
        other => Err(ConfigError {
            name: "FILE_STORE",
            reason: format!("{other:?} is not local or s3"),
        }),
    }
}

/// A tag of a language Signet speaks (ASCII case aside): `en`, `de`, `fr`, `es`, `pt`,
/// `zh-Hans` or `ar`.
fn language(name: &'static str, value: &str) -> Result<signet_i18n::Language, ConfigError> {
    signet_i18n::Language::from_tag(value).ok_or_else(|| ConfigError {
        name,
        reason: format!(
            "{value:?} is not a language Signet speaks; expected one of {}",
            signet_i18n::Language::ALL.map(|l| l.tag()).join(", ")
        ),
    })
}

fn parse_bool(name: &'static str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(ConfigError {
            name,
            reason: format!("expected true or false, got {value:?}"),
        }),
    }
}

fn parse_net(name: &'static str, value: &str) -> Result<IpNet, ConfigError> {
    value
        .parse::<IpNet>()
        .or_else(|_| value.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| ConfigError {
            name,
            reason: format!("{value:?} is neither an IP address nor a CIDR range"),
        })
}

fn parse_list<T>(
    name: &'static str,
    value: Option<String>,
    item: impl Fn(&'static str, &str) -> Result<T, ConfigError>,
) -> Result<Vec<T>, ConfigError> {
    value
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| item(name, v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| vars.get(k).cloned())
    }

    #[test]
    fn defaults_apply_when_unset_or_empty() {
        let c = config(&[("BIND_ADDR", "  ")]).unwrap();
        assert_eq!(c.bind_addr.to_string(), "127.0.0.1:8080");
        assert_eq!(c.public_url, "http://localhost:8080");
        assert_eq!(c.api_usage_window_secs, 3600);
        assert_eq!(c.api_usage_default_limit, 1000);
        assert_eq!(c.webhook_retry_schedule.len(), 7);
        assert!(c.file_url_secret_generated);
        assert!(c.smtp_url.is_none());
    }

    #[test]
    fn values_are_parsed_and_checked() {
        let c = config(&[
            ("PUBLIC_URL", "https://sign.example.com/"),
            ("TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1"),
            ("FILE_URL_SECRET", "0123456789abcdef0123456789abcdef"),
            ("LOG_FORMAT", "JSON"),
        ])
        .unwrap();
        assert_eq!(c.public_url, "https://sign.example.com");
        assert_eq!(c.trusted_proxies.len(), 2);
        assert_eq!(c.file_url_secret, b"0123456789abcdef0123456789abcdef");
        assert_eq!(c.log_format, LogFormat::Json);

        let err = config(&[("API_USAGE_WINDOW_SECS", "0")]).unwrap_err();
        assert_eq!(err.name, "API_USAGE_WINDOW_SECS");
        let err = config(&[("TRUSTED_PROXIES", "nope")]).unwrap_err();
        assert_eq!(err.name, "TRUSTED_PROXIES");
        let err = config(&[("BIND_ADDR", "localhost")]).unwrap_err();
        assert_eq!(err.name, "BIND_ADDR");
    }

    #[test]
    fn the_default_language_is_one_signet_speaks() {
        use signet_i18n::Language;
        assert_eq!(config(&[]).unwrap().default_language, Language::English);
        let c = config(&[("DEFAULT_LANGUAGE", " zh-hans ")]).unwrap();
        assert_eq!(c.default_language, Language::ChineseSimplified);
        for unknown in ["xx", "zh", "de-AT", "english"] {
            let err = config(&[("DEFAULT_LANGUAGE", unknown)]).unwrap_err();
            assert_eq!(err.name, "DEFAULT_LANGUAGE");
            assert!(
                err.to_string()
                    .ends_with("expected one of en, de, fr, es, pt, zh-Hans, ar"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_short_or_placeholder_file_url_secret_is_refused() {
        for secret in [
            "s3cret",
            "change-me",
            "CHANGE-ME",
            "change-me-please-to-something-long-enough",
        ] {
            let err = config(&[("FILE_URL_SECRET", secret)]).unwrap_err();
            assert_eq!(err.name, "FILE_URL_SECRET", "{secret}");
        }
        assert!(config(&[("FILE_URL_SECRET", &"x".repeat(32))]).is_ok());
    }

    #[test]
    fn worker_concurrency_per_kind_falls_back_to_worker_concurrency() {
        let c = config(&[("DATABASE_MAX_CONNECTIONS", "10")]).unwrap();
        assert_eq!(c.worker_concurrency.email, 7, "the jobs pool");
        assert_eq!(c.worker_concurrency.webhook, 7, "the jobs pool");
        assert!(c.worker_concurrency.completion >= 1, "the CPU count");
        let c = config(&[
            ("WORKER_CONCURRENCY", "3"),
            ("WORKER_WEBHOOK_CONCURRENCY", "20"),
        ])
        .unwrap();
        assert_eq!(
            c.worker_concurrency,
            WorkerConcurrency {
                email: 3,
                completion: 3,
                webhook: 20,
                sms: 3,
            }
        );
        for name in [
            "WORKER_CONCURRENCY",
            "WORKER_EMAIL_CONCURRENCY",
            "WORKER_COMPLETION_CONCURRENCY",
            "WORKER_WEBHOOK_CONCURRENCY",
            "WORKER_SMS_CONCURRENCY",
        ] {
            assert_eq!(config(&[(name, "0")]).unwrap_err().name, name);
        }
    }

    #[test]
    fn a_seal_is_pem_files_or_a_pkcs12_file_with_its_password() {
        assert!(config(&[]).unwrap().seal.is_none());
        let pem = config(&[("SEAL_KEY_FILE", "k.pem"), ("SEAL_CERT_FILE", "c.pem")]).unwrap();
        assert!(matches!(pem.seal, Some(SealSource::Pem { .. })));
        let p12 = config(&[
            ("SEAL_PKCS12_FILE", "s.p12"),
            ("SEAL_PKCS12_PASSWORD", "pw"),
        ])
        .unwrap();
        assert!(matches!(p12.seal, Some(SealSource::Pkcs12 { .. })));
        assert!(
            !format!("{:?}", p12.seal).contains("pw"),
            "the password is never printed"
        );
        for (vars, name) in [
            (&[("SEAL_KEY_FILE", "k.pem")][..], "SEAL_CERT_FILE"),
            (&[("SEAL_CERT_FILE", "c.pem")][..], "SEAL_KEY_FILE"),
            (&[("SEAL_PKCS12_FILE", "s.p12")][..], "SEAL_PKCS12_PASSWORD"),
            (
                &[("SEAL_KEY_FILE", "k.pem"), ("SEAL_PKCS12_FILE", "s.p12")][..],
                "SEAL_PKCS12_FILE",
            ),
        ] {
            assert_eq!(config(vars).unwrap_err().name, name, "{vars:?}");
        }
    }

    #[test]
    fn sms_goes_to_files_unless_told_otherwise() {
        let c = config(&[]).unwrap();
        assert_eq!(
            c.sms.provider,
            SmsProvider::Files {
                dir: PathBuf::from("./data/sms")
            }
        );
        assert!(c.sms.enabled());
        assert_eq!(c.sms.daily_cap_per_number, 10);
        assert!(!config(&[("SMS_PROVIDER", "none")]).unwrap().sms.enabled());
        let c = config(&[
            ("SMS_PROVIDER", "Twilio"),
            ("SMS_TWILIO_BASE_URL", "http://127.0.0.1:9/"),
            ("TWILIO_ACCOUNT_SID", "AC123"),
            ("TWILIO_AUTH_TOKEN", "very-secret-token"),
        ])
        .unwrap();
        let SmsProvider::Twilio(twilio) = &c.sms.provider else {
            panic!("twilio")
        };
        assert_eq!(twilio.base_url, "http://127.0.0.1:9");
        assert_eq!(twilio.account_sid.as_deref(), Some("AC123"));
        assert!(twilio.status_callbacks);
        assert!(
            !format!("{:?}", c.sms).contains("very-secret-token"),
            "the token is never printed"
        );
        assert_eq!(
            config(&[("SMS_PROVIDER", "carrier-pigeon")])
                .unwrap_err()
                .name,
            "SMS_PROVIDER"
        );
        assert_eq!(
            config(&[("SMS_DAILY_CAP_PER_ACCOUNT", "0")])
                .unwrap_err()
                .name,
            "SMS_DAILY_CAP_PER_ACCOUNT"
        );
    }

    #[test]
    fn limits_have_defaults_and_are_checked() {
        let c = config(&[]).unwrap();
        assert_eq!(c.limits.pdf.max_inflated_bytes, 64 * 1024 * 1024);
        assert_eq!(c.limits.upload_concurrency, 2);
        assert_eq!(c.limits.sign_in_free_failures, 5);
        assert!(c.limits.sign_in_hash_concurrency >= 1);
        let err = config(&[("SIGN_IN_HASH_CONCURRENCY", "0")]).unwrap_err();
        assert_eq!(err.name, "SIGN_IN_HASH_CONCURRENCY");
    }

    #[test]
    fn the_reminder_interval_defaults_to_a_day_and_zero_turns_it_off() {
        assert_eq!(config(&[]).unwrap().reminder_min_interval_hours, 24);
        let off = config(&[("REMINDER_MIN_INTERVAL_HOURS", "0")]).unwrap();
        assert_eq!(off.reminder_min_interval_hours, 0);
        for bad in ["-1", "1.5", "8785"] {
            let err = config(&[("REMINDER_MIN_INTERVAL_HOURS", bad)]).unwrap_err();
            assert_eq!(err.name, "REMINDER_MIN_INTERVAL_HOURS", "{bad}");
        }
    }
}
