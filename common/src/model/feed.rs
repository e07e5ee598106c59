//! An event of an account's feed as stored, and its place in the feed (`store::events` reads
//! them; `wire::events` writes them for the reader).

use chrono::{DateTime, Utc};

use super::EventId;

/// An event's place in its account's feed: its transaction's id, then its order of writing.
/// The feed's cursor is this pair (`wire::events::FeedCursor` writes it opaquely).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct FeedPosition {
    pub txid: u64,
    pub position: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredEvent {
    pub id: EventId,
    pub event_type: String,
    /// The exact body of the event's webhook.
    pub payload: String,
    pub created_at: DateTime<Utc>,
    pub(crate) txid_text: String,
    pub(crate) position: i64,
}

impl StoredEvent {
    pub fn place(&self) -> FeedPosition {
        FeedPosition {
            txid: self
                .txid_text
                .parse()
                .expect("xid8 is written as an unsigned number"),
            position: self.position,
        }
    }
}
