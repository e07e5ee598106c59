//! `CheckCompletion`: completes a fully signed document (the final PDF, its e-mails and
//! events), through `flows::completion`.

use std::{future::Future, sync::Arc};

use apalis::prelude::{BoxDynError, Data};
use signet_common::{
    flows::completion,
    infra::{config::WorkerConcurrency, jobs::CheckCompletion},
};

use super::outage::{run_job, until_available};
use crate::{registration::QueuedJob, state::WorkerState};

#[tracing::instrument(name = "CheckCompletion", skip_all, fields(document.id = %job.document_id))]
pub async fn check_completion(
    job: CheckCompletion,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let sealer = completion::Sealer {
            key: &state.seal,
            services: &state.trust,
            sandbox: &state.pdf,
        };
        let outcome = until_available(|| {
            completion::check(
                &state.db.pool,
                &state.store,
                &sealer,
                job.document_id,
                &state.notifier,
                state.config.signing.default_language,
            )
        })
        .await
        .inspect_err(
            |e| tracing::error!(document = %job.document_id, error = %e, "completion failed"),
        )?;
        tracing::info!(document = %job.document_id, ?outcome, "completion checked");
        Ok(())
    })
    .await
}

impl QueuedJob for CheckCompletion {
    const LABEL: &'static str = "check-completion";

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.completion
    }

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        check_completion(self, state)
    }
}
