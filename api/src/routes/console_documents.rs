//! The console's documents: the list (the API's filters, search, sorting and paging), upload,
//! the document page, and cancel. Same domain functions as the API and the CLI.

use axum::{
    Router,
    extract::{DefaultBodyLimit, Multipart, Path, RawQuery, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Redirect, Response},
    routing::{get, post},
};
use chrono::{DateTime, SecondsFormat, Utc};
use maud::html;
use signet_common::{
    flows::{
        delivery_failures,
        drafting::{self, FieldPlacement},
    },
    model::{DeliveryStatus, DocumentStatus, RecipientRole},
    store::documents,
    wire::{
        inputs::{FieldInput, RecipientInput, SendInput},
        query::{ListQuery, SortBy, SortOrder, StatusFilter},
    },
};
use uuid::Uuid;

use super::{
    assets,
    console::{Console, ConsoleForm, Failure, nav, page},
};
use crate::{
    AppState,
    error::{ApiError, success},
    extract::{ApiJson, ClientActor},
};

/// Room for the form fields around the largest accepted PDF.
const UPLOAD_BODY_LIMIT: usize = signet_pdf::MAX_UPLOAD_BYTES + 64 * 1024;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/app/documents",
            get(list)
                .post(upload)
                .layer(DefaultBodyLimit::max(UPLOAD_BODY_LIMIT)),
        )
        .route("/app/documents/{id}", get(detail))
        .route("/app/documents/{id}/cancel", post(cancel))
        .route("/app/documents/{id}/recipients", post(add_recipient))
        .route("/app/documents/{id}/place", get(place))
        .route("/app/documents/{id}/fields", post(save_fields))
        .route("/app/documents/{id}/send", post(send))
        .route(
            "/app/documents/{id}/recipients/{recipient}/resend",
            post(resend_invitation),
        )
        .route(
            "/app/documents/{id}/recipients/{recipient}/remove",
            post(remove_recipient),
        )
}

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

async fn list(
    State(state): State<AppState>,
    console: Console,
    RawQuery(query): RawQuery,
) -> Result<Response, Failure> {
    render_list(
        &state,
        &console,
        query.as_deref().unwrap_or_default(),
        None,
        StatusCode::OK,
    )
    .await
}

async fn render_list(
    state: &AppState,
    console: &Console,
    raw_query: &str,
    upload_error: Option<String>,
    status: StatusCode,
) -> Result<Response, Failure> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(raw_query.as_bytes())
        .into_owned()
        .collect();
    let query = ListQuery::from_pairs(&pairs).map_err(Failure::from)?;
    let (found, total) =
        documents::list(&state.db.pool, console.session.account_id, &query).await?;
    let pages = query.total_pages(total);
    let link = |page: i64| {
        let mut kept: Vec<(String, String)> =
            pairs.iter().filter(|(k, _)| k != "page").cloned().collect();
        kept.push(("page".into(), page.to_string()));
        format!(
            "/app/documents?{}",
            form_urlencoded::Serializer::new(String::new())
                .extend_pairs(kept)
                .finish()
        )
    };
    let selected_status = match query.status {
        Some(StatusFilter::Trash) => "TRASH",
        Some(StatusFilter::Is(s)) => s.as_str(),
        None => "",
    };
    let body = html! {
        (nav(console))
        h1 { "Documents" }
        form.card method="post" action="/app/documents" enctype="multipart/form-data" id="upload" {
            (console.csrf_field())
            h2 { "Upload a PDF" }
            label for="title" { "Title" }
            input type="text" id="title" name="title" maxlength="500" placeholder="Defaults to the file name";
            label for="file" { "PDF (at most 50 MiB)" }
            input type="file" id="file" name="file" accept="application/pdf" required;
            button.primary type="submit" { "Upload" }
            @if let Some(error) = &upload_error { p.error role="alert" { (error) } }
        }
        form.card method="get" action="/app/documents" id="filters" {
            label for="search" { "Search titles" }
            input type="search" id="search" name="search" value=(query.search.clone().unwrap_or_default());
            label for="status" { "Status" }
            select id="status" name="status" {
                @for (value, label) in [("", "Any"), ("DRAFT", "Draft"), ("SENT", "Sent"), ("COMPLETED", "Completed"), ("TRASH", "Declined, expired or cancelled")] {
                    option value=(value) selected[value == selected_status] { (label) }
                }
            }
            label for="sortBy" { "Sort by" }
            select id="sortBy" name="sortBy" {
                option value="dateCreated" selected[query.sort_by == SortBy::DateCreated] { "Created" }
                option value="dateModified" selected[query.sort_by == SortBy::DateModified] { "Modified" }
                option value="documentName" selected[query.sort_by == SortBy::DocumentName] { "Title" }
            }
            select name="sortOrder" aria-label="Order" {
                option value="DESC" selected[query.sort_order == SortOrder::Desc] { "Newest / Z first" }
                option value="ASC" selected[query.sort_order == SortOrder::Asc] { "Oldest / A first" }
            }
            button type="submit" { "Apply" }
        }
        p { (total) " documents" }
        table id="documents" {
            tr { th { "Title" } th { "Status" } th { "Code" } th { "Pages" } th { "Created" } th { "Modified" } }
            @for d in &found {
                tr {
                    td { a href=(format!("/app/documents/{}", d.id)) { (d.title) } }
                    td { (d.status) } td { (d.code) } td { (d.pages) }
                    td { (time(d.created_at)) } td { (time(d.updated_at)) }
                }
            }
        }
        @if pages > 1 {
            nav id="paging" {
                @if query.page > 1 { a href=(link(query.page - 1)) { "← Previous" } }
                span { "Page " (query.page) " of " (pages) }
                @if query.page < pages { a href=(link(query.page + 1)) { "Next →" } }
            }
        }
    };
    Ok(page(status, "Documents", body))
}

