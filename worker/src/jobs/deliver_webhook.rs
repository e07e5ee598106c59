//! `DeliverWebhook`: one attempt at a webhook delivery, classified by `delivery::webhooks`
//! (2xx delivers; 410 Gone stops for good; anything else tries again per
//! WEBHOOK_RETRY_SCHEDULE until it is used up). The row is locked during the attempt, so two
//! workers never post the same delivery at once; an attempt made just before the database went
//! away is recorded once it is back.

use std::{future::Future, sync::Arc};

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::webhooks::{self as decide, Attempt},
    infra::{config::WorkerConcurrency, jobs::DeliverWebhook},
    model::WebhookDeliveryStatus,
    store::{
        accounts,
        webhooks::{self, AttemptRecord, Delivery},
    },
};
use sqlx::PgConnection;

use super::outbox::{self, Event, OutboxJob, Step, Verdict};
use crate::{
    registration::QueuedJob,
    state::{OutboxId, WorkerState},
};

#[tracing::instrument(name = "DeliverWebhook", skip_all, fields(delivery.id = %job.delivery_id))]
pub async fn deliver_webhook(
    job: DeliverWebhook,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    outbox::run(job, state).await
}

impl QueuedJob for DeliverWebhook {
    const LABEL: &'static str = "deliver-webhook";

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.webhook
    }

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        deliver_webhook(self, state)
    }
}

impl OutboxJob for DeliverWebhook {
    type Row = Delivery;
    type Message = ();
    type Outcome = AttemptRecord;

    fn id(delivery: &Delivery) -> OutboxId {
        OutboxId::Webhook(delivery.id)
    }

    fn retry(delivery: &Delivery) -> Self {
        DeliverWebhook {
            delivery_id: delivery.id,
        }
    }

    /// Only a PENDING delivery is attempted.
    async fn claim(&self, conn: &mut PgConnection) -> Result<Option<Delivery>, Error> {
        Ok(webhooks::lock(conn, self.delivery_id)
            .await?
            .filter(|delivery| delivery.status == WebhookDeliveryStatus::Pending))
    }

    fn decide(_: &WorkerState, _: &Delivery) -> Step<()> {
        Step::Send(())
    }

    /// Not reached: a delivery is never withdrawn (`decide`).
    async fn withdraw(_: &mut PgConnection, _: &Delivery) -> Result<(), Error> {
        Ok(())
    }

    async fn send(
        state: &WorkerState,
        conn: &mut PgConnection,
        delivery: &Delivery,
        (): (),
    ) -> Result<AttemptRecord, Error> {
        let target = accounts::webhook_target(conn, delivery.account_id).await?;
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
            url: target.url,
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
        delivery: &Delivery,
        record: &AttemptRecord,
    ) -> Result<bool, Error> {
        webhooks::record_attempt(conn, delivery, record).await
    }

    /// The attempt row says whether it was the last (`outcome`), so `give_up` is in it already.
    async fn record_failure(
        conn: &mut PgConnection,
        delivery: &Delivery,
        record: &AttemptRecord,
        _give_up: bool,
    ) -> Result<Option<i32>, Error> {
        let recorded = webhooks::record_attempt(conn, delivery, record).await?;
        Ok(recorded.then_some(record.attempt))
    }

    /// A delivery that failed for good tells no one: its log is where it shows.
    async fn give_up(
        _: &mut PgConnection,
        _: &WorkerState,
        _: &Delivery,
        _: &AttemptRecord,
    ) -> Result<(), Error> {
        Ok(())
    }

    fn log(event: Event<'_, Self>) {
        if let Event::BeingRecorded(delivery) = event {
            tracing::info!(delivery = %delivery.id, "attempt already made; its outcome is being recorded");
        }
    }
}
