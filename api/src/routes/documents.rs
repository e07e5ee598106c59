//! The six endpoints of the external API v1, and the additive cancel and remind. Each handler
//! parses, calls the domain, and wraps the result in the envelope.

use axum::{extract::State, response::Response};
use chrono::Utc;
use signet_common::{
    flows::{drafting, reminders, signer_auth},
    infra::db::Lsn,
    model::{AccountId, DocumentId},
    store::documents,
    wire::{
        inputs::{CancelInput, FieldInput, RecipientInput, SendInput},
        views::{AuditEntryView, DocumentDetail, DocumentList, DocumentListItem, Reminded},
    },
};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{BodyTooLarge, DocumentNotFound, RateLimited, Unauthenticated};
use crate::{
    AppState,
    envelope::{Answer, Empty, Envelope, success},
    error::ApiError,
    extract::{
        ApiAccount, ApiBody, ApiJson, ClientActor, DocumentPath, ListParams, Reads, RecipientIdPath,
    },
    idempotency::Idempotency,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_documents))
        .routes(routes!(get_document))
        .routes(routes!(add_recipients))
        .routes(routes!(add_fields))
        .routes(routes!(send_document))
        .routes(routes!(get_audit_trail))
        .routes(routes!(cancel_document))
        .routes(routes!(remind_signers))
        .routes(routes!(unlock_recipient))
}

/// The values of the list's `status` (the OpenAPI document's; the parser is `ListQuery`).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "UPPERCASE")]
#[allow(dead_code)]
enum StatusParam {
    Draft,
    Sent,
    Completed,
    Trash,
}

#[derive(utoipa::ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
enum SortByParam {
    DateCreated,
    DocumentName,
    DateModified,
}

#[derive(utoipa::ToSchema)]
#[schema(rename_all = "UPPERCASE")]
#[allow(dead_code)]
pub(super) enum SortOrderParam {
    Asc,
    Desc,
}

/// List the account's documents, with paging, filtering, search and sorting.
#[utoipa::path(
    get, path = "/documents", tag = "documents", security(("api_key" = [])),
    params(
        ("page" = Option<i64>, Query, minimum = 1, maximum = 2147483647, description = "Page number, from 1; default 1"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Documents per page, 1 to 100; default 10"),
        ("status" = inline(Option<StatusParam>), Query, description = "DRAFT, SENT, COMPLETED or TRASH (declined, expired or cancelled); any case is accepted"),
        ("search" = Option<String>, Query, pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$", description = "Case-insensitive substring of the title"),
        ("sortBy" = inline(Option<SortByParam>), Query, description = "dateCreated (default), documentName or dateModified; any case is accepted"),
        ("sortOrder" = inline(Option<SortOrderParam>), Query, description = "ASC or DESC (default); any case is accepted"),
    ),
    responses(
        (status = 200, description = "Documents retrieved successfully", body = Envelope<DocumentList>),
        (status = 400, description = "Invalid query parameter: <name>", body = Envelope<Empty>),
        Unauthenticated,
        // The list's 429 alone has published this wording; it is kept as it is.
        (status = 429, description = "API rate limit exceeded (see Retry-After)", body = Envelope<Empty>),
    )
)]
async fn list_documents(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    reads: Reads,
    ListParams { query, .. }: ListParams,
) -> Result<Response, ApiError> {
    let (found, total) = signet_common::read!(reads, |db| documents::list(db, account_id, &query))?;
    let now = Utc::now();
    let items = found
        .iter()
        .map(|doc| DocumentListItem::new(doc, state.links.url(doc.id, now)))
        .collect();
    Ok(success(
        "Documents retrieved successfully",
        DocumentList {
            items,
            total,
            page: query.page,
            limit: query.limit,
            total_pages: query.total_pages(total),
        },
    ))
}

