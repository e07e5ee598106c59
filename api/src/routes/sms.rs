//! `POST /sms/status/{id}?sig=…`: the SMS provider's delivery reports (Twilio's
//! `StatusCallback`, form-encoded `MessageSid`, `MessageStatus`, `ErrorCode`), at the signed URL
//! the worker gave it for that one message. A wrong signature or an unknown id is a 404 that
//! says nothing more; a report that changes nothing is still a 204, so the provider does not
//! retry it.

use axum::{
    Form, Router,
    extract::{Path, Query, State},
    http::StatusCode,
    routing::post,
};
use serde::Deserialize;
use signet_common::{delivery::sms as decide, flows::sms_delivery};
use uuid::Uuid;

use crate::{AppState, error::ApiError, extract::ClientActor};

pub fn router() -> Router<AppState> {
    Router::new().route("/sms/status/{id}", post(status))
}

#[derive(Deserialize)]
struct Signature {
    sig: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct StatusReport {
    message_sid: Option<String>,
    message_status: String,
    error_code: Option<String>,
}

#[tracing::instrument(name = "sms.status", skip_all, fields(sms.id = %id))]
async fn status(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(Signature { sig }): Query<Signature>,
    ClientActor(actor): ClientActor,
    Form(posted): Form<StatusReport>,
) -> Result<StatusCode, ApiError> {
    let id: Uuid = id.parse().map_err(|_| ApiError::RouteNotFound)?;
    if !state.sms_callbacks.verify(id, &sig) {
        return Err(ApiError::RouteNotFound);
    }
    let Some(report) = decide::report(&posted.message_status, posted.error_code.as_deref()) else {
        return Ok(StatusCode::NO_CONTENT);
    };
    let changed = sms_delivery::record_report(
        &state.db.pool,
        id,
        posted.message_sid.as_deref(),
        &report,
        &actor,
    )
    .await?;
    tracing::info!(changed, "SMS delivery report");
    Ok(StatusCode::NO_CONTENT)
}
