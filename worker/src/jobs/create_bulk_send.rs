//! `CreateBulkSend`: makes a bulk send's PENDING rows into sent documents, in chunks, then
//! completes it, through `flows::bulk_sends::run`. A run that stops (the worker killed, the
//! database gone) is resumed by the next with the rows still PENDING.

use std::{future::Future, sync::Arc};

use apalis::prelude::{BoxDynError, Data};
use signet_common::{
    flows::bulk_sends,
    infra::{config::WorkerConcurrency, jobs::CreateBulkSend},
};

use super::outage::{run_job, until_available};
use crate::{registration::QueuedJob, state::WorkerState};

#[tracing::instrument(name = "CreateBulkSend", skip_all, fields(bulk_send.id = %job.bulk_send_id))]
pub async fn create_bulk_send(
    job: CreateBulkSend,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        // Each chunk commits on its own: repeating after an outage resumes at the first row
        // still PENDING.
        let outcome = until_available(|| {
            bulk_sends::run(&state.db.pool, job.bulk_send_id, &state.notifier)
        })
        .await
        .inspect_err(
            |e| tracing::error!(bulk_send = %job.bulk_send_id, error = %e, "bulk send failed"),
        )?;
        tracing::info!(bulk_send = %job.bulk_send_id, ?outcome, "bulk send run");
        Ok(())
    })
    .await
}

impl QueuedJob for CreateBulkSend {
    const LABEL: &'static str = "create-bulk-send";

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.bulk
    }

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        create_bulk_send(self, state)
    }
}
