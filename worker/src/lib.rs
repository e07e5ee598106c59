//! `signet-worker`: apalis workers on the PostgreSQL queue — e-mail dispatch, completion, webhook
//! delivery, SMS dispatch and the expiry sweep. Any number of worker processes can run side by side, each
//! taking every kind of work or only some (`kinds`), so that each kind is scaled on its own.

pub mod admin;
pub mod job_metrics;
pub mod jobs;
pub mod kinds;
pub mod listener;
pub mod mail;
pub mod registration;
pub mod sms;
pub mod smtp;
pub mod state;
pub mod supervision;
pub mod trust;
pub mod webhook;

use std::{str::FromStr, sync::Arc, time::Duration};

use apalis::prelude::*;
use signet_common::infra::config::SealSource;
use signet_common::infra::pdf_sandbox::PdfSandbox;
use signet_common::{
    Config,
    delivery::{retry::RetryPolicy, sms::StatusCallbacks},
    infra::{
        db::Db,
        files::{FileLinks, FileStore},
        notify::Notifier,
    },
};
use signet_pdf::seal::SealKey;

pub use state::WorkerState;

use crate::{
    kinds::{JobKind, JobKinds},
    registration::Workers,
};

/// How long the download link in a completion e-mail works.
pub const COMPLETION_LINK_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// Connections of the queue pool: one held by the job listener, two shared by the job types'
/// fetches, heartbeats and acknowledgements (each a short statement).
pub const QUEUE_CONNECTIONS: u32 = signet_common::infra::config::WORKER_QUEUE_CONNECTIONS;

/// A worker process's pools within `DATABASE_MAX_CONNECTIONS`: the queue's connections, the
/// rest for the job handlers. A process that takes jobs from a queue keeps `QUEUE_CONNECTIONS`
/// for it; a sweep-only process has no listener and no fetches, and keeps one (its health
/// checks and `/metrics`).
pub fn pools(config: &Config, kinds: &JobKinds) -> Result<(Db, sqlx::PgPool), StartError> {
    let queue_connections = queue_connections(kinds);
    let budget = signet_common::infra::db::PoolBudget::from_config(config);
    if budget.max_connections <= queue_connections {
        return Err(StartError::Budget(
            budget.max_connections,
            queue_connections,
        ));
    }
    let queue = signet_common::infra::db::lazy_pool(
        &config.database.url,
        "signet-worker",
        budget.with_max(queue_connections),
    )
    .map_err(|e| StartError::Database(e.to_string()))?;
    let jobs = Db::connect_lazy(
        &config.database.url,
        "signet-worker",
        budget.with_max(budget.max_connections - queue_connections),
    )
    .map_err(|e| StartError::Database(e.to_string()))?;
    Ok((jobs, queue))
}

/// The connections a process running `kinds` keeps for its queue.
pub fn queue_connections(kinds: &JobKinds) -> u32 {
    if kinds.queue_labels().is_empty() {
        1
    } else {
        QUEUE_CONNECTIONS
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "DATABASE_MAX_CONNECTIONS is {0}: this worker needs more than {1} ({1} for its queue, one or more for its jobs)"
    )]
    Budget(u32, u32),
    #[error("DATABASE_URL: {0}")]
    Database(String),
    #[error("EXPIRY_SWEEP_CRON {0:?} is not a valid cron expression (with seconds): {1}")]
    Cron(String, String),
    #[error("SMTP_URL: {0}")]
    Mail(String),
    #[error("SMS: {0}")]
    Sms(String),
    #[error("{0}")]
    Seal(String),
    #[error("FILE_STORE: {0}")]
    FileStore(String),
    #[error("PDF_SANDBOX_PROGRAM: {0}")]
    PdfSandbox(String),
    #[error(
        "--jobs / WORKER_JOBS names no kind of work (email, completion, webhook, sms, bulk, sweep)"
    )]
    NoJobs,
    #[error("workers stopped with an error: {0}")]
    Monitor(String),
    #[error("WORKER_ADMIN_ADDR {0}: {1}")]
    Admin(String, String),
}

