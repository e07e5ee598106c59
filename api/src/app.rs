//! The application: the router (its middleware and fallbacks) and the server. The state the
//! handlers share is in `state`.

use std::{future::Future, net::SocketAddr, time::Instant};

use axum::{
    Router,
    extract::{DefaultBodyLimit, MatchedPath, Request, State},
    http::{HeaderValue, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use signet_common::store::{
    accounts::{self, Authentication, Quota},
    api_keys,
};
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use crate::{
    error::ApiError,
    extract::{ApiAccount, READ_AFTER_COOKIE, ReadAfter},
    html, idempotency, routes,
    state::{AppState, BASE_PATH, BODY_LIMIT_BYTES, REQUEST_TIMEOUT},
};

/// The whole HTTP surface.
pub fn router(state: AppState) -> Router {
    describe_metrics();
    let (documents, openapi) = routes::openapi::split(routes::openapi::documented());
    let authenticated = documents
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            idempotency::idempotent,
        ))
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), authenticate));
    let api = routes::openapi::router(&openapi)
        .method_not_allowed_fallback(method_not_allowed)
        .merge(authenticated);
    guard(
        Router::new()
            .nest(BASE_PATH, api)
            .merge(routes::files::router())
            .merge(routes::signing::router())
            .merge(routes::sms::router())
            .merge(
                routes::console::router().layer(middleware::from_fn_with_state(
                    state.clone(),
                    browser_read_your_writes,
                )),
            )
            .merge(routes::assets::router())
            .merge(routes::health::router())
            .fallback(route_not_found)
            .method_not_allowed_fallback(method_not_allowed),
    )
    .with_state(state)
}

/// Browser protections for the console (`/app…`), signing links (`/sign/…`) and embedded
/// signing (`/embed/…`, `/embedded/…`): a content security policy, no framing (but by the
/// allowed origins, for embedded signing), no referrer (the signing link's token is in its
/// path), and no caching of pages that show keys, secrets or documents — unless the response
/// set its own caching (the versioned static assets). No MIME sniffing of any answer, signed file links'
/// PDFs included: each says what it is.
async fn page_headers(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let protect = path == "/app"
        || path.starts_with("/app/")
        || path.starts_with("/sign/")
        || path.starts_with("/embed/")
        || path.starts_with("/embedded/")
        || path == "/verify";
    let mut response = next.run(req).await;
    response.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if protect {
        let headers = response.headers_mut();
        // An embedded signing page sets its own policy, whose frame-ancestors are the
        // account's allowed origins; every other page may be framed by no one.
        if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_str(&html::page_csp(&[])).expect("the policy is ASCII"),
            );
            headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        }
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        headers
            .entry(header::CACHE_CONTROL)
            .or_insert(HeaderValue::from_static("no-store"));
    }
    response
}

/// The layers that keep every response an envelope: panics, time limit, body limit, and a
/// last check that no non-JSON error escapes; outermost, the request's span and metrics.
pub fn guard<S: Clone + Send + Sync + 'static>(routes: Router<S>) -> Router<S> {
    routes
        .layer(middleware::from_fn(envelope_every_error))
        .layer(middleware::from_fn(time_limit))
        .layer(CatchPanicLayer::custom(|_| {
            tracing::error!("request handler panicked");
            ApiError::Internal.into_response()
        }))
        .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES))
        .layer(middleware::from_fn(page_headers))
        .layer(middleware::from_fn(observe))
}

/// One span per request — continuing the caller's trace when it sends `traceparent` — named by
/// method and matched route (never the raw path, which holds tokens), and the request metrics.
async fn observe(req: Request, next: Next) -> Response {
    let method = method_label(req.method());
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_owned();
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&HeaderExtractor(req.headers()))
    });
    let span = tracing::info_span!(
        "HTTP request",
        otel.name = %format!("{method} {route}"),
        otel.kind = "server",
        http.request.method = %method,
        http.route = %route,
        http.response.status_code = tracing::field::Empty,
        account.id = tracing::field::Empty,
    );
    let _ = span.set_parent(parent);
    let started = Instant::now();
    let response = next.run(req).instrument(span.clone()).await;
    let status = response.status().as_u16();
    span.record("http.response.status_code", status);
    let labels = [
        ("method", method.to_owned()),
        ("route", route),
        ("status", status.to_string()),
    ];
    metrics::counter!("signet_http_requests_total", &labels).increment(1);
    metrics::histogram!("signet_http_request_duration_seconds", &labels[..2])
        .record(started.elapsed().as_secs_f64());
    response
}

/// `# HELP` lines for the API's own metrics, and its unlabelled counter at 0 so that alerts see
/// it from the start. The request series appear with the first request of each route and
/// status.
fn describe_metrics() {
    metrics::describe_counter!(
        "signet_http_requests_total",
        "Requests answered, by method, matched route and status."
    );
    metrics::describe_histogram!(
        "signet_http_request_duration_seconds",
        "Time to answer a request, by method and matched route."
    );
    metrics::describe_counter!(
        "signet_api_usage_limit_refusals_total",
        "Requests refused with 429 by an account's usage limit."
    );
    metrics::counter!("signet_api_usage_limit_refusals_total").absolute(0);
}

/// The method as telemetry names it: one of the standard methods, else `_OTHER` (as the
/// OpenTelemetry conventions say), so that a client cannot mint new metric labels or span
/// names by inventing methods.
fn method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "_OTHER",
    }
}