/// Streams the upload into memory up to the limit (the PDF is inspected whole anyway), then
/// stores it through the same function as `signet-api document upload`.
async fn upload(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    mut multipart: Multipart,
) -> Result<Response, Failure> {
    // Before the body is read: each upload holds up to 50 MiB and a blocking thread.
    let account_slot = state
        .gates
        .uploads_per_account
        .try_acquire(console.session.account_id);
    let slot = state.gates.uploads.admit();
    let (Some(_account_slot), Some(_slot)) = (account_slot, slot) else {
        let mut response = render_list(
            &state,
            &console,
            "",
            Some("Too many uploads at once. Try again in a moment.".into()),
            StatusCode::TOO_MANY_REQUESTS,
        )
        .await?;
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return Ok(response);
    };
    let _running = _slot.run().await;
    let (mut csrf, mut title, mut file_name, mut bytes) =
        (String::new(), String::new(), String::new(), Vec::new());
    let mut too_large = false;
    while let Ok(Some(mut field)) = multipart.next_field().await {
        match field.name().unwrap_or_default() {
            "csrf" => csrf = field.text().await.unwrap_or_default(),
            "title" => title = field.text().await.unwrap_or_default(),
            "file" => {
                file_name = field.file_name().unwrap_or_default().to_owned();
                while let Ok(Some(chunk)) = field.chunk().await {
                    if bytes.len() + chunk.len() > signet_pdf::MAX_UPLOAD_BYTES {
                        too_large = true;
                        break;
                    }
                    bytes.extend_from_slice(&chunk);
                }
            }
            _ => {}
        }
    }
    console.check_token(&csrf)?;
    let refused = |message: String| async {
        render_list(&state, &console, "", Some(message), StatusCode::BAD_REQUEST).await
    };
    if too_large {
        return refused("The file is larger than 50 MiB.".into()).await;
    }
    let title = match title.trim() {
        "" => file_name
            .trim_end_matches(".pdf")
            .trim_end_matches(".PDF")
            .to_owned(),
        given => given.to_owned(),
    };
    match drafting::upload_document(
        &state.db.pool,
        &state.store,
        console.session.account_id,
        &title,
        bytes,
        (state.config.limits.pdf, &state.gates.inspecting),
        &actor,
    )
    .await
    {
        Ok(document) => {
            Ok(Redirect::to(&format!("/app/documents/{}", document.id)).into_response())
        }
        Err(signet_common::Error::Pdf(e)) => refused(format!("Cannot upload: {e}.")).await,
        Err(signet_common::Error::Invalid(problems)) => {
            refused(format!(
                "Cannot upload: the title {}.",
                problems.first().map_or("is invalid", |p| p.reason.as_str())
            ))
            .await
        }
        Err(e) => Err(e.into()),
    }
}

