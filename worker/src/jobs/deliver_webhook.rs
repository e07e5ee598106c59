//! `DeliverWebhook`: one attempt at a claimed webhook delivery, classified by
//! `delivery::webhooks` (2xx delivers; 410 Gone stops for good; anything else tries again per
//! WEBHOOK_RETRY_SCHEDULE until it is used up). No other worker posts it while this one holds
//! its lease, and the receiver is called with no database connection held; an attempt made
//! just before the database went away is recorded once it is back.

use std::sync::Arc;

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::webhooks::{self as decide, Attempt},
    infra::config::WorkerConcurrency,
    model::WebhookDeliveryStatus,
    store::{
        accounts::{self, WebhookTarget},
        outbox::OutboxTable,
        webhooks::{self, AttemptRecord, Delivery},
    },
};
use sqlx::PgConnection;
use uuid::Uuid;

use super::outbox::{Event, Leases, OutboxJob, Recorder, Step, Verdict};
use crate::state::WorkerState;

/// Posts the rows of `webhook_deliveries`.
pub struct DeliverWebhook;

/// A claimed delivery, with where it goes and the secret it is signed with (read when it was
/// claimed).
#[derive(Debug, Clone)]
pub struct ClaimedDelivery {
    delivery: Delivery,
    target: WebhookTarget,
}

#[tracing::instrument(name = "DeliverWebhook", skip_all, fields(delivery.id = %claimed.delivery.id))]
pub async fn deliver_webhook(
    claimed: ClaimedDelivery,
    state: Data<Arc<WorkerState>>,
    recorder: Data<Arc<Recorder<DeliverWebhook>>>,
    leases: Data<Arc<Leases>>,
) -> Result<(), BoxDynError> {
    super::outbox::run::<DeliverWebhook>(
        claimed,
        (*state).clone(),
        (*recorder).clone(),
        (*leases).clone(),
    )
    .await
}

impl OutboxJob for DeliverWebhook {
    const LABEL: &'static str = "deliver-webhook";
    const OUTBOX: OutboxTable = webhooks::OUTBOX;
    type Row = ClaimedDelivery;
    type Message = ();
    type Outcome = AttemptRecord;

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.webhook
    }

    fn handle(
        row: Self::Row,
        state: Data<Arc<WorkerState>>,
        recorder: Data<Arc<Recorder<Self>>>,
        leases: Data<Arc<Leases>>,
    ) -> impl std::future::Future<Output = Result<(), BoxDynError>> + Send + 'static {
        deliver_webhook(row, state, recorder, leases)
    }

    fn id(claimed: &ClaimedDelivery) -> Uuid {
        claimed.delivery.id.into()
    }

    fn trace_context(claimed: &ClaimedDelivery) -> Option<&str> {
        claimed.delivery.trace_context.as_deref()
    }

    /// Only a PENDING delivery is attempted; each account's target is read once per claim.
    async fn load(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<ClaimedDelivery>, Error> {
        let deliveries = webhooks::load(conn, ids).await?;
        let mut targets: Vec<(signet_common::model::AccountId, WebhookTarget)> = Vec::new();
        let mut claimed = Vec::with_capacity(deliveries.len());
        for delivery in deliveries {
            if delivery.status != WebhookDeliveryStatus::Pending {
                continue;
            }
            let target = match targets.iter().find(|(id, _)| *id == delivery.account_id) {
                Some((_, target)) => target.clone(),
                None => {
                    let target = accounts::webhook_target(conn, delivery.account_id).await?;
                    targets.push((delivery.account_id, target.clone()));
                    target
                }
            };
            claimed.push(ClaimedDelivery { delivery, target });
        }
        Ok(claimed)
    }

    fn decide(_: &WorkerState, _: &ClaimedDelivery) -> Step<()> {
        Step::Send(())
    }

    /// Not reached: a delivery is never withdrawn (`decide`).
    async fn withdraw(_: &mut PgConnection, _: &ClaimedDelivery) -> Result<(), Error> {
        Ok(())
    }

    async fn send(
        state: &WorkerState,
        claimed: &ClaimedDelivery,
        (): (),
    ) -> Result<AttemptRecord, Error> {
        let (delivery, target) = (&claimed.delivery, &claimed.target);
        let started_at = Utc::now();
        let clock = std::time::Instant::now();
        let result = match &target.url {
            Some(url) => {
                state
                    .webhooks
                    .post(url, &delivery.event_id, &delivery.payload, &target.secret)
                    .await
            }
            None => Err(decide::NO_URL.to_owned()),
        };
        let attempt = Attempt {
            number: delivery.attempt + 1,
            url: target.url.clone(),
            started_at,
            duration: clock.elapsed(),
            result,
        };
        let record = decide::outcome(attempt, &state.webhook_retries);
        metrics::counter!("signet_webhook_attempts_total", "outcome" => decide::metric_label(&record))
            .increment(1);
        tracing::info!(
            delivery = %delivery.id, event = %delivery.event_type, attempt = record.attempt,
            outcome = %record.outcome, status = ?record.response_status, error = ?record.error,
            "webhook attempt"
        );
        Ok(record)
    }

    fn verdict(record: &AttemptRecord) -> Verdict {
        match record.outcome {
            WebhookDeliveryStatus::Delivered => Verdict::Delivered,
            WebhookDeliveryStatus::Pending | WebhookDeliveryStatus::Failed => Verdict::Failed {
                retry_in: record.retry_in,
            },
        }
    }

    async fn record_delivered(
        conn: &mut PgConnection,
        delivered: &[(&ClaimedDelivery, &AttemptRecord)],
    ) -> Result<Vec<Uuid>, Error> {
        let mut recorded = Vec::with_capacity(delivered.len());
        for (claimed, record) in delivered {
            if webhooks::record_attempt(conn, &claimed.delivery, record).await? {
                recorded.push(Uuid::from(claimed.delivery.id));
            }
        }
        Ok(recorded)
    }

    /// The attempt row says whether it was the last (`outcome`, with its next attempt's time),
    /// so the retry is in it already.
    async fn record_failure(
        conn: &mut PgConnection,
        claimed: &ClaimedDelivery,
        record: &AttemptRecord,
        _retry_in: Option<std::time::Duration>,
    ) -> Result<Option<i32>, Error> {
        let recorded = webhooks::record_attempt(conn, &claimed.delivery, record).await?;
        Ok(recorded.then_some(record.attempt))
    }

    /// A delivery that failed for good tells no one: its log is where it shows.
    async fn give_up(
        _: &mut PgConnection,
        _: &WorkerState,
        _: &ClaimedDelivery,
        _: &AttemptRecord,
    ) -> Result<(), Error> {
        Ok(())
    }

    /// Nothing more to say: each attempt is its own row in the delivery's history.
    fn log(_: Event<'_, Self>) {}
}
