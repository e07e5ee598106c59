//! The account console at `/app` (server-rendered): sign-in and the API settings of DESIGN and
//! the spec — the key (shown once, then masked; regenerate, revoke), usage, the webhook URL,
//! its signing secret (reveal, rotate) and the delivery log with replay. Every form carries a
//! CSRF token; the session cookie is HttpOnly and SameSite=Lax (and Secure behind https).

use std::collections::HashMap;

use axum::{
    Form, Router,
    extract::{FromRequestParts, Path, State},
    http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts},
    response::{IntoResponse, Redirect, Response},
    routing::{get, post},
};
use chrono::{Duration, SecondsFormat, Utc};
use maud::{Markup, html};
use signet_common::{
    flows::sign_in::{self, Session, SignIn},
    infra::{secrets, ssrf},
    store::{accounts, api_keys, webhooks},
};
use uuid::Uuid;

use crate::{AppState, error::ApiError, extract::ClientActor, html::layout};

const SESSION_COOKIE: &str = "signet_session";
/// Webhook deliveries the settings page lists, newest first.
const DELIVERIES_SHOWN: i64 = 50;
/// Double-submit token for the sign-in form, which has no session yet.
const SIGN_IN_COOKIE: &str = "signet_sign_in";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/app", get(|| async { Redirect::to("/app/documents") }))
        .route("/app/sign-in", get(sign_in_page).post(sign_in))
        .route("/app/sign-out", post(sign_out))
        .route("/app/settings/api", get(settings))
        .route("/app/settings/api/key/generate", post(generate_key))
        .route("/app/settings/api/key/revoke", post(revoke_key))
        .route("/app/settings/api/webhook", post(set_webhook_url))
        .route(
            "/app/settings/api/webhook/secret/reveal",
            post(reveal_secret),
        )
        .route(
            "/app/settings/api/webhook/secret/rotate",
            post(rotate_secret),
        )
        .route("/app/settings/api/deliveries/{id}/replay", post(replay))
}

/// A console failure, shown as a page.
pub(super) enum Failure {
    SignInRequired,
    /// The form's CSRF token is missing or wrong.
    Forgery,
    Api(ApiError),
}

impl From<signet_common::Error> for Failure {
    fn from(error: signet_common::Error) -> Self {
        Self::Api(error.into())
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        match self {
            Self::SignInRequired => Redirect::to("/app/sign-in").into_response(),
            Self::Forgery => page(
                StatusCode::FORBIDDEN,
                "Form expired",
                html! {
                    h1 { "This form has expired" }
                    p { "Reload the page and try again." }
                },
            ),
            Self::Api(error) => page(
                error.status(),
                "Error",
                html! { h1 { "Something went wrong" } p { (error.to_string()) } },
            ),
        }
    }
}

pub(super) fn page(status: StatusCode, title: &str, body: Markup) -> Response {
    (status, layout(title, body)).into_response()
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

fn set_cookie(state: &AppState, name: &str, value: &str, max_age_secs: i64) -> HeaderValue {
    let secure = if state.config.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/app; HttpOnly; SameSite=Lax; Max-Age={max_age_secs}{secure}"
    ))
    .expect("cookie values are URL-safe")
}

/// A console form's fields. A body that is not a form reads as no fields, so that the CSRF
/// check (which then fails) answers it, as it answers any forged form.
pub(super) struct ConsoleForm(pub(super) HashMap<String, String>);

impl<S: Send + Sync> axum::extract::FromRequest<S> for ConsoleForm {
    type Rejection = std::convert::Infallible;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            Form::<HashMap<String, String>>::from_request(req, state)
                .await
                .map(|Form(fields)| fields)
                .unwrap_or_default(),
        ))
    }
}

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
        Ok(Self { session, token })
    }
}

impl Console {
    /// Every state-changing form must echo the session's CSRF token.
    pub(super) fn check(&self, form: &HashMap<String, String>) -> Result<(), Failure> {
        self.check_token(form.get("csrf").map(String::as_str).unwrap_or_default())
    }

    pub(super) fn check_token(&self, given: &str) -> Result<(), Failure> {
        if secrets::constant_time_eq(given.as_bytes(), self.session.csrf_token.as_bytes()) {
            Ok(())
        } else {
            Err(Failure::Forgery)
        }
    }

    pub(super) fn csrf_field(&self) -> Markup {
        html! { input type="hidden" name="csrf" value=(self.session.csrf_token); }
    }
}

/// The console's header: its sections and sign-out.
pub(super) fn nav(console: &Console) -> Markup {
    html! {
        nav {
            a href="/app/documents" { "Documents" }
            a href="/app/settings/api" { "API settings" }
            span style="flex:1" {}
            form method="post" action="/app/sign-out" { (console.csrf_field()) button type="submit" { "Sign out" } }
        }
    }
}

