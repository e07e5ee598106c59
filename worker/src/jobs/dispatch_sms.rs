//! `DispatchSms`: sends one SMS outbox row, as `DispatchEmail` sends an e-mail. The row is
//! locked while the provider answers, so no two workers send it at once; a row already sent is
//! skipped. A 429, a 5xx or a network failure is retried by a new, delayed job
//! (SMS_RETRY_SCHEDULE, ±10 % jitter) until the schedule is used up; any other answer fails it
//! for good at once, recorded in the audit trail. The signing link is never logged.

use std::{future::Future, sync::Arc};

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::{
        retry::{self, SendOutcome},
        sms::{self as decide, Dispatch},
        sms_text::SmsText,
    },
    flows::sms_delivery,
    infra::{config::WorkerConcurrency, jobs::DispatchSms},
    model::Actor,
    store::sms::{self, Cost, OutgoingSms},
};
use sqlx::PgConnection;

use super::outbox::{self, Event, OutboxJob, Step, Verdict};
use crate::{
    registration::QueuedJob,
    sms::Outgoing,
    state::{OutboxId, WorkerState},
};

#[tracing::instrument(name = "DispatchSms", skip_all, fields(sms.id = %job.sms_id))]
pub async fn dispatch_sms(
    job: DispatchSms,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    outbox::run(job, state).await
}

impl QueuedJob for DispatchSms {
    const LABEL: &'static str = "dispatch-sms";

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.sms
    }

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        dispatch_sms(self, state)
    }
}

/// What sending an SMS came to, with what the provider and the text's count say of it.
pub struct SmsOutcome {
    outcome: SendOutcome,
    provider_message_id: Option<String>,
    cost: Cost,
}

impl OutboxJob for DispatchSms {
    type Row = OutgoingSms;
    type Message = SmsText;
    type Outcome = SmsOutcome;

    fn id(sms: &OutgoingSms) -> OutboxId {
        OutboxId::Sms(sms.id)
    }

    fn retry(sms: &OutgoingSms) -> Self {
        DispatchSms { sms_id: sms.id }
    }

    fn check(state: &WorkerState) -> Result<(), Error> {
        if state.sms.is_none() {
            // Not reached: a process without a provider takes no SMS jobs (`run`). Were it
            // reached, the row would stay PENDING, visible, for a worker that has one.
            return Err(Error::Io(std::io::Error::other(
                "an SMS is queued but this worker has SMS_PROVIDER=none",
            )));
        }
        Ok(())
    }

    async fn claim(&self, conn: &mut PgConnection) -> Result<Option<OutgoingSms>, Error> {
        sms::lock_for_dispatch(conn, self.sms_id).await
    }

    fn decide(state: &WorkerState, sms: &OutgoingSms) -> Step<SmsText> {
        let language = state.config.signing.default_language;
        match decide::dispatch(sms, &state.config.api.public_url, language, Utc::now()) {
            Dispatch::Done => Step::Skip,
            Dispatch::Withdraw => Step::Withdraw,
            Dispatch::Send(text) => Step::Send(text),
        }
    }

    async fn withdraw(conn: &mut PgConnection, sms: &OutgoingSms) -> Result<(), Error> {
        sms::withdraw(conn, sms.id).await
    }

    async fn send(
        state: &WorkerState,
        _: &mut PgConnection,
        sms: &OutgoingSms,
        text: SmsText,
    ) -> Result<SmsOutcome, Error> {
        let sender = state
            .sms
            .as_ref()
            .expect("checked before the row was claimed");
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
        Ok(SmsOutcome {
            outcome,
            provider_message_id,
            cost,
        })
    }

    fn verdict(sent: &SmsOutcome) -> Verdict {
        match &sent.outcome {
            SendOutcome::Sent => Verdict::Delivered,
            SendOutcome::Failed { retry_in, .. } => Verdict::Failed {
                retry_in: *retry_in,
            },
        }
    }

    async fn record_delivered(
        conn: &mut PgConnection,
        sms: &OutgoingSms,
        sent: &SmsOutcome,
    ) -> Result<bool, Error> {
        let provider_id = sent.provider_message_id.as_deref();
        sms::mark_sent(conn, sms.id, provider_id, sent.cost).await
    }

    async fn record_failure(
        conn: &mut PgConnection,
        sms: &OutgoingSms,
        sent: &SmsOutcome,
        give_up: bool,
    ) -> Result<Option<i32>, Error> {
        sms::record_failure(conn, sms.id, sent.outcome.error(), give_up, sent.cost).await
    }

    async fn give_up(
        conn: &mut PgConnection,
        _: &WorkerState,
        sms: &OutgoingSms,
        sent: &SmsOutcome,
    ) -> Result<(), Error> {
        sms_delivery::failed_for_good(conn, &sms.addressee(), sent.outcome.error(), &Actor::Worker)
            .await
    }

    fn count(sms: &OutgoingSms, sent: &SmsOutcome) {
        metrics::counter!(
            "signet_sms_total",
            "kind" => sms.kind.as_str(),
            "outcome" => sent.outcome.metric_label()
        )
        .increment(1);
        if matches!(sent.outcome, SendOutcome::Sent) {
            metrics::counter!(
                "signet_sms_segments_total",
                "encoding" => sent.cost.encoding
            )
            .increment(u64::try_from(sent.cost.segments).unwrap_or(0));
        }
    }

    fn log(event: Event<'_, Self>) {
        match event {
            Event::Missing(job) => {
                tracing::debug!(sms = %job.sms_id, "SMS missing or being sent by another worker");
            }
            Event::BeingRecorded(sms) => {
                tracing::info!(sms = %sms.id, "SMS already sent; its outcome is being recorded");
            }
            Event::Withdrawn(sms) => {
                tracing::info!(sms = %sms.id, document_status = %sms.document_status, "SMS invitation withdrawn");
            }
            Event::Delivered(sms, sent) => {
                tracing::info!(sms = %sms.id, kind = %sms.kind, segments = sent.cost.segments, "SMS sent");
            }
            Event::Retrying(sms, sent, delay) => {
                let error = sent.outcome.error();
                tracing::warn!(sms = %sms.id, %error, retry_in = ?delay, "SMS failed; will retry");
            }
            Event::GaveUp(sms, sent, attempts) => {
                let error = sent.outcome.error();
                tracing::error!(sms = %sms.id, %error, attempts, "SMS failed for good");
            }
        }
    }
}
