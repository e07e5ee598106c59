//! The console's documents: the list (the API's filters, search, sorting and paging), upload,
//! the document page, and cancel. Same domain functions as the API and the CLI.

use axum::{
    Router,
    extract::{DefaultBodyLimit, Multipart, Path, RawQuery, State},
    http::StatusCode,
    response::{IntoResponse, Redirect, Response},
    routing::{get, post},
};
use chrono::{DateTime, SecondsFormat, Utc};
use maud::html;
use signet_common::{
    documents,
    model::DocumentStatus,
    pdf,
    query::{ListQuery, SortBy, SortOrder, StatusFilter},
    workflow,
};
use uuid::Uuid;

use super::console::{Console, ConsoleForm, Failure, nav, page};
use crate::{AppState, error::ApiError, extract::ClientActor};

/// Room for the form fields around the largest accepted PDF.
const UPLOAD_BODY_LIMIT: usize = pdf::MAX_UPLOAD_BYTES + 64 * 1024;

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
                    if bytes.len() + chunk.len() > pdf::MAX_UPLOAD_BYTES {
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
    match workflow::upload_document(
        &state.db.pool,
        &state.store,
        console.session.account_id,
        &title,
        &bytes,
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

async fn detail(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<String>,
) -> Result<Response, Failure> {
    let id: Uuid = id
        .parse()
        .map_err(|_| Failure::Api(ApiError::DocumentNotFound))?;
    let (document, recipients, fields) =
        workflow::document_detail(&state.db.pool, console.session.account_id, id).await?;
    let trail = workflow::audit_trail(&state.db.pool, console.session.account_id, id).await?;
    let link = state.links.url(document.id, Utc::now());
    let completed = document.status == DocumentStatus::Completed;
    let cancellable = matches!(
        document.status,
        DocumentStatus::Draft | DocumentStatus::Sent
    );
    let body = html! {
        (nav(&console))
        h1 { (document.title) }
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
                h3 { span.swatch style=(format!("background:{}", r.color_code)) {} (r.name) " <" (r.email) "> · " (r.role) " · " (r.status) }
                ul {
                    @for f in fields.iter().filter(|f| f.recipient_id == r.id) {
                        li { (f.field_type) " on page " (f.page) " at " (f.x) ", " (f.y) " (" (f.width) " × " (f.height) ")"
                            @if let Some(value) = f.value.as_deref().filter(|v| !v.starts_with("data:")) { " — " (value) } }
                    }
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
    Ok(page(StatusCode::OK, &document.title, body))
}

async fn cancel(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    Path(id): Path<String>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let id: Uuid = id
        .parse()
        .map_err(|_| Failure::Api(ApiError::DocumentNotFound))?;
    workflow::cancel_document(&state.db.pool, console.session.account_id, id, &actor).await?;
    Ok(Redirect::to(&format!("/app/documents/{id}")).into_response())
}
