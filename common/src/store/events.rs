//! SQL of the event feed (issue #34): every event an account's webhooks carry, with the exact
//! body, whether or not the account has a webhook URL, read in order from a position. Which
//! change records which event: `effects::publish`.

use sqlx::{PgConnection, PgPool};

use crate::{
    error::Result,
    model::{AccountId, DocumentId, EventId, WebhookEvent},
};

/// Records an event on the caller's transaction, which made the change it tells of. The
/// transaction's id (`txid`, set by the column's default) and the sequence give its place.
pub async fn insert(
    conn: &mut PgConnection,
    id: EventId,
    account_id: AccountId,
    document_id: Option<DocumentId>,
    event: WebhookEvent,
    body: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO events (id, account_id, document_id, event_type, payload)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(account_id)
    .bind(document_id)
    .bind(event.to_string())
    .bind(body)
    .execute(conn)
    .await?;
    Ok(())
}

/// An event to record: its id, account, document (if about one), type and exact body.
#[derive(Debug, Clone, Copy)]
pub struct NewEvent<'a> {
    pub id: EventId,
    pub account_id: AccountId,
    pub document_id: Option<DocumentId>,
    pub event: WebhookEvent,
    pub body: &'a str,
}

/// [`insert`] for many events in one statement, placed in the feed in the order given.
pub async fn insert_many(conn: &mut PgConnection, events: &[NewEvent<'_>]) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO events (id, account_id, document_id, event_type, payload)
         SELECT id, account_id, document_id, event_type, payload
         FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[])
              WITH ORDINALITY AS t(id, account_id, document_id, event_type, payload, n)
         ORDER BY n",
    )
    .bind(events.iter().map(|e| e.id).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.account_id).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.document_id).collect::<Vec<_>>())
    .bind(
        events
            .iter()
            .map(|e| e.event.to_string())
            .collect::<Vec<_>>(),
    )
    .bind(events.iter().map(|e| e.body).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

pub use crate::model::feed::{FeedPosition, StoredEvent};

/// The page's statement: `$1` the account, `$2` and `$3` the place after which to read (the
/// transaction id as text), `$4` the types (any, when null), `$5` how many. Public for the
/// test that checks its plan.
/// (The transaction id is read as text under another name: `ORDER BY txid` would otherwise
/// sort by the text.)
pub const PAGE: &str =
    "SELECT id, event_type, payload, created_at, txid::text AS txid_text, position
     FROM events
     WHERE account_id = $1
       AND (txid, position) > ($2::text::xid8, $3)
       AND txid < pg_snapshot_xmin(pg_current_snapshot())
       AND ($4::text[] IS NULL OR event_type = ANY ($4))
     ORDER BY events.txid, events.position
     LIMIT $5";

/// Up to `limit` of the account's events after `after` (from the start with the default
/// position), oldest first, of the given types (any, with `None`).
///
/// Only events of transactions older than the oldest one still running are read: those that
/// remain can no longer be joined by an event placed before them, so a reader that moves past
/// an event never misses one that commits later (docs/api.md, "Order"). One range read of
/// `events_feed`, whatever the account's size.
pub async fn page(
    pool: &PgPool,
    account_id: AccountId,
    after: FeedPosition,
    types: Option<&[String]>,
    limit: i64,
) -> Result<Vec<StoredEvent>> {
    Ok(sqlx::query_as(PAGE)
        .bind(account_id)
        .bind(after.txid.to_string())
        .bind(after.position)
        .bind(types)
        .bind(limit)
        .fetch_all(pool)
        .await?)
}

/// Whether one of the account's events is at exactly `place`: the look-up behind a format-1
/// cursor, which carries no MAC (one read of `events_feed`).
pub async fn is_place_of_event(
    pool: &PgPool,
    account_id: AccountId,
    place: FeedPosition,
) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM events
                        WHERE account_id = $1 AND txid = $2::text::xid8 AND position = $3)",
    )
    .bind(account_id)
    .bind(place.txid.to_string())
    .bind(place.position)
    .fetch_one(pool)
    .await?)
}

/// Deletes up to `limit` events older than `retention_days`, oldest first; how many it
/// deleted. Any number of sweeps may run it at once.
pub async fn purge_older_than(pool: &PgPool, retention_days: u32, limit: i64) -> Result<u64> {
    let deleted = sqlx::query(
        "DELETE FROM events WHERE id IN (
            SELECT id FROM events WHERE created_at < now() - make_interval(days => $1)
            ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)",
    )
    .bind(i32::try_from(retention_days).unwrap_or(i32::MAX))
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(deleted.rows_affected())
}
