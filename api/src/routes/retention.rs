//! Additive (issue #37): the account's retention policy and erasure of a person's personal data
//! on request (docs/retention.md).

use axum::{extract::State, response::Response};
use signet_common::{
    flows::{erasure, retention},
    wire::retention::{ErasureInput, ErasureView, RetentionInput, RetentionView},
};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{BodyTooLarge, RateLimited, Unauthenticated};
use crate::{
    AppState,
    envelope::{Empty, Envelope, success},
    error::ApiError,
    extract::{ApiAccount, ApiBody, ClientActor},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_retention, set_retention))
        .routes(routes!(erase))
}

/// Additive: the account's retention policy — how many days after a document ended its files
/// are removed (`null`: never, the default).
#[utoipa::path(
    get, path = "/account/retention", tag = "account", security(("api_key" = [])),
    responses(
        (status = 200, description = "Retention policy retrieved successfully", body = Envelope<RetentionView>),
        Unauthenticated, RateLimited,
    )
)]
async fn get_retention(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
) -> Result<Response, ApiError> {
    let days = retention::policy(&state.db.pool, account_id).await?;
    Ok(success(
        "Retention policy retrieved successfully",
        RetentionView { days },
    ))
}

/// Additive: sets the account's retention policy. The worker's sweep removes the original,
/// the final PDF and the signers' attachments of every document that ended (COMPLETED,
/// DECLINED, EXPIRED or CANCELLED) more than `days` days ago, records it in the audit trail
/// (keeping the files' SHA-256) and sends `document.files_removed`; the detail then has
/// `filesRemovedAt` and its `filePath` answers `410`. `null` turns the policy off; files
/// already removed stay removed.
#[utoipa::path(
    put, path = "/account/retention", tag = "account", security(("api_key" = [])),
    request_body = RetentionInput,
    responses(
        (status = 200, description = "Retention policy updated successfully", body = Envelope<RetentionView>),
        (status = 400, description = "Invalid request body or validation error", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn set_retention(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    ApiBody(body): ApiBody<RetentionInput>,
) -> Result<Response, ApiError> {
    let days = retention::set_policy(&state.db.pool, account_id, body).await?;
    Ok(success(
        "Retention policy updated successfully",
        RetentionView { days },
    ))
}

/// Additive: erases a person's personal data on request (GDPR Art. 17): every recipient of
/// the account's documents with the given address (or the given recipient's address) has
/// their name, e-mail address, phone number, consent's IP address and user agent and decline
/// reason replaced by tombstones, as have the audit entries, outbox rows, event feed and
/// webhook bodies and bulk-send rows that hold them; the audit trail still verifies. Each
/// document gets an audit entry and a `document.personal_data_erased` event. The signed
/// files are kept (Art. 17(3)(b) and (e)) until the retention policy removes them. Idempotent:
/// when there is nothing left to erase, nothing changes and the lists are empty.
#[utoipa::path(
    post, path = "/erasures", tag = "account", security(("api_key" = [])),
    request_body = ErasureInput,
    responses(
        (status = 200, description = "Personal data erased successfully", body = Envelope<ErasureView>),
        (status = 400, description = "Invalid request body or validation error", body = Envelope<Empty>),
        (status = 404, description = "Recipient not found", body = Envelope<Empty>),
        (status = 409, description = "The person is a recipient of document <id>, which is out for signing: cancel it or let it end before erasing their data", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn erase(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    ClientActor(actor): ClientActor,
    ApiBody(body): ApiBody<ErasureInput>,
) -> Result<Response, ApiError> {
    let view = erasure::erase(&state.db.pool, &state.notifier, account_id, body, &actor).await?;
    Ok(success("Personal data erased successfully", view))
}
