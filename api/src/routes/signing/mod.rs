//! The signer's side: `GET /sign/{token}` (a page a person can use), and its JSON endpoints
//! `GET /sign/{token}/session`, `POST /sign/{token}/submit`, `POST /sign/{token}/decline`,
//! and `POST /sign/{token}/fields/{fieldId}/attachment` (a file for an ATTACHMENT field);
//! for a recipient whose link asks for a code (issue #34), `POST /sign/{token}/auth` (check it)
//! and `POST /sign/{token}/auth/send` (send a one-time code). Every one of them but those two
//! goes through the authentication gate (`signet_common::flows::signer_auth::gate`), given the
//! browser's pass cookie ([`SignerPass`]).

use axum::{
    Router,
    body::Body,
    extract::{DefaultBodyLimit, FromRequestParts, Path, RawQuery, State},
    http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use chrono::Utc;
use serde::{Deserialize, Serialize};
use signet_common::{
    AuthRefusal, Error, Problem,
    flows::{
        attachments::{self, Upload},
        signer_auth::{self, BrowserPass, PASS_HOURS},
        signing::{self, SigningSession},
    },
    infra::secrets::SigningToken,
    model::{
        AttachmentId, DocumentId, DocumentStatus, Field, FieldId, RecipientRole, RecipientStatus,
        reader_language,
    },
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
    extract::{ApiJson, AskedLanguage, ClientActor, query_once},
};

mod views;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sign/{token}", get(page))
        .route("/sign/{token}/session", get(session))
        .route("/sign/{token}/consent", post(consent))
        .route("/sign/{token}/submit", post(submit))
        .route("/sign/{token}/decline", post(decline))
        .route("/sign/{token}/auth", post(authenticate))
        .route("/sign/{token}/auth/send", post(send_code))
        // The file is read up to ATTACHMENT_MAX_MIB (known only at run time) by the handler.
        .route(
            "/sign/{token}/fields/{field_id}/attachment",
            post(attach).layer(DefaultBodyLimit::disable()),
        )
}

/// The cookie a browser that passed a link's check keeps, scoped to that link's path.
const PASS_COOKIE: &str = "signet_signer_pass";

/// The browser's pass for the link: its pass cookie's value, if it sent one.
pub struct SignerPass(pub BrowserPass);

impl<S: Send + Sync> FromRequestParts<S> for SignerPass {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(BrowserPass::presented(cookie(
            &parts.headers,
            PASS_COOKIE,
        ))))
    }
}

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// The code a signer types.
#[derive(Deserialize)]
struct CodeInput {
    code: String,
}

/// What a checked code or a sent one answers: the method (nothing of the document).
#[derive(Serialize)]
struct AuthView {
    method: signet_common::model::AuthMethod,
}

/// Checks the code; on success the browser gets its pass (an HttpOnly, SameSite=Strict cookie
/// for this link's path, `Secure` when PUBLIC_URL is https).
async fn authenticate(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<CodeInput>,
) -> Result<Response, ApiError> {
    let pass = signer_auth::check_code(
        &state.db.pool,
        &state.gates.hashing,
        &token,
        &body.code,
        &actor,
        &state.notifier,
    )
    .await?;
    let secure = match state.config.api.public_url.starts_with("https://") {
        true => "; Secure",
        false => "",
    };
    let cookie = format!(
        "{PASS_COOKIE}={pass}; Path=/sign/{}; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        token.reveal(),
        PASS_HOURS * 3600
    );
    let mut response = success("Identity checked", Empty {});
    match HeaderValue::from_str(&cookie) {
        Ok(value) => {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
        // A token that cannot be a cookie's path found no recipient above.
        Err(_) => return Err(ApiError::SigningLinkNotFound),
    }
    Ok(response)
}

/// Sends a one-time code (EMAIL_OTP, SMS_OTP); at most one a minute and five an hour
/// (429 with `Retry-After`).
async fn send_code(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    ClientActor(actor): ClientActor,
) -> Result<Response, ApiError> {
    let method = signer_auth::send_code(&state.db.pool, &token, &actor, &state.notifier).await?;
    Ok(success("Code sent", AuthView { method }))
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
    SignerPass(pass): SignerPass,
    ClientActor(actor): ClientActor,
) -> Result<Response, ApiError> {
    let session = signing::open(&state.db.pool, &token, &pass, &actor, &state.notifier).await?;
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
    SignerPass(pass): SignerPass,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<ConsentInput>,
) -> Result<Response, ApiError> {
    let text = consent_text(&state, body.language);
    signing::consent(
        &state.db.pool,
        &token,
        &pass,
        &text,
        &actor,
        &state.notifier,
    )
    .await?;
    Ok(success("Consent recorded", Empty {}))
}

async fn submit(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    SignerPass(pass): SignerPass,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<SubmitInput>,
) -> Result<Response, ApiError> {
    signing::submit(&state.db.pool, &token, &pass, body, &actor, &state.notifier).await?;
    Ok(success("Document signed successfully", Empty {}))
}

async fn decline(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    SignerPass(pass): SignerPass,
    ClientActor(actor): ClientActor,
    ApiJson(body): ApiJson<DeclineInput>,
) -> Result<Response, ApiError> {
    signing::decline(&state.db.pool, &token, &pass, body, &actor, &state.notifier).await?;
    Ok(success("Document declined successfully", Empty {}))
}

/// What the signer is told of a file they attached; its `id` is the field's value at signing.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AttachmentView {
    id: AttachmentId,
    field_id: FieldId,
    name: String,
    content_type: String,
    size: i64,
    sha256: String,
}

