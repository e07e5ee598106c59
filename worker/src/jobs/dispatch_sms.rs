//! `DispatchSms`: sends one claimed SMS outbox row, as `DispatchEmail` sends an e-mail: no
//! other worker sends it while this one holds its lease, and the provider is called with no
//! database connection held. A 429, a 5xx or a network failure is due again after the next delay
//! of SMS_RETRY_SCHEDULE (±10 % jitter) until the schedule is used up; any other answer fails it
//! for good at once, recorded in the audit trail. The signing link is never logged.

use std::sync::Arc;

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
    infra::config::WorkerConcurrency,
    model::Actor,
    store::{
        outbox::OutboxTable,
        sms::{self, Cost, OutgoingSms},
    },
};
use sqlx::PgConnection;
use uuid::Uuid;

use super::outbox::{Event, Leases, OutboxJob, Recorder, Step, Verdict};
use crate::{sms::Outgoing, state::WorkerState};

/// Sends the rows of `outbound_sms`.
pub struct DispatchSms;

#[tracing::instrument(name = "DispatchSms", skip_all, fields(sms.id = %sms.id))]
pub async fn dispatch_sms(
    sms: OutgoingSms,
    state: Data<Arc<WorkerState>>,
    recorder: Data<Arc<Recorder<DispatchSms>>>,
    leases: Data<Arc<Leases>>,
) -> Result<(), BoxDynError> {
    super::outbox::run::<DispatchSms>(
        sms,
        (*state).clone(),
        (*recorder).clone(),
        (*leases).clone(),
    )
    .await
}

/// What sending an SMS came to, with what the provider and the text's count say of it.
pub struct SmsOutcome {
    outcome: SendOutcome,
    provider_message_id: Option<String>,
    cost: Cost,
}

impl OutboxJob for DispatchSms {
    const LABEL: &'static str = "dispatch-sms";
    const OUTBOX: OutboxTable = sms::OUTBOX;
    type Row = OutgoingSms;
    type Message = SmsText;
    type Outcome = SmsOutcome;

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.sms
    }

    fn handle(
        row: Self::Row,
        state: Data<Arc<WorkerState>>,
        recorder: Data<Arc<Recorder<Self>>>,
        leases: Data<Arc<Leases>>,
    ) -> impl std::future::Future<Output = Result<(), BoxDynError>> + Send + 'static {
        dispatch_sms(row, state, recorder, leases)
    }

    fn id(sms: &OutgoingSms) -> Uuid {
        sms.id.into()
    }

    fn trace_context(sms: &OutgoingSms) -> Option<&str> {
        sms.trace_context.as_deref()
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

    async fn load(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<OutgoingSms>, Error> {
        sms::load(conn, ids).await
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
        sms: &OutgoingSms,
        text: SmsText,
    ) -> Result<SmsOutcome, Error> {
        let sender = state.sms.as_ref().expect("checked before any row is sent");
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
        delivered: &[(&OutgoingSms, &SmsOutcome)],
    ) -> Result<Vec<Uuid>, Error> {
        let mut marked = Vec::with_capacity(delivered.len());
        for (sms, sent) in delivered {
            let provider_id = sent.provider_message_id.as_deref();
            if sms::mark_sent(conn, sms.id, provider_id, sent.cost).await? {
                marked.push(Uuid::from(sms.id));
            }
        }
        Ok(marked)
    }

    async fn record_failure(
        conn: &mut PgConnection,
        sms: &OutgoingSms,
        sent: &SmsOutcome,
        retry_in: Option<std::time::Duration>,
    ) -> Result<Option<i32>, Error> {
        sms::record_failure(conn, sms.id, sent.outcome.error(), retry_in, sent.cost).await
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
