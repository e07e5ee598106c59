//! `DispatchEmail`: sends one outbox row. The row is locked while it is sent, so no two workers
//! send it at once; a row already sent (or being sent elsewhere) is skipped. A failed send is
//! recorded and retried later by a new, delayed job (EMAIL_RETRY_SCHEDULE, ±10 % jitter) until
//! the schedule is used up, then the row is marked FAILED. If the database goes away after the
//! message left, the outcome is written once it is back, and the message is not sent again
//! meanwhile.

use std::sync::Arc;

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::{
        emails::{self as decide, Dispatch},
        retry::{self, SendOutcome},
    },
    flows::delivery_failures,
    infra::jobs::{self, DispatchEmail},
    store::emails::{self, OutgoingEmail},
};
use sqlx::PgConnection;

use super::{Sent, record_late, record_or_remember, run_job, until_available};
use crate::{WorkerState, mail};

#[tracing::instrument(name = "DispatchEmail", skip_all, fields(email.id = %job.email_id))]
pub async fn dispatch_email(
    job: DispatchEmail,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| send(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Locks, sends and records one e-mail; returns what was sent but could not be recorded.
async fn send(state: &WorkerState, job: &DispatchEmail) -> Result<Option<SentEmail>, Error> {
    let mut tx = state.db.pool.begin().await?;
    let Some(email) = emails::lock_for_dispatch(&mut tx, job.email_id).await? else {
        tracing::debug!(email = %job.email_id, "e-mail missing or being sent by another worker");
        return Ok(None);
    };
    if state.is_unrecorded(email.id) {
        tracing::info!(email = %email.id, "e-mail already sent; its outcome is being recorded");
        return Ok(None);
    }
    let now = Utc::now();
    let link = match decide::dispatch(
        &email,
        &state.config.api.public_url,
        &state.completion_links,
        now,
    ) {
        Dispatch::Done => return Ok(None),
        Dispatch::Withdraw => {
            emails::withdraw(&mut tx, email.id).await?;
            tx.commit().await?;
            tracing::info!(email = %email.id, document_status = %email.document_status, "invitation withdrawn");
            return Ok(None);
        }
        Dispatch::Send { link } => link,
    };
    let sent = match mail::message(&state.config, &email, link.as_deref()) {
        Ok(message) => state.mailer.send(message).await,
        Err(message) => Err(mail::SendError {
            message,
            permanent: true,
        }),
    };
    let outcome = retry::outcome(
        email.attempts,
        sent.map_err(Into::into),
        &state.email_retries,
    );
    record_or_remember(state, tx, SentEmail { email, outcome }).await
}

/// An e-mail that left (or failed to), with what to write for it.
struct SentEmail {
    email: OutgoingEmail,
    outcome: SendOutcome,
}

impl Sent for SentEmail {
    fn id(&self) -> uuid::Uuid {
        self.email.id
    }

    /// Writes the e-mail's outcome (and queues its retry, or records that it failed for good).
    async fn record(&self, tx: &mut PgConnection, state: &WorkerState) -> Result<bool, Error> {
        let email = &self.email;
        match &self.outcome {
            SendOutcome::Sent => {
                if !emails::mark_sent(tx, email.id).await? {
                    return Ok(false);
                }
                self.count();
                tracing::info!(email = %email.id, kind = %email.kind, "e-mail sent");
            }
            SendOutcome::Failed { error, retry_in } => {
                let give_up = retry_in.is_none();
                let Some(attempts) = emails::record_failure(tx, email.id, error, give_up).await?
                else {
                    return Ok(false);
                };
                self.count();
                match retry_in {
                    Some(delay) => {
                        let job = DispatchEmail { email_id: email.id };
                        jobs::enqueue_after(tx, &[job], *delay).await?;
                        tracing::warn!(email = %email.id, %error, retry_in = ?delay, "e-mail failed; will retry");
                    }
                    None => {
                        delivery_failures::failed_for_good(tx, email, error, &state.notifier)
                            .await?;
                        tracing::error!(email = %email.id, %error, attempts, "e-mail failed for good");
                    }
                }
            }
        }
        Ok(true)
    }
}

impl SentEmail {
    fn count(&self) {
        metrics::counter!(
            "signet_emails_total",
            "kind" => self.email.kind.as_str(),
            "outcome" => self.outcome.metric_label()
        )
        .increment(1);
    }
}
