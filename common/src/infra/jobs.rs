//! Job payloads and their queues. Jobs carry ids, never snapshots; handlers are idempotent.
//!
//! E-mails, SMS and webhook deliveries have no job each: their outbox rows are their queue
//! (`store::outbox`), reported under the queue names below.

use std::{future::Future, time::Duration};

use apalis::{
    layers::tracing::{OtelTraceContext, TracingContext},
    prelude::TaskBuilder,
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use sqlx::PgConnection;

use crate::{
    error::Result,
    model::{BulkSendId, DocumentId},
};

pub trait Job: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The apalis queue, named explicitly so the API and the workers agree.
    const QUEUE: &'static str;
    const MAX_ATTEMPTS: usize;
}

/// The rows of `outbound_emails`, rendered and sent.
pub const EMAIL_QUEUE: &str = "signet.dispatch_email";
/// The rows of `outbound_sms`, rendered and sent.
pub const SMS_QUEUE: &str = "signet.dispatch_sms";
/// The rows of `webhook_deliveries`, one attempt at a time.
pub const WEBHOOK_QUEUE: &str = "signet.deliver_webhook";

/// Every queue, for reporting.
pub const QUEUES: &[&str] = &[
    EMAIL_QUEUE,
    CheckCompletion::QUEUE,
    WEBHOOK_QUEUE,
    SMS_QUEUE,
    CreateBulkSend::QUEUE,
];

/// See whether every signer has signed; if so complete the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckCompletion {
    pub document_id: DocumentId,
}

impl Job for CheckCompletion {
    const QUEUE: &'static str = "signet.check_completion";
    const MAX_ATTEMPTS: usize = 5;
}

/// Make and send the documents of a bulk send's rows still PENDING, in chunks, then complete it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateBulkSend {
    pub bulk_send_id: BulkSendId,
}

impl Job for CreateBulkSend {
    const QUEUE: &'static str = "signet.create_bulk_send";
    // Each attempt resumes with the rows still PENDING; a row refused is FAILED, not retried.
    const MAX_ATTEMPTS: usize = 10;
}

/// Pushes jobs on the caller's connection, so they commit or roll back with the business write
/// of the same transaction (apalis NOTIFYs the workers at commit).
pub async fn enqueue<J: Job>(conn: &mut PgConnection, jobs: &[J]) -> Result<()> {
    enqueue_after(conn, jobs, Duration::ZERO).await
}

/// Like `enqueue`, to run no earlier than `delay` from now (retries with backoff).
pub async fn enqueue_after<J: Job>(
    conn: &mut PgConnection,
    jobs: &[J],
    delay: Duration,
) -> Result<()> {
    let tasks = jobs
        .iter()
        .map(|job| {
            let args = serde_json::to_vec(job).expect("job payloads always serialise");
            // The enqueuing span's W3C context travels with the job, so the job's span
            // continues the trace of the request (or job) that queued it.
            let task = TaskBuilder::new(args)
                .max_attempts(J::MAX_ATTEMPTS)
                .priority(Lane::current().priority())
                .metadata(&TracingContext::from(OtelTraceContext::current()));
            if delay.is_zero() {
                task.build()
            } else {
                task.run_after(delay).build()
            }
        })
        .collect();
    apalis_postgres::queries::push_tasks(conn, J::QUEUE, tasks).await?;
    Ok(())
}

/// The W3C trace context of the span running, as an outbox row keeps it: the dispatch of the
/// row continues the trace of the request (or job) that queued it.
pub fn trace_context() -> String {
    TracingContext::from(OtelTraceContext::current()).to_string()
}

/// Which work a job is queued for. Workers take every queue's jobs by priority, then by age:
/// jobs queued in the bulk lane (a bulk send's documents: their e-mails, SMS and webhooks) are
/// taken after every other job of their queue that is due, so one account's 10,000 invitations
/// do not delay another's single send (issue #32; docs/templates.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Interactive,
    Bulk,
}

tokio::task_local! {
    static LANE: Lane;
}

impl Lane {
    /// The lane of the task running: `Bulk` inside `in_bulk_lane`, else `Interactive`. Like
    /// the trace context, it travels with the work that queues jobs, not through every call.
    pub fn current() -> Self {
        LANE.try_with(|lane| *lane).unwrap_or(Lane::Interactive)
    }

    fn priority(self) -> usize {
        match self {
            Lane::Interactive => 1,
            Lane::Bulk => 0,
        }
    }
}

/// Runs `work` so that every job it queues is in the bulk lane.
pub async fn in_bulk_lane<F: Future>(work: F) -> F::Output {
    LANE.scope(Lane::Bulk, work).await
}
