//! What every job handler shares: the process's settings, pools, transports and seal.

use std::sync::Arc;

use signet_common::{
    Config,
    delivery::{retry::RetryPolicy, sms::StatusCallbacks},
    infra::{
        db::Db,
        files::{FileLinks, FileStore},
        notify::Notifier,
        pdf_sandbox::PdfSandbox,
    },
};
use signet_pdf::seal::SealKey;

use crate::{listener, mail, sms, supervision, trust, webhook};

/// What every job handler shares.
pub struct WorkerState {
    pub config: Config,
    /// The kinds of work this process takes, as `--jobs` names them (`email,completion`).
    pub job_names: String,
    /// `host:pid`, unique per process; worker names end with it.
    pub instance: String,
    /// The job handlers' connections.
    pub db: Db,
    /// The queue's own connections: the job listener, and apalis's fetches, heartbeats and
    /// acknowledgements, so that busy handlers never starve the queue (or the reverse).
    pub queue_pool: sqlx::PgPool,
    pub mailer: mail::Mailer,
    pub store: FileStore,
    /// How old an abandoned file must be before the sweep removes it (FILE_ORPHAN_GRACE_SECS).
    pub file_orphan_grace: std::time::Duration,
    /// Links in completion e-mails, which must outlive an ordinary file link.
    pub completion_links: FileLinks,
    pub notifier: Notifier,
    pub webhooks: webhook::WebhookClient,
    /// When a failed e-mail is sent again (EMAIL_RETRY_SCHEDULE).
    pub email_retries: RetryPolicy,
    /// When a failed webhook attempt is made again (WEBHOOK_RETRY_SCHEDULE).
    pub webhook_retries: RetryPolicy,
    /// The SMS provider; `None` with SMS_PROVIDER=none (then this process takes no SMS jobs).
    pub sms: Option<sms::SmsSender>,
    /// When a failed SMS is sent again (SMS_RETRY_SCHEDULE).
    pub sms_retries: RetryPolicy,
    /// The signed URLs the provider posts delivery reports to.
    pub sms_callbacks: StatusCallbacks,
    /// The seal every final PDF gets (SEAL_KEY_FILE and SEAL_CERT_FILE, or a development seal).
    pub seal: Arc<SealKey>,
    /// The seal's timestamp authority (TSA_URL), if there is one, and revocation services.
    pub trust: trust::TrustClient,
    /// Where the originals of final PDFs are read: child processes the OS bounds.
    pub pdf: PdfSandbox,
    pub supervisor: Arc<supervision::Supervisor>,
    pub listener: Arc<listener::QueueListener>,
    /// Held by the sweep while it runs: a tick that finds it held is skipped, so a process
    /// runs one sweep at a time however long one takes.
    pub(crate) sweeping: tokio::sync::Mutex<()>,
}
