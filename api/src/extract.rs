//! Extractors whose rejections are `ApiError`s, so that every refusal is an envelope.

use std::{
    collections::HashMap,
    convert::Infallible,
    net::{IpAddr, SocketAddr},
    str::FromStr,
    sync::Arc,
};

use axum::{
    body::Body,
    body::Bytes,
    extract::{ConnectInfo, FromRequest, FromRequestParts, MatchedPath, Path, Request},
    http::{HeaderMap, StatusCode, header, request::Parts},
};
use ipnet::IpNet;
use serde::de::DeserializeOwned;
use signet_common::{
    Problem,
    flows::signer_key::{BrowserPass, SignerKey},
    infra::{
        db::Lsn,
        limits::Admitted,
        secrets::{EmbedSecret, SigningToken},
    },
    model::{AccountId, Actor, BulkSendId, DocumentId, EmbeddedSessionId, RecipientId, TemplateId},
    wire::{
        body::{self, Parsed},
        query::{ListQuery, TemplateListQuery},
    },
};

use crate::{AppState, error::ApiError, state::BASE_PATH};

/// A JSON body: `Content-Type: application/json`, at most the body limit, of the right shape.
/// Refused with every property that could not be read (`wire::body`).
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let ApiBody(parsed) = ApiBody::from_request(req, state).await?;
        Ok(Self(parsed.into_value()?))
    }
}

/// A JSON body read as [`ApiJson`] is, but handed on with the properties that could not be
/// read (each holding a stand-in), for a use case that checks a body field by field to report
/// them together with the problems of the rest.
pub struct ApiBody<T>(pub Parsed<T>);

impl<T: DeserializeOwned> FromRequest<AppState> for ApiBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .is_some_and(|mime| mime == "application/json" || mime.ends_with("+json"));
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            match rejection.status() {
                StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
                _ => ApiError::InvalidBody(vec![Problem::new("", rejection.body_text())]),
            }
        })?;
        if !is_json {
            return Err(ApiError::InvalidBody(vec![Problem::new(
                "",
                "Content-Type must be application/json",
            )]));
        }
        body::parse(&bytes).map(Self).map_err(ApiError::InvalidBody)
    }
}

/// A body that is JSON (`application/json`) or CSV (`text/csv`), at most the route's limit.
pub enum JsonOrCsv {
    Json(Bytes),
    Csv(Bytes),
}

impl<S: Send + Sync> FromRequest<S> for JsonOrCsv {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let mime = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default();
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            match rejection.status() {
                StatusCode::PAYLOAD_TOO_LARGE => ApiError::PayloadTooLarge,
                _ => ApiError::InvalidBody(vec![Problem::new("", rejection.body_text())]),
            }
        })?;
        if mime == "application/json" || mime.ends_with("+json") {
            Ok(Self::Json(bytes))
        } else if mime == "text/csv" {
            Ok(Self::Csv(bytes))
        } else {
            Err(ApiError::InvalidBody(vec![Problem::new(
                "",
                "Content-Type must be application/json or text/csv",
            )]))
        }
    }
}

/// The document list's query parameters, parsed once for the API and the console, with the
/// pairs they were read from (the console's paging links keep them).
#[derive(Default)]
pub struct ListParams {
    pub query: ListQuery,
    pub pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for ListParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        Ok(Self {
            query: ListQuery::from_pairs(&pairs)?,
            pairs,
        })
    }
}

/// The template list's query parameters, parsed once for the API and the console, with the
/// pairs they were read from.
#[derive(Default)]
pub struct TemplateListParams {
    pub query: TemplateListQuery,
    pub pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for TemplateListParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let pairs: Vec<(String, String)> =
            form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
                .into_owned()
                .collect();
        Ok(Self {
            query: TemplateListQuery::from_pairs(&pairs)?,
            pairs,
        })
    }
}

/// The API routes that take a PDF as their body (`Content-Type: application/pdf`), up to the
/// largest accepted PDF rather than the JSON body limit, read under the upload gates.
const PDF_BODY_ROUTES: &[&str] = &["/templates"];

/// Whether the headers say the body is a PDF.
pub fn is_pdf(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/pdf"))
}

