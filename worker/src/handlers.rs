//! Job handlers. Each is idempotent: running one twice has the effect of running it once.

use std::{sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use apalis_cron::Tick;
use chrono::Utc;
use rand::Rng;
use signet_common::{
    completion, emails, expiry,
    jobs::{self, CheckCompletion, DispatchEmail},
    model::EmailKind,
};

use crate::{WorkerState, mail};

/// Sends one outbox row. The row is locked while it is sent, so no two workers send it at once;
/// a row already sent (or being sent elsewhere) is skipped. A failed send is recorded and
/// retried later by a new, delayed job (EMAIL_RETRY_SCHEDULE, ±10 % jitter) until the schedule
/// is used up, then the row is marked FAILED.
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
            tracing::info!(email = %email.id, kind = %email.kind, "e-mail sent");
        }
        Err(error) => {
            let schedule = &state.config.email_retry_schedule;
            let failed_attempts = email.attempts as usize + 1;
            let give_up = error.permanent || failed_attempts > schedule.len();
            let error = error.message;
            emails::record_failure(&mut tx, email.id, &error, give_up).await?;
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

pub async fn check_completion(
    job: CheckCompletion,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let outcome = completion::check(
        &state.db.pool,
        &state.store,
        job.document_id,
        &state.message_id_domain,
    )
    .await
    .inspect_err(
        |e| tracing::error!(document = %job.document_id, error = %e, "completion failed"),
    )?;
    tracing::info!(document = %job.document_id, ?outcome, "completion checked");
    Ok(())
}

/// Finished jobs are kept this long for inspection, then removed by the sweep.
const FINISHED_JOB_RETENTION_HOURS: i32 = 24;

pub async fn expiry_sweep(_tick: Tick, state: Data<Arc<WorkerState>>) -> Result<(), BoxDynError> {
    let expired = expiry::expire_due(&state.db.pool, &state.message_id_domain).await?;
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