async fn sign_in_page(State(state): State<AppState>) -> Response {
    sign_in_form(&state, StatusCode::OK, None)
}

fn sign_in_form(state: &AppState, status: StatusCode, error: Option<String>) -> Response {
    let token = secrets::base64url(&secrets::random_bytes(24));
    let mut response = page(
        status,
        "Sign in",
        html! {
            h1 { "Sign in to Signet" }
            form.card method="post" action="/app/sign-in" {
                input type="hidden" name="csrf" value=(token);
                label for="email" { "E-mail" }
                input type="email" id="email" name="email" required autocomplete="username";
                label for="password" { "Password" }
                input type="password" id="password" name="password" required autocomplete="current-password";
                button.primary type="submit" { "Sign in" }
                @if let Some(error) = error { p.error role="alert" { (error) } }
            }
        },
    );
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(state, SIGN_IN_COOKIE, &token, 3600),
    );
    response
}

async fn sign_in(
    State(state): State<AppState>,
    headers: HeaderMap,
    ClientActor(actor): ClientActor,
    ConsoleForm(form): ConsoleForm,
) -> Response {
    let expected = cookie(&headers, SIGN_IN_COOKIE).unwrap_or_default();
    let given = form.get("csrf").map(String::as_str).unwrap_or_default();
    if expected.is_empty() || !secrets::constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        return Failure::Forgery.into_response();
    }
    let email = form.get("email").map(String::as_str).unwrap_or_default();
    let password = form.get("password").map(String::as_str).unwrap_or_default();
    let source = actor
        .ip_address
        .parse()
        .map_or_else(|_| actor.ip_address.clone(), sign_in::source_of);
    let outcome = sign_in::sign_in(
        &state.db.pool,
        &state.gates.sign_in,
        &state.gates.hashing,
        sign_in::Throttle::from(&state.config.limits),
        &source,
        email,
        password,
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
            Some("Wrong e-mail or password.".into()),
        ),
        Ok(SignIn::Throttled { retry_after_secs }) => with_retry_after(
            sign_in_form(
                &state,
                StatusCode::TOO_MANY_REQUESTS,
                Some(format!(
                    "Too many failed sign-ins. Try again in {retry_after_secs} seconds."
                )),
            ),
            retry_after_secs,
        ),
        Ok(SignIn::Busy) => with_retry_after(
            sign_in_form(
                &state,
                StatusCode::SERVICE_UNAVAILABLE,
                Some("Too many sign-ins at once. Try again in a moment.".into()),
            ),
            1,
        ),
        Err(e) => Failure::from(e).into_response(),
    }
}

fn with_retry_after(mut response: Response, secs: i64) -> Response {
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    response
}

async fn sign_out(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    sign_in::sign_out(&state.db.pool, &console.token).await?;
    let mut response = Redirect::to("/app/sign-in").into_response();
    response.headers_mut().append(
        header::SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", 0),
    );
    Ok(response)
}

/// What the settings page shows once, right after an action.
#[derive(Default)]
struct Flash {
    new_key: Option<String>,
    secret: Option<String>,
    notice: Option<String>,
    error: Option<String>,
}

async fn settings(State(state): State<AppState>, console: Console) -> Result<Response, Failure> {
    settings_page(&state, &console, Flash::default(), StatusCode::OK).await
}

