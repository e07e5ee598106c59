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
    infra::secrets::FeedCursorKey,
    model::{
        AccountId, WebhookEvent,
        feed::{FeedPosition, StoredEvent},
    },
    wire::{
        query::{DEFAULT_LIMIT, MAX_LIMIT},
        views::Timestamp,
    },
};

/// The first byte of a cursor: its format. Format 1 (17 bytes: the format, the transaction id,
/// the position) carried no MAC; format 2 adds one.
const UNSIGNED_FORMAT: u8 = 1;
const SIGNED_FORMAT: u8 = 2;
/// The format byte, the transaction id and the position.
const PLACE_BYTES: usize = 17;

/// The cursors the feed hands out (format 2): `A` and a character whose two high bits are `10`
/// (the format byte), 42 more base64url characters (33 bytes, no padding). A string of the
/// pattern need not be a cursor: only one whose MAC holds for the account is.
pub const CURSOR_PATTERN: &str = "^A[g-v][A-Za-z0-9_-]{42}$";

/// What `after` takes: a cursor of format 2, or of format 1 (`A`, a character whose two high
/// bits are `01`, and a last one with no bits past the 17th byte), which the feed still takes
/// where it names one of the account's events.
pub const AFTER_PATTERN: &str =
    "^(A[g-v][A-Za-z0-9_-]{42}|A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048])$";

/// Why `after` is refused: a cursor this feed did not give this account, as given.
pub const NOT_A_CURSOR: &str = "must be a cursor this feed returned";

/// A place in an account's feed, as the API hands it out: base64url without padding of the
/// format byte (2), the transaction id, the position and a MAC ([`FeedCursorKey`]) over the
/// format byte, the account's id and the place (33 bytes, 44 characters); opaque to
/// integrators. Only the account it was given to, unchanged, gets it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedCursor(pub FeedPosition);

/// A cursor as `after` gives it, once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GivenCursor {
    /// Format 2, whose MAC holds for the account: a place this feed gave it.
    Signed(FeedPosition),
    /// Format 1, from before cursors were signed: integrators keep them, so the feed still
    /// takes one, but only where it names one of the account's events (its flow looks).
    Unsigned(FeedPosition),
}

impl GivenCursor {
    pub fn place(self) -> FeedPosition {
        match self {
            Self::Signed(place) | Self::Unsigned(place) => place,
        }
    }
}

impl FeedCursor {
    pub fn encode(self, key: &FeedCursorKey, account_id: AccountId) -> String {
        let mut bytes = self.place_bytes(SIGNED_FORMAT);
        let tag = key.tag(&Self::signed_message(&bytes, account_id));
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Reads `text` as `account_id`'s cursor: `None` when it is no cursor, another account's,
    /// or altered.
    pub fn decode(text: &str, key: &FeedCursorKey, account_id: AccountId) -> Option<GivenCursor> {
        let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
        let (place, tag) = bytes.split_at_checked(PLACE_BYTES)?;
        let position = Self::position(place)?;
        match (place[0], tag.len()) {
            (SIGNED_FORMAT, FeedCursorKey::TAG_BYTES) => key
                .verify(&Self::signed_message(place, account_id), tag)
                .then_some(GivenCursor::Signed(position)),
            (UNSIGNED_FORMAT, 0) => Some(GivenCursor::Unsigned(position)),
            _ => None,
        }
    }

    fn place_bytes(self, format: u8) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(PLACE_BYTES + FeedCursorKey::TAG_BYTES);
        bytes.push(format);
        bytes.extend_from_slice(&self.0.txid.to_be_bytes());
        bytes.extend_from_slice(&self.0.position.to_be_bytes());
        bytes
    }

    /// What the MAC is over: the format byte, the account's id, then the place.
    fn signed_message(place: &[u8], account_id: AccountId) -> Vec<u8> {
        [&place[..1], account_id.0.as_bytes(), &place[1..]].concat()
    }

