//! Additive: templates (issue #32, docs/templates.md). A template is made from a DRAFT
//! document and instantiated as new documents, sent at once if asked.

use axum::{extract::State, response::Response};
use signet_common::{
    flows::templates,
    model::{DocumentId, TemplateId},
    store,
    wire::templates::{
        DocumentCreated, InstantiateInput, TemplateCreated, TemplateDetail, TemplateInput,
        TemplateList,
    },
};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{BodyTooLarge, RateLimited, Unauthenticated};
use crate::{
    AppState,
    envelope::{Answer, Empty, Envelope, success},
    error::ApiError,
    extract::{ApiAccount, ApiBody, ClientActor, ListParams, TemplatePath},
    idempotency::Idempotency,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_template, list_templates))
        .routes(routes!(get_template))
        .routes(routes!(archive_template))
        .routes(routes!(instantiate_template))
}

/// Make a template from a DRAFT document of the account: its PDF, its recipients as roles and
/// their fields, labelled as `fields` says or else `<role>.<type>.<n>`, TEXT fields marked
/// read-only as `fields` says. The document is not changed.
#[utoipa::path(
    post, path = "/templates", tag = "templates", security(("api_key" = [])),
    request_body = TemplateInput,
    responses(
        (status = 200, description = "Template created successfully", body = Envelope<TemplateCreated>),
        (status = 400, description = "Invalid request body or validation error / Document is not in DRAFT status / Document has no recipients", body = Envelope<Empty>),
        (status = 404, description = "Document not found", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn create_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    idempotency: Idempotency,
    ApiBody(body): ApiBody<TemplateInput>,
) -> Result<Answer, ApiError> {
    let id = TemplateId::new();
    let answer = Answer::success("Template created successfully", TemplateCreated { id });
    let receipt = idempotency.receipt(&answer);
    templates::create(
        &state.db.pool,
        account_id,
        id,
        body,
        state.notifier.reminders,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer)
}

/// List the account's templates that are not archived, newest first.
#[utoipa::path(
    get, path = "/templates", tag = "templates", security(("api_key" = [])),
    params(
        ("page" = Option<i64>, Query, minimum = 1, maximum = 2147483647, description = "Page number, from 1; default 1"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Templates per page, 1 to 100; default 10"),
    ),
    responses(
        (status = 200, description = "Templates retrieved successfully", body = Envelope<TemplateList>),
        (status = 400, description = "Invalid query parameter: <name>", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn list_templates(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    ListParams { query, .. }: ListParams,
) -> Result<Response, ApiError> {
    let (found, total) =
        store::templates::list(&state.db.pool, account_id, query.page, query.limit).await?;
    Ok(success(
        "Templates retrieved successfully",
        TemplateList {
            items: found.iter().map(Into::into).collect(),
            total,
            page: query.page,
            limit: query.limit,
            total_pages: query.total_pages(total),
        },
    ))
}

/// One template with its roles and their fields.
#[utoipa::path(
    get, path = "/templates/{id}", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    responses(
        (status = 200, description = "Template retrieved successfully", body = Envelope<TemplateDetail>),
        (status = 404, description = "Template not found", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn get_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    TemplatePath(id): TemplatePath,
) -> Result<Response, ApiError> {
    let (template, roles, fields) = templates::detail(&state.db.pool, account_id, id).await?;
    Ok(success(
        "Template retrieved successfully",
        TemplateDetail::new(&template, &roles, &fields),
    ))
}

/// Archive a template: it leaves the list and makes no more documents; the documents made
/// from it are not changed. Archiving it again changes nothing.
#[utoipa::path(
    post, path = "/templates/{id}/archive", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    responses(
        (status = 200, description = "Template archived successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error (an Idempotency-Key that is not 1 to 255 visible ASCII characters)", body = Envelope<Empty>),
        (status = 404, description = "Template not found", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn archive_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    TemplatePath(id): TemplatePath,
) -> Result<Answer, ApiError> {
    templates::archive(&state.db.pool, account_id, id).await?;
    Ok(Answer::success("Template archived successfully", Empty {}))
}

/// Make a document from a template, with a person for each of its roles and the values of its
/// TEXT fields by label (every read-only field's, and any editable field's), and send it at
/// once with `"send": true`. One transaction: the document (CREATED), its recipients and
/// fields, and the send (SENT, invitations, `document.sent`) as `POST /documents/{id}/send`
/// does it.
#[utoipa::path(
    post, path = "/templates/{id}/documents", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    request_body = InstantiateInput,
    responses(
        (status = 200, description = "Document created successfully", body = Envelope<DocumentCreated>),
        (status = 400, description = "Invalid request body or validation error / Recipient with this email already exists / expiryDate must be in the future", body = Envelope<Empty>),
        (status = 404, description = "Template not found", body = Envelope<Empty>),
        (status = 409, description = "Template is archived", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn instantiate_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    TemplatePath(id): TemplatePath,
    ClientActor(actor): ClientActor,
    idempotency: Idempotency,
    ApiBody(body): ApiBody<InstantiateInput>,
) -> Result<Answer, ApiError> {
    let document_id = DocumentId::new();
    let answer = Answer::success(
        "Document created successfully",
        DocumentCreated { id: document_id },
    );
    let receipt = idempotency.receipt(&answer);
    templates::instantiate(
        &state.db.pool,
        account_id,
        id,
        document_id,
        body,
        &actor,
        &state.notifier,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer)
}
