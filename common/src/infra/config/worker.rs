//! The worker process: how many jobs it runs, how it shows it is alive, and its admin port.

use std::{net::SocketAddr, time::Duration};

use serde::Deserialize;

use super::{
    de,
    vars::{ConfigError, Vars},
};

/// The connections a worker keeps for its queue; the rest of its budget is its jobs pool.
pub const WORKER_QUEUE_CONNECTIONS: u32 = 3;

/// E-mails, SMS or webhook attempts one process has in flight by default, per kind.
const DEFAULT_MESSAGES_IN_FLIGHT: usize = 32;

#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// How many jobs of each kind one worker process runs at once.
    pub concurrency: WorkerConcurrency,
    /// How often a worker proves it is alive; a worker silent for three intervals is presumed
    /// dead and its jobs run again elsewhere.
    pub heartbeat: Duration,
    /// How long a stopping worker waits for running jobs.
    pub shutdown_timeout: Duration,
    /// How often workers look for delayed jobs (new jobs arrive by NOTIFY at once).
    pub poll_interval: Duration,
    /// The worker's small HTTP port for /healthz, /readyz and /metrics.
    pub admin_addr: SocketAddr,
    /// A job type's worker that has not polled its queue for this long while the database
    /// answers makes the worker's `/healthz` fail, so that an orchestrator restarts it.
    pub stuck_after: Duration,
}

/// Jobs of each kind a worker process runs at once. `WORKER_EMAIL_CONCURRENCY`,
/// `WORKER_COMPLETION_CONCURRENCY`, `WORKER_WEBHOOK_CONCURRENCY` and
/// `WORKER_SMS_CONCURRENCY` and `WORKER_BULK_CONCURRENCY`; an unset one falls back to
/// `WORKER_CONCURRENCY`, then to its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerConcurrency {
    /// Default: 32. An e-mail being sent holds no database connection (its outbox row is
    /// leased), so this is the SMTP exchanges in flight; the SMTP connections are pooled (16).
    pub email: usize,
    /// Default: the CPU count; rendering the final PDF is CPU-bound and holds no connection.
    pub completion: usize,
    /// Default: 32 attempts in flight, each holding no database connection while the receiver
    /// answers (up to its 15 s timeout).
    pub webhook: usize,
    /// Default: 32 requests to the provider in flight, each holding no database connection.
    pub sms: usize,
    /// Default: 2. Each bulk send being made holds one connection for a chunk of its rows at a
    /// time; more bulk sends at once share the database with everything else.
    pub bulk: usize,
}

#[derive(Deserialize)]
#[serde(default)]
struct WorkerVars {
    #[serde(rename = "WORKER_CONCURRENCY", deserialize_with = "set_positive")]
    concurrency: Option<usize>,
    #[serde(rename = "WORKER_EMAIL_CONCURRENCY", deserialize_with = "set_positive")]
    email_concurrency: Option<usize>,
    #[serde(
        rename = "WORKER_COMPLETION_CONCURRENCY",
        deserialize_with = "set_positive"
    )]
    completion_concurrency: Option<usize>,
    #[serde(
        rename = "WORKER_WEBHOOK_CONCURRENCY",
        deserialize_with = "set_positive"
    )]
    webhook_concurrency: Option<usize>,
    #[serde(rename = "WORKER_SMS_CONCURRENCY", deserialize_with = "set_positive")]
    sms_concurrency: Option<usize>,
    #[serde(rename = "WORKER_BULK_CONCURRENCY", deserialize_with = "set_positive")]
    bulk_concurrency: Option<usize>,
    #[serde(
        rename = "WORKER_HEARTBEAT_SECS",
        deserialize_with = "de::positive_secs"
    )]
    heartbeat: Duration,
    #[serde(
        rename = "WORKER_SHUTDOWN_SECS",
        deserialize_with = "de::positive_secs"
    )]
    shutdown_timeout: Duration,
    #[serde(rename = "WORKER_POLL_MS", deserialize_with = "de::positive_millis")]
    poll_interval: Duration,
    #[serde(rename = "WORKER_ADMIN_ADDR", deserialize_with = "de::parsed")]
    admin_addr: SocketAddr,
    #[serde(rename = "WORKER_STUCK_SECS", deserialize_with = "de::positive_secs")]
    stuck_after: Duration,
}

impl Default for WorkerVars {
    fn default() -> Self {
        Self {
            concurrency: None,
            email_concurrency: None,
            completion_concurrency: None,
            webhook_concurrency: None,
            sms_concurrency: None,
            bulk_concurrency: None,
            heartbeat: Duration::from_secs(30),
            shutdown_timeout: Duration::from_secs(30),
            poll_interval: Duration::from_millis(1000),
            admin_addr: SocketAddr::from(([127, 0, 0, 1], 9091)),
            stuck_after: Duration::from_secs(300),
        }
    }
}

fn set_positive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    de::positive_usize(d).map(Some)
}

impl WorkerSettings {
    /// Messages in flight do not follow the connection budget: a send holds no connection.
    pub(super) fn load(vars: &Vars) -> Result<Self, ConfigError> {
        let v: WorkerVars = vars.load()?;
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        let in_flight = DEFAULT_MESSAGES_IN_FLIGHT;
        let or_default =
            |set: Option<usize>, default: usize| set.or(v.concurrency).unwrap_or(default);
        Ok(Self {
            concurrency: WorkerConcurrency {
                email: or_default(v.email_concurrency, in_flight),
                completion: or_default(v.completion_concurrency, cores),
                webhook: or_default(v.webhook_concurrency, in_flight),
                sms: or_default(v.sms_concurrency, in_flight),
                bulk: or_default(v.bulk_concurrency, 2),
            },
            heartbeat: v.heartbeat,
            shutdown_timeout: v.shutdown_timeout,
            poll_interval: v.poll_interval,
            admin_addr: v.admin_addr,
            stuck_after: v.stuck_after,
        })
    }
}
