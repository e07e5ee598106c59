//! Additive: templates (issue #32, docs/templates.md). A template is made from a DRAFT
//! document or an uploaded PDF, updated, and instantiated as new documents, sent at once if
//! asked.

use axum::{
    extract::{FromRequest, RawQuery, Request, State},
    response::Response,
};
use signet_common::{
    flows::templates,
    model::{DocumentId, TemplateId},
    store::{
        self,
        templates::{Template, TemplateField, TemplateRole},
    },
    wire::{
        templates::{
            DocumentCreated, InstantiateInput, TemplateCreated, TemplateDetail, TemplateFieldView,
            TemplateInput, TemplateList, TemplateListItem, TemplateRoleView, TemplateUpdateInput,
        },
        views::{Pixels, Timestamp},
    },
};
use sqlx::types::Json;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{
    documents::SortOrderParam,
    refusals::{BodyTooLarge, RateLimited, RateLimitedOrUploadsBusy, Unauthenticated},
};
use crate::{
    AppState,
    envelope::{Answer, Empty, Envelope, success},
    error::ApiError,
    extract::{
        Admission, ApiAccount, ApiBody, ClientActor, GatedBody, Reads, TemplateListParams,
        TemplatePath, is_pdf, query_once, read_pdf,
    },
    idempotency::Idempotency,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_template, list_templates))
        .routes(routes!(get_template, update_template))
        .routes(routes!(archive_template))
        .routes(routes!(instantiate_template))
}

/// The PDF of a template made from an upload: the body itself, at most 50 MiB.
#[derive(utoipa::ToSchema)]
#[schema(content_media_type = "application/pdf")]
#[allow(dead_code)]
struct PdfBody(String);

