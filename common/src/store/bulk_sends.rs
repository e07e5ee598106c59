//! SQL of the bulk send aggregate: a bulk send and its rows.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, types::Json};

use crate::{
    error::{Error, Result},
    model::{AccountId, BulkRowStatus, BulkSendId, BulkSendStatus, DocumentId, TemplateId},
    wire::{bulk_rows::ReadRows, bulk_sends::BulkOverrides},
};

const COLUMNS: &str = "id, account_id, template_id, status, overrides, total, actor_ip, \
                       actor_user_agent, created_at, updated_at, finished_at";

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BulkSend {
    pub id: BulkSendId,
    pub account_id: AccountId,
    pub template_id: TemplateId,
    #[sqlx(try_from = "String")]
    pub status: BulkSendStatus,
    pub overrides: Json<BulkOverrides>,
    pub total: i32,
    pub actor_ip: Option<String>,
    pub actor_user_agent: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

pub struct NewBulkSend<'a> {
    pub id: BulkSendId,
    pub account_id: AccountId,
    pub template_id: TemplateId,
    pub overrides: &'a BulkOverrides,
    pub actor_ip: Option<String>,
    pub actor_user_agent: &'a str,
}

/// Inserts a bulk send, RUNNING, with its rows PENDING (in one statement).
pub async fn insert(conn: &mut PgConnection, new: &NewBulkSend<'_>, rows: &ReadRows) -> Result<()> {
    sqlx::query(
        "INSERT INTO bulk_sends (id, account_id, template_id, overrides, total, actor_ip,
                                 actor_user_agent)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(new.id)
    .bind(new.account_id)
    .bind(new.template_id)
    .bind(Json(new.overrides))
    .bind(rows.rows.len() as i32)
    .bind(&new.actor_ip)
    .bind(new.actor_user_agent)
    .execute(&mut *conn)
    .await?;
    let numbers: Vec<i32> = rows.rows.iter().map(|r| r.number as i32).collect();
    sqlx::query(
        "INSERT INTO bulk_send_rows (bulk_send_id, row_number, input)
         SELECT $1, n, i FROM UNNEST($2::int[]) WITH ORDINALITY AS a(n, o)
         JOIN jsonb_array_elements($3::jsonb) WITH ORDINALITY AS b(i, o) USING (o)",
    )
    .bind(new.id)
    .bind(numbers)
    .bind(Json(rows.as_objects()))
    .execute(conn)
    .await?;
    Ok(())
}

/// The account's bulk send.
pub async fn find(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: BulkSendId,
) -> Result<BulkSend> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM bulk_sends WHERE id = $1 AND account_id = $2"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::BulkSendNotFound)
}

/// A bulk send, whoever's, shared-locked for a chunk of its rows: a cancel waits for the chunk
/// to commit (and then cancels what is still PENDING). `None`: there is no such bulk send.
pub async fn lock_for_chunk(conn: &mut PgConnection, id: BulkSendId) -> Result<Option<BulkSend>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM bulk_sends WHERE id = $1 FOR SHARE"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await?)
}

/// A row of a bulk send, as the worker makes it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PendingRow {
    pub row_number: i32,
    pub input: Json<BTreeMap<String, String>>,
}

/// Up to `limit` of the bulk send's PENDING rows, in order, locked; rows another worker holds
/// are skipped.
pub async fn lock_pending(
    conn: &mut PgConnection,
    id: BulkSendId,
    limit: i64,
) -> Result<Vec<PendingRow>> {
    Ok(sqlx::query_as(
        "SELECT row_number, input FROM bulk_send_rows
         WHERE bulk_send_id = $1 AND status = 'PENDING'
         ORDER BY row_number LIMIT $2
         FOR UPDATE SKIP LOCKED",
    )
    .bind(id)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// Whether any row is still PENDING (including rows another worker holds).
pub async fn any_pending(conn: &mut PgConnection, id: BulkSendId) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM bulk_send_rows
                        WHERE bulk_send_id = $1 AND status = 'PENDING')",
    )
    .bind(id)
    .fetch_one(conn)
    .await?)
}

