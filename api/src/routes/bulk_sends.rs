//! Additive: bulk send (issue #32, docs/templates.md). One template, many rows (JSON or CSV),
//! each made into a sent document by the `bulk` workers; its progress, and cancelling it.

use axum::{
    extract::{DefaultBodyLimit, RawQuery, State},
    response::{IntoResponse, Response},
};
use signet_common::{
    Problem,
    flows::bulk_sends::{self, BulkSendRequest, GivenRows},
    model::BulkSendId,
    wire::{
        body::{self, Parsed},
        bulk_sends::{BulkOverrides, BulkSendAccepted, BulkSendCheck, BulkSendInput, BulkSendView},
    },
};
use signet_i18n::Language;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{BodyTooLarge, RateLimited, RateLimitedOrChecksBusy, Unauthenticated};
use crate::{
    AppState,
    envelope::{Answer, Empty, Envelope, success},
    error::ApiError,
    extract::{ApiAccount, BulkSendPath, ClientActor, JsonOrCsv, RowsAdmission, TemplatePath},
    idempotency::Idempotency,
    state::BULK_SEND_BODY_LIMIT_BYTES,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_bulk_send))
        .layer(DefaultBodyLimit::max(BULK_SEND_BODY_LIMIT_BYTES))
        .routes(routes!(get_bulk_send))
        .routes(routes!(cancel_bulk_send))
}

/// Make and send one document per row from a template, in the background. Every row is
/// checked first: one bad row refuses the whole batch, naming each problem
/// (`rows[17].Tenant.email`; a CSV's line in the reason). The rows are JSON
/// (`{"rows": [{"Tenant.name": …, "Tenant.email": …, "<field label>": …}]}`) or a CSV file
/// (`Content-Type: text/csv`, RFC 4180, UTF-8 with or without a BOM, a header row of the same
/// columns), at most `BULK_SEND_MAX_ROWS` (default 10,000) and 16 MiB. The query parameters
/// give the CSV's `dryRun` and what every document shares (a JSON body's own properties win).
/// Accepted: `202` with the bulk send's id; follow it with `GET /bulk-sends/{id}`.
#[utoipa::path(
    post, path = "/templates/{id}/bulk-sends", tag = "templates", security(("api_key" = [])),
    params(
        ("id" = uuid::Uuid, Path, description = "Template id"),
        ("dryRun" = Option<bool>, Query, description = "`true`: check every row and answer the report; nothing is created"),
        ("title" = Option<String>, Query, max_length = 500, description = "Every document's title; default: the template's"),
        ("message" = Option<String>, Query, description = "The send's message; default: the template's"),
        ("description" = Option<String>, Query, description = "The send's description; default: the template's"),
        ("expiryDate" = Option<String>, Query, description = "The send's expiry (RFC 3339); default: the template's expiryDays after each send"),
        ("language" = Option<Language>, Query, description = "The documents' language; default: the template's"),
    ),
    request_body(
        description = "The rows, as JSON or as a CSV file with a header row",
        content(
            (BulkSendInput = "application/json"),
            (String = "text/csv", example = "Tenant.name,Tenant.email\nZoë Ñúñez-O'Brien,zoe@example.com\n"),
        )
    ),
    responses(
        (status = 200, description = "Bulk send is valid (dryRun: nothing created)", body = Envelope<BulkSendCheck>),
        (status = 202, description = "Bulk send accepted", body = Envelope<BulkSendAccepted>),
        (status = 400, description = "Invalid request body or validation error / Invalid query parameter: <name>", body = Envelope<Empty>),
        (status = 404, description = "Template not found", body = Envelope<Empty>),
        (status = 409, description = "Template is archived", body = Envelope<Empty>),
        Unauthenticated, BodyTooLarge, RateLimitedOrChecksBusy,
    )
)]
#[allow(clippy::too_many_arguments)]
async fn create_bulk_send(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    TemplatePath(template_id): TemplatePath,
    ClientActor(actor): ClientActor,
    idempotency: Idempotency,
    RawQuery(query): RawQuery,
    _admission: RowsAdmission,
    body: JsonOrCsv,
) -> Result<Response, ApiError> {
    let (from_query, dry_run) = bulk_query(query.as_deref())?;
    let request = match body {
        JsonOrCsv::Json(bytes) => {
            let parsed = state
                .gates
                .checking
                .run(move || body::parse::<BulkSendInput>(&bytes))
                .await
                .ok_or(ApiError::Internal)?;
            let Parsed { value, problems } = parsed.map_err(ApiError::InvalidBody)?;
            Parsed {
                value: BulkSendRequest {
                    overrides: either(value.overrides(), from_query),
                    rows: GivenRows::Json(value.rows),
                    dry_run: value.dry_run.or(dry_run).unwrap_or(false),
                },
                problems,
            }
        }
        JsonOrCsv::Csv(bytes) => Parsed::whole(BulkSendRequest {
            rows: GivenRows::Csv(bytes),
            overrides: from_query,
            dry_run: dry_run.unwrap_or(false),
        }),
    };
    let checked = bulk_sends::check(
        &state.db.pool,
        &state.gates.checking,
        account_id,
        template_id,
        request,
        state.config.api.bulk_send_max_rows,
        state.notifier.reminders,
    )
    .await?;
    if checked.dry_run {
        return Ok(success(
            "Bulk send is valid",
            BulkSendCheck {
                valid: true,
                rows: checked.rows.rows.len(),
            },
        ));
    }
    let id = BulkSendId::new();
    let answer = Answer::accepted(
        "Bulk send accepted",
        BulkSendAccepted {
            id,
            total: checked.rows.rows.len(),
        },
    );
    let receipt = idempotency.receipt(&answer);
    bulk_sends::start(
        &state.db.pool,
        account_id,
        id,
        &checked,
        &actor,
        receipt.as_ref(),
    )
    .await?;
    Ok(answer.into_response())
}