/// Builds what every job handler of a process running `kinds` shares: transports, seal, file
/// store, pools. Returns it with the kinds it can run (no SMS without a provider).
pub async fn prepare(
    config: Config,
    kinds: JobKinds,
    (db, queue_pool): (Db, sqlx::PgPool),
) -> Result<(Arc<WorkerState>, JobKinds), StartError> {
    if kinds.iter().next().is_none() {
        return Err(StartError::NoJobs);
    }
    let mailer = mail::Mailer::from_config(&config).map_err(StartError::Mail)?;
    if let Some(warning) = config.generated_secret_warning() {
        tracing::warn!("{warning}");
    }
    // Only a process that sends SMS needs the provider (and its credentials).
    let sms = if kinds.contains(JobKind::Sms) {
        sms::SmsSender::from_config(&config)
            .await
            .map_err(StartError::Sms)?
    } else {
        None
    };
    let seal = Arc::new(load_seal(&config, &kinds)?);
    let trust =
        trust::TrustClient::new(config.seal.tsa_url.as_deref()).map_err(StartError::Seal)?;
    let kinds = if sms.is_none() && kinds.contains(JobKind::Sms) {
        tracing::info!("SMS_PROVIDER=none: this worker takes no SMS jobs");
        let rest = JobKinds::new(kinds.iter().filter(|kind| *kind != JobKind::Sms));
        if rest.iter().next().is_none() {
            return Err(StartError::NoJobs);
        }
        rest
    } else {
        kinds
    };
    let state = Arc::new(WorkerState {
        store: FileStore::from_config(&config.files.store).map_err(StartError::FileStore)?,
        file_orphan_grace: config.files.orphan_grace,
        completion_links: FileLinks::new(
            &config.api.public_url,
            &config.files.url_secret,
            COMPLETION_LINK_TTL,
        ),
        notifier: Notifier::from_config(&config),
        webhooks: webhook::WebhookClient::new(config.webhook.allow_private),
        email_retries: RetryPolicy::new(config.email.retry_schedule.clone()),
        webhook_retries: RetryPolicy::new(config.webhook.retry_schedule.clone()),
        sms,
        sms_retries: RetryPolicy::new(config.sms.retry_schedule.clone()),
        sms_callbacks: StatusCallbacks::new(&config.api.public_url, &config.files.url_secret),
        seal,
        trust,
        pdf: PdfSandbox::new(&config.limits.pdf_sandbox, config.limits.pdf)
            .map_err(|e| StartError::PdfSandbox(e.to_string()))?,
        supervisor: Arc::new(supervision::Supervisor::new(&kinds.queue_labels())),
        listener: Arc::new(listener::QueueListener::default()),
        sweeping: tokio::sync::Mutex::new(()),
        instance: instance_name(),
        job_names: kinds.names(),
        mailer,
        db,
        queue_pool,
        config,
    });
    Ok((state, kinds))
}

