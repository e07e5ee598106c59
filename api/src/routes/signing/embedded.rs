//! Embedded signing's entry (issue #34): `GET /embed/{ticket}` uses a session's single-use URL
//! and binds the session to this browser with a cookie, then sends it to the session's signing
//! page (`/embedded/{session}`, the signing link's handlers); and what a page of a session
//! that cannot be used here shows and tells the integrator.

use axum::{
    extract::{Path, RawQuery, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use signet_common::{
    flows::embedding::{self, Embedding, Refused},
    infra::secrets::EmbedSecret,
};
use signet_i18n::Language;

use super::views;
use crate::{
    AppState,
    error::ApiError,
    extract::{AskedLanguage, EMBEDDED_COOKIE, query_once},
    html,
};

/// Uses the ticket (once, before it expires) and goes to the session's page in this browser.
pub(super) async fn open(
    State(state): State<AppState>,
    Path(ticket): Path<String>,
    RawQuery(query): RawQuery,
    AskedLanguage(asked): AskedLanguage,
) -> Response {
    let ticket = EmbedSecret::given(ticket);
    let opened = match embedding::open(&state.db.pool, &state.config.signing, &ticket).await {
        Ok(Some(opened)) => opened,
        Ok(None) => {
            let language = asked.unwrap_or(state.config.signing.default_language);
            return refused(&state, Refused::Ticket(&ticket), language).await;
        }
        Err(e) => return ApiError::from(e).into_response(),
    };
    let id = opened.session.id.0;
    let lang = query_once(query.as_deref(), "lang")
        .and_then(|tag| Language::from_tag(&tag))
        .map(|l| format!("?lang={}", l.tag()))
        .unwrap_or_default();
    // Secure and SameSite=None: sent from inside a frame on another site. Partitioned (CHIPS):
    // kept for that site only, so that browsers that block third-party cookies keep it too.
    let cookie = format!(
        "{EMBEDDED_COOKIE}={}; Path=/embedded/{id}; Max-Age={}; HttpOnly; Secure; SameSite=None; Partitioned",
        opened.browser.reveal(),
        state.config.signing.embed_session_ttl.as_secs()
    );
    let mut response = (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, format!("/embedded/{id}{lang}")),
            (header::SET_COOKIE, cookie),
        ],
    )
        .into_response();
    match embedding::for_browser(&state.db.pool, opened.session.id, &opened.browser).await {
        Ok(Some(embedding)) => allow_framing(&mut response, &embedding),
        Ok(None) => {}
        Err(e) => return ApiError::from(e).into_response(),
    }
    response
}

/// Lets the account's allowed origins (or the session's parent origin) frame the response.
pub(super) fn allow_framing(response: &mut Response, embedding: &Embedding) {
    let policy = html::page_csp(&embedding.frame_origins);
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, value);
    }
}

/// The page of a session that cannot be used here: its URL was used or has expired (410), or
/// this browser holds no unexpired session for it (410: it ended, or the browser did not keep
/// its cookie in a frame); 404 when there is no such session. It is shown in the integrator's
/// frame and tells it `signet:error`.
pub(super) async fn refused(state: &AppState, by: Refused<'_>, language: Language) -> Response {
    let reason = match by {
        Refused::Ticket(_) => views::EmbedRefusal::UrlUsed,
        Refused::Session(_) => views::EmbedRefusal::SessionEnded,
    };
    match embedding::refused(&state.db.pool, by).await {
        Ok(Some(embedding)) => {
            let page = views::embed_refused(language, reason, &embedding);
            let mut response = (StatusCode::GONE, page).into_response();
            allow_framing(&mut response, &embedding);
            response
        }
        Ok(None) => (StatusCode::NOT_FOUND, views::not_found(language)).into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}
