//! Who is signed in: the `Console` extractor (the session cookie), the forms' CSRF tokens, and
//! signing in and out. The session cookie is HttpOnly and SameSite=Lax (and Secure behind
//! https); every state-changing form echoes the session's CSRF token.

use std::collections::HashMap;

use axum::{
    Form,
    extract::{FromRequest, FromRequestParts, Request, State},
    http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts},
    response::{IntoResponse, Redirect, Response},
};
use serde::{Deserialize, de::DeserializeOwned};
use signet_common::{
    flows::sign_in::{self, Session, SignIn},
    infra::secrets,
    model::Actor,
};

use super::{failure::Failure, views};
use crate::{
    AppState,
    error::ApiError,
    extract::{ClientActor, cookie},
};

const SESSION_COOKIE: &str = "signet_session";
/// Double-submit token for the sign-in form, which has no session yet.
const SIGN_IN_COOKIE: &str = "signet_sign_in";

fn set_cookie(state: &AppState, name: &str, value: &str, max_age_secs: i64) -> HeaderValue {
    let secure = if state.config.api.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/app; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}"
    ))
    .expect("cookie values are URL-safe")
}

/// A console form's fields as sent, by name. A body that is not a form reads as no fields, so
/// that the CSRF check (which then fails) answers it, as it answers any forged form.
async fn form_fields(req: Request, state: &AppState) -> HashMap<String, String> {
    Form::<HashMap<String, String>>::from_request(req, state)
        .await
        .map(|Form(fields)| fields)
        .unwrap_or_default()
}

/// The fields of a form, read from whatever fields it has: every field of `T` must have a
/// default (`#[serde(default)]`), so that a form without them reads as it did by name.
fn read_fields<T: DeserializeOwned>(fields: HashMap<String, String>) -> Result<T, Failure> {
    let fields = fields.into_iter().map(|(k, v)| (k, v.into())).collect();
    serde_json::from_value(serde_json::Value::Object(fields)).map_err(|_| Failure::Forgery)
}

/// A state-changing form of a signed-in session: its `csrf` field must echo the session's CSRF
/// token, else it is refused as a forgery before the handler runs; its other fields read as
/// `T` (see [`read_fields`]).
pub(super) struct CsrfForm<T>(pub(super) T);

/// A form with no fields but its CSRF token.
#[derive(Deserialize)]
pub(super) struct NoFields {}

impl<T: DeserializeOwned> FromRequest<AppState> for CsrfForm<T> {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Failure> {
        let (mut parts, body) = req.into_parts();
        // The handler's `Console` left its token here; without one, the session is read now.
        let expected = match parts.extensions.get::<SessionCsrf>() {
            Some(SessionCsrf(token)) => token.clone(),
            None => {
                Console::from_request_parts(&mut parts, state)
                    .await?
                    .session
                    .csrf_token
            }
        };
        let mut fields = form_fields(Request::from_parts(parts, body), state).await;
        let given = fields.remove("csrf").unwrap_or_default();
        if !secrets::constant_time_eq(given.as_bytes(), expected.as_bytes()) {
            return Err(Failure::Forgery);
        }
        read_fields(fields).map(Self)
    }
}

/// The sign-in form, whose CSRF token is checked against its double-submit cookie.
#[derive(Deserialize)]
pub(super) struct SignInForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
}

impl FromRequest<AppState> for SignInForm {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Failure> {
        read_fields(form_fields(req, state).await)
    }
}

/// The session's CSRF token, left in the request by `Console` for `CsrfForm`.
#[derive(Clone)]
struct SessionCsrf(String);

/// The signed-in account; any console page without one redirects to the sign-in page.
pub(super) struct Console {
    pub(super) session: Session,
    token: String,
}

impl FromRequestParts<AppState> for Console {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Failure> {
        let token = cookie(&parts.headers, SESSION_COOKIE).ok_or(Failure::SignInRequired)?;
        let session = sign_in::session(&state.db.pool, &token)
            .await?
            .ok_or(Failure::SignInRequired)?;
        parts
            .extensions
            .insert(SessionCsrf(session.csrf_token.clone()));
        Ok(Self { session, token })
    }
}

