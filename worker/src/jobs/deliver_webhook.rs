//! `DeliverWebhook`: one attempt at a webhook delivery, classified by `delivery::webhooks`
//! (2xx delivers; 410 Gone stops for good; anything else tries again per
//! WEBHOOK_RETRY_SCHEDULE until it is used up). The row is locked during the attempt, so two
//! workers never post the same delivery at once; an attempt made just before the database went
//! away is recorded once it is back.

use std::sync::Arc;

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::webhooks::{self as decide, Attempt},
    infra::jobs::{self, DeliverWebhook},
    model::WebhookDeliveryStatus,
    store::{
        accounts,
        webhooks::{self, AttemptRecord, Delivery},
    },
};
use sqlx::PgConnection;

use super::{Sent, record_late, record_or_remember, run_job, until_available};
use crate::WorkerState;

#[tracing::instrument(name = "DeliverWebhook", skip_all, fields(delivery.id = %job.delivery_id))]
pub async fn deliver_webhook(
    job: DeliverWebhook,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| post(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Locks, posts and records one delivery attempt; returns what was posted but could not be
/// recorded.
async fn post(state: &WorkerState, job: &DeliverWebhook) -> Result<Option<Posted>, Error> {
    let mut tx = state.db.pool.begin().await?;
    let Some(delivery) = webhooks::lock(&mut tx, job.delivery_id).await? else {
        return Ok(None);
    };
    if delivery.status != WebhookDeliveryStatus::Pending {
        return Ok(None);
    }
    if state.is_unrecorded(delivery.id) {
        tracing::info!(delivery = %delivery.id, "attempt already made; its outcome is being recorded");
        return Ok(None);
    }
    let target = accounts::webhook_target(&mut tx, delivery.account_id).await?;
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
    record_or_remember(state, tx, Posted { delivery, record }).await
}

/// An attempt that was made, with what to write for it.
struct Posted {
    delivery: Delivery,
    record: AttemptRecord,
}

impl Sent for Posted {
    fn id(&self) -> uuid::Uuid {
        self.delivery.id
    }

    /// Writes the attempt (and queues the next one).
    async fn record(&self, tx: &mut PgConnection, _: &WorkerState) -> Result<bool, Error> {
        if !webhooks::record_attempt(tx, &self.delivery, &self.record).await? {
            return Ok(false);
        }
        if let Some(delay) = self.record.retry_in {
            let job = DeliverWebhook {
                delivery_id: self.delivery.id,
            };
            jobs::enqueue_after(tx, &[job], delay).await?;
        }
        Ok(true)
    }
}
