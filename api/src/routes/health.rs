//! Liveness and readiness.

use axum::{Router, extract::State, response::Response, routing::get};

use crate::{
    AppState,
    error::{ApiError, Empty, success},
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
}

/// The process is up.
async fn healthz() -> Response {
    success("OK", Empty {})
}

/// The database answers.
async fn readyz(State(state): State<AppState>) -> Result<Response, ApiError> {
    sqlx::query("SELECT 1")
        .execute(&state.db.pool)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "not ready: database unreachable");
            ApiError::Unavailable
        })?;
    Ok(success("Ready", Empty {}))
}
