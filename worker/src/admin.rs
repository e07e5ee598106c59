//! The worker's admin port:
//! - `/readyz`: 200 only while the database answers, the worker of every job type this process
//!   runs polls its queue and the job listener is connected (a sweep-only process has neither);
//!   503 otherwise (take the process out of rotation).
//! - `/healthz` (liveness): 503 when a job type's worker has not been polling for longer than
//!   `WORKER_STUCK_SECS` although the database answers — the process cannot recover by itself
//!   and should be restarted. While the database itself is down it stays 200: a restart would
//!   not help.
//! - `/metrics`: Prometheus text (jobs by type: waiting, ready, oldest ready age, running,
//!   finished by outcome, durations; the last sweep; e-mails, webhook attempts, whether each
//!   worker polls, worker restarts).
//!
//! Both health answers carry the state as JSON: `{"jobs": "email,webhook", "workers":
//! {"dispatch-email": true, …}, "listener_connected": true, "stuck": [], "database": true}`.

use std::{sync::Arc, time::Duration};

use axum::{Json, Router, extract::State, http::StatusCode, response::IntoResponse, routing::get};
use tokio::task::JoinHandle;

use crate::state::WorkerState;

/// How long a health check waits for the database before calling it unreachable.
const DATABASE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// Binds the admin port and serves it in the background.
pub async fn serve(state: Arc<WorkerState>) -> std::io::Result<JoinHandle<()>> {
    let listener = tokio::net::TcpListener::bind(state.config.worker.admin_addr).await?;
    tracing::info!(addr = %listener.local_addr()?, "admin port listening");
    let router = Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(state);
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "admin port stopped");
        }
    }))
}

#[derive(serde::Serialize)]
struct Health {
    /// The kinds of work this process takes, as `--jobs` names them.
    jobs: String,
    #[serde(flatten)]
    report: crate::supervision::Report,
    database: bool,
}

async fn health(state: &WorkerState) -> Health {
    let database = matches!(
        tokio::time::timeout(
            DATABASE_CHECK_TIMEOUT,
            signet_common::infra::db::ping(&state.queue_pool)
        )
        .await,
        Ok(Ok(_))
    );
    Health {
        jobs: state.job_names.clone(),
        report: state.supervisor.report(state.config.worker.stuck_after),
        database,
    }
}

async fn readyz(State(state): State<Arc<WorkerState>>) -> impl IntoResponse {
    let health = health(&state).await;
    let status = if health.database && health.report.ready() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(health))
}

async fn healthz(State(state): State<Arc<WorkerState>>) -> impl IntoResponse {
    let health = health(&state).await;
    let status = if health.database && !health.report.stuck.is_empty() {
        tracing::error!(stuck = ?health.report.stuck, "workers stuck although the database answers");
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    (status, Json(health))
}

async fn metrics(State(state): State<Arc<WorkerState>>) -> impl IntoResponse {
    if let Err(e) =
        signet_common::flows::queue_metrics::record_queue_metrics(&state.queue_pool).await
    {
        tracing::warn!(error = %e, "queue figures unavailable for /metrics");
    }
    (
        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
        signet_common::infra::telemetry::metrics().render(),
    )
}