/// One document with its recipients and their fields.
#[utoipa::path(
    get, path = "/documents/{id}", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    responses(
        (status = 200, description = "Document retrieved successfully", body = Envelope<DocumentDetail>),
        Unauthenticated, DocumentNotFound, RateLimited,
    )
)]
async fn get_document(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    reads: Reads,
    DocumentPath(id): DocumentPath,
) -> Result<Response, ApiError> {
    let detail = detail(&state, &reads, account_id, id).await?;
    Ok(success("Document retrieved successfully", detail))
}

/// The document as `GET /documents/{id}` shows it, read where `reads` says (after a write of
/// the handler's own: `Lsn::LATEST`, the primary).
async fn detail(
    state: &AppState,
    reads: &signet_common::infra::db::Reads,
    account_id: AccountId,
    id: DocumentId,
) -> Result<DocumentDetail, ApiError> {
    let (document, recipients, fields) =
        signet_common::read!(reads, |db| drafting::document_detail(db, account_id, id))?;
    let file_path = state.links.url(document.id, Utc::now());
    Ok(DocumentDetail::new(
        &document,
        file_path,
        &recipients,
        &fields,
    ))
}

/// Add recipients (signers and viewers) to a DRAFT document.
#[utoipa::path(
    post, path = "/documents/{id}/recipients", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    request_body = Vec<RecipientInput>,
    responses(
        (status = 200, description = "Recipients added successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error / Document is not in DRAFT status / Recipient with this email already exists", body = Envelope<Empty>),
        Unauthenticated, DocumentNotFound, BodyTooLarge, RateLimited,
    )
)]
async fn add_recipients(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    ClientActor(actor): ClientActor,
    idempotency: Idempotency,
    ApiBody(body): ApiBody<Vec<RecipientInput>>,
) -> Result<Answer, ApiError> {
    let answer = Answer::success("Recipients added successfully", Empty {});
    let receipt = idempotency.receipt(&answer);
    drafting::add_recipients(
        &state.db.pool,
        account_id,
        id,
        body,
        &actor,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer)
}

/// Place fields on pages of a DRAFT document, each assigned to a recipient by e-mail.
#[utoipa::path(
    post, path = "/documents/{id}/fields", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    request_body = Vec<FieldInput>,
    responses(
        (status = 200, description = "Fields added successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error / Document is not in DRAFT status / Recipient not found for email: <email> / Page <n> is out of range (document has <pages> pages) / Field is outside the bounds of page <n>", body = Envelope<Empty>),
        Unauthenticated, DocumentNotFound, BodyTooLarge, RateLimited,
    )
)]
async fn add_fields(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    ClientActor(actor): ClientActor,
    idempotency: Idempotency,
    ApiBody(body): ApiBody<Vec<FieldInput>>,
) -> Result<Answer, ApiError> {
    let answer = Answer::success("Fields added successfully", Empty {});
    let receipt = idempotency.receipt(&answer);
    drafting::add_fields(
        &state.db.pool,
        &state.store,
        &state.gates.pdf,
        account_id,
        id,
        body,
        &actor,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer)
}

/// Send the document to every recipient for signing.
#[utoipa::path(
    post, path = "/documents/{id}/send", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    request_body = SendInput,
    responses(
        (status = 200, description = "Document sent successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error / Document is not in DRAFT status / Document has no recipients / Every recipient must have at least one field / expiryDate must be in the future", body = Envelope<Empty>),
        Unauthenticated, DocumentNotFound, RateLimited,
    )
)]
async fn send_document(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    ClientActor(actor): ClientActor,
    idempotency: Idempotency,
    ApiBody(body): ApiBody<SendInput>,
) -> Result<Answer, ApiError> {
    let answer = Answer::success("Document sent successfully", Empty {});
    let receipt = idempotency.receipt(&answer);
    drafting::send_document(
        &state.db.pool,
        account_id,
        id,
        body,
        &actor,
        &state.notifier,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer)
}