/// Make a template from a DRAFT document of the account (a JSON body): its PDF, its
/// recipients as roles and their fields, labelled as `fields` says or else
/// `<role>.<type>.<n>`, TEXT fields marked read-only as `fields` says; the document is not
/// changed. Or from a PDF sent as the body (`Content-Type: application/pdf`, at most 50 MiB,
/// checked as a console upload is), titled by `?title=`: it has no roles until
/// `PATCH /templates/{id}` gives them.
#[utoipa::path(
    post, path = "/templates", tag = "templates", security(("api_key" = [])),
    params(
        ("title" = Option<String>, Query, max_length = 500, pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$", description = "With a PDF body only: the template's title; absent or blank: \"Untitled template\""),
        ("fields" = Option<String>, Query, pattern = r"^(tags|form)(,(tags|form))?$", description = "With a PDF body only: what to make the template's roles and fields from: `tags`, the text tags written in the PDF (`{{signature:Tenant}}`; the PDF is stored without them), `form`, the PDF's own form fields (its AcroForm, in the first role, \"Role 1\" unless tags name it, labelled by their names), or `tags,form` (docs/api.md, \"Tags and anchors\" and \"Form fields\")"),
    ),
    request_body(
        description = "A DRAFT document to make the template from (JSON), or the template's PDF (at most 50 MiB)",
        content(
            (TemplateInput = "application/json"),
            (PdfBody = "application/pdf"),
        ),
    ),
    responses(
        (status = 200, description = "Template created successfully", body = Envelope<TemplateCreated>),
        (status = 400, description = "Invalid request body or validation error (a PDF that cannot be used is named `file`) / Document is not in DRAFT status / Document has no recipients", body = Envelope<Empty>),
        (status = 404, description = "Document not found", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimitedOrUploadsBusy,
    )
)]
async fn create_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    idempotency: Idempotency,
    RawQuery(query): RawQuery,
    request: Request,
) -> Result<Answer, ApiError> {
    let id = TemplateId::new();
    let answer = Answer::success("Template created successfully", TemplateCreated { id });
    let receipt = idempotency.receipt(&answer);
    if is_pdf(request.headers()) {
        let _admission =
            Admission::take(&state, account_id, request.extensions(), GatedBody::Pdf).await?;
        let bytes = read_pdf(request.into_body()).await?;
        let title = query_once(query.as_deref(), "title");
        let sources =
            templates::FieldSources::from_query(query_once(query.as_deref(), "fields").as_deref())?;
        templates::create_from_pdf(
            &state.db.pool,
            &state.store,
            account_id,
            id,
            title.as_deref(),
            bytes.into(),
            sources,
            &state.gates.pdf,
            receipt.as_ref(),
        )
        .await?;
        return Ok(answer);
    }
    let ApiBody(body) = ApiBody::<TemplateInput>::from_request(request, &state).await?;
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

/// The values of the template list's `sortBy` (the OpenAPI document's; the parser is
/// `TemplateListQuery`).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)]
enum TemplateSortByParam {
    DateCreated,
    DateModified,
    Title,
}

/// List the account's templates that are not archived: newest first unless sorted otherwise,
/// those whose title holds `search` (case-insensitively) when it is given.
#[utoipa::path(
    get, path = "/templates", tag = "templates", security(("api_key" = [])),
    params(
        ("page" = Option<i64>, Query, minimum = 1, maximum = 2147483647, description = "Page number, from 1; default 1"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Templates per page, 1 to 100; default 10"),
        ("search" = Option<String>, Query, pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$", description = "Only templates whose title contains this text, compared case-insensitively"),
        ("sortBy" = inline(Option<TemplateSortByParam>), Query, description = "dateCreated (default), dateModified or title; any case is accepted"),
        ("sortOrder" = inline(Option<SortOrderParam>), Query, description = "ASC or DESC (default); any case is accepted"),
    ),
    responses(
        (status = 200, description = "Templates retrieved successfully", body = Envelope<TemplateList>),
        (status = 400, description = "Invalid query parameter: <name>", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn list_templates(
    ApiAccount(account_id): ApiAccount,
    reads: Reads,
    TemplateListParams { query, .. }: TemplateListParams,
) -> Result<Response, ApiError> {
    let (found, total) =
        signet_common::read!(reads, |db| store::templates::list(db, account_id, &query))?;
    Ok(success(
        "Templates retrieved successfully",
        TemplateList {
            items: found.iter().map(list_item).collect(),
            total,
            page: query.page,
            limit: query.limit,
            total_pages: query.total_pages(total),
        },
    ))
}

/// Update a template: what the body names is replaced (`title`; the defaults `message`,
/// `description`, `expiryDays`, `reminders`, `language`, each cleared by `null`; `roles` with
/// their fields, as a whole list), the rest is kept. Fields are placed as
/// `POST /documents/{id}/fields` places them, on the template's pages. Documents already made
/// from the template are not changed.
#[utoipa::path(
    patch, path = "/templates/{id}", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Template id")),
    request_body = TemplateUpdateInput,
    responses(
        (status = 200, description = "Template updated successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error (a label or role name given twice, readOnly on a field that is not TEXT, each named in errors) / Page <n> is out of range (document has <pages> pages) / Field is outside the bounds of page <n> (the template's PDF; the field named in errors)", body = Envelope<Empty>),
        (status = 404, description = "Template not found", body = Envelope<Empty>),
        (status = 409, description = "Template is archived", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimited,
    )
)]
async fn update_template(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    TemplatePath(id): TemplatePath,
    ApiBody(body): ApiBody<TemplateUpdateInput>,
) -> Result<Answer, ApiError> {
    templates::update(
        &state.db.pool,
        &state.store,
        &state.gates.pdf,
        account_id,
        id,
        body,
        state.notifier.reminders,
    )
    .await?;
    Ok(Answer::success("Template updated successfully", Empty {}))
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
    ApiAccount(account_id): ApiAccount,
    reads: Reads,
    TemplatePath(id): TemplatePath,
) -> Result<Response, ApiError> {
    let (template, roles, fields) =
        signet_common::read!(reads, |db| templates::detail(db, account_id, id))?;
    Ok(success(
        "Template retrieved successfully",
        template_detail(&template, &roles, &fields),
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

/// A template's answer, made of its rows.
fn template_detail(
    template: &Template,
    roles: &[TemplateRole],
    fields: &[TemplateField],
) -> TemplateDetail {
    TemplateDetail {
        id: template.id,
        title: template.title.clone(),
        pages: template.page_sizes.len() as i32,
        archived: template.archived_at.is_some(),
        created_at: Timestamp(template.created_at),
        updated_at: Timestamp(template.updated_at),
        roles: roles
            .iter()
            .map(|role| TemplateRoleView {
                name: role.name.clone(),
                role: role.role,
                signing_order: role.signing_order,
                language: role.language.0,
                fields: fields
                    .iter()
                    .filter(|f| f.role_id == role.id)
                    .map(|f| TemplateFieldView {
                        label: f.label.clone(),
                        field_type: f.field_type,
                        page: f.page,
                        x: Pixels(f.x),
                        y: Pixels(f.y),
                        width: Pixels(f.width),
                        height: Pixels(f.height),
                        read_only: f.read_only,
                        required: f.required,
                        value: f.value.clone(),
                        options: f.rules.options.clone(),
                        min: f.rules.min,
                        max: f.rules.max,
                        decimals: f.rules.decimals,
                        max_length: f.rules.max_length,
                        pattern: f.rules.pattern.clone(),
                    })
                    .collect(),
            })
            .collect(),
        message: template.message.clone(),
        description: template.description.clone(),
        expiry_days: template.expiry_days,
        reminders: template.reminders.clone().map(|Json(r)| r),
        language: template.language.0,
    }
}

/// A template as its list shows it.
fn list_item(template: &Template) -> TemplateListItem {
    TemplateListItem {
        id: template.id,
        title: template.title.clone(),
        pages: template.page_sizes.len() as i32,
        created_at: Timestamp(template.created_at),
        updated_at: Timestamp(template.updated_at),
    }
}