/// The large bodies the API reads under a gate of their own, taken before the body is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatedBody {
    /// A PDF sent to a route that takes one: the upload gates.
    Pdf,
    /// A bulk send's rows: the row checks' gates.
    Rows,
}

impl GatedBody {
    /// The gate `req`'s body is read under, if any.
    pub fn of(req: &Request) -> Option<Self> {
        let route = req.extensions().get::<MatchedPath>().map(|p| p.as_str());
        let route = route.map(|path| path.strip_prefix(BASE_PATH).unwrap_or(path))?;
        if is_pdf(req.headers()) && PDF_BODY_ROUTES.contains(&route) {
            Some(Self::Pdf)
        } else if req.method() == axum::http::Method::POST && route.ends_with("/bulk-sends") {
            Some(Self::Rows)
        } else {
            None
        }
    }

    /// The most bytes such a body may have.
    pub fn limit(self) -> usize {
        match self {
            Self::Pdf => signet_pdf::MAX_UPLOAD_BYTES,
            Self::Rows => crate::state::BULK_SEND_BODY_LIMIT_BYTES,
        }
    }
}

/// A PDF body read whole, up to the largest accepted PDF.
pub async fn read_pdf(body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, signet_pdf::MAX_UPLOAD_BYTES)
        .await
        .map_err(|_| ApiError::PayloadTooLarge)
}

/// The answer when the upload gates are full (the console's too).
pub const UPLOADS_BUSY: &str = "Too many uploads at once. Try again in a moment.";
/// The answer when the row checks' gates are full.
pub const ROW_CHECKS_BUSY: &str =
    "Too many bulk sends are being checked at once. Try again in a moment.";

/// A place in the gates of a [`GatedBody`] (over all accounts, and the account's own), held
/// while the body is read and worked on, as a console upload holds one. Taken once per
/// request: the idempotency middleware, which reads the body before the handler, hands its
/// own on.
#[derive(Clone)]
pub struct Admission(#[allow(dead_code)] Arc<Admitted>);

impl Admission {
    /// The request's admission, or a new one; `Busy` (429, `Retry-After`) when the gates are
    /// full.
    pub async fn take(
        state: &AppState,
        account_id: AccountId,
        extensions: &axum::http::Extensions,
        body: GatedBody,
    ) -> Result<Self, ApiError> {
        if let Some(taken) = extensions.get::<Self>() {
            return Ok(taken.clone());
        }
        let admitted = match body {
            GatedBody::Pdf => state.gates.uploads.admit(account_id).await,
            GatedBody::Rows => state.gates.row_checks.admit(account_id).await,
        };
        match (admitted, body) {
            (Some(admitted), _) => Ok(Self(Arc::new(admitted))),
            (None, GatedBody::Pdf) => Err(ApiError::Busy(UPLOADS_BUSY)),
            (None, GatedBody::Rows) => Err(ApiError::Busy(ROW_CHECKS_BUSY)),
        }
    }
}

/// The admission of a bulk send's rows, taken before its body is read (an extractor of the
/// request's parts, so it runs before the body's).
pub struct RowsAdmission(#[allow(dead_code)] pub Admission);

impl FromRequestParts<AppState> for RowsAdmission {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let ApiAccount(account_id) = ApiAccount::from_request_parts(parts, state).await?;
        Admission::take(state, account_id, &parts.extensions, GatedBody::Rows)
            .await
            .map(Self)
    }
}

/// The value of the query parameter `name` when the query gives it exactly once; `None` when it
/// is absent or repeated (a signed link's parameters are never repeated, so a repeat is as
/// good as a wrong one).
pub fn query_once(query: Option<&str>, name: &str) -> Option<String> {
    let mut values = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .filter(|(given, _)| given == name)
        .map(|(_, value)| value.into_owned());
    match (values.next(), values.next()) {
        (Some(value), None) => Some(value),
        _ => None,
    }
}

/// An id path parameter by its name in the route; `None` when it is absent or no UUID.
async fn path_id<I: FromStr, S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    name: &str,
) -> Option<I> {
    let Path(params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
        .await
        .ok()?;
    params.get(name)?.parse().ok()
}

/// The `{id}` of a document route; anything that is not a UUID names no document.
pub struct DocumentPath(pub DocumentId);

impl<S: Send + Sync> FromRequestParts<S> for DocumentPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_id(parts, state, "id")
            .await
            .map(Self)
            .ok_or(ApiError::DocumentNotFound)
    }
}

