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
use serde::Serialize;
use signet_common::{
    Error,
    flows::signing::{self, SigningSession},
    infra::secrets::SigningToken,
    model::{DocumentId, DocumentStatus, Field, RecipientRole, RecipientStatus, reader_language},
    wire::{
        inputs::{ConsentInput, DeclineInput, SubmitInput},
        views::{FieldView, Timestamp},
    },
};
use signet_i18n::Language;

use self::views::SigningPage;
use crate::{
    AppState,
    envelope::{Empty, success},
    error::ApiError,
    extract::{ApiJson, AskedLanguage, ClientActor},
};

mod views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sign/{token}", get(page))
        .route("/sign/{token}/session", get(session))
        .route("/sign/{token}/consent", post(consent))
        .route("/sign/{token}/submit", post(submit))
        .route("/sign/{token}/decline", post(decline))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionView {
    document: SessionDocument,
    recipient: SessionRecipient,
    fields: Vec<SessionField>,
    /// Whether this link can still sign or decline.
    can_sign: bool,
}

/// A field of the signer's, with the value of a field that takes one so far: prefilled
/// (read-only, or for the signer to keep or change) until they sign, then theirs.
#[derive(Serialize)]
struct SessionField {
    #[serde(flatten)]
    field: FieldView,
    value: Option<String>,
}

impl From<&Field> for SessionField {
    fn from(f: &Field) -> Self {
        Self {
            field: FieldView::from(f),
            value: f
                .field_type
                .takes_prefill()
                .then(|| f.value.clone())
                .flatten(),
        }
    }
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
    /// When the signer agreed to use electronic records and signatures, if they have.
    consented_at: Option<Timestamp>,
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
                consented_at: r.consented_at.map(Timestamp),
            },
            fields: session.fields.iter().map(SessionField::from).collect(),
            can_sign: session.can_act(),
        }
    }
}

/// The first call records VIEWED.
async fn session(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
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

/// The signer agrees to use electronic records and signatures, in the words the page showed
/// them (`language`); required before `submit`.
async fn consent(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<ConsentInput>,
) -> Result<Response, ApiError> {
    let text = consent_text(&state, body.language);
    signing::consent(&state.db.pool, &token, &text, &actor, &state.notifier).await?;
    Ok(success("Consent recorded", Empty {}))
}

async fn submit(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<SubmitInput>,
) -> Result<Response, ApiError> {
    signing::submit(&state.db.pool, &token, body, &actor, &state.notifier).await?;
    Ok(success("Document signed successfully", Empty {}))
}

async fn decline(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<DeclineInput>,
) -> Result<Response, ApiError> {
    signing::decline(&state.db.pool, &token, body, &actor, &state.notifier).await?;
    Ok(success("Document declined successfully", Empty {}))
}

/// The page a signer opens from the e-mail. Fetching it records nothing (link scanners and
/// previews fetch it too); its script asks for the session, which records VIEWED, once it has
/// drawn the document.
async fn page(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    AskedLanguage(asked): AskedLanguage,
) -> Response {
    let default = state.config.signing.default_language;
    match signing::look(&state.db.pool, &token).await {
        Ok(session) => {
            // What the reader asked for, else the language their e-mails are in.
            let language = asked.unwrap_or_else(|| {
                reader_language(
                    session.recipient.language,
                    session.document.language,
                    default,
                )
            });
            let file_url = session
                .may_download()
                .then(|| state.links.url(session.document.id, Utc::now()));
            let page = SigningPage {
                token: &token,
                session: &session,
                file_url: file_url.as_deref(),
                language,
                consent_text: consent_text(&state, language),
            };
            page.render().into_response()
        }
        Err(Error::SigningLinkNotFound) => {
            let language = asked.unwrap_or(default);
            (StatusCode::NOT_FOUND, views::not_found(language)).into_response()
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The electronic-records disclosure a signer agrees to: the operator's
/// (`SIGNING_CONSENT_TEXT`), else the catalogue's in the page's language.
fn consent_text(state: &AppState, language: Language) -> String {
    state
        .config
        .signing
        .consent_text
        .clone()
        .unwrap_or_else(|| language.text("sign-consent-text"))
}