    fn position(place: &[u8]) -> Option<FeedPosition> {
        let (txid, position) = place.get(1..PLACE_BYTES)?.split_at(8);
        Some(FeedPosition {
            txid: u64::from_be_bytes(txid.try_into().ok()?),
            position: i64::from_be_bytes(position.try_into().ok()?),
        })
    }
}

/// The refusal of an `after` that is not a cursor this feed gave the account.
pub fn not_a_cursor() -> Error {
    Error::InvalidQuery(Problem::new("after", NOT_A_CURSOR))
}

/// The feed's query parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedQuery {
    /// Events after this place; from the oldest kept without one.
    pub after: Option<GivenCursor>,
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
    /// name and what it must be. `after` must be a cursor of `account_id`'s, read with `key`.
    pub fn from_pairs(
        pairs: &[(String, String)],
        key: &FeedCursorKey,
        account_id: AccountId,
    ) -> Result<Self, Error> {
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
                    query.after = Some(
                        FeedCursor::decode(value, key, account_id)
                            .ok_or_else(|| invalid(NOT_A_CURSOR.into()))?,
                    );
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
    /// This event's place: `after` with it gives the events that follow it (for this account
    /// only)
    #[schema(
        pattern = "^A[g-v][A-Za-z0-9_-]{42}$",
        example = "AgAAAAAAAAPpAAAAAAAAACrOq8cZ8Y1xm2FnqbH0JgwT"
    )]
    pub cursor: String,
    /// Exactly the body of the event's webhook (`type`, `timestamp`, `data`, and `delivery`
    /// for `recipient.delivery_failed`), byte for byte. A document's `data.filePath` was a
    /// link valid for 7 days from the event.
    #[schema(value_type = Object)]
    pub payload: Box<RawValue>,
}

impl EventView {
    pub fn new(event: &StoredEvent, key: &FeedCursorKey, account_id: AccountId) -> Self {
        Self {
            id: event.id.wire(),
            event_type: event.event_type.clone(),
            created_at: Timestamp(event.created_at),
            cursor: FeedCursor(event.place()).encode(key, account_id),
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
    /// is empty (poll again with it; a format-1 one given back in format 2); null only when
    /// there is no event yet and no `after`.
    #[schema(
        pattern = "^A[g-v][A-Za-z0-9_-]{42}$",
        example = "AgAAAAAAAAPpAAAAAAAAACrOq8cZ8Y1xm2FnqbH0JgwT"
    )]
    pub next_cursor: Option<String>,
    /// Whether more events follow this page now.
    pub has_more: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> FeedCursorKey {
        FeedCursorKey::from_file_url_secret(b"0123456789abcdef0123456789abcdef")
    }

    fn account() -> AccountId {
        AccountId(uuid::Uuid::from_u128(7))
    }

    fn parse(query: &[(&str, &str)]) -> Result<FeedQuery, String> {
        let pairs: Vec<(String, String)> = query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        FeedQuery::from_pairs(&pairs, &key(), account()).map_err(|e| match e {
            Error::InvalidQuery(problem) => problem.field,
            other => panic!("unexpected {other}"),
        })
    }

    const PLACES: [FeedPosition; 3] = [
        FeedPosition {
            txid: 0,
            position: 0,
        },
        FeedPosition {
            txid: 1001,
            position: 42,
        },
        FeedPosition {
            txid: u64::MAX,
            position: i64::MAX,
        },
    ];

    #[test]
    fn a_cursor_reads_back_as_itself_for_its_account_only() {
        let pattern = regex::Regex::new(CURSOR_PATTERN).unwrap();
        let after = regex::Regex::new(AFTER_PATTERN).unwrap();
        let other_account = AccountId(uuid::Uuid::from_u128(8));
        let other_key = FeedCursorKey::from_file_url_secret(b"another secret of at least 32 bytes");
        for place in PLACES {
            let text = FeedCursor(place).encode(&key(), account());
            assert!(pattern.is_match(&text) && after.is_match(&text), "{text}");
            assert_eq!(
                FeedCursor::decode(&text, &key(), account()),
                Some(GivenCursor::Signed(place))
            );
            assert_eq!(FeedCursor::decode(&text, &key(), other_account), None);
            assert_eq!(FeedCursor::decode(&text, &other_key, account()), None);
        }
    }

