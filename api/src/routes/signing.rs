//! The signer's side: `GET /sign/{token}` (a page a person can use), and its JSON endpoints
//! `GET /sign/{token}/session`, `POST /sign/{token}/submit`, `POST /sign/{token}/decline`.

use axum::{
    Router,
    extract::{Path, State},
    http::StatusCode,
    response::{IntoResponse, Response},
    routing::{get, post},
};
use chrono::Utc;
use maud::{Markup, PreEscaped, html};
use serde::Serialize;
use signet_common::{
    Error,
    flows::signing::{self, SigningSession},
    model::{DocumentId, DocumentStatus, FieldType, RecipientRole, RecipientStatus},
    wire::{
        inputs::{DeclineInput, SubmitInput},
        views::{FieldView, Timestamp},
    },
};

use super::assets;
use crate::{
    AppState,
    error::{ApiError, Empty, success},
    extract::{ApiJson, ClientActor},
    html::{layout, time},
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sign/{token}", get(page))
        .route("/sign/{token}/session", get(session))
        .route("/sign/{token}/submit", post(submit))
        .route("/sign/{token}/decline", post(decline))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionView {
    document: SessionDocument,
    recipient: SessionRecipient,
    fields: Vec<FieldView>,
    /// Whether this link can still sign or decline.
    can_sign: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionDocument {
    id: DocumentId,
    title: String,
    status: DocumentStatus,
    pages: i32,
    /// Null once the document is withdrawn (cancelled, declined, expired).
    file_url: Option<String>,
    message: Option<String>,
    description: Option<String>,
    expiry_date: Option<Timestamp>,
}

#[derive(Serialize)]
struct SessionRecipient {
    name: String,
    email: String,
    role: RecipientRole,
    status: RecipientStatus,
}

impl SessionView {
    fn new(session: &SigningSession, file_url: Option<String>) -> Self {
        let d = &session.document;
        let r = &session.recipient;
        Self {
            document: SessionDocument {
                id: d.id,
                title: d.title.clone(),
                status: d.status,
                pages: d.pages,
                file_url,
                message: d.send_message.clone(),
                description: d.send_description.clone(),
                expiry_date: d.expiry_date.map(Timestamp),
            },
            recipient: SessionRecipient {
                name: r.name.clone(),
                email: r.email.clone(),
                role: r.role,
                status: r.status,
            },
            fields: session.fields.iter().map(FieldView::from).collect(),
            can_sign: session.can_act(),
        }
    }
}

/// The first call records VIEWED.
async fn session(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ClientActor(actor): ClientActor,
) -> Result<Response, ApiError> {
    let session = signing::open(&state.db.pool, &token, &actor, &state.notifier).await?;
    let file_url = session
        .may_download()
        .then(|| state.links.url(session.document.id, Utc::now()));
    Ok(success(
        "Signing session retrieved successfully",
        SessionView::new(&session, file_url),
    ))
}

async fn submit(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<SubmitInput>,
) -> Result<Response, ApiError> {
    signing::submit(&state.db.pool, &token, body, &actor, &state.notifier).await?;
    Ok(success("Document signed successfully", Empty {}))
}

async fn decline(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<DeclineInput>,
) -> Result<Response, ApiError> {
    signing::decline(&state.db.pool, &token, body, &actor, &state.notifier).await?;
    Ok(success("Document declined successfully", Empty {}))
}

/// The page a signer opens from the e-mail. It records VIEWED like the session endpoint.
async fn page(
    State(state): State<AppState>,
    Path(token): Path<String>,
    ClientActor(actor): ClientActor,
) -> Response {
    match signing::open(&state.db.pool, &token, &actor, &state.notifier).await {
        Ok(session) => {
            let file_url = session
                .may_download()
                .then(|| state.links.url(session.document.id, Utc::now()));
            signing_page(&token, &session, file_url.as_deref()).into_response()
        }
        Err(Error::SigningLinkNotFound) => (
            StatusCode::NOT_FOUND,
            layout(
                "Link not found",
                html! {
                    h1 { "This signing link is not valid" }
                    p { "Check that you opened the whole link from your e-mail." }
                },
            ),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

fn field_label(field: &FieldView) -> String {
    let kind = match field.field_type {
        signet_common::model::FieldType::Signature => "Signature",
        signet_common::model::FieldType::Initials => "Initials",
        signet_common::model::FieldType::Date => "Date",
        signet_common::model::FieldType::Text => "Text",
    };
    format!("{kind} — page {}", field.page)
}

/// The typed-signature preview: ink blue, as the final PDF stamps typed signatures.
const TYPED_PREVIEW_STYLE: &str = ".typed-preview{font-family:\"Signet Text\",sans-serif;\
     color:#0d2673;font-size:1.6rem;min-height:2.2rem;margin-top:4px;unicode-bidi:plaintext}";

fn signing_page(token: &str, session: &SigningSession, file_url: Option<&str>) -> Markup {
    let document = &session.document;
    let recipient = &session.recipient;
    let fields: Vec<FieldView> = session.fields.iter().map(FieldView::from).collect();
    let state_note = match (document.status, recipient.status) {
        (DocumentStatus::Completed, _) => Some(
            "This document is complete. The download below is the signed PDF with its certificate.",
        ),
        (DocumentStatus::Declined, _) => {
            Some("This document was declined and can no longer be signed.")
        }
        (DocumentStatus::Expired, _) => {
            Some("This document expired before everyone signed. It can no longer be signed.")
        }
        (DocumentStatus::Cancelled, _) => {
            Some("The sender cancelled this document. It can no longer be signed.")
        }
        (_, RecipientStatus::Signed) => {
            Some("You have signed. You will get an e-mail when everyone has signed.")
        }
        _ if !session.can_act() && recipient.role == RecipientRole::Viewer => {
            Some("You have been sent this document to view; there is nothing to sign.")
        }
        _ if !session.can_act() => Some("This document can no longer be signed."),
        _ => None,
    };
    let today = Utc::now().format("%Y-%m-%d").to_string();
    layout(
        &document.title,
        html! {
            h1 { (document.title) }
            p { "For " (recipient.name) " <" (recipient.email) ">" }
            @if let Some(note) = state_note { p.banner id="state" { (note) } }
            @if let Some(message) = document.send_message.as_deref().filter(|m| !m.is_empty()) {
                div.card { p { (message) } @if let Some(d) = document.send_description.as_deref().filter(|d| !d.is_empty()) { p { (d) } } }
            }
            @if let Some(file_url) = file_url {
                div.card {
                    div #pages
                        data-pdfjs-url=(format!("{}/pdf.min.mjs", assets::BASE))
                        data-worker-url=(format!("{}/pdf.worker.min.mjs", assets::BASE))
                        data-file-url=(file_url)
                        data-color=(recipient.color_code)
                        data-base=(format!("/sign/{token}"))
                        data-fields=(serde_json::to_string(&fields).expect("serialisable")) {}
                    p { a href=(file_url) { "Open or download the PDF" } }
                }
            }
            @if session.can_act() {
                form.card id="sign" {
                    h2 { "Your fields" }
                    @for field in &fields {
                        label for=(field.id) {
                            span.swatch style=(format!("background:{}", recipient.color_code)) {}
                            (field_label(field))
                        }
                        @match field.field_type {
                            FieldType::Date => input type="date" id=(field.id) name=(field.id) data-field value=(today) required;,
                            FieldType::Text => input type="text" id=(field.id) name=(field.id) data-field required autocomplete="off";,
                            FieldType::Signature | FieldType::Initials => {
                                input type="text" id=(field.id) name=(field.id) data-field autocomplete="off" placeholder="Type it, or draw it below";
                                // What the final PDF will show for the typed value: the same
                                // fonts, the same direction rule (the first strong character).
                                div.typed-preview data-for=(field.id) dir="auto" aria-live="polite" {}
                                canvas.pad data-for=(field.id) width="600" height="150" aria-label="Draw here" {}
                                button.clear type="button" data-for=(field.id) { "Clear drawing" }
                            }
                        }
                    }
                    button.primary type="submit" { "Sign" }
                    p.error id="sign-error" {}
                }
                form.card id="decline" {
                    h2 { "Decline" }
                    label for="reason" { "Reason (optional)" }
                    textarea id="reason" name="reason" rows="2" {}
                    button.danger type="submit" { "Decline to sign" }
                    p.error id="decline-error" {}
                }
            }
            style { (PreEscaped(format!("{}{TYPED_PREVIEW_STYLE}", assets::font_faces()))) }
            @if file_url.is_some() {
                script type="module" src=(format!("{}/sign-page.mjs", assets::BASE)) {}
            }
            @if let Some(expiry) = document.expiry_date {
                p { small { "Link valid until " (time(expiry)) } }
            }
        },
    )
}
