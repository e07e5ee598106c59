//! Job handlers. Each is idempotent: running one twice has the effect of running it once.

use std::{sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use apalis_cron::Tick;
use chrono::Utc;
use rand::Rng;
use signet_common::{
    completion, emails, expiry,
    jobs::{self, CheckCompletion, DeliverWebhook, DispatchEmail},
    model::EmailKind,
    webhooks::{self, AttemptRecord},
};

use crate::{WorkerState, mail};

/// Sends one outbox row. The row is locked while it is sent, so no two workers send it at once;
/// a row already sent (or being sent elsewhere) is skipped. A failed send is recorded and
/// retried later by a new, delayed job (EMAIL_RETRY_SCHEDULE, ±10 % jitter) until the schedule
/// is used up, then the row is marked FAILED.
#[tracing::instrument(name = "DispatchEmail", skip_all, fields(email.id = %job.email_id))]
pub async fn dispatch_email(
    job: DispatchEmail,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let mut tx = state.db.pool.begin().await?;
    let Some(email) = emails::lock_for_dispatch(&mut tx, job.email_id).await? else {
        tracing::debug!(email = %job.email_id, "e-mail missing or being sent by another worker");
        return Ok(());
    };
    if email.status != "PENDING" {
        return Ok(());
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
    match sent {
        Ok(()) => {
            emails::mark_sent(&mut tx, email.id).await?;
            metrics::counter!("signet_emails_total", "kind" => email.kind.as_str(), "outcome" => "sent").increment(1);
            tracing::info!(email = %email.id, kind = %email.kind, "e-mail sent");
        }
        Err(error) => {
            let schedule = &state.config.email_retry_schedule;
            let failed_attempts = email.attempts as usize + 1;
            let give_up = error.permanent || failed_attempts > schedule.len();
            let error = error.message;
            emails::record_failure(&mut tx, email.id, &error, give_up).await?;
            let outcome = if give_up { "failed" } else { "retry" };
            metrics::counter!("signet_emails_total", "kind" => email.kind.as_str(), "outcome" => outcome).increment(1);
            if give_up {
                tracing::error!(email = %email.id, %error, attempts = failed_attempts, "e-mail failed for good");
            } else {
                let delay = jitter(schedule[failed_attempts - 1]);
                jobs::enqueue_after(&mut tx, std::slice::from_ref(&job), delay).await?;
                tracing::warn!(email = %email.id, %error, retry_in = ?delay, "e-mail failed; will retry");
            }
        }
    }
    tx.commit().await?;
    Ok(())
}

#[tracing::instrument(name = "CheckCompletion", skip_all, fields(document.id = %job.document_id))]
pub async fn check_completion(
    job: CheckCompletion,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let outcome = completion::check(
        &state.db.pool,
        &state.store,
        job.document_id,
        &state.notifier,
    )
    .await
    .inspect_err(
        |e| tracing::error!(document = %job.document_id, error = %e, "completion failed"),
    )?;
    tracing::info!(document = %job.document_id, ?outcome, "completion checked");
    Ok(())
}

/// One attempt at a webhook delivery. 2xx delivers; 410 Gone stops for good; any other status
/// (redirects are not followed), a timeout or a connection error schedules the next attempt per
/// WEBHOOK_RETRY_SCHEDULE (±10 % jitter) until it is used up, then the delivery FAILED. The row
/// is locked during the attempt, so two workers never post the same delivery at once.
#[tracing::instrument(name = "DeliverWebhook", skip_all, fields(delivery.id = %job.delivery_id))]
pub async fn deliver_webhook(
    job: DeliverWebhook,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let mut tx = state.db.pool.begin().await?;
    let Some(delivery) = webhooks::lock(&mut tx, job.delivery_id).await? else {
        return Ok(());
    };
    if delivery.status != "PENDING" {
        return Ok(());
    }
    let (url, secret): (Option<String>, String) =
        sqlx::query_as("SELECT webhook_url, webhook_secret FROM accounts WHERE id = $1")
            .bind(delivery.account_id)
            .fetch_one(&mut *tx)
            .await?;
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
            "DELIVERED",
            Some(response.status),
            Some(response.body),
            None,
        ),
        Ok(response) if response.status == 410 => (
            "FAILED",
            Some(410),
            Some(response.body),
            Some("the receiver answered 410 Gone: no further attempts".to_owned()),
        ),
        Ok(response) => (
            if retry_delay.is_some() {
                "PENDING"
            } else {
                "FAILED"
            },
            Some(response.status),
            Some(response.body),
            Some(format!("the receiver answered {}", response.status)),
        ),
        Err(error) => (
            if retry_delay.is_some() {
                "PENDING"
            } else {
                "FAILED"
            },
            None,
            None,
            Some(error),
        ),
    };
    let next_attempt_at = match (outcome, retry_delay) {
        ("PENDING", Some(delay)) => {
            jobs::enqueue_after(&mut tx, std::slice::from_ref(&job), delay).await?;
            chrono::Duration::from_std(delay)
                .ok()
                .map(|d| started_at + d)
        }
        _ => None,
    };
    let result_label = match (outcome, response_status) {
        ("DELIVERED", _) => "delivered",
        (_, Some(_)) => "http_error",
        _ => "connection_error",
    };
    metrics::counter!("signet_webhook_attempts_total", "outcome" => result_label).increment(1);
    tracing::info!(
        delivery = %delivery.id, event = %delivery.event_type, attempt, outcome,
        status = ?response_status, error = ?error, "webhook attempt"
    );
    webhooks::record_attempt(
        &mut tx,
        &delivery,
        &AttemptRecord {
            attempt,
            url: url.unwrap_or_default(),
            started_at,
            duration_ms,
            response_status: response_status.map(i32::from),
            response_body,
            error,
            outcome,
            next_attempt_at,
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Finished jobs are kept this long for inspection, then removed by the sweep.
const FINISHED_JOB_RETENTION_HOURS: i32 = 24;

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
    sqlx::query(
        "DELETE FROM apalis.jobs WHERE status = 'Done'
           AND done_at < now() - make_interval(hours => $1)",
    )
    .bind(FINISHED_JOB_RETENTION_HOURS)
    .execute(&state.db.pool)
    .await?;
    Ok(())
}

fn jitter(delay: Duration) -> Duration {
    delay.mul_f64(rand::rng().random_range(0.9..=1.1))
}