/// Runs the workers of `kinds` until `shutdown` resolves, then stops fetching and gives running
/// jobs up to `WORKER_SHUTDOWN_SECS` to finish.
pub async fn run(
    config: Config,
    kinds: JobKinds,
    pools: (Db, sqlx::PgPool),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), StartError> {
    let schedule = cron::Schedule::from_str(&config.sweep.expiry_cron)
        .map_err(|e| StartError::Cron(config.sweep.expiry_cron.clone(), e.to_string()))?;
    let (state, kinds) = prepare(config, kinds, pools).await?;
    kinds::describe_metrics(&kinds);
    let shutdown_timeout = state.config.worker.shutdown_timeout;
    let instance = state.instance.clone();

    let supervisor = state.supervisor.clone();
    let workers = Workers {
        state: state.clone(),
        instance: instance.clone(),
        schedule,
    };
    let mut monitor = Monitor::new();
    for kind in kinds.iter() {
        monitor = (kind.registration().register)(monitor, &workers);
    }
    let monitor = monitor
        .should_restart(move |worker, error| {
            if worker.is_shutting_down() {
                return false;
            }
            supervisor.mark_failed(supervision::Supervisor::label_of(worker.name()), error);
            true
        })
        .shutdown_timeout(shutdown_timeout);
    // Only processes that take jobs from a queue need to hear of new ones.
    // Behind PgBouncer, `LISTEN` needs a session of its own on PostgreSQL: DATABASE_DIRECT_URL.
    let listener_pool = match &state.config.database.direct_url {
        Some(url) => signet_common::infra::db::lazy_pool(
            url,
            "signet-worker",
            signet_common::infra::db::PoolBudget::from_config(&state.config).with_max(1),
        )
        .map_err(|e| StartError::Database(e.to_string()))?,
        None => state.queue_pool.clone(),
    };
    let listening = (!kinds.queue_labels().is_empty()).then(|| {
        tokio::spawn(
            state
                .listener
                .clone()
                .run(listener_pool, state.supervisor.clone()),
        )
    });
    let admin = admin::serve(state.clone()).await.map_err(|e| {
        StartError::Admin(state.config.worker.admin_addr.to_string(), e.to_string())
    })?;
    let concurrency: Vec<String> = kinds
        .iter()
        .filter(|kind| kind.queue().is_some())
        .map(|kind| {
            let at_once = kind.concurrency(&state.config.worker.concurrency);
            format!("{}={at_once}", kind.label())
        })
        .collect();
    tracing::info!(
        %instance,
        jobs = %state.job_names,
        concurrency = %concurrency.join(","),
        "signet-worker started"
    );
    monitor
        .run_with_signal(async move {
            shutdown.await;
            tracing::info!("shutting down: no new jobs; waiting for running ones");
            Ok(())
        })
        .await
        .map_err(|e| StartError::Monitor(e.to_string()))?;
    admin.abort();
    if let Some(listening) = listening {
        listening.abort();
    }
    Ok(())
}

/// The seal of final PDFs: the operator's (SEAL_KEY_FILE, SEAL_CERT_FILE), or, without them, a
/// development seal made now, which nobody trusts (said loudly). Only a process that completes
/// documents needs one.
fn load_seal(config: &Config, kinds: &JobKinds) -> Result<SealKey, StartError> {
    if !kinds.contains(JobKind::Completion) {
        // Never used: this process seals nothing, and needs no key file.
        return SealKey::development().map_err(|e| StartError::Seal(e.to_string()));
    }
    let read = |name: &str, path: &std::path::Path| {
        std::fs::read(path).map_err(|e| StartError::Seal(format!("{name} {}: {e}", path.display())))
    };
    let text = |name: &str, path: &std::path::Path| {
        read(name, path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
    };
    let seal = match &config.seal.source {
        Some(SealSource::Pem {
            key_file,
            chain_file,
        }) => {
            let key = text("SEAL_KEY_FILE", key_file)?;
            let chain = text("SEAL_CERT_FILE", chain_file)?;
            SealKey::from_pem(&key, &chain).map_err(|e| StartError::Seal(e.to_string()))?
        }
        Some(SealSource::Pkcs12 {
            file,
            password,
            password_file,
        }) => {
            let password = match (password, password_file) {
                (Some(password), _) => password.clone(),
                (None, Some(path)) => text("SEAL_PKCS12_PASSWORD_FILE", path)?
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
                (None, None) => String::new(),
            };
            let p12 = read("SEAL_PKCS12_FILE", file)?;
            SealKey::from_pkcs12(&p12, &password)
                .map_err(|e| StartError::Seal(format!("SEAL_PKCS12_FILE: {e}")))?
        }
        None => {
            let seal = SealKey::development().map_err(|e| StartError::Seal(e.to_string()))?;
            tracing::warn!(
                subject = %seal.subject(),
                "SEAL_KEY_FILE and SEAL_CERT_FILE are not set (nor SEAL_PKCS12_FILE): final PDFs \
                 are sealed with a development seal made now, which no one trusts. Set them in \
                 production (docs/signing.md, \"The seal\")"
            );
            seal
        }
    };
    if !seal.is_development() {
        tracing::info!(subject = %seal.subject(), "final PDFs are sealed");
    }
    Ok(seal)
}

/// Unique per process, so that apalis can tell live workers from dead ones.
fn instance_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "host".into());
    format!("{host}:{}", std::process::id())
}