impl Console {
    /// Every state-changing form must echo the session's CSRF token (`CsrfForm` checks the
    /// forms; this, the multipart upload and the placement page's JSON).
    pub(super) fn check_token(&self, given: &str) -> Result<(), Failure> {
        if secrets::constant_time_eq(given.as_bytes(), self.session.csrf_token.as_bytes()) {
            Ok(())
        } else {
            Err(Failure::Forgery)
        }
    }

    /// The placement pages' JSON saves carry the token in an `x-csrf-token` header; they are
    /// answered in the envelope, so a wrong one is the API's error, not a page.
    pub(super) fn check_header(&self, headers: &axum::http::HeaderMap) -> Result<(), ApiError> {
        let given = headers
            .get("x-csrf-token")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        self.check_token(given).map_err(|_| ApiError::CsrfRejected)
    }

    /// The token the session's forms carry.
    pub(super) fn csrf(&self) -> &str {
        &self.session.csrf_token
    }
}

pub(super) async fn sign_in_page(State(state): State<AppState>) -> Response {
    sign_in_form(&state, StatusCode::OK, None)
}

fn sign_in_form(state: &AppState, status: StatusCode, error: Option<&str>) -> Response {
    let token = secrets::base64url(&secrets::random_bytes(24));
    let mut response = views::page(status, "Sign in", views::sign_in(&token, error));
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(state, SIGN_IN_COOKIE, &token, 3600),
    );
    response
}

pub(super) async fn sign_in(
    State(state): State<AppState>,
    headers: HeaderMap,
    ClientActor(actor): ClientActor,
    form: SignInForm,
) -> Response {
    let expected = cookie(&headers, SIGN_IN_COOKIE).unwrap_or_default();
    let given = &form.csrf;
    if expected.is_empty() || !secrets::constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        return Failure::Forgery.into_response();
    }
    let source = client_source(&actor);
    let outcome = sign_in::sign_in(
        &state.db.pool,
        &state.gates.sign_in,
        &state.gates.hashing,
        sign_in::Throttle::from(&state.config.limits),
        &source,
        &form.email,
        &form.password,
    )
    .await;
    match outcome {
        Ok(SignIn::Ok { token }) => {
            let mut response = Redirect::to("/app/documents").into_response();
            let headers = response.headers_mut();
            headers.append(
                header::SET_COOKIE,
                set_cookie(&state, SESSION_COOKIE, &token, 12 * 3600),
            );
            headers.append(
                header::SET_COOKIE,
                set_cookie(&state, SIGN_IN_COOKIE, "", 0),
            );
            response
        }
        Ok(SignIn::WrongCredentials) => sign_in_form(
            &state,
            StatusCode::UNAUTHORIZED,
            Some("Wrong e-mail or password."),
        ),
        Ok(SignIn::Throttled { retry_after_secs }) => with_retry_after(
            sign_in_form(
                &state,
                StatusCode::TOO_MANY_REQUESTS,
                Some(&format!(
                    "Too many failed sign-ins. Try again in {}.",
                    crate::html::count(retry_after_secs, "second", "seconds")
                )),
            ),
            retry_after_secs,
        ),
        Ok(SignIn::Busy) => with_retry_after(
            sign_in_form(
                &state,
                StatusCode::SERVICE_UNAVAILABLE,
                Some("Too many sign-ins at once. Try again in a moment."),
            ),
            1,
        ),
        Err(e) => Failure::from(e).into_response(),
    }
}

/// Where a client's request comes from, as the sign-in throttle and the verify page's rate
/// count it (see `sign_in::source_of`); a request without a known address counts as the
/// address its audit entries record.
pub(super) fn client_source(actor: &Actor) -> String {
    match actor {
        Actor::Client { ip: Some(ip), .. } => sign_in::source_of(*ip),
        _ => actor.record().ip_address,
    }
}

fn with_retry_after(mut response: Response, secs: i64) -> Response {
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

pub(super) async fn sign_out(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    sign_in::sign_out(&state.db.pool, &console.token).await?;
    let mut response = Redirect::to("/app/sign-in").into_response();
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", 0),
    );
    Ok(response)
}
