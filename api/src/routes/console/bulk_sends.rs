//! The console's bulk send (issue #32): "Send to a list" on a template's page. The CSV is first
//! checked with the flow's dry run (the preview: the rows ready, or every bad row as the API
//! names it); the preview's Send carries the same CSV back (base64 in a hidden field, so that
//! the file need not be chosen again) and creates the bulk send through the same flow as
//! `POST /templates/{id}/bulk-sends`, which checks every row again. Then its progress page,
//! which follows it while it runs, and cancel.

use axum::{
    Json,
    extract::{Multipart, State},
    http::{StatusCode, header},
    response::{IntoResponse, Redirect, Response},
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde::Deserialize;
use signet_common::{
    flows::{
        bulk_sends::{self, BulkSendRequest, Checked, GivenRows},
        templates,
    },
    model::{BulkSendId, TemplateId},
    wire::{body::Parsed, bulk_sends::BulkOverrides, spreadsheet},
};

use super::{
    documents::counted,
    failure::Failure,
    session::{Console, CsrfForm, NoFields},
    views::{self, BulkPreview, BulkProgress, Preview},
};
use crate::{
    AppState,
    error::ApiError,
    extract::{BulkSendPath, ClientActor, TemplatePath},
    state::BULK_SEND_BODY_LIMIT_BYTES,
};

/// Room for the form fields around the largest accepted CSV.
pub(super) const PREVIEW_BODY_LIMIT: usize = BULK_SEND_BODY_LIMIT_BYTES + 64 * 1024;
/// The confirm form carries the CSV in base64 (URL-safe, so not escaped again in the form).
pub(super) const CONFIRM_BODY_LIMIT: usize = BULK_SEND_BODY_LIMIT_BYTES / 3 * 4 + 64 * 1024;

/// What every document of the bulk send shares, as the form gives it (blank: the template's).
#[derive(Default, Deserialize)]
pub(super) struct SendOptions {
    #[serde(default)]
    message: String,
    #[serde(default)]
    expiry: String,
}

impl SendOptions {
    /// As the API's query would give them; the flow checks them.
    fn overrides(&self) -> BulkOverrides {
        let given = |v: &str| Some(v.trim().to_owned()).filter(|v| !v.is_empty());
        BulkOverrides {
            message: given(&self.message),
            // The form's `datetime-local` is UTC (the label says so); anything else is passed
            // on for the flow to refuse as the API would.
            expiry_date: given(&self.expiry).map(|expiry| {
                chrono::NaiveDateTime::parse_from_str(&expiry, "%Y-%m-%dT%H:%M")
                    .map_or(expiry, |t| t.and_utc().to_rfc3339())
            }),
            ..BulkOverrides::default()
        }
    }
}

/// The preview form: the CSV file and the send's options.
#[derive(Default)]
struct PreviewForm {
    csrf: String,
    options: SendOptions,
    csv: Vec<u8>,
    too_large: bool,
}

impl PreviewForm {
    async fn read(mut multipart: Multipart) -> Self {
        let mut form = Self::default();
        while let Ok(Some(mut field)) = multipart.next_field().await {
            match field.name().unwrap_or_default() {
                "csrf" => form.csrf = field.text().await.unwrap_or_default(),
                "message" => form.options.message = field.text().await.unwrap_or_default(),
                "expiry" => form.options.expiry = field.text().await.unwrap_or_default(),
                "file" => {
                    while let Ok(Some(chunk)) = field.chunk().await {
                        if form.csv.len() + chunk.len() > BULK_SEND_BODY_LIMIT_BYTES {
                            form.too_large = true;
                            break;
                        }
                        form.csv.extend_from_slice(&chunk);
                    }
                }
                _ => {}
            }
        }
        form
    }
}

/// Checks every row of the CSV against the template (the flow's dry run; nothing is created)
/// and shows the rows ready with a Send button, or each problem to fix in the file.
pub(super) async fn preview(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
    multipart: Multipart,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    let form = PreviewForm::read(multipart).await;
    console.check_token(&form.csrf)?;
    if form.too_large {
        let problems = vec![signet_common::Problem::new(
            "file",
            "is larger than 16 MiB: split the list into several files",
        )];
        return preview_page(
            &state,
            &console,
            id,
            Preview::Refused(&problems),
            &form.options,
        )
        .await
        .map(|r| with_status(r, StatusCode::BAD_REQUEST));
    }
    match check(&state, &console, id, form.csv.clone(), &form.options, true).await {
        Ok(checked) => {
            let ready = Preview::Ready {
                rows: checked.rows.rows.len(),
                csv: &URL_SAFE_NO_PAD.encode(&form.csv),
                id: BulkSendId::new(),
            };
            preview_page(&state, &console, id, ready, &form.options).await
        }
        Err(error) => refused(&state, &console, id, error, &form.options).await,
    }
}

/// The preview's Send: the CSV it showed, checked again and created as the API creates it.
#[derive(Deserialize)]
pub(super) struct ConfirmForm {
    #[serde(default)]
    id: String,
    #[serde(default)]
    csv: String,
    #[serde(flatten)]
    options: SendOptions,
}

pub(super) async fn create(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<TemplatePath, ApiError>,
    CsrfForm(form): CsrfForm<ConfirmForm>,
) -> Result<Response, Failure> {
    let TemplatePath(template_id) = id?;
    let account_id = console.session.account_id;
    // The id was chosen by the preview: a second click of its Send shows the first one.
    let bulk_id: BulkSendId = form.id.parse().map_err(|_| Failure::Forgery)?;
    if bulk_sends::progress(&state.db.pool, account_id, bulk_id)
        .await
        .is_ok()
    {
        return Ok(Redirect::to(&format!("/app/bulk-sends/{bulk_id}")).into_response());
    }
    let csv = URL_SAFE_NO_PAD
        .decode(form.csv.trim())
        .map_err(|_| Failure::Forgery)?;
    let checked = match check(&state, &console, template_id, csv, &form.options, false).await {
        Ok(checked) => checked,
        Err(error) => return refused(&state, &console, template_id, error, &form.options).await,
    };
    let starting = bulk_sends::start(&state.db.pool, account_id, bulk_id, &checked, &actor, None);
    // It makes Signet send e-mail: counted against the usage as the API request would be.
    match counted(&state, &console, starting).await {
        Ok(()) => Ok(Redirect::to(&format!("/app/bulk-sends/{bulk_id}")).into_response()),
        Err(error) => refused(&state, &console, template_id, error, &form.options).await,
    }
}

/// The flow's check of the CSV with the form's options.
async fn check(
    state: &AppState,
    console: &Console,
    template_id: TemplateId,
    csv: Vec<u8>,
    options: &SendOptions,
    dry_run: bool,
) -> Result<Checked, ApiError> {
    let account_id = console.session.account_id;
    let Some(_admitted) = state.gates.row_checks.admit(account_id).await else {
        return Err(ApiError::Busy(crate::extract::ROW_CHECKS_BUSY));
    };
    let request = BulkSendRequest {
        rows: GivenRows::Csv(csv.into()),
        overrides: options.overrides(),
        dry_run,
    };
    Ok(bulk_sends::check(
        &state.db.pool,
        &state.gates.checking,
        account_id,
        template_id,
        Parsed::whole(request),
        state.config.api.bulk_send_max_rows,
        state.notifier.reminders,
    )
    .await?)
}

/// The preview page listing why the CSV was refused, when the API would have answered with a
/// 400 or 429; else the error page.
async fn refused(
    state: &AppState,
    console: &Console,
    id: TemplateId,
    error: ApiError,
    options: &SendOptions,
) -> Result<Response, Failure> {
    let mut problems = match &error {
        ApiError::InvalidBody(problems) | ApiError::Rule(_, problems) => problems.clone(),
        ApiError::RateLimited { .. } => Vec::new(),
        _ => return Err(error.into()),
    };
    if problems.is_empty() {
        problems.push(signet_common::Problem::new("", error.to_string()));
    }
    preview_page(state, console, id, Preview::Refused(&problems), options)
        .await
        .map(|r| with_status(r, error.status()))
}

async fn preview_page(
    state: &AppState,
    console: &Console,
    id: TemplateId,
    preview: Preview<'_>,
    options: &SendOptions,
) -> Result<Response, Failure> {
    let (template, _, _) =
        templates::detail(&state.db.pool, console.session.account_id, id).await?;
    let body = views::bulk_preview(BulkPreview {
        csrf: console.csrf(),
        template: &template,
        preview,
        message: &options.message,
        expiry: &options.expiry,
    });
    Ok(views::page(
        StatusCode::OK,
        &format!("Send to a list · {}", template.title),
        body,
    ))
}

fn with_status(mut response: Response, status: StatusCode) -> Response {
    *response.status_mut() = status;
    response
}

/// The header row of a CSV for the template: every column it takes.
pub(super) async fn csv_header(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    let (_, roles, fields) =
        templates::detail(&state.db.pool, console.session.account_id, id).await?;
    let columns = views::bulk_columns(&roles, &fields);
    // A template from before names were checked may have one a spreadsheet would run.
    let header_row: Vec<String> = columns
        .iter()
        .map(|(c, _)| spreadsheet::csv_cell(c))
        .collect();
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"bulk-send.csv\"",
            ),
        ],
        format!("{}\r\n", header_row.join(",")),
    )
        .into_response())
}

