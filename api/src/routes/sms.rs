//! `POST /sms/status/{id}?sig=…`: the SMS provider's delivery reports (Twilio's
//! `StatusCallback`, form-encoded `MessageSid`, `MessageStatus`, `ErrorCode`), at the signed URL
//! the worker gave it for that one message. A wrong, missing or repeated signature or an
//! unknown id is a 404 that says nothing more, before the body is read; a report that changes
//! nothing is still a 204, so the provider does not retry it. A `MessageSid` that no provider
//! would send is a 400 (not retried either); an `ErrorCode` that is not a number is recorded
//! as an unknown one.

use axum::{
    Form, Router,
    extract::{FromRequest, Path, RawQuery, Request, State},
    http::StatusCode,
    routing::post,
};
use serde::Deserialize;
use signet_common::{Problem, delivery::sms as decide, flows::sms_delivery, model::SmsId};

use crate::{
    AppState,
    error::ApiError,
    extract::{ClientActor, query_once},
};

pub fn router() -> Router<AppState> {
    Router::new().route("/sms/status/{id}", post(status))
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
    RawQuery(query): RawQuery,
    ClientActor(actor): ClientActor,
    request: Request,
) -> Result<StatusCode, ApiError> {
    let id: SmsId = id.parse().map_err(|_| ApiError::RouteNotFound)?;
    let signed =
        query_once(query.as_deref(), "sig").is_some_and(|sig| state.sms_callbacks.verify(id, &sig));
    if !signed {
        return Err(ApiError::RouteNotFound);
    }
    let Form(posted) = Form::<StatusReport>::from_request(request, &state)
        .await
        .map_err(|rejection| match rejection.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
            _ => ApiError::InvalidBody(vec![Problem::new("", rejection.body_text())]),
        })?;
    let message_sid = decide::message_sid(posted.message_sid.as_deref())?;
    let Some(report) = decide::report(&posted.message_status, posted.error_code.as_deref()) else {
        return Ok(StatusCode::NO_CONTENT);
    };
    let changed =
        sms_delivery::record_report(&state.db.pool, id, message_sid, &report, &actor).await?;
    tracing::info!(changed, "SMS delivery report");
    Ok(StatusCode::NO_CONTENT)
}