/// Marks a row SENT with its document.
pub async fn mark_sent(
    conn: &mut PgConnection,
    id: BulkSendId,
    row_number: i32,
    document_id: DocumentId,
) -> Result<()> {
    sqlx::query(
        "UPDATE bulk_send_rows SET status = 'SENT', document_id = $3, updated_at = now()
         WHERE bulk_send_id = $1 AND row_number = $2 AND status = 'PENDING'",
    )
    .bind(id)
    .bind(row_number)
    .bind(document_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks a row FAILED, with why.
pub async fn mark_failed(
    conn: &mut PgConnection,
    id: BulkSendId,
    row_number: i32,
    reason: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE bulk_send_rows SET status = 'FAILED', error = $3, updated_at = now()
         WHERE bulk_send_id = $1 AND row_number = $2 AND status = 'PENDING'",
    )
    .bind(id)
    .bind(row_number)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks every row still PENDING FAILED, with why (the template was archived meanwhile).
pub async fn fail_pending(conn: &mut PgConnection, id: BulkSendId, reason: &str) -> Result<()> {
    sqlx::query(
        "UPDATE bulk_send_rows SET status = 'FAILED', error = $2, updated_at = now()
         WHERE bulk_send_id = $1 AND status = 'PENDING'",
    )
    .bind(id)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many rows are in each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub created: i64,
    pub sent: i64,
    pub failed: i64,
    pub cancelled: i64,
    pub pending: i64,
}

pub async fn counts(conn: &mut PgConnection, id: BulkSendId) -> Result<Counts> {
    let found: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT status, count(*), count(document_id) FROM bulk_send_rows
         WHERE bulk_send_id = $1 GROUP BY status",
    )
    .bind(id)
    .fetch_all(conn)
    .await?;
    let mut counts = Counts::default();
    for (status, n, made) in found {
        counts.created += made;
        match BulkRowStatus::try_from(status) {
            Ok(BulkRowStatus::Pending) => counts.pending = n,
            Ok(BulkRowStatus::Sent) => counts.sent = n,
            Ok(BulkRowStatus::Failed) => counts.failed = n,
            Ok(BulkRowStatus::Cancelled) => counts.cancelled = n,
            Err(_) => {}
        }
    }
    Ok(counts)
}

/// The first `limit` FAILED rows by number, with why.
pub async fn failures(
    conn: &mut PgConnection,
    id: BulkSendId,
    limit: i64,
) -> Result<Vec<(i32, String)>> {
    Ok(sqlx::query_as(
        "SELECT row_number, coalesce(error, '') FROM bulk_send_rows
         WHERE bulk_send_id = $1 AND status = 'FAILED'
         ORDER BY row_number LIMIT $2",
    )
    .bind(id)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// RUNNING → COMPLETED; false when it was not RUNNING (completed or cancelled already).
pub async fn complete(conn: &mut PgConnection, id: BulkSendId) -> Result<bool> {
    let done = sqlx::query(
        "UPDATE bulk_sends SET status = 'COMPLETED', finished_at = now(), updated_at = now()
         WHERE id = $1 AND status = 'RUNNING'",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Cancels the account's bulk send: RUNNING → CANCELLED, and its rows still PENDING with it.
/// The status it had: a COMPLETED or CANCELLED one is not changed.
pub async fn cancel(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: BulkSendId,
) -> Result<BulkSendStatus> {
    // The row lock waits for a chunk being made (it holds FOR SHARE) to commit.
    let found = sqlx::query_scalar::<_, String>(
        "SELECT status FROM bulk_sends WHERE id = $1 AND account_id = $2 FOR UPDATE",
    )
    .bind(id)
    .bind(account_id)
    .fetch_optional(&mut *conn)
    .await?
    .ok_or(Error::BulkSendNotFound)?;
    let status = BulkSendStatus::try_from(found)
        .map_err(|e| Error::Database(sqlx::Error::Decode(Box::new(e))))?;
    if status != BulkSendStatus::Running {
        return Ok(status);
    }
    sqlx::query(
        "UPDATE bulk_sends SET status = 'CANCELLED', finished_at = now(), updated_at = now()
         WHERE id = $1",
    )
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE bulk_send_rows SET status = 'CANCELLED', updated_at = now()
         WHERE bulk_send_id = $1 AND status = 'PENDING'",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(status)
}