fn document_id(id: &str) -> Result<Uuid, Failure> {
    id.parse()
        .map_err(|_| Failure::Api(ApiError::DocumentNotFound))
}

async fn detail(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    render_detail(&state, &console, document_id(&id)?, None, StatusCode::OK).await
}

async fn render_detail(
    state: &AppState,
    console: &Console,
    id: Uuid,
    error: Option<String>,
    status: StatusCode,
) -> Result<Response, Failure> {
    let (document, recipients, fields) =
        drafting::document_detail(&state.db.pool, console.session.account_id, id).await?;
    let trail = drafting::audit_trail(&state.db.pool, console.session.account_id, id).await?;
    let link = state.links.url(document.id, Utc::now());
    let completed = document.status == DocumentStatus::Completed;
    let cancellable = matches!(
        document.status,
        DocumentStatus::Draft | DocumentStatus::Sent
    );
    let draft = document.status == DocumentStatus::Draft;
    let week = (Utc::now() + chrono::Duration::days(7))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    let body = html! {
        (nav(console))
        h1 { (document.title) }
        @if let Some(error) = &error { p.error role="alert" id="error" { (error) } }
        p.banner id="status" { "Status: " strong { (document.status) } " · code " (document.code) " · " (document.pages) " pages" }
        div.card {
            p { a href=(format!("{link}&original=1")) { "Original PDF" } }
            @if completed { p { a href=(link) id="final-pdf" { "Signed PDF with certificate" } } }
            p { small { "Created " (time(document.created_at)) " · modified " (time(document.updated_at))
                @if let Some(expiry) = document.expiry_date { " · expires " (time(expiry)) } } }
            @if cancellable {
                form method="post" action=(format!("/app/documents/{}/cancel", document.id)) {
                    (console.csrf_field())
                    button.danger type="submit" { "Cancel document" }
                }
            }
        }
        section.card id="recipients" {
            h2 { "Recipients" }
            @if recipients.is_empty() { p { "None yet." } }
            @for r in &recipients {
                h3 { span.swatch style=(format!("background:{}", r.color_code)) {} (r.name) " <" (r.email) "> · " (r.role) " · " (r.status)
                    @if let Some(delivery) = r.delivery_status.0 { " · e-mail " span.delivery data-status=(delivery) { (delivery) } } }
                @if draft {
                    form.remove-recipient method="post" action=(format!("/app/documents/{}/recipients/{}/remove", document.id, r.id)) {
                        (console.csrf_field())
                        button.danger type="submit" { "Remove " (r.name) " and their fields" }
                    }
                }
                @if r.delivery_status.0 == Some(DeliveryStatus::Failed) {
                    div.failed-delivery {
                        p.error { "The invitation could not be delivered: " (r.delivery_error.as_deref().unwrap_or("unknown reason")) }
                        @if document.status == DocumentStatus::Sent {
                            form method="post" action=(format!("/app/documents/{}/recipients/{}/resend", document.id, r.id)) {
                                (console.csrf_field())
                                label for=(format!("resend-{}", r.id)) { "Correct the address if it is wrong, then send the invitation again" }
                                input type="email" id=(format!("resend-{}", r.id)) name="email" value=(r.email) required maxlength="254";
                                button.primary type="submit" { "Send again" }
                            }
                        }
                    }
                }
                ul {
                    @for f in fields.iter().filter(|f| f.recipient_id == r.id) {
                        li { (f.field_type) " on page " (f.page) " at " (f.x) ", " (f.y) " (" (f.width) " × " (f.height) ")"
                            @if let Some(value) = f.value.as_deref().filter(|v| !v.starts_with("data:")) { " — " (value) } }
                    }
                }
            }
        }
        @if draft {
            form.card method="post" action=(format!("/app/documents/{}/recipients", document.id)) id="add-recipient" {
                (console.csrf_field())
                h2 { "Add a recipient" }
                label for="name" { "Name" } input type="text" id="name" name="name" required maxlength="200";
                label for="email" { "E-mail" } input type="email" id="email" name="email" required maxlength="254";
                label for="role" { "Role" }
                select id="role" name="role" { option value="SIGNER" { "Signer" } option value="VIEWER" { "Viewer" } }
                button.primary type="submit" { "Add" }
            }
            @if !recipients.is_empty() {
                p.card { a href=(format!("/app/documents/{}/place", document.id)) id="place-fields" { "Place fields on the pages" } }
                form.card method="post" action=(format!("/app/documents/{}/send", document.id)) id="send" {
                    (console.csrf_field())
                    h2 { "Send for signing" }
                    label for="message" { "Message" } textarea id="message" name="message" rows="2" required maxlength="5000" {}
                    label for="description" { "Description" } textarea id="description" name="description" rows="2" maxlength="5000" {}
                    label for="expiry" { "Expires (UTC)" } input type="datetime-local" id="expiry" name="expiry" value=(week) required;
                    button.primary type="submit" { "Send" }
                }
            }
        }
        section.card id="audit" {
            h2 { "Audit trail" }
            table {
                tr { th { "Time" } th { "Event" } th { "Message" } th { "IP" } th { "User agent" } }
                @for e in &trail {
                    tr { td { (time(e.created_at)) } td { (e.event) } td { (e.message) } td { (e.ip_address) } td { (e.user_agent) } }
                }
            }
        }
    };
    Ok(page(status, &document.title, body))
}