/// Reads W3C trace context from request headers.
struct HeaderExtractor<'a>(&'a axum::http::HeaderMap);

impl opentelemetry::propagation::Extractor for HeaderExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The name of the usage policy in `RateLimit-Policy` and `RateLimit`.
const RATE_LIMIT_POLICY: &str = "account";

/// `RateLimit-Policy` and `RateLimit` (IETF draft-ietf-httpapi-ratelimit-headers): the
/// account's quota per window, and what is left of it and when the window ends, as the counting
/// statement returned them, so they agree across replicas.
fn with_rate_limit(mut response: Response, quota: Quota, window_secs: i64) -> Response {
    let headers = response.headers_mut();
    let policy = format!("\"{RATE_LIMIT_POLICY}\";q={};w={window_secs}", quota.limit);
    let state = format!(
        "\"{RATE_LIMIT_POLICY}\";r={};t={}",
        quota.remaining, quota.reset_secs
    );
    for (name, value) in [("ratelimit-policy", policy), ("ratelimit", state)] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    response
}

/// Authenticates the `X-API-KEY` header (any case) and counts the request, in one statement.
async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let key = req
        .headers()
        .get("x-api-key")
        .map(|v| v.as_bytes())
        .filter(|v| !v.is_empty());
    let Some(key) = key else {
        return ApiError::MissingKey.into_response();
    };
    let Ok(key) = std::str::from_utf8(key) else {
        return ApiError::InvalidKey.into_response();
    };
    let outcome = accounts::authenticate(
        &state.db.pool,
        &api_keys::hash(key.trim()),
        state.config.api.usage_window_secs,
    )
    .await;
    let window_secs = state.config.api.usage_window_secs;
    match outcome {
        Ok(Authentication::Allowed {
            account_id,
            quota,
            read_after,
        }) => {
            tracing::Span::current().record("account.id", account_id.to_string());
            req.extensions_mut().insert(ApiAccount(account_id));
            req.extensions_mut().insert(ReadAfter(read_after));
            let writes = !req.method().is_safe();
            let response = next.run(req).await;
            // Before the answer leaves: a read the caller (or any client of the account, through
            // any API process) sends after it waits for a replica that has this write.
            if writes
                && state.db.has_replicas()
                && let Err(e) = accounts::note_write(&state.db.pool, account_id).await
            {
                tracing::warn!(error = %e, "could not note the account's write for read-your-writes");
            }
            with_rate_limit(response, quota, window_secs)
        }
        Ok(Authentication::Limited {
            account_id,
            retry_after_secs,
            quota,
        }) => {
            tracing::Span::current().record("account.id", account_id.to_string());
            metrics::counter!("signet_api_usage_limit_refusals_total").increment(1);
            with_rate_limit(
                ApiError::RateLimited { retry_after_secs }.into_response(),
                quota,
                window_secs,
            )
        }
        Ok(Authentication::UnknownKey) => ApiError::InvalidKey.into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// The console's read-your-writes: after a request that may have written, the primary's WAL
/// position goes back in a short-lived cookie (as long as the lag bound: past it every replica
/// in use has the write anyway), and the browser's next reads (`extract::Reads`) wait for a
/// replica that has replayed it.
async fn browser_read_your_writes(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    let writes = !req.method().is_safe();
    let mut response = next.run(req).await;
    if writes && state.db.has_replicas() {
        match state.db.write_position().await {
            Ok(lsn) => {
                let max_age = state.config.database.read_max_lag.as_secs().max(1) + 1;
                let cookie = format!(
                    "{READ_AFTER_COOKIE}={}; Path=/app; Max-Age={max_age}; HttpOnly; SameSite=Lax",
                    lsn.0
                );
                if let Ok(value) = HeaderValue::from_str(&cookie) {
                    response.headers_mut().append(header::SET_COOKIE, value);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not read the WAL position for read-your-writes")
            }
        }
    }
    response
}

async fn route_not_found() -> ApiError {
    ApiError::RouteNotFound
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// The last line of defence for the envelope: an error response that is neither JSON nor one of
/// our HTML pages (from a layer or extractor outside our own types) is replaced by the envelope
/// for its status.
async fn envelope_every_error(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let status = response.status();
    let deliberate = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| {
            v == HeaderValue::from_static("application/json")
                || v.as_bytes().starts_with(b"text/html")
        });
    if (status.is_client_error() || status.is_server_error()) && !deliberate {
        tracing::warn!(%status, "replacing a non-envelope error response");
        return ApiError::for_status(status).into_response();
    }
    response
}

async fn time_limit(req: Request, next: Next) -> Response {
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(req)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::error!("request exceeded {REQUEST_TIMEOUT:?}");
            ApiError::Unavailable.into_response()
        }
    }
}

/// A bound listener with the application behind it.
pub struct Server {
    listener: TcpListener,
    router: Router,
}

impl Server {
    pub async fn bind(addr: SocketAddr, state: AppState) -> std::io::Result<Self> {
        Ok(Self::with_listener(TcpListener::bind(addr).await?, state))
    }

    pub fn with_listener(listener: TcpListener, state: AppState) -> Self {
        Self {
            listener,
            router: router(state),
        }
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        axum::serve(
            self.listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await
    }
}
