//! The event feed on the wire (issue #34, `GET /events`): its query parameters, its opaque
//! cursor and the page it answers.

use std::borrow::Cow;

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde::Serialize;
use serde_json::value::RawValue;
use strum::VariantArray;
use utoipa::{
    PartialSchema, ToSchema,
    openapi::{
        RefOr,
        schema::{ObjectBuilder, Schema, Type},
    },
};

use crate::{
    error::{Error, Problem},
    model::WebhookEvent,
    store::events::{FeedPosition, StoredEvent},
    wire::{
        query::{DEFAULT_LIMIT, MAX_LIMIT},
        views::Timestamp,
    },
};

/// The first byte of every cursor: the format, so that another can follow.
const CURSOR_FORMAT: u8 = 1;

/// The cursors: `A` and a character whose two high bits are `01` (the format byte), and a last
/// character with no bits past the 17th byte (base64's canonical form).
pub const CURSOR_PATTERN: &str = "^A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048]$";

/// A place in an account's feed, as the API hands it out: base64url without padding of the
/// format byte, the transaction id and the position (17 bytes, 23 characters), opaque to
/// integrators. Every string of [`CURSOR_PATTERN`] is one (the OpenAPI document states it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedCursor(pub FeedPosition);

impl FeedCursor {
    pub fn encode(self) -> String {
        let mut bytes = Vec::with_capacity(17);
        bytes.push(CURSOR_FORMAT);
        bytes.extend_from_slice(&self.0.txid.to_be_bytes());
        bytes.extend_from_slice(&self.0.position.to_be_bytes());
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub fn decode(text: &str) -> Option<Self> {
        let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
        let (&format, rest) = bytes.split_first()?;
        if format != CURSOR_FORMAT || rest.len() != 16 {
            return None;
        }
        let (txid, position) = rest.split_at(8);
        Some(Self(FeedPosition {
            txid: u64::from_be_bytes(txid.try_into().ok()?),
            position: i64::from_be_bytes(position.try_into().ok()?),
        }))
    }
}

/// The feed's query parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedQuery {
    /// Events after this place; from the oldest kept without one.
    pub after: Option<FeedCursor>,
    pub limit: i64,
    /// Only these types; every type without one.
    pub types: Option<Vec<WebhookEvent>>,
}

impl Default for FeedQuery {
    fn default() -> Self {
        Self {
            after: None,
            limit: DEFAULT_LIMIT,
            types: None,
        }
    }
}

/// Every event type, as the `type` parameter's reason lists them.
pub fn every_type() -> String {
    WebhookEvent::VARIANTS
        .iter()
        .map(|event| event.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FeedQuery {
    /// Parses query-string pairs by the document list's rules: unknown parameters are
    /// ignored; a known one that is repeated, empty or not what it must be is refused with its
    /// name and what it must be.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, Error> {
        let mut query = Self::default();
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in pairs {
            let Some(name) = ["after", "limit", "type"]
                .into_iter()
                .find(|known| known == name)
            else {
                continue;
            };
            let invalid = |reason: String| Error::InvalidQuery(Problem::new(name, reason));
            if seen.contains(&name) {
                return Err(invalid("must be given once".into()));
            }
            seen.push(name);
            match name {
                "after" => {
                    query.after =
                        Some(FeedCursor::decode(value).ok_or_else(|| {
                            invalid("must be a cursor this feed returned".into())
                        })?);
                }
                "limit" => {
                    query.limit = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|limit| (1..=MAX_LIMIT).contains(limit))
                        .ok_or_else(|| invalid(format!("must be between 1 and {MAX_LIMIT}")))?;
                }
                _ => {
                    let mut types = Vec::new();
                    for given in value.split(',') {
                        let event = WebhookEvent::VARIANTS
                            .iter()
                            .find(|event| event.to_string() == given)
                            .ok_or_else(|| {
                                invalid(format!(
                                    "must be one or more of {}, separated by commas",
                                    every_type()
                                ))
                            })?;
                        if !types.contains(event) {
                            types.push(*event);
                        }
                    }
                    query.types = Some(types);
                }
            }
        }
        Ok(query)
    }

    /// The types as the store compares them.
    pub fn type_names(&self) -> Option<Vec<String>> {
        self.types
            .as_ref()
            .map(|types| types.iter().map(ToString::to_string).collect())
    }
}

/// An event type as the feed writes it and its `type` parameter takes it: a webhook's `type`.
/// (Its schema lists every [`WebhookEvent`].)
pub struct EventType;

impl PartialSchema for EventType {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("The event's type, as its webhook's `type`"))
            .enum_values(Some(
                WebhookEvent::VARIANTS.iter().map(|event| event.to_string()),
            ))
            .into()
    }
}

impl ToSchema for EventType {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("EventType")
    }
}