/// The audit trail of the document, oldest first.
#[utoipa::path(
    get, path = "/documents/{id}/audit", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    responses(
        (status = 200, description = "Audit trail retrieved successfully", body = Envelope<Vec<AuditEntryView>>),
        Unauthenticated, DocumentNotFound, RateLimited,
    )
)]
async fn get_audit_trail(
    ApiAccount(account_id): ApiAccount,
    reads: Reads,
    DocumentPath(id): DocumentPath,
) -> Result<Response, ApiError> {
    let entries = signet_common::read!(reads, |db| drafting::audit_trail(db, account_id, id))?;
    let views: Vec<AuditEntryView> = entries.iter().map(AuditEntryView::from).collect();
    Ok(success("Audit trail retrieved successfully", views))
}

/// Additive: cancel a DRAFT or SENT document. Its signing links stop working; the recipients
/// invited so far are told by e-mail, with the reason; `document.cancelled` goes out; the
/// document is listed under TRASH. Answers the document as it now is.
#[utoipa::path(
    post, path = "/documents/{id}/cancel", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    request_body = CancelInput,
    responses(
        (status = 200, description = "Document cancelled successfully", body = Envelope<DocumentDetail>),
        (status = 400, description = "Invalid request body or validation error / Document is <status>; only DRAFT or SENT documents can be cancelled", body = Envelope<Empty>),
        Unauthenticated, DocumentNotFound, BodyTooLarge, RateLimited,
    )
)]
async fn cancel_document(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<CancelInput>,
) -> Result<Response, ApiError> {
    let pool = &state.db.pool;
    drafting::cancel_document(pool, account_id, id, body, &actor, &state.notifier).await?;
    let detail = detail(&state, &state.db.reads(Lsn::LATEST), account_id, id).await?;
    Ok(success("Document cancelled successfully", detail))
}

/// Additive: remind now, by e-mail, every invited signer of a SENT document who has not
/// signed, but those reminded less than the server's interval ago (REMINDER_MIN_INTERVAL_HOURS,
/// default 24; listed in `skipped`). Every reminder to a signer carries the same link of its
/// own; the invitation's link keeps working. An automatic reminder due sooner than the
/// document's interval waits for it. When every signer who has not signed was reminded within
/// the interval: 400, nothing sent or recorded.
#[utoipa::path(
    post, path = "/documents/{id}/remind", tag = "documents", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Document id")),
    responses(
        (status = 200, description = "Reminders sent successfully", body = Envelope<Reminded>),
        (status = 400, description = "Document is <status>; only SENT documents have signers to remind / Signers were reminded less than <N> hours ago; the next reminder can be sent after <RFC 3339 time>", body = Envelope<Empty>),
        Unauthenticated, DocumentNotFound, RateLimited,
    )
)]
async fn remind_signers(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    ClientActor(actor): ClientActor,
) -> Result<Response, ApiError> {
    let reminded =
        reminders::remind_now(&state.db.pool, account_id, id, &actor, &state.notifier).await?;
    Ok(success("Reminders sent successfully", reminded))
}

/// Additive (issue #34): unlock a recipient whose signing link five wrong codes locked. Their
/// count of wrong codes starts again and any one-time code sent before stops working; the audit
/// trail records it. Unlocking a recipient who is not locked changes nothing. Answers the
/// document as it now is.
#[utoipa::path(
    post, path = "/documents/{id}/recipients/{recipientId}/unlock", tag = "documents", security(("api_key" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Document id"),
        ("recipientId" = uuid::Uuid, Path, description = "Recipient id (`recipients[].id` of the detail)"),
    ),
    responses(
        (status = 200, description = "Recipient unlocked", body = Envelope<DocumentDetail>),
        (status = 400, description = "This signing link asks for no code", body = Envelope<Empty>),
        Unauthenticated,
        (status = 404, description = "Document not found / Recipient not found", body = Envelope<Empty>),
        RateLimited,
    )
)]
async fn unlock_recipient(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    DocumentPath(id): DocumentPath,
    RecipientIdPath(recipient_id): RecipientIdPath,
    ClientActor(actor): ClientActor,
) -> Result<Response, ApiError> {
    signer_auth::unlock(&state.db.pool, account_id, id, recipient_id, &actor).await?;
    let detail = detail(&state, &state.db.reads(Lsn::LATEST), account_id, id).await?;
    Ok(success("Recipient unlocked", detail))
}
