//! `Idempotency-Key` on the external API's POSTs (IETF draft-ietf-httpapi-idempotency-key-header).
//!
//! The middleware claims the key before the handler runs and answers repeats from what the key
//! holds: the stored answer (replayed, with `Idempotent-Replayed: true`), `409` while the first
//! request is still running, `422` when the key came with a different request. A successful
//! write stores its answer in the transaction of its effect (handlers pass
//! [`Idempotency::receipt`] to the domain); any other answer below 500 changed nothing and is
//! stored here; a failure on our side frees the key, so that the retry runs again.

use std::time::Duration;

use axum::{
    body::Body,
    extract::{FromRequestParts, MatchedPath, Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde::Serialize;
use serde_json::Value;
use signet_common::{
    Problem,
    infra::secrets,
    store::idempotency::{self, Claim, KeyedRequest, Receipt, StoredAnswer},
};

use crate::{
    AppState,
    envelope::{Answer, json_response},
    error::ApiError,
    extract::{Admission, ApiAccount, GatedBody},
    state::{REQUEST_TIMEOUT, body_limit},
};

pub const HEADER: &str = "idempotency-key";
/// Marks an answer that was stored for an earlier request with the same key.
pub const REPLAYED_HEADER: &str = "idempotent-replayed";
const MAX_KEY_CHARS: usize = 255;
/// How long a key and its answer are kept (and a key cannot be used for another request).
pub const RETENTION: Duration = Duration::from_secs(24 * 3600);
/// How long a claim holds a key that has no answer yet: longer than any request may run, so
/// that only a request that died (its transaction rolled back) loses its key to a retry.
const LEASE: Duration = Duration::from_secs(2 * REQUEST_TIMEOUT.as_secs());

/// The claimed key of the request being handled, if it brought one.
#[derive(Debug, Clone, Default)]
pub struct Idempotency(Option<KeyedRequest>);

impl Idempotency {
    /// What a successful write stores in its transaction for this request's key, if it has one.
    pub fn receipt(&self, answer: &Answer) -> Option<Receipt> {
        self.0.as_ref().map(|request| Receipt {
            request: request.clone(),
            answer: StoredAnswer {
                status: answer.status().as_u16(),
                body: answer.body().to_vec(),
            },
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Idempotency {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(parts.extensions.get::<Self>().cloned().unwrap_or_default())
    }
}

/// The middleware, on the authenticated routes (it needs the account).
pub async fn idempotent(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST || !req.headers().contains_key(HEADER) {
        return next.run(req).await;
    }
    let key = match key_of(&req) {
        Ok(key) => key,
        Err(problem) => return ApiError::InvalidBody(vec![problem]).into_response(),
    };
    let Some(&ApiAccount(account_id)) = req.extensions().get::<ApiAccount>() else {
        tracing::error!("the idempotency middleware ran without authentication");
        return ApiError::Internal.into_response();
    };
    // A PDF or a bulk send's rows are read under their gates, up to their own limits.
    let gated = GatedBody::of(&req);
    let admission = match gated {
        None => None,
        Some(gated) => match Admission::take(&state, account_id, req.extensions(), gated).await {
            Ok(admission) => Some(admission),
            Err(refusal) => return refusal.into_response(),
        },
    };
    let limit = match gated {
        Some(gated) => gated.limit(),
        None => body_limit(
            req.extensions()
                .get::<MatchedPath>()
                .map_or("", MatchedPath::as_str),
        ),
    };
    let (parts, body) = req.into_parts();
    let Ok(body) = axum::body::to_bytes(body, limit).await else {
        return ApiError::PayloadTooLarge.into_response();
    };
    let content_type = content_type(&parts.headers);
    let request = KeyedRequest {
        account_id,
        key,
        fingerprint: fingerprint(&parts.method, parts.uri.path(), Some(&content_type), &body),
        earlier_fingerprint: Some(fingerprint(&parts.method, parts.uri.path(), None, &body)),
    };
    let pool = &state.db.pool;
    match idempotency::claim(pool, &request, LEASE, RETENTION).await {
        Err(e) => ApiError::from(e).into_response(),
        Ok(Claim::Answered(answer)) => replay(answer),
        Ok(Claim::InFlight) => ApiError::IdempotencyKeyInFlight.into_response(),
        Ok(Claim::OtherRequest) => ApiError::IdempotencyKeyReused.into_response(),
        Ok(Claim::Claimed) => {
            let mut req = Request::from_parts(parts, Body::from(body));
            req.extensions_mut()
                .insert(Idempotency(Some(request.clone())));
            if let Some(admission) = admission {
                req.extensions_mut().insert(admission);
            }
            settle(&state, &request, next.run(req).await).await
        }
    }
}

/// The key: 1 to 255 visible ASCII characters (spaces allowed inside), counted as sent; a key
/// in quotes (the draft's structured-field string) means the same key without them.
fn key_of(req: &Request) -> Result<String, Problem> {
    let invalid = || {
        Problem::new(
            "Idempotency-Key",
            format!("must be one header of 1 to {MAX_KEY_CHARS} visible ASCII characters"),
        )
    };
    let mut values = req.headers().get_all(HEADER).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return Err(invalid());
    };
    let value = value.to_str().map_err(|_| invalid())?.trim();
    let visible = |c: char| c.is_ascii_graphic() || c == ' ';
    if value.is_empty() || value.len() > MAX_KEY_CHARS || !value.chars().all(visible) {
        return Err(invalid());
    }
    let key = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .filter(|inner| !inner.is_empty())
        .unwrap_or(value);
    Ok(key.to_owned())
}

/// The request's `Content-Type` as the fingerprint counts it: lower case, with the white space
/// around its type and parameters dropped (`Application/JSON ; charset=UTF-8` is
/// `application/json;charset=utf-8`); empty when there is none.
fn content_type(headers: &HeaderMap) -> String {
    headers
        .get_all(header::CONTENT_TYPE)
        .iter()
        .map(|value| {
            String::from_utf8_lossy(value.as_bytes())
                .split(';')
                .map(|part| part.trim().to_ascii_lowercase())
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join(";")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// SHA-256 of the method, the path, the `Content-Type` (see [`content_type`]) and the body; a
/// JSON body counts by its value (object keys sorted, insignificant white space dropped), so
/// that a client that re-serialises its retry still makes the same request. Without a
/// `Content-Type`, the fingerprint earlier releases stored.
fn fingerprint(method: &Method, path: &str, content_type: Option<&str>, body: &[u8]) -> [u8; 32] {
    let mut bytes = Vec::with_capacity(body.len() + path.len() + 64);
    bytes.extend_from_slice(method.as_str().as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(path.as_bytes());
    bytes.push(0);
    if let Some(content_type) = content_type {
        bytes.extend_from_slice(content_type.as_bytes());
        bytes.push(0);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(value) => canonical_json(&value, &mut bytes),
        Err(_) => bytes.extend_from_slice(body),
    }
    secrets::sha256(&bytes)
}

fn canonical_json(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (name, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(out, name);
                out.push(b':');
                canonical_json(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical_json(item, out);
            }
            out.push(b']');
        }
        scalar => write_json(out, scalar),
    }
}

fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    serde_json::to_writer(out, value).expect("a JSON value serialises");
}

/// The stored answer again, marked as a replay.
fn replay(answer: StoredAnswer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::OK);
    let mut response = json_response(status, answer.body.into());
    response
        .headers_mut()
        .insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
    response
}

/// After the handler: keeps an answer below 500 under the key (a write's success is already
/// stored with its effect; this stores refusals, which changed nothing), or frees the key
/// after a failure on our side.
async fn settle(state: &AppState, request: &KeyedRequest, response: Response) -> Response {
    let pool = &state.db.pool;
    let status = response.status();
    if status.is_server_error() {
        if let Err(e) = idempotency::release(pool, request).await {
            tracing::warn!(error = %e, "an idempotency key could not be freed; it frees itself when its claim's lease ends");
        }
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(body) = axum::body::to_bytes(body, usize::MAX).await else {
        return ApiError::Internal.into_response();
    };
    let answer = StoredAnswer {
        status: status.as_u16(),
        body: body.to_vec(),
    };
    let stored = match pool.acquire().await {
        Ok(mut conn) => idempotency::store_answer(&mut conn, request, &answer).await,
        Err(e) => Err(e.into()),
    };
    if let Err(e) = stored {
        // Only a refusal can be unstored here (a success was stored with its effect): its
        // retry runs again once the claim's lease ends, and is refused again.
        tracing::warn!(error = %e, "the answer to an idempotent request could not be stored");
    }
    Response::from_parts(parts, Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: Option<&str> = Some("application/json");

    #[test]
    fn the_content_type_counts_as_normalised() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(value).unwrap());
            content_type(&headers)
        };
        assert_eq!(
            with(" Application/JSON ; Charset=UTF-8 "),
            "application/json;charset=utf-8"
        );
        assert_eq!(content_type(&HeaderMap::new()), "");
        let body = br#"{"a":1}"#;
        let json = fingerprint(&Method::POST, "/p", Some(&with("application/json")), body);
        assert_eq!(
            json,
            fingerprint(&Method::POST, "/p", Some(&with("APPLICATION/JSON ")), body)
        );
        assert_ne!(
            json,
            fingerprint(&Method::POST, "/p", Some(&with("text/plain")), body)
        );
        assert_ne!(json, fingerprint(&Method::POST, "/p", Some(""), body));
        assert_ne!(json, fingerprint(&Method::POST, "/p", None, body));
    }

    #[test]
    fn a_json_body_counts_by_its_value_not_its_spelling() {
        let a = fingerprint(
            &Method::POST,
            "/d/1/send",
            JSON,
            br#"{"b":1,"a":[1,{"y":2,"x":"\u00e9"}]}"#,
        );
        let b = fingerprint(
            &Method::POST,
            "/d/1/send",
            JSON,
            " { \"a\" : [1, {\"x\":\"é\",\"y\":2}], \"b\":1 }".as_bytes(),
        );
        assert_eq!(a, b);
        let other_value = fingerprint(
            &Method::POST,
            "/d/1/send",
            JSON,
            br#"{"b":2,"a":[1,{"y":2,"x":"e"}]}"#,
        );
        assert_ne!(a, other_value);
        let other_path = fingerprint(
            &Method::POST,
            "/d/2/send",
            JSON,
            br#"{"b":1,"a":[1,{"y":2,"x":"\u00e9"}]}"#,
        );
        assert_ne!(a, other_path);
    }

    #[test]
    fn a_body_that_is_not_json_counts_byte_for_byte() {
        let a = fingerprint(&Method::POST, "/p", JSON, b"{not json");
        assert_eq!(a, fingerprint(&Method::POST, "/p", JSON, b"{not json"));
        assert_ne!(a, fingerprint(&Method::POST, "/p", JSON, b"{not  json"));
    }
}
