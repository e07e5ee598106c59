//! SQL of webhook deliveries (one row per event of the feed of an account with a webhook URL,
//! with the exact body to send), their attempts and replays. Signing and what an attempt comes to:
//! `delivery::webhooks`; which change records which event: `effects`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};

use crate::{
    error::Result,
    infra::jobs,
    model::{
        AccountId, DocumentId, EventId, WebhookAttemptId, WebhookDeliveryId, WebhookDeliveryStatus,
        WebhookEvent,
    },
    store::outbox::{self, OutboxTable},
};

/// The webhook deliveries, which are their own queue (`store::outbox`).
pub const OUTBOX: OutboxTable = OutboxTable {
    table: "webhook_deliveries",
    queue: jobs::WEBHOOK_QUEUE,
};

/// Inserts the delivery of the event `event_id` (already in the feed, `store::events`) with
/// the exact body to send, due now; the delivery's `webhook-id` is the event's id.
/// An event about no one document (`bulk_send.completed`) has no `document_id`.
pub async fn insert(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: Option<DocumentId>,
    event_id: EventId,
    event: WebhookEvent,
    body: &str,
) -> Result<()> {
    let delivery_id = WebhookDeliveryId::new();
    sqlx::query(
        "INSERT INTO webhook_deliveries (id, account_id, document_id, event_id, event_type, payload,
                                         trace_context)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(delivery_id)
    .bind(account_id)
    .bind(document_id)
    .bind(event_id.wire())
    .bind(event.to_string())
    .bind(body)
    .bind(jobs::trace_context())
    .execute(&mut *conn)
    .await?;
    outbox::notify(conn, OUTBOX).await
}

/// [`insert`] for the events of many documents (of any accounts) in one statement; each
/// delivery's `webhook-id` is its event's id.
pub async fn insert_many(
    conn: &mut PgConnection,
    events: &[crate::store::events::NewEvent<'_>],
) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    let ids: Vec<WebhookDeliveryId> = events.iter().map(|_| WebhookDeliveryId::new()).collect();
    sqlx::query(
        "INSERT INTO webhook_deliveries (id, account_id, document_id, event_id, event_type, payload,
                                         trace_context)
         SELECT *, $7 FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[])",
    )
    .bind(&ids)
    .bind(events.iter().map(|e| e.account_id).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.document_id).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.id.wire()).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.event.to_string()).collect::<Vec<_>>())
    .bind(events.iter().map(|e| e.body).collect::<Vec<_>>())
    .bind(jobs::trace_context())
    .execute(&mut *conn)
    .await?;
    outbox::notify(conn, OUTBOX).await
}

#[derive(Debug, Clone, sqlx::FromRow, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: WebhookDeliveryId,
    pub account_id: AccountId,
    pub document_id: Option<DocumentId>,
    pub event_id: String,
    pub event_type: String,
    #[serde(skip)]
    pub payload: String,
    pub attempt: i32,
    #[sqlx(try_from = "String")]
    pub status: WebhookDeliveryStatus,
    pub response_status: Option<i32>,
    pub response_body: Option<String>,
    pub duration_ms: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The trace of the request (or job) that queued it, which its attempts continue.
    #[serde(skip)]
    pub trace_context: Option<String>,
}

const COLUMNS: &str = "id, account_id, document_id, event_id, event_type, payload, attempt, \
                       status, response_status, response_body, duration_ms, last_error, \
                       next_attempt_at, created_at, updated_at, trace_context";

pub async fn list(
    pool: &PgPool,
    account_id: AccountId,
    status: Option<WebhookDeliveryStatus>,
) -> Result<Vec<Delivery>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM webhook_deliveries
         WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)
         ORDER BY created_at, id"
    )))
    .bind(account_id)
    .bind(status.map(WebhookDeliveryStatus::as_str))
    .fetch_all(pool)
    .await?)
}

/// The account's `limit` most recent deliveries, newest first (served by the
/// `(account_id, status, created_at)` index's leading column).
pub async fn recent(pool: &PgPool, account_id: AccountId, limit: i64) -> Result<Vec<Delivery>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM webhook_deliveries WHERE account_id = $1
         ORDER BY created_at DESC, id DESC LIMIT $2"
    )))
    .bind(account_id)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// The claimed deliveries `ids`.
pub async fn load(conn: &mut PgConnection, ids: &[uuid::Uuid]) -> Result<Vec<Delivery>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM webhook_deliveries WHERE id = ANY($1)"
    )))
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// What one attempt came to.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub attempt: i32,
    pub url: String,
    pub started_at: DateTime<Utc>,
    pub duration_ms: i32,
    pub response_status: Option<i32>,
    pub response_body: Option<String>,
    pub error: Option<String>,
    /// DELIVERED, FAILED or PENDING (another attempt is scheduled).
    pub outcome: WebhookDeliveryStatus,
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When PENDING: how long until the next attempt.
    pub retry_in: Option<std::time::Duration>,
}

pub async fn record_attempt(
    conn: &mut PgConnection,
    delivery: &Delivery,
    record: &AttemptRecord,
) -> Result<bool> {
    // Only the attempt that follows the one the delivery row knows of is written, once.
    let updated = sqlx::query(
        "UPDATE webhook_deliveries SET attempt = $2, status = $3, response_status = $4,
             response_body = $5, duration_ms = $6, last_error = $7, next_attempt_at = $8,
             updated_at = now(), due_at = coalesce($8, due_at),
             lease_owner = CASE WHEN $3 = 'PENDING' THEN NULL ELSE lease_owner END
         WHERE id = $1 AND status = 'PENDING' AND attempt = $2 - 1",
    )
    .bind(delivery.id)
    .bind(record.attempt)
    .bind(record.outcome.as_str())
    .bind(record.response_status)
    .bind(&record.response_body)
    .bind(record.duration_ms)
    .bind(&record.error)
    .bind(record.next_attempt_at)
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() == 0 {
        return Ok(false);
    }
    sqlx::query(
        "INSERT INTO webhook_attempts (id, account_id, delivery_id, attempt, url, started_at,
                                       duration_ms, response_status, response_body, error)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(WebhookAttemptId::new())
    .bind(delivery.account_id)
    .bind(delivery.id)
    .bind(record.attempt)
    .bind(&record.url)
    .bind(record.started_at)
    .bind(record.duration_ms)
    .bind(record.response_status)
    .bind(&record.response_body)
    .bind(&record.error)
    .execute(conn)
    .await?;
    Ok(true)
}

/// Queues a new attempt of a delivery now, whatever its state; the event keeps its id.
/// With `account_id`, only a delivery of that account is found.
pub async fn replay(
    pool: &PgPool,
    delivery_id: WebhookDeliveryId,
    account_id: Option<AccountId>,
) -> Result<Option<Delivery>> {
    let mut tx = pool.begin().await?;
    let delivery: Option<Delivery> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = now(), updated_at = now(),
             due_at = now(), lease_owner = NULL
         WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) RETURNING {COLUMNS}"
    )))
    .bind(delivery_id)
    .bind(account_id)
    .fetch_optional(&mut *tx)
    .await?;
    if delivery.is_some() {
        outbox::notify(&mut tx, OUTBOX).await?;
    }
    tx.commit().await?;
    Ok(delivery)
}