/// A file for one of the signer's ATTACHMENT fields: the raw body, its name in `?name=`. Its
/// kind is read from its bytes, whatever `Content-Type` says. Uploads are read under the same
/// gate as PDF uploads.
async fn attach(
    State(state): State<AppState>,
    Path((token, field_id)): Path<(SigningToken, FieldId)>,
    SignerPass(pass): SignerPass,
    RawQuery(query): RawQuery,
    body: Body,
) -> Result<Response, ApiError> {
    let Some(ticket) = state.gates.uploads.admit() else {
        return Err(ApiError::Unavailable);
    };
    let _running = ticket.run().await;
    let max_bytes = state.config.limits.attachment_max_bytes;
    let Ok(bytes) = axum::body::to_bytes(body, max_bytes).await else {
        return Err(ApiError::InvalidBody(vec![Problem::new(
            format!("fields.{field_id}"),
            format!(
                "the file is larger than the {} MiB an attachment may be",
                max_bytes / (1024 * 1024)
            ),
        )]));
    };
    let upload = Upload {
        field_id,
        file_name: query_once(query.as_deref(), "name"),
        bytes,
    };
    let attachment = attachments::upload(
        &state.db.pool,
        &state.store,
        &state.gates.pdf,
        &token,
        &pass,
        upload,
        max_bytes,
    )
    .await?;
    let view = AttachmentView {
        id: attachment.id,
        field_id: attachment.field_id,
        name: attachment.file_name,
        content_type: attachment.media_type,
        size: attachment.size,
        sha256: attachment.sha256,
    };
    Ok(success("File attached", view))
}

/// The page a signer opens from the e-mail. Fetching it records nothing (link scanners and
/// previews fetch it too); its script asks for the session, which records VIEWED, once it has
/// drawn the document.
async fn page(
    State(state): State<AppState>,
    Path(token): Path<SigningToken>,
    SignerPass(pass): SignerPass,
    AskedLanguage(asked): AskedLanguage,
) -> Response {
    let default = state.config.signing.default_language;
    match signing::look(&state.db.pool, &token, &pass).await {
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
                attachment_max_mib: state.config.limits.attachment_max_bytes / (1024 * 1024),
            };
            page.render().into_response()
        }
        Err(Error::SigningLinkNotFound) => {
            let language = asked.unwrap_or(default);
            (StatusCode::NOT_FOUND, views::not_found(language)).into_response()
        }
        Err(Error::SignerAuth(AuthRefusal::Required(_) | AuthRefusal::Locked(_))) => {
            auth_page(&state, &token, asked).await
        }
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The page of a link that asks for a code the browser has not given: the code form (or that
/// the link is locked), and nothing of the document. Fetching it sends no code: the page's
/// script asks for one (`/auth/send`) when none sent lately still works, and a button sends
/// another.
async fn auth_page(state: &AppState, token: &SigningToken, asked: Option<Language>) -> Response {
    let default = state.config.signing.default_language;
    match signer_auth::challenge(&state.db.pool, token).await {
        Ok(Some(challenge)) => {
            let language = asked.unwrap_or_else(|| {
                reader_language(
                    challenge.recipient_language,
                    challenge.document_language,
                    default,
                )
            });
            let status = match challenge.locked {
                true => StatusCode::FORBIDDEN,
                false => StatusCode::UNAUTHORIZED,
            };
            let page = views::AuthPage {
                token,
                challenge: &challenge,
                language,
            };
            (
                status,
                [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
                page.render(),
            )
                .into_response()
        }
        // The recipient's method was removed meanwhile (the document was deleted): as unknown.
        Ok(None) | Err(Error::SigningLinkNotFound) => {
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
