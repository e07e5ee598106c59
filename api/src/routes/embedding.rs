//! Additive (issue #34): embedded signing's routes of the external API — a recipient's signing
//! session, and the account's allowed origins. The signing page they lead to is `signing`.

use axum::{extract::State, response::Response};
use signet_common::{
    flows::embedding,
    wire::{
        embedding::{EmbeddingInput, EmbeddingView, SigningSessionInput, SigningSessionView},
        views::Timestamp,
    },
};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{BodyTooLarge, RateLimited, Unauthenticated};
use crate::{
    AppState,
    envelope::{Empty, Envelope, success},
    error::ApiError,
    extract::{ApiAccount, ApiBody, DocumentPath, RecipientPath},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_signing_session))
        .routes(routes!(get_embedding, set_embedding))
}

/// Additive: a signing session for a recipient whose turn has come, to open their signing
/// page inside your product (docs/signing.md, "Embedded signing"). The `url` works once,
/// before `expiresAt` (EMBED_TICKET_TTL_SECS, default 5 minutes): its first opening binds the
/// session to that browser (a cookie, for EMBED_SESSION_TTL_SECS, default 1 hour), and a second
/// opening is refused. The page may be framed only by the account's allowed origins (`PUT
/// /account/embedding`), and tells the parent window `signet:ready`, `signet:signed`,
/// `signet:declined` and `signet:error` with `postMessage`. Any recipient whose turn has come
/// may have one, `embedded` or not; nothing is recorded until the page is opened.
#[utoipa::path(
    post, path = "/documents/{id}/recipients/{recipientId}/signing-session", tag = "documents",
    security(("api_key" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Document id"),
        ("recipientId" = uuid::Uuid, Path, description = "Recipient id (the detail's `recipients[].id`)"),
    ),
    request_body = SigningSessionInput,
    responses(
        (status = 200, description = "Signing session created", body = Envelope<SigningSessionView>),
        (status = 400, description = "Invalid request body or validation error", body = Envelope<Empty>),
        (status = 404, description = "Document not found / Recipient not found", body = Envelope<Empty>),
        (status = 409, description = "Document is no longer open for signing / The recipient's turn has not come: group <N> of the signing order waits until every signer of the earlier groups has signed / The recipient has already signed this document", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn create_signing_session(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    RecipientPath(recipient_id): RecipientPath,
    ApiBody(body): ApiBody<SigningSessionInput>,
) -> Result<Response, ApiError> {
    let created = embedding::create_session(
        &state.db.pool,
        &state.config.signing,
        account_id,
        id,
        recipient_id,
        body,
    )
    .await?;
    let view = SigningSessionView {
        url: format!(
            "{}/embed/{}",
            state.config.api.public_url,
            created.ticket.reveal()
        ),
        expires_at: Timestamp(created.expires_at),
        document_id: id,
        recipient_id: recipient_id.ok_or(ApiError::RecipientNotFound)?,
    };
    Ok(success("Signing session created", view))
}

/// Additive: the account's embedding settings — the origins allowed to frame its embedded
/// signing pages.
#[utoipa::path(
    get, path = "/account/embedding", tag = "account", security(("api_key" = [])),
    responses(
        (status = 200, description = "Embedding settings retrieved successfully", body = Envelope<EmbeddingView>),
        Unauthenticated, RateLimited,
    )
)]
async fn get_embedding(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
) -> Result<Response, ApiError> {
    let allowed_origins = embedding::origins(&state.db.pool, account_id).await?;
    Ok(success(
        "Embedding settings retrieved successfully",
        EmbeddingView { allowed_origins },
    ))
}

/// Additive: replaces the origins allowed to frame the account's embedded signing pages (at
/// most 20; `https`, or `http` for a loopback host; `[]` allows none). Sessions already made
/// follow the new list.
#[utoipa::path(
    put, path = "/account/embedding", tag = "account", security(("api_key" = [])),
    request_body = EmbeddingInput,
    responses(
        (status = 200, description = "Embedding settings updated successfully", body = Envelope<EmbeddingView>),
        (status = 400, description = "Invalid request body or validation error", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn set_embedding(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    ApiBody(body): ApiBody<EmbeddingInput>,
) -> Result<Response, ApiError> {
    let allowed_origins = embedding::set_origins(&state.db.pool, account_id, body).await?;
    Ok(success(
        "Embedding settings updated successfully",
        EmbeddingView { allowed_origins },
    ))
}