/// One event of the feed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    /// The event's id: the `webhook-id` header its webhook delivery carries (the same on
    /// every retry and replay).
    #[schema(
        pattern = "^msg_[0-9a-f]{32}$",
        example = "msg_019a6f3e8c2b7d41a9e05f3c2d1b0a98"
    )]
    pub id: String,
    #[serde(rename = "type")]
    #[schema(value_type = EventType)]
    pub event_type: String,
    /// When the event was recorded.
    pub created_at: Timestamp,
    /// This event's place: `after` with it gives the events that follow it.
    #[schema(
        pattern = "^A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048]$",
        example = "AQAAAAAAAAPpAAAAAAAAACo"
    )]
    pub cursor: String,
    /// Exactly the body of the event's webhook (`type`, `timestamp`, `data`, and `delivery`
    /// for `recipient.delivery_failed`), byte for byte. A document's `data.filePath` was a
    /// link valid for 7 days from the event.
    #[schema(value_type = Object)]
    pub payload: Box<RawValue>,
}

impl EventView {
    pub fn new(event: &StoredEvent) -> Self {
        Self {
            id: event.id.wire(),
            event_type: event.event_type.clone(),
            created_at: Timestamp(event.created_at),
            cursor: FeedCursor(event.place()).encode(),
            payload: RawValue::from_string(event.payload.clone()).expect("webhook bodies are JSON"),
        }
    }
}

/// A page of the feed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventPage {
    /// Oldest first.
    pub items: Vec<EventView>,
    /// Where the next page starts: the last item's cursor, or the `after` given when the page
    /// is empty (poll again with it); null only when there is no event yet and no `after`.
    #[schema(
        pattern = "^A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048]$",
        example = "AQAAAAAAAAPpAAAAAAAAACo"
    )]
    pub next_cursor: Option<String>,
    /// Whether more events follow this page now.
    pub has_more: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(query: &[(&str, &str)]) -> Result<FeedQuery, String> {
        let pairs: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        FeedQuery::from_pairs(&pairs).map_err(|e| match e {
            Error::InvalidQuery(problem) => problem.field,
            other => panic!("unexpected {other}"),
        })
    }

    #[test]
    fn a_cursor_reads_back_as_itself() {
        let pattern = regex::Regex::new(CURSOR_PATTERN).unwrap();
        for position in [
            FeedPosition::default(),
            FeedPosition {
                txid: 1001,
                position: 42,
            },
            FeedPosition {
                txid: u64::MAX,
                position: i64::MAX,
            },
        ] {
            let text = FeedCursor(position).encode();
            assert_eq!(FeedCursor::decode(&text), Some(FeedCursor(position)));
            assert!(pattern.is_match(&text));
        }
    }

    #[test]
    fn every_string_of_the_pattern_is_a_cursor() {
        let pattern = regex::Regex::new(CURSOR_PATTERN).unwrap();
        for second in ('Q'..='Z').chain('a'..='f') {
            for last in "AEIMQUYcgkosw048".chars() {
                let text = format!("A{second}{}{last}", "-_z9".repeat(5));
                assert!(pattern.is_match(&text));
                assert!(FeedCursor::decode(&text).is_some(), "{text}");
            }
        }
        for not_one in [
            "AQAAAAAAAAPpAAAAAAAAACp",
            "BQAAAAAAAAPpAAAAAAAAACo",
            "AQAAAAAAAAPpAAAAAAAAAC",
        ] {
            assert!(!pattern.is_match(not_one));
            assert!(FeedCursor::decode(not_one).is_none(), "{not_one}");
        }
    }

    #[test]
    fn values_and_defaults() {
        assert_eq!(parse(&[("other", "x")]).unwrap(), FeedQuery::default());
        let after = FeedCursor(FeedPosition {
            txid: 7,
            position: 3,
        });
        let q = parse(&[
            ("after", &after.encode()),
            ("limit", "100"),
            ("type", "document.signed,document.completed,document.signed"),
        ])
        .unwrap();
        assert_eq!(q.after, Some(after));
        assert_eq!(q.limit, 100);
        assert_eq!(
            q.types,
            Some(vec![WebhookEvent::Signed, WebhookEvent::Completed])
        );
    }

    #[test]
    fn each_bad_parameter_is_named() {
        let foreign = URL_SAFE_NO_PAD.encode([2u8; 17]);
        let short = URL_SAFE_NO_PAD.encode([1u8; 9]);
        for (name, value) in [
            ("after", ""),
            ("after", "not a cursor"),
            ("after", " AQAAAAAAAAPpAAAAAAAAACo"),
            ("after", foreign.as_str()),
            ("after", short.as_str()),
            ("limit", "0"),
            ("limit", "101"),
            ("limit", "x"),
            ("limit", ""),
            ("type", ""),
            ("type", "document.signed,"),
            ("type", "document.signed, document.viewed"),
            ("type", "document.SIGNED"),
            ("type", "audit.entry"),
        ] {
            assert_eq!(parse(&[(name, value)]).unwrap_err(), name, "{name}={value}");
        }
        assert_eq!(
            parse(&[("type", "document.sent"), ("type", "document.sent")]).unwrap_err(),
            "type"
        );
    }
}
