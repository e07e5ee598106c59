//! The worker's admin port: `/healthz` (process up), `/readyz` (database reachable) and
//! `/metrics` (Prometheus text: jobs by type and outcome with durations, queue depth, e-mails,
//! webhook attempts).

use std::sync::Arc;

use axum::{Router, extract::State, http::StatusCode, response::IntoResponse, routing::get};
use tokio::task::JoinHandle;

use crate::WorkerState;

/// Binds the admin port and serves it in the background.
pub async fn serve(state: Arc<WorkerState>) -> std::io::Result<JoinHandle<()>> {
    let listener = tokio::net::TcpListener::bind(state.config.worker_admin_addr).await?;
    tracing::info!(addr = %listener.local_addr()?, "admin port listening");
    let router = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(state);
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "admin port stopped");
        }
    }))
}

async fn readyz(State(state): State<Arc<WorkerState>>) -> impl IntoResponse {
    match sqlx::query("SELECT 1").execute(&state.db.pool).await {
        Ok(_) => (StatusCode::OK, "ready"),
        Err(e) => {
            tracing::warn!(error = %e, "not ready: database unreachable");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable")
        }
    }
}

async fn metrics(State(state): State<Arc<WorkerState>>) -> impl IntoResponse {
    if let Err(e) = signet_common::telemetry::record_queue_depth(&state.db.pool).await {
        tracing::warn!(error = %e, "queue depth unavailable for /metrics");
    }
    (
        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
        signet_common::telemetry::metrics().render(),
    )
}
