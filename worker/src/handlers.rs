//! Job handlers. Each is idempotent: running one twice has the effect of running it once.
//!
//! Every handler's work runs on a task of its own (`run_job`), so it finishes even when apalis
//! drops the worker's future to restart it after a database outage, and repeats the parts
//! that need the database while PostgreSQL cannot be reached (`until_available`): a job is
//! never failed for good, nor an e-mail or webhook sent twice, because the database went away.

use std::{future::Future, sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use apalis_cron::Tick;
use chrono::Utc;
use rand::Rng;
use signet_common::{
    Error,
    flows::{completion, delivery_failures, expiry},
    infra::jobs::{self, CheckCompletion, DeliverWebhook, DispatchEmail},
    model::{DeliveryStatus, DocumentStatus, EmailKind, WebhookDeliveryStatus},
    store::{
        accounts, emails,
        emails::OutgoingEmail,
        queues,
        webhooks::{self, AttemptRecord, Delivery},
    },
};
use tracing::Instrument;

use crate::{WorkerState, mail};

/// The first wait before work that found the database unreachable tries again.
const FIRST_RETRY: Duration = Duration::from_millis(200);
/// The longest wait between two tries while the database is unreachable.
const MAX_RETRY: Duration = Duration::from_secs(2);

/// Runs a job's work to completion on a task of its own, in the job's span.
async fn run_job<T: Send + 'static>(
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<T, BoxDynError> {
    let span = tracing::Span::current();
    Ok(tokio::spawn(work.instrument(span)).await??)
}

/// Repeats `work` for as long as it fails because the database cannot be reached; any other
/// outcome is returned. `work` must be safe to repeat (a transaction that rolled back).
async fn until_available<T, F, Fut>(mut work: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let mut delay = FIRST_RETRY;
    loop {
        match work().await {
            Err(e) if e.is_unavailable() => {
                if matches!(e, Error::Database(sqlx::Error::PoolTimedOut)) {
                    // Every connection of the budget busy, or none to be had: back-pressure.
                    tracing::info!(retry_in = ?delay, "no database connection free; will try again");
                } else {
                    tracing::warn!(error = %e, retry_in = ?delay, "database unreachable; will try again");
                }
                tokio::time::sleep(jitter(delay)).await;
                delay = (delay * 2).min(MAX_RETRY);
            }
            outcome => return outcome,
        }
    }
}

/// What sending an e-mail came to, to be written to its outbox row.
enum EmailOutcome {
    Sent,
    Failed {
        error: String,
        give_up: bool,
        retry_in: Option<Duration>,
    },
}

/// A message that left (an e-mail, a webhook post) with the outcome to write for it.
enum Sent {
    Email(OutgoingEmail, EmailOutcome),
    Webhook(Delivery, AttemptRecord),
}

impl Sent {
    fn id(&self) -> uuid::Uuid {
        match self {
            Sent::Email(email, _) => email.id,
            Sent::Webhook(delivery, _) => delivery.id,
        }
    }

    /// Writes the outcome unless it was written already.
    async fn record(
        &self,
        tx: &mut sqlx::PgConnection,
        state: &WorkerState,
    ) -> Result<bool, Error> {
        match self {
            Sent::Email(email, outcome) => record_email(tx, email, outcome, &state.notifier).await,
            Sent::Webhook(delivery, record) => record_webhook(tx, delivery, record).await,
        }
    }
}

/// Writes what was sent on the transaction that locked it. If the database went away in the
/// meantime, remembers the message (so that this process does not send it again) and returns
/// it, to be written by `record_late` once the database is back.
async fn record_or_remember(
    state: &WorkerState,
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    sent: Sent,
) -> Result<Option<Sent>, Error> {
    let recorded = async {
        sent.record(&mut tx, state).await?;
        tx.commit().await?;
        Ok::<_, Error>(())
    }
    .await;
    match recorded {
        Ok(()) => Ok(None),
        Err(e) if e.is_unavailable() => {
            tracing::warn!(id = %sent.id(), error = %e, "sent, but the database went away; recording it when it is back");
            state.remember_unrecorded(sent.id());
            Ok(Some(sent))
        }
        Err(e) => Err(e),
    }
}

/// Writes the outcome of a message sent while the database was away, once it is back.
async fn record_late(state: &WorkerState, sent: Option<Sent>) -> Result<(), Error> {
    let Some(sent) = sent else { return Ok(()) };
    until_available(|| async {
        let mut tx = state.db.pool.begin().await?;
        let recorded = sent.record(&mut tx, state).await?;
        tx.commit().await?;
        Ok(recorded)
    })
    .await?;
    state.forget_unrecorded(sent.id());
    Ok(())
}

/// Sends one outbox row. The row is locked while it is sent, so no two workers send it at once;
/// a row already sent (or being sent elsewhere) is skipped. A failed send is recorded and
/// retried later by a new, delayed job (EMAIL_RETRY_SCHEDULE, ±10 % jitter) until the schedule
/// is used up, then the row is marked FAILED. If the database goes away after the message left,
/// the outcome is written once it is back, and the message is not sent again meanwhile.
#[tracing::instrument(name = "DispatchEmail", skip_all, fields(email.id = %job.email_id))]
pub async fn dispatch_email(
    job: DispatchEmail,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| send_email(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Locks, sends and records one e-mail; returns what was sent but could not be recorded.
async fn send_email(state: &WorkerState, job: &DispatchEmail) -> Result<Option<Sent>, Error> {
    let mut tx = state.db.pool.begin().await?;
    let Some(email) = emails::lock_for_dispatch(&mut tx, job.email_id).await? else {
        tracing::debug!(email = %job.email_id, "e-mail missing or being sent by another worker");
        return Ok(None);
    };
    if email.status != DeliveryStatus::Pending {
        return Ok(None);
    }
    if state
        .unrecorded
        .lock()
        .expect("not poisoned")
        .contains(&email.id)
    {
        tracing::info!(email = %email.id, "e-mail already sent; its outcome is being recorded");
        return Ok(None);
    }
    // An invitation whose document has left SENT (cancelled, declined, expired), or is past its
    // expiry before the sweep has run, is withdrawn: its link would not work.
    let withdrawn = email.document_status != DocumentStatus::Sent
        || email.expiry_date.is_some_and(|expiry| expiry <= Utc::now());
    if email.kind == EmailKind::Invitation && withdrawn {
        emails::withdraw(&mut tx, email.id).await?;
        tx.commit().await?;
        tracing::info!(email = %email.id, document_status = %email.document_status, "invitation withdrawn");
        return Ok(None);
    }
    let link = match email.kind {
        EmailKind::Invitation => email
            .link_token
            .as_ref()
            .map(|token| format!("{}/sign/{token}", state.config.public_url)),
        EmailKind::Completed => Some(state.completion_links.url(email.document_id, Utc::now())),
        _ => None,
    };
    let sent = match mail::message(&state.config, &email, link.as_deref()) {
        Ok(message) => state.mailer.send(message).await,
        Err(message) => Err(mail::SendError {
            message,
            permanent: true,
        }),
    };
    let outcome = match sent {
        Ok(()) => EmailOutcome::Sent,
        Err(error) => {
            let schedule = &state.config.email_retry_schedule;
            let failed_attempts = email.attempts as usize + 1;
            let give_up = error.permanent || failed_attempts > schedule.len();
            EmailOutcome::Failed {
                error: error.message,
                give_up,
                retry_in: (!give_up).then(|| jitter(schedule[failed_attempts - 1])),
            }
        }
    };
    record_or_remember(state, tx, Sent::Email(email, outcome)).await
}

/// Writes an e-mail's outcome (and queues its retry) unless it was written already.
async fn record_email(
    tx: &mut sqlx::PgConnection,
    email: &OutgoingEmail,
    outcome: &EmailOutcome,
    notifier: &signet_common::infra::notify::Notifier,
) -> Result<bool, Error> {
    let kind = email.kind.as_str();
    match outcome {
        EmailOutcome::Sent => {
            if !emails::mark_sent(tx, email.id).await? {
                return Ok(false);
            }
            metrics::counter!("signet_emails_total", "kind" => kind, "outcome" => "sent")
                .increment(1);
            tracing::info!(email = %email.id, kind = %email.kind, "e-mail sent");
        }
        EmailOutcome::Failed {
            error,
            give_up,
            retry_in,
        } => {
            let Some(attempts) = emails::record_failure(tx, email.id, error, *give_up).await?
            else {
                return Ok(false);
            };
            let label = if *give_up { "failed" } else { "retry" };
            metrics::counter!("signet_emails_total", "kind" => kind, "outcome" => label)
                .increment(1);
            match retry_in {
                Some(delay) => {
                    let job = DispatchEmail { email_id: email.id };
                    jobs::enqueue_after(tx, &[job], *delay).await?;
                    tracing::warn!(email = %email.id, %error, retry_in = ?delay, "e-mail failed; will retry");
                }
                None => {
                    delivery_failures::failed_for_good(tx, email, error, notifier).await?;
                    tracing::error!(email = %email.id, %error, attempts, "e-mail failed for good");
                }
            }
        }
    }
    Ok(true)
}

#[tracing::instrument(name = "CheckCompletion", skip_all, fields(document.id = %job.document_id))]
pub async fn check_completion(
    job: CheckCompletion,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let outcome = until_available(|| {
            completion::check(
                &state.db.pool,
                &state.store,
                job.document_id,
                &state.notifier,
            )
        })
        .await
        .inspect_err(
            |e| tracing::error!(document = %job.document_id, error = %e, "completion failed"),
        )?;
        tracing::info!(document = %job.document_id, ?outcome, "completion checked");
        Ok(())
    })
    .await
}

/// One attempt at a webhook delivery. 2xx delivers; 410 Gone stops for good; any other status
/// (redirects are not followed), a timeout or a connection error schedules the next attempt per
/// WEBHOOK_RETRY_SCHEDULE (±10 % jitter) until it is used up, then the delivery FAILED. The row
/// is locked during the attempt, so two workers never post the same delivery at once; an
/// attempt made just before the database went away is recorded once it is back.
#[tracing::instrument(name = "DeliverWebhook", skip_all, fields(delivery.id = %job.delivery_id))]
pub async fn deliver_webhook(
    job: DeliverWebhook,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| post_webhook(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Locks, posts and records one delivery attempt; returns what was posted but could not be
/// recorded.
async fn post_webhook(state: &WorkerState, job: &DeliverWebhook) -> Result<Option<Sent>, Error> {
    let mut tx = state.db.pool.begin().await?;
    let Some(delivery) = webhooks::lock(&mut tx, job.delivery_id).await? else {
        return Ok(None);
    };
    if delivery.status != WebhookDeliveryStatus::Pending {
        return Ok(None);
    }
    if state
        .unrecorded
        .lock()
        .expect("not poisoned")
        .contains(&delivery.id)
    {
        tracing::info!(delivery = %delivery.id, "attempt already made; its outcome is being recorded");
        return Ok(None);
    }
    let accounts::WebhookTarget { url, secret } =
        accounts::webhook_target(&mut tx, delivery.account_id).await?;
    let attempt = delivery.attempt + 1;
    let started_at = Utc::now();
    let clock = std::time::Instant::now();
    let result = match &url {
        Some(url) => {
            state
                .webhooks
                .post(url, &delivery.event_id, &delivery.payload, &secret)
                .await
        }
        None => Err("the account has no webhook URL".to_owned()),
    };
    let duration_ms = clock.elapsed().as_millis().min(i32::MAX as u128) as i32;
    let schedule = &state.config.webhook_retry_schedule;
    let retry_delay = schedule.get(attempt as usize - 1).map(|d| jitter(*d));
    let (outcome, response_status, response_body, error) = match result {
        Ok(response) if (200..300).contains(&response.status) => (
            WebhookDeliveryStatus::Delivered,
            Some(response.status),
            Some(response.body),
            None,
        ),
        Ok(response) if response.status == 410 => (
            WebhookDeliveryStatus::Failed,
            Some(410),
            Some(response.body),
            Some("the receiver answered 410 Gone: no further attempts".to_owned()),
        ),
        Ok(response) => (
            if retry_delay.is_some() {
                WebhookDeliveryStatus::Pending
            } else {
                WebhookDeliveryStatus::Failed
            },
            Some(response.status),
            Some(response.body),
            Some(format!("the receiver answered {}", response.status)),
        ),
        Err(error) => (
            if retry_delay.is_some() {
                WebhookDeliveryStatus::Pending
            } else {
                WebhookDeliveryStatus::Failed
            },
            None,
            None,
            Some(error),
        ),
    };
    let next_attempt_at = match (outcome, retry_delay) {
        (WebhookDeliveryStatus::Pending, Some(delay)) => chrono::Duration::from_std(delay)
            .ok()
            .map(|d| started_at + d),
        _ => None,
    };
    let result_label = match (outcome, response_status) {
        (WebhookDeliveryStatus::Delivered, _) => "delivered",
        (_, Some(_)) => "http_error",
        _ => "connection_error",
    };
    metrics::counter!("signet_webhook_attempts_total", "outcome" => result_label).increment(1);
    tracing::info!(
        delivery = %delivery.id, event = %delivery.event_type, attempt, %outcome,
        status = ?response_status, error = ?error, "webhook attempt"
    );
    let record = AttemptRecord {
        attempt,
        url: url.unwrap_or_default(),
        started_at,
        duration_ms,
        response_status: response_status.map(i32::from),
        response_body,
        error,
        outcome,
        next_attempt_at,
        retry_in: retry_delay.filter(|_| outcome == WebhookDeliveryStatus::Pending),
    };
    record_or_remember(state, tx, Sent::Webhook(delivery, record)).await
}

/// Writes an attempt (and queues the next one) unless it was written already.
async fn record_webhook(
    tx: &mut sqlx::PgConnection,
    delivery: &Delivery,
    record: &AttemptRecord,
) -> Result<bool, Error> {
    if !webhooks::record_attempt(tx, delivery, record).await? {
        return Ok(false);
    }
    if let Some(delay) = record.retry_in {
        let job = DeliverWebhook {
            delivery_id: delivery.id,
        };
        jobs::enqueue_after(tx, &[job], delay).await?;
    }
    Ok(true)
}

/// Finished jobs are kept this long for inspection, then removed by the sweep.
const FINISHED_JOB_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// The sweep's `job_type` in `signet_jobs_*` metrics (it has no queue: it runs on a schedule).
pub const SWEEP_JOB_TYPE: &str = "signet.expiry_sweep";

/// Expires due documents, queues completion again for fully signed documents still SENT, and
/// removes old finished jobs; then records that a sweep finished, for the operator's alert.
/// Every part claims its rows with `SKIP LOCKED` or is a conditional update, so any number of
/// processes may sweep at once.
#[tracing::instrument(name = "ExpirySweep", skip_all)]
pub async fn expiry_sweep(_tick: Tick, state: Data<Arc<WorkerState>>) -> Result<(), BoxDynError> {
    let expired = expiry::expire_due(&state.db.pool, &state.notifier).await?;
    if expired > 0 {
        tracing::info!(expired, "documents expired");
    }
    let requeued = completion::requeue_stalled(&state.db.pool).await?;
    if requeued > 0 {
        tracing::warn!(
            requeued,
            "fully signed documents were still SENT; completion queued again"
        );
    }
    queues::purge_finished(&state.db.pool, FINISHED_JOB_RETENTION).await?;
    queues::record_sweep(&state.db.pool, queues::EXPIRY_SWEEP, &state.instance).await?;
    Ok(())
}

fn jitter(delay: Duration) -> Duration {
    delay.mul_f64(rand::rng().random_range(0.9..=1.1))
}