/// What the body does not give, from the query.
fn either(body: BulkOverrides, query: BulkOverrides) -> BulkOverrides {
    BulkOverrides {
        title: body.title.or(query.title),
        message: body.message.or(query.message),
        description: body.description.or(query.description),
        expiry_date: body.expiry_date.or(query.expiry_date),
        language: body.language.or(query.language),
    }
}

/// The query's overrides and `dryRun`; each parameter at most once.
fn bulk_query(query: Option<&str>) -> Result<(BulkOverrides, Option<bool>), ApiError> {
    let mut overrides = BulkOverrides::default();
    let mut dry_run = None;
    let mut seen: Vec<String> = Vec::new();
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let invalid = |reason: &str| ApiError::InvalidQuery(Problem::new(name.as_ref(), reason));
        let known = [
            "dryRun",
            "title",
            "message",
            "description",
            "expiryDate",
            "language",
        ];
        if !known.contains(&name.as_ref()) {
            continue;
        }
        if seen.iter().any(|s| s == name.as_ref()) {
            return Err(invalid("must be given at most once"));
        }
        seen.push(name.to_string());
        let text = Some(value.to_string());
        match name.as_ref() {
            "dryRun" => {
                dry_run = Some(match value.as_ref() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(invalid("must be true or false")),
                })
            }
            "title" => overrides.title = text,
            "message" => overrides.message = text,
            "description" => overrides.description = text,
            "expiryDate" => overrides.expiry_date = text,
            _ => {
                overrides.language = Some(
                    Language::from_tag(&value)
                        .ok_or_else(|| invalid("not a language Signet speaks"))?,
                )
            }
        }
    }
    Ok((overrides, dry_run))
}

/// A bulk send's progress: how many rows are made, failed (the first 100 with why),
/// cancelled and still pending.
#[utoipa::path(
    get, path = "/bulk-sends/{id}", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Bulk send id")),
    responses(
        (status = 200, description = "Bulk send retrieved successfully", body = Envelope<BulkSendView>),
        (status = 404, description = "Bulk send not found", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn get_bulk_send(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    BulkSendPath(id): BulkSendPath,
) -> Result<Response, ApiError> {
    let view = bulk_sends::progress(&state.db.pool, account_id, id).await?;
    Ok(success("Bulk send retrieved successfully", view))
}

/// Cancel a bulk send: its rows not yet made are CANCELLED and no more documents are made
/// from it (the documents made stay as they are; cancel them one by one if need be).
/// Cancelling it again changes nothing.
#[utoipa::path(
    post, path = "/bulk-sends/{id}/cancel", tag = "templates", security(("api_key" = [])),
    params(("id" = uuid::Uuid, Path, description = "Bulk send id")),
    responses(
        (status = 200, description = "Bulk send cancelled successfully", body = Envelope<Empty>),
        (status = 400, description = "Invalid request body or validation error (an Idempotency-Key that is not 1 to 255 visible ASCII characters)", body = Envelope<Empty>),
        (status = 404, description = "Bulk send not found", body = Envelope<Empty>),
        (status = 409, description = "Bulk send is already completed: every row was made", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn cancel_bulk_send(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    BulkSendPath(id): BulkSendPath,
) -> Result<Answer, ApiError> {
    bulk_sends::cancel(&state.db.pool, account_id, id).await?;
    Ok(Answer::success(
        "Bulk send cancelled successfully",
        Empty {},
    ))
}