/// A refused change is shown on the document page, which is left as it was.
async fn refused_or(
    state: &AppState,
    console: &Console,
    id: Uuid,
    outcome: signet_common::error::Result<()>,
) -> Result<Response, Failure> {
    match outcome {
        Ok(()) => Ok(Redirect::to(&format!("/app/documents/{id}")).into_response()),
        Err(e @ (signet_common::Error::Rule(_) | signet_common::Error::Invalid(_))) => {
            let message = match &e {
                signet_common::Error::Invalid(problems) => problems
                    .iter()
                    .map(|p| format!("{}: {}", p.field, p.reason))
                    .collect::<Vec<_>>()
                    .join("; "),
                other => other.to_string(),
            };
            render_detail(state, console, id, Some(message), StatusCode::BAD_REQUEST).await
        }
        Err(e) => Err(e.into()),
    }
}

async fn add_recipient(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id = document_id(&id)?;
    let role = match form.get("role").map(String::as_str) {
        Some("VIEWER") => RecipientRole::Viewer,
        _ => RecipientRole::Signer,
    };
    let input = RecipientInput {
        name: form.get("name").cloned().unwrap_or_default(),
        email: form.get("email").cloned().unwrap_or_default(),
        role,
        country_code: None,
        phone_number: None,
    };
    let outcome = drafting::add_recipients(
        &state.db.pool,
        console.session.account_id,
        id,
        vec![input],
        &actor,
    )
    .await;
    refused_or(&state, &console, id, outcome).await
}

async fn send(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id = document_id(&id)?;
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    // A datetime-local input has no zone; the form says UTC.
    let expiry = chrono::NaiveDateTime::parse_from_str(&field("expiry"), "%Y-%m-%dT%H:%M")
        .map(|t| t.and_utc().to_rfc3339())
        .unwrap_or_else(|_| field("expiry"));
    let input = SendInput {
        message: field("message"),
        description: field("description"),
        expiry_date: expiry,
    };
    let outcome = drafting::send_document(
        &state.db.pool,
        console.session.account_id,
        id,
        input,
        &actor,
        &state.notifier,
    )
    .await;
    refused_or(&state, &console, id, outcome).await
}

