//! The bodies and views of embedded signing (issue #34; docs/signing.md, "Embedded signing"):
//! the account's allowed origins, and a recipient's signing session.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use url::Url;
use utoipa::ToSchema;

use crate::{
    error::Problems,
    model::{DocumentId, RecipientId},
    wire::views::Timestamp,
};

/// The most origins an account may allow.
pub const MAX_ORIGINS: usize = 20;
/// The longest origin or `returnUrl` taken, in characters.
const MAX_ORIGIN_CHARS: usize = 300;
const MAX_RETURN_URL_CHARS: usize = 2000;

/// What an origin looks like, as the OpenAPI document states it: `http` or `https`, a host
/// name, IPv4 or bracketed IPv6 address, an optional port, an optional `/`. Whether the host is
/// a valid one (IDNA, IPv4 ranges) and whether `http` is for a loopback host are checked
/// beyond it.
pub const ORIGIN_PATTERN: &str =
    r"^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$";

static ORIGIN_SHAPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(ORIGIN_PATTERN).expect("the origin pattern compiles"));

/// An allowed origin, as the OpenAPI document describes the items of `allowedOrigins`.
#[derive(ToSchema)]
#[schema(
    value_type = String,
    pattern = r"^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$",
    max_length = 300,
    example = "https://app.example.com"
)]
#[allow(dead_code)]
pub struct Origin(String);

/// The body of `PUT /account/embedding`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"allowedOrigins": ["https://app.example.com"]}))]
pub struct EmbeddingInput {
    /// The origins that may frame the account's embedded signing pages and receive their
    /// messages, each `scheme://host[:port]` with nothing after it: `https`, or `http` for a
    /// loopback host (`localhost`, `127.0.0.1`, `[::1]`). At most 20; `[]` allows none.
    /// Replaces the list.
    #[schema(max_items = 20, value_type = Vec<Origin>)]
    pub allowed_origins: Vec<String>,
}

/// The account's embedding settings.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"allowedOrigins": ["https://app.example.com"]}))]
pub struct EmbeddingView {
    /// The origins that may frame the account's embedded signing pages, as stored (lower
    /// case, without a default port).
    pub allowed_origins: Vec<String>,
}

/// The body of `POST /documents/{id}/recipients/{recipientId}/signing-session`; may be empty
/// (`{}`).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"returnUrl": "https://app.example.com/contracts/42", "parentOrigin": "https://app.example.com"}))]
pub struct SigningSessionInput {
    /// Where the page goes once the recipient has signed or declined, with `event=signed` or
    /// `event=declined` added to its query: an absolute `http(s)` URL on one of the account's
    /// allowed origins, at most 2000 characters. Absent: the page shows the outcome.
    #[serde(default)]
    #[schema(max_length = 2000, pattern = r"^[Hh][Tt][Tt][Pp][Ss]?://\S+$")]
    pub return_url: Option<String>,
    /// The allowed origin that will frame the page: only it may frame it and receive its
    /// messages. Absent: any of the account's allowed origins.
    #[serde(default)]
    #[schema(value_type = Option<Origin>)]
    pub parent_origin: Option<String>,
}

/// A checked `SigningSessionInput`: each value one of the account's origins or on one.
#[derive(Debug, Clone, Default)]
pub struct SessionRequest {
    pub return_url: Option<String>,
    pub parent_origin: Option<String>,
}

/// A recipient's embedded signing session.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigningSessionView {
    /// The signing page's URL: open it once (in an iframe on an allowed origin, with
    /// `/embed.js`, or in a window) before `expiresAt`. Its first opening binds the session
    /// to that browser; a second opening is refused.
    pub url: String,
    /// When the URL stops working if it was not opened.
    pub expires_at: Timestamp,
    #[schema(value_type = uuid::Uuid)]
    pub document_id: DocumentId,
    #[schema(value_type = uuid::Uuid)]
    pub recipient_id: RecipientId,
}

/// An origin as browsers serialise it (lower case, no default port), or why it is not one we
/// take: `https`, or `http` for a loopback host, with nothing after the port.
pub fn parse_origin(given: &str) -> Result<String, &'static str> {
    const SHAPE: &str = "must be an origin: scheme://host[:port], with no path, query or fragment";
    if given.chars().count() > MAX_ORIGIN_CHARS {
        return Err("at most 300 characters");
    }
    if !ORIGIN_SHAPE.is_match(given) {
        return Err(SHAPE);
    }
    const HOST: &str = "not a valid host name, IP address or port";
    let url = Url::parse(given).map_err(|_| HOST)?;
    let origin = url.origin();
    if !origin.is_tuple() || url.path() != "/" || !plain_host(&url) {
        return Err(HOST);
    }
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        "http" => return Err("must use https (http only for a loopback host)"),
        _ => return Err(SHAPE),
    }
    Ok(origin.ascii_serialization())
}

