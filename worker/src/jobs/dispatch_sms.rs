//! `DispatchSms`: sends one SMS outbox row, as `DispatchEmail` sends an e-mail. The row is
//! locked while the provider answers, so no two workers send it at once; a row already sent is
//! skipped. A 429, a 5xx or a network failure is retried by a new, delayed job
//! (SMS_RETRY_SCHEDULE, ±10 % jitter) until the schedule is used up; any other answer fails it
//! for good at once, recorded in the audit trail. The signing link is never logged.

use std::sync::Arc;

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::{
        retry::{self, SendOutcome},
        sms::{self as decide, Dispatch},
    },
    flows::sms_delivery,
    infra::jobs::{self, DispatchSms},
    model::Actor,
    store::sms::{self, Cost, OutgoingSms},
};
use sqlx::PgConnection;

use super::{Sent, record_late, record_or_remember, run_job, until_available};
use crate::{WorkerState, sms::Outgoing};

#[tracing::instrument(name = "DispatchSms", skip_all, fields(sms.id = %job.sms_id))]
pub async fn dispatch_sms(
    job: DispatchSms,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| send(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Locks, sends and records one SMS; returns what was sent but could not be recorded.
async fn send(state: &WorkerState, job: &DispatchSms) -> Result<Option<SentSms>, Error> {
    let Some(sender) = &state.sms else {
        // Not reached: a process without a provider takes no SMS jobs (`run`). Were it reached,
        // the row would stay PENDING, visible, for a worker that has one.
        return Err(Error::Io(std::io::Error::other(
            "an SMS is queued but this worker has SMS_PROVIDER=none",
        )));
    };
    let mut tx = state.db.pool.begin().await?;
    let Some(sms) = sms::lock_for_dispatch(&mut tx, job.sms_id).await? else {
        tracing::debug!(sms = %job.sms_id, "SMS missing or being sent by another worker");
        return Ok(None);
    };
    if state.is_unrecorded(sms.id) {
        tracing::info!(sms = %sms.id, "SMS already sent; its outcome is being recorded");
        return Ok(None);
    }
    let text = match decide::dispatch(&sms, &state.config.public_url, Utc::now()) {
        Dispatch::Done => return Ok(None),
        Dispatch::Withdraw => {
            sms::withdraw(&mut tx, sms.id).await?;
            tx.commit().await?;
            tracing::info!(sms = %sms.id, document_status = %sms.document_status, "SMS invitation withdrawn");
            return Ok(None);
        }
        Dispatch::Send(text) => text,
    };
    let cost = Cost {
        segments: i32::try_from(text.segments.count).unwrap_or(i32::MAX),
        encoding: text.segments.encoding.as_str(),
    };
    let sent = sender
        .send(Outgoing {
            id: sms.id,
            to: &sms.to_e164,
            text: &text,
            status_callback: sender
                .wants_reports()
                .then(|| state.sms_callbacks.url(sms.id)),
        })
        .await;
    let provider_message_id = sent.as_ref().ok().cloned().flatten();
    let outcome = retry::outcome(sms.attempts, sent.map(drop), &state.sms_retries);
    record_or_remember(
        state,
        tx,
        SentSms {
            sms,
            outcome,
            provider_message_id,
            cost,
        },
    )
    .await
}

/// An SMS that left (or failed to), with what to write for it.
struct SentSms {
    sms: OutgoingSms,
    outcome: SendOutcome,
    provider_message_id: Option<String>,
    cost: Cost,
}

impl Sent for SentSms {
    fn id(&self) -> uuid::Uuid {
        self.sms.id
    }

    async fn record(&self, tx: &mut PgConnection, _state: &WorkerState) -> Result<bool, Error> {
        let sms = &self.sms;
        match &self.outcome {
            SendOutcome::Sent => {
                let provider_id = self.provider_message_id.as_deref();
                if !sms::mark_sent(tx, sms.id, provider_id, self.cost).await? {
                    return Ok(false);
                }
                self.count();
                tracing::info!(sms = %sms.id, kind = %sms.kind, segments = self.cost.segments, "SMS sent");
            }
            SendOutcome::Failed { error, retry_in } => {
                let give_up = retry_in.is_none();
                let Some(attempts) =
                    sms::record_failure(tx, sms.id, error, give_up, self.cost).await?
                else {
                    return Ok(false);
                };
                self.count();
                match retry_in {
                    Some(delay) => {
                        jobs::enqueue_after(tx, &[DispatchSms { sms_id: sms.id }], *delay).await?;
                        tracing::warn!(sms = %sms.id, %error, retry_in = ?delay, "SMS failed; will retry");
                    }
                    None => {
                        sms_delivery::failed_for_good(tx, &sms.addressee(), error, &Actor::Worker)
                            .await?;
                        tracing::error!(sms = %sms.id, %error, attempts, "SMS failed for good");
                    }
                }
            }
        }
        Ok(true)
    }
}

impl SentSms {
    fn count(&self) {
        metrics::counter!(
            "signet_sms_total",
            "kind" => self.sms.kind.as_str(),
            "outcome" => self.outcome.metric_label()
        )
        .increment(1);
        if matches!(self.outcome, SendOutcome::Sent) {
            metrics::counter!(
                "signet_sms_segments_total",
                "encoding" => self.cost.encoding
            )
            .increment(u64::try_from(self.cost.segments).unwrap_or(0));
        }
    }
}