/// The placement page: pages rendered with pdf.js (place-fields.mjs does the work).
async fn place(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let id = document_id(&id)?;
    let (document, recipients, fields) =
        drafting::document_detail(&state.db.pool, console.session.account_id, id).await?;
    let people: Vec<serde_json::Value> = recipients
        .iter()
        .map(|r| serde_json::json!({"email": r.email, "name": r.name, "color": r.color_code}))
        .collect();
    // The fields already saved, to show, move, resize and remove.
    let saved: Vec<serde_json::Value> = fields
        .iter()
        .filter_map(|f| {
            let recipient = recipients.iter().find(|r| r.id == f.recipient_id)?;
            Some(serde_json::json!({
                "id": f.id, "recipientEmail": recipient.email, "type": f.field_type,
                "page": f.page, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
            }))
        })
        .collect();
    let body = html! {
        (nav(&console))
        h1 { "Place fields · " (document.title) }
        div.card #toolbar {
            label for="recipient" { "Recipient" }
            select id="recipient" { @for r in &recipients { option value=(r.email) { (r.name) " <" (r.email) ">" } } }
            label for="type" { "Field" }
            select id="type" { option { "SIGNATURE" } option { "INITIALS" } option { "DATE" } option { "TEXT" } }
            p { small { "Click a page to place a field; drag a field to move it, its corner to resize it; double-click it to remove it. Nothing changes until you save." } }
            button.primary type="button" id="save" { "Save fields" }
            " " a href=(format!("/app/documents/{id}")) { "Back" }
            p id="placement-status" role="status" style="white-space:pre-wrap" {}
        }
        div #placement
            data-pdfjs-url=(format!("{}/pdf.min.mjs", assets::BASE))
            data-worker-url=(format!("{}/pdf.worker.min.mjs", assets::BASE))
            data-file-url=(format!("{}&original=1", state.links.url(id, Utc::now())))
            data-save-url=(format!("/app/documents/{id}/fields"))
            data-done-url=(format!("/app/documents/{id}"))
            data-csrf=(console.session.csrf_token)
            data-recipients=(serde_json::to_string(&people).expect("serialisable"))
            data-fields=(serde_json::to_string(&saved).expect("serialisable")) {}
        script type="module" src=(format!("{}/place-fields.mjs", assets::BASE)) {}
    };
    Ok(page(StatusCode::OK, "Place fields", body))
}

/// What the placement page saves: the saved fields it keeps, each with its box (moved or
/// resized, or not), and the new ones. Saved fields it leaves out are removed.
#[derive(serde::Deserialize)]
struct Arrangement {
    #[serde(default)]
    keep: Vec<FieldPlacement>,
    #[serde(default)]
    add: Vec<FieldInput>,
}

/// Saves the placement page's fields in one change (`drafting::arrange_fields`: new fields by
/// the rules of `POST /documents/:id/fields`); answers in the envelope so the page can show the
/// API's messages.
async fn save_fields(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    headers: axum::http::HeaderMap,
    Path(id): Path<String>,
    ApiJson(arrangement): ApiJson<Arrangement>,
) -> Result<Response, ApiError> {
    let token = headers
        .get("x-csrf-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if console.check_token(token).is_err() {
        return Err(ApiError::CsrfRejected);
    }
    let id: Uuid = id.parse().map_err(|_| ApiError::DocumentNotFound)?;
    drafting::arrange_fields(
        &state.db.pool,
        console.session.account_id,
        id,
        arrangement.keep,
        arrangement.add,
        &actor,
    )
    .await?;
    Ok(success("Fields saved", crate::error::Empty {}))
}

/// Removes a recipient and their fields from a DRAFT document.
async fn remove_recipient(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path((id, recipient)): Path<(String, String)>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id = document_id(&id)?;
    let outcome = match recipient.parse::<Uuid>() {
        Ok(recipient) => {
            drafting::remove_recipient(
                &state.db.pool,
                console.session.account_id,
                id,
                recipient,
                &actor,
            )
            .await
        }
        Err(_) => Err(signet_common::Error::invalid(
            "recipient",
            "not a recipient of this document",
        )),
    };
    refused_or(&state, &console, id, outcome).await
}

/// Sends a failed invitation again, to the corrected address if one was typed.
async fn resend_invitation(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path((id, recipient)): Path<(String, String)>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id = document_id(&id)?;
    let Ok(recipient) = recipient.parse::<Uuid>() else {
        return refused_or(
            &state,
            &console,
            id,
            Err(signet_common::Rule::NotResendable.into()),
        )
        .await;
    };
    let outcome = delivery_failures::resend_invitation(
        &state.db.pool,
        console.session.account_id,
        id,
        recipient,
        form.get("email").map(String::as_str),
        &actor,
    )
    .await;
    refused_or(&state, &console, id, outcome).await
}

async fn cancel(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id = document_id(&id)?;
    drafting::cancel_document(&state.db.pool, console.session.account_id, id, &actor).await?;
    Ok(Redirect::to(&format!("/app/documents/{id}")).into_response())
}