    #[test]
    fn a_cursor_with_any_character_changed_is_none() {
        let text = FeedCursor(PLACES[1]).encode(&key(), account());
        for at in 0..text.len() {
            for by in ['A', 'B', '_', '9'] {
                let mut changed = text.clone().into_bytes();
                if changed[at] == by as u8 {
                    continue;
                }
                changed[at] = by as u8;
                let changed = String::from_utf8(changed).unwrap();
                assert_eq!(
                    FeedCursor::decode(&changed, &key(), account()),
                    None,
                    "{changed}"
                );
            }
        }
    }

    #[test]
    fn a_format_1_cursor_is_read_unsigned_for_its_flow_to_look_up() {
        // As the feed wrote them before cursors were signed: format byte, txid, position.
        let after = regex::Regex::new(AFTER_PATTERN).unwrap();
        for place in PLACES {
            let mut bytes = vec![1];
            bytes.extend_from_slice(&place.txid.to_be_bytes());
            bytes.extend_from_slice(&place.position.to_be_bytes());
            let text = URL_SAFE_NO_PAD.encode(bytes);
            assert!(after.is_match(&text), "{text}");
            assert_eq!(
                FeedCursor::decode(&text, &key(), account()),
                Some(GivenCursor::Unsigned(place))
            );
        }
        assert_eq!(
            FeedCursor::decode("AQAAAAAAAAPpAAAAAAAAACo", &key(), account()),
            Some(GivenCursor::Unsigned(PLACES[1]))
        );
    }

    /// A pattern can say what a cursor looks like, not that it is one: strings of both
    /// patterns that the feed did not sign for the account are refused.
    #[test]
    fn a_string_of_the_pattern_is_not_therefore_a_cursor() {
        let pattern = regex::Regex::new(CURSOR_PATTERN).unwrap();
        let after = regex::Regex::new(AFTER_PATTERN).unwrap();
        for second in 'g'..='v' {
            let text = format!("A{second}{}", "-_z9AbC".repeat(6));
            assert!(pattern.is_match(&text), "{text}");
            assert_eq!(FeedCursor::decode(&text, &key(), account()), None);
        }
        for not_one in [
            "AQAAAAAAAAPpAAAAAAAAACp",
            "BQAAAAAAAAPpAAAAAAAAACo",
            "AQAAAAAAAAPpAAAAAAAAAC",
        ] {
            assert!(!after.is_match(not_one));
            assert!(
                FeedCursor::decode(not_one, &key(), account()).is_none(),
                "{not_one}"
            );
        }
    }

    #[test]
    fn values_and_defaults() {
        assert_eq!(parse(&[("other", "x")]).unwrap(), FeedQuery::default());
        let place = FeedPosition {
            txid: 7,
            position: 3,
        };
        let q = parse(&[
            ("after", &FeedCursor(place).encode(&key(), account())),
            ("limit", "100"),
            ("type", "document.signed,document.completed,document.signed"),
        ])
        .unwrap();
        assert_eq!(q.after, Some(GivenCursor::Signed(place)));
        assert_eq!(q.limit, 100);
        assert_eq!(
            q.types,
            Some(vec![WebhookEvent::Signed, WebhookEvent::Completed])
        );
    }

    #[test]
    fn each_bad_parameter_is_named() {
        let foreign = URL_SAFE_NO_PAD.encode([3u8; 17]);
        let short = URL_SAFE_NO_PAD.encode([1u8; 9]);
        let unsigned_format_2 = URL_SAFE_NO_PAD.encode([2u8; 17]);
        let signed_format_1 = URL_SAFE_NO_PAD.encode([1u8; 33]);
        for (name, value) in [
            ("after", ""),
            ("after", "not a cursor"),
            ("after", " AQAAAAAAAAPpAAAAAAAAACo"),
            ("after", foreign.as_str()),
            ("after", short.as_str()),
            ("after", unsigned_format_2.as_str()),
            ("after", signed_format_1.as_str()),
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
