//! Liveness and readiness.

use axum::{
    Router,
    extract::State,
    response::{IntoResponse, Response},
    routing::get,
};

use crate::{
    AppState,
    envelope::{Empty, success},
    error::ApiError,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// The process is up.
async fn healthz() -> Response {
    success("OK", Empty {})
}

/// The database answers.
async fn readyz(State(state): State<AppState>) -> Result<Response, ApiError> {
    signet_common::infra::db::ping(&state.db.pool)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "not ready: database unreachable");
            ApiError::Unavailable
        })?;
    Ok(success("Ready", Empty {}))
}

/// Prometheus text format: requests, usage-limit refusals, and the current queue depths.
async fn metrics(State(state): State<AppState>) -> Response {
    if let Err(e) = signet_common::flows::queue_metrics::record_queue_metrics(&state.db.pool).await
    {
        tracing::warn!(error = %e, "queue figures unavailable for /metrics");
    }
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        signet_common::infra::telemetry::metrics().render(),
    )
        .into_response()
}