async fn settings_page(
    state: &AppState,
    console: &Console,
    flash: Flash,
    status: StatusCode,
) -> Result<Response, Failure> {
    let pool = &state.db.pool;
    let account = accounts::find(pool, console.session.account_id).await?;
    let key = api_keys::active(pool, account.id).await?;
    let deliveries = webhooks::recent(pool, account.id, DELIVERIES_SHOWN).await?;
    let window = Duration::seconds(state.config.api_usage_window_secs);
    let window_open = account.usage_window_start + window > Utc::now();
    let (used, resets) = if window_open {
        (
            account.api_usage_count,
            Some(account.usage_window_start + window),
        )
    } else {
        (0, None)
    };
    let time = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Secs, true);
    let csrf = console.csrf_field();
    let body = html! {
        (nav(console))
        h1 { "API settings" }
        p { (account.name) " · " (account.email) }
        @if let Some(notice) = &flash.notice { p.banner role="status" { (notice) } }
        @if let Some(error) = &flash.error { p.error role="alert" { (error) } }
        section.card id="key" {
            h2 { "API key" }
            @if let Some(new_key) = &flash.new_key {
                p.banner { "Copy your new key now. It will not be shown again." }
                p { code id="new-key" { (new_key) } " "
                    button type="button" data-copy="new-key" { "Copy" } }
                script type="module" src=(format!("{}/copy.mjs", super::assets::BASE)) {}
            }
            @match &key {
                Some(key) => {
                    p { "Active key: " code id="masked-key" { (key.display) } }
                    p { small { "Created " (time(key.created_at)) @if let Some(used) = key.last_used_at { " · last used " (time(used)) } } }
                    form method="post" action="/app/settings/api/key/generate" { (csrf) button.primary type="submit" { "Regenerate" } " " small { "The current key stops working at once." } }
                    form method="post" action="/app/settings/api/key/revoke" { (csrf) button.danger type="submit" { "Revoke" } }
                }
                None => {
                    p { "No active key." }
                    form method="post" action="/app/settings/api/key/generate" { (csrf) button.primary type="submit" { "Generate a key" } }
                }
            }
        }
        section.card id="usage" {
            h2 { "Usage" }
            p { strong id="usage-count" { (used) } " of " strong id="usage-limit" { (account.api_usage_limit) } " requests in the current window" }
            p { small { @match resets { Some(at) => { "The window resets at " (time(at)) "." }, None => { "A new window starts with the next request." } } } }
        }
        section.card id="webhook" {
            h2 { "Webhook" }
            form method="post" action="/app/settings/api/webhook" {
                (csrf)
                label for="webhook-url" { "URL (empty to remove)" }
                input type="url" id="webhook-url" name="url" value=(account.webhook_url.clone().unwrap_or_default()) placeholder="https://example.com/hooks/signet";
                button.primary type="submit" { "Save" }
            }
            h3 { "Signing secret" }
            @match &flash.secret {
                Some(secret) => p { code id="webhook-secret" { (secret) } },
                None => form method="post" action="/app/settings/api/webhook/secret/reveal" { (csrf) button type="submit" { "Reveal" } },
            }
            form method="post" action="/app/settings/api/webhook/secret/rotate" { (csrf) button.danger type="submit" { "Rotate" } " " small { "Receivers must switch to the new secret." } }
            h3 { "Deliveries" }
            @if deliveries.is_empty() { p { "None yet." } } @else {
                table id="deliveries" {
                    tr { th { "Event" } th { "Status" } th { "Attempts" } th { "Last response" } th { "Created" } th {} }
                    @for d in &deliveries {
                        tr {
                            td { (d.event_type) }
                            td { (d.status) }
                            td { (d.attempt) }
                            td { (d.response_status.map(|s| s.to_string()).or_else(|| d.last_error.clone()).unwrap_or_default()) }
                            td { (time(d.created_at)) }
                            td { form method="post" action=(format!("/app/settings/api/deliveries/{}/replay", d.id)) { (csrf) button type="submit" { "Replay" } } }
                        }
                    }
                }
            }
        }
    };
    Ok(page(status, "API settings", body))
}

async fn generate_key(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let key = api_keys::generate(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        new_key: Some(key.key),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

async fn revoke_key(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    api_keys::revoke(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        notice: Some("The key was revoked. Generate a new one to use the API again.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

async fn set_webhook_url(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let url = form.get("url").map(|u| u.trim()).unwrap_or_default();
    let checked = if url.is_empty() {
        Ok(None)
    } else {
        ssrf::check_url(url, state.config.webhook_allow_private)
            .await
            .map(|parsed| Some(parsed.to_string()))
    };
    let flash = match checked {
        Ok(webhook_url) => {
            let update = accounts::AccountUpdate {
                usage_limit: None,
                webhook_url: Some(webhook_url),
            };
            accounts::update(&state.db.pool, console.session.account_id, &update).await?;
            Flash {
                notice: Some("Webhook URL saved.".into()),
                ..Flash::default()
            }
        }
        Err(refusal) => Flash {
            error: Some(format!("The webhook URL {url} {refusal}.")),
            ..Flash::default()
        },
    };
    let status = if flash.error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    settings_page(&state, &console, flash, status).await
}

async fn reveal_secret(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let account = accounts::find(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        secret: Some(account.webhook_secret),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

async fn rotate_secret(
    State(state): State<AppState>,
    console: Console,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    let secret = sign_in::rotate_webhook_secret(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        secret: Some(secret),
        notice: Some("The signing secret was rotated.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

async fn replay(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<Uuid>,
    ConsoleForm(form): ConsoleForm,
) -> Result<Response, Failure> {
    console.check(&form)?;
    // Another account's delivery is indistinguishable from a missing one.
    webhooks::replay(&state.db.pool, id, Some(console.session.account_id))
        .await?
        .ok_or(Failure::Api(ApiError::RouteNotFound))?;
    let flash = Flash {
        notice: Some("A new attempt is queued.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}