/// The `{recipientId}` of an external API route; anything that is not a UUID names no
/// recipient.
pub struct RecipientIdPath(pub RecipientId);

impl<S: Send + Sync> FromRequestParts<S> for RecipientIdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_id(parts, state, "recipientId")
            .await
            .map(Self)
            .ok_or(ApiError::RecipientNotFound)
    }
}

/// The `{id}` of a template route; anything that is not a UUID names no template.
pub struct TemplatePath(pub TemplateId);

impl<S: Send + Sync> FromRequestParts<S> for TemplatePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_id(parts, state, "id")
            .await
            .map(Self)
            .ok_or(ApiError::TemplateNotFound)
    }
}

/// The `{id}` of a bulk send route; anything that is not a UUID names no bulk send.
pub struct BulkSendPath(pub BulkSendId);

impl<S: Send + Sync> FromRequestParts<S> for BulkSendPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        path_id(parts, state, "id")
            .await
            .map(Self)
            .ok_or(ApiError::BulkSendNotFound)
    }
}

/// A cookie of the request, by name.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// The cookie that binds an embedded signing session to the browser that opened it (scoped to
/// the session's path, `/embedded/{session}`).
pub const EMBEDDED_COOKIE: &str = "signet_embedded";

/// The cookie a browser that passed a recipient's authentication keeps (issue #34, signer
/// authentication), scoped to the path it passed on: the link's (`/sign/{token}`) or the
/// embedded session's (`/embedded/{session}`).
pub const PASS_COOKIE: &str = "signet_signer_pass";

/// Whom a signing route acts for: the `{token}` of a signing link (`/sign/{token}/…`), or the
/// `{session}` of an embedded signing session with the cookie of the browser it is bound to
/// (`/embedded/{session}/…`). One path to the recipient for both: an unknown token, a session
/// that is not a UUID or without its cookie, finds no one (`signing::begin`). With it, the
/// browser's pass for signer authentication (its pass cookie, on either path), which the one
/// gate (`signer_auth::gate`) checks.
pub struct Signer(pub SignerKey, pub BrowserPass);

impl<S: Send + Sync> FromRequestParts<S> for Signer {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Infallible> {
        let params = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map(|Path(params)| params)
            .unwrap_or_default();
        let key = match params.get("token") {
            Some(token) => SignerKey::Link(SigningToken::from_link(token.clone())),
            None => SignerKey::Embedded {
                session: params
                    .get("session")
                    .and_then(|id| id.parse().ok())
                    .unwrap_or(EmbeddedSessionId(uuid::Uuid::nil())),
                browser: EmbedSecret::given(
                    cookie(&parts.headers, EMBEDDED_COOKIE).unwrap_or_default(),
                ),
            },
        };
        let pass = BrowserPass::presented(cookie(&parts.headers, PASS_COOKIE));
        Ok(Self(key, pass))
    }
}

/// The `{recipient}` of a route under a document; `None` when it is not a UUID, which names
/// no recipient (each use case says what it answers for an unknown recipient).
pub struct RecipientPath(pub Option<RecipientId>);

impl<S: Send + Sync> FromRequestParts<S> for RecipientPath {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Infallible> {
        // `{recipient}` in the console's routes, `{recipientId}` in the external API's.
        let id = match path_id(parts, state, "recipient").await {
            Some(id) => Some(id),
            None => path_id(parts, state, "recipientId").await,
        };
        Ok(Self(id))
    }
}

/// The account the request's API key belongs to (set by the authentication middleware).
#[derive(Debug, Clone, Copy)]
pub struct ApiAccount(pub AccountId);

impl<S: Send + Sync> FromRequestParts<S> for ApiAccount {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<ApiAccount>()
            .copied()
            .ok_or_else(|| {
                tracing::error!(
                    "a handler that needs an account was routed without authentication"
                );
                ApiError::Internal
            })
    }
}