/// A host name of letters, digits, `-` and `.` (an international one in its `xn--` form, as
/// parsed), or an IP address: no wildcard.
fn plain_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.'),
        Some(_) => true,
        None => false,
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The allowed origins, each checked and as stored; each problem at `allowedOrigins[i]`.
pub fn validate_origins(input: &EmbeddingInput, problems: &mut Problems) -> Vec<String> {
    if input.allowed_origins.len() > MAX_ORIGINS {
        problems.invalid("allowedOrigins", format!("at most {MAX_ORIGINS} origins"));
        return Vec::new();
    }
    let mut origins: Vec<String> = Vec::with_capacity(input.allowed_origins.len());
    for (i, given) in input.allowed_origins.iter().enumerate() {
        let at = format!("allowedOrigins[{i}]");
        match parse_origin(given) {
            Ok(origin) if origins.contains(&origin) => {
                problems.invalid(at, "given more than once");
            }
            Ok(origin) => origins.push(origin),
            Err(reason) => problems.invalid(at, reason),
        }
    }
    origins
}

/// Checks a session request against the account's allowed origins.
pub fn validate_session(
    input: SigningSessionInput,
    allowed: &[String],
    problems: &mut Problems,
) -> SessionRequest {
    let not_allowed = "not one of the account's allowed origins (PUT /account/embedding)";
    let parent_origin = input
        .parent_origin
        .and_then(|given| match parse_origin(&given) {
            Ok(origin) if allowed.contains(&origin) => Some(origin),
            Ok(_) => {
                problems.invalid("parentOrigin", not_allowed);
                None
            }
            Err(reason) => {
                problems.invalid("parentOrigin", reason);
                None
            }
        });
    let return_url = input.return_url.and_then(|given| {
        let reason = if given.chars().count() > MAX_RETURN_URL_CHARS {
            Some("at most 2000 characters".to_owned())
        } else {
            // As the OpenAPI document's pattern says: `http(s)://` and something, no space.
            let lower = given.to_ascii_lowercase();
            let rest = lower
                .strip_prefix("http://")
                .or_else(|| lower.strip_prefix("https://"));
            let shaped = rest.is_some_and(|rest| !rest.is_empty())
                && !given.chars().any(char::is_whitespace);
            match Url::parse(&given) {
                _ if !shaped => Some("must be an absolute http or https URL".to_owned()),
                Err(_) => Some("not a valid URL".to_owned()),
                Ok(url)
                    if matches!(url.scheme(), "http" | "https")
                        && url.username().is_empty()
                        && url.password().is_none() =>
                {
                    let origin = url.origin().ascii_serialization();
                    match (&parent_origin, allowed.contains(&origin)) {
                        (_, false) => Some(format!("its origin {origin} is {not_allowed}")),
                        (Some(parent), true) if *parent != origin => {
                            Some(format!("must be on parentOrigin {parent}"))
                        }
                        _ => None,
                    }
                }
                _ => Some("must be an absolute http or https URL".to_owned()),
            }
        };
        match reason {
            Some(reason) => {
                problems.invalid("returnUrl", reason);
                None
            }
            None => Some(given),
        }
    });
    SessionRequest {
        return_url,
        parent_origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_pattern_is_the_one_checked() {
        let schema = serde_json::to_value(<Origin as utoipa::PartialSchema>::schema()).unwrap();
        assert_eq!(schema["pattern"], ORIGIN_PATTERN);
    }

    #[test]
    fn origins_are_checked_and_serialised_as_browsers_do() {
        assert_eq!(
            parse_origin("HTTPS://App.Example.com:443"),
            Ok("https://app.example.com".into())
        );
        assert_eq!(
            parse_origin("https://app.example.com/"),
            Ok("https://app.example.com".into())
        );
        assert_eq!(
            parse_origin("http://127.0.0.1:8080"),
            Ok("http://127.0.0.1:8080".into())
        );
        assert_eq!(
            parse_origin("http://localhost:3000"),
            Ok("http://localhost:3000".into())
        );
        assert!(parse_origin("http://app.example.com").is_err());
        assert!(parse_origin("https://app.example.com/path").is_err());
        assert!(parse_origin("https://app.example.com//").is_err());
        assert!(parse_origin("https://app.example.com?x=1").is_err());
        assert!(parse_origin("https://user@app.example.com").is_err());
        assert!(parse_origin("*").is_err());
        assert!(parse_origin("https://*.example.com").is_err());
        assert!(parse_origin("null").is_err());
        assert!(parse_origin("javascript:alert(1)").is_err());
        assert!(parse_origin("ftp://example.com").is_err());
        assert!(parse_origin(" https://app.example.com").is_err());
        assert_eq!(
            parse_origin("https://1.2.3.4.5"),
            Err("not a valid host name, IP address or port")
        );
        assert_eq!(
            parse_origin("http://[::1]:8080"),
            Ok("http://[::1]:8080".into())
        );
    }
}