/// A bulk send's progress page; another account's is not found.
pub(super) async fn progress(
    State(state): State<AppState>,
    console: Console,
    id: Result<BulkSendPath, ApiError>,
) -> Result<Response, Failure> {
    let BulkSendPath(id) = id?;
    let view = bulk_sends::progress(&state.db.pool, console.session.account_id, id).await?;
    let body = views::bulk_progress(BulkProgress {
        csrf: console.csrf(),
        view: &view,
    });
    Ok(views::page(StatusCode::OK, "Bulk send", body))
}

/// The progress as the API answers it, for the progress page's script while it runs.
pub(super) async fn progress_json(
    State(state): State<AppState>,
    console: Console,
    id: Result<BulkSendPath, ApiError>,
) -> Result<Response, Failure> {
    let BulkSendPath(id) = id?;
    let view = bulk_sends::progress(&state.db.pool, console.session.account_id, id).await?;
    Ok(Json(view).into_response())
}

pub(super) async fn cancel(
    State(state): State<AppState>,
    console: Console,
    id: Result<BulkSendPath, ApiError>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let BulkSendPath(id) = id?;
    bulk_sends::cancel(&state.db.pool, console.session.account_id, id).await?;
    Ok(Redirect::to(&format!("/app/bulk-sends/{id}")).into_response())
}