/// The position of the caller's last write in the primary's WAL: the account's, set by the
/// authentication middleware from the statement that counts the request.
#[derive(Debug, Clone, Copy)]
pub struct ReadAfter(pub Lsn);

/// The cookie in which the console's browser carries its last write's position.
pub const READ_AFTER_COOKIE: &str = "signet-read-after";

/// Where the handler's reads that tolerate a little lag run (`Reads::run`): a streaming
/// replica that is fresh within `DATABASE_READ_MAX_LAG_MS` and has replayed the caller's last
/// write (the account's, or the console browser's cookie), else the primary.
pub struct Reads(pub signet_common::infra::db::Reads);

impl FromRequestParts<AppState> for Reads {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        let account = parts.extensions.get::<ReadAfter>().map(|r| r.0);
        let browser = cookie(&parts.headers, READ_AFTER_COOKIE)
            .and_then(|v| v.parse::<i64>().ok())
            .map(Lsn);
        let after = account.max(browser).unwrap_or_default();
        Ok(Self(state.db.reads(after)))
    }
}

impl std::ops::Deref for Reads {
    type Target = signet_common::infra::db::Reads;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

/// Who made the request, for the audit trail: the client IP (see `client_ip`) and user agent.
pub struct ClientActor(pub Actor);

const MAX_USER_AGENT_CHARS: usize = 1_000;

impl FromRequestParts<AppState> for ClientActor {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip());
        let forwarded_for: Vec<&str> = parts
            .headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let ip =
            peer.map(|peer| client_ip(peer, &forwarded_for, &state.config.api.trusted_proxies));
        let user_agent = parts
            .headers
            .get(header::USER_AGENT)
            .map(|v| {
                String::from_utf8_lossy(v.as_bytes())
                    .chars()
                    .take(MAX_USER_AGENT_CHARS)
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self(Actor::Client {
            ip: ip.map(|ip| ip.to_canonical()),
            user_agent,
        }))
    }
}

/// The socket peer, unless it is a trusted proxy: then the right-most `X-Forwarded-For` hop
/// that is not itself trusted (hops that do not parse end the walk at the last good one).
pub fn client_ip(peer: IpAddr, forwarded_for: &[&str], trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(&ip.to_canonical()));
    let mut client = peer;
    if !is_trusted(&client) {
        return client;
    }
    let hops = forwarded_for
        .iter()
        .flat_map(|header| header.split(','))
        .map(str::trim)
        .collect::<Vec<_>>();
    for hop in hops.iter().rev() {
        let Ok(ip) = hop.parse::<IpAddr>() else {
            break;
        };
        client = ip;
        if !is_trusted(&ip) {
            break;
        }
    }
    client
}

/// The language a reader asked for: `?lang=<tag>` (the page's language links), else the first
/// supported one of `Accept-Language`; `None` when neither names one Signet speaks.
pub struct AskedLanguage(pub Option<signet_i18n::Language>);

impl<S: Send + Sync> FromRequestParts<S> for AskedLanguage {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        use signet_i18n::Language;
        let from_query = parts.uri.query().and_then(|query| {
            query
                .split('&')
                .filter_map(|pair| pair.strip_prefix("lang="))
                .find_map(Language::from_tag)
        });
        let from_header = || {
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(Language::from_accept_language)
        };
        Ok(Self(from_query.or_else(from_header)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_for_is_honoured_only_behind_trusted_proxies() {
        let trusted: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap()];
        let xff = ["203.0.113.7, 198.51.100.2, 10.0.0.5"];
        assert_eq!(client_ip(ip("192.0.2.1"), &xff, &trusted), ip("192.0.2.1"));
        assert_eq!(
            client_ip(ip("10.0.0.1"), &xff, &trusted),
            ip("198.51.100.2")
        );
        assert_eq!(client_ip(ip("10.0.0.1"), &[], &trusted), ip("10.0.0.1"));
        assert_eq!(
            client_ip(ip("10.0.0.1"), &["garbage"], &trusted),
            ip("10.0.0.1")
        );
        assert_eq!(
            client_ip(ip("::ffff:10.0.0.1"), &["203.0.113.7"], &trusted),
            ip("203.0.113.7")
        );
    }
}
