//! SQL of embedded signing sessions: a single-use ticket that becomes a session bound to the
//! browser that used it. Only the SHA-256 of the ticket and of the browser's cookie is stored.

use std::time::Duration;

use sqlx::{PgConnection, PgPool};

use crate::{
    error::Result,
    model::{AccountId, DocumentId, EmbeddedSessionId, RecipientId},
};

pub struct NewSession<'a> {
    pub id: EmbeddedSessionId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    pub ticket_hash: &'a [u8],
    pub ticket_ttl: Duration,
    pub parent_origin: Option<&'a str>,
    pub return_url: Option<&'a str>,
}

/// A session as its page needs it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Session {
    pub id: EmbeddedSessionId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    pub parent_origin: Option<String>,
    pub return_url: Option<String>,
}

/// Inserts the session's ticket; returns when it stops being accepted.
pub async fn insert(
    conn: &mut PgConnection,
    new: &NewSession<'_>,
) -> Result<chrono::DateTime<chrono::Utc>> {
    Ok(sqlx::query_scalar(
        "INSERT INTO embedded_sessions (id, account_id, document_id, recipient_id, ticket_hash,
                                        ticket_expires_at, parent_origin, return_url)
         VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7, $8)
         RETURNING ticket_expires_at",
    )
    .bind(new.id)
    .bind(new.account_id)
    .bind(new.document_id)
    .bind(new.recipient_id)
    .bind(new.ticket_hash)
    .bind(new.ticket_ttl.as_secs_f64())
    .bind(new.parent_origin)
    .bind(new.return_url)
    .fetch_one(conn)
    .await?)
}

/// Uses the ticket, once: binds its session to the browser whose cookie hashes to
/// `browser_hash`, for `session_ttl`. `None`: no such ticket, or it was used or has expired.
pub async fn redeem(
    pool: &PgPool,
    ticket_hash: &[u8],
    browser_hash: &[u8],
    session_ttl: Duration,
) -> Result<Option<Session>> {
    Ok(sqlx::query_as(
        "UPDATE embedded_sessions
         SET used_at = now(), browser_hash = $2,
             expires_at = now() + make_interval(secs => $3)
         WHERE ticket_hash = $1 AND used_at IS NULL AND ticket_expires_at > now()
         RETURNING id, account_id, document_id, recipient_id, parent_origin, return_url",
    )
    .bind(ticket_hash)
    .bind(browser_hash)
    .bind(session_ttl.as_secs_f64())
    .fetch_optional(pool)
    .await?)
}

/// The unexpired session `id` of the browser whose cookie hashes to `browser_hash`.
pub async fn find_for_browser(
    pool: &PgPool,
    id: EmbeddedSessionId,
    browser_hash: &[u8],
) -> Result<Option<Session>> {
    Ok(sqlx::query_as(
        "SELECT id, account_id, document_id, recipient_id, parent_origin, return_url
         FROM embedded_sessions
         WHERE id = $1 AND browser_hash = $2 AND expires_at > now()",
    )
    .bind(id)
    .bind(browser_hash)
    .fetch_optional(pool)
    .await?)
}

/// The session whose ticket hashes to `ticket_hash`, used or not.
pub async fn find_by_ticket(pool: &PgPool, ticket_hash: &[u8]) -> Result<Option<Session>> {
    Ok(sqlx::query_as(
        "SELECT id, account_id, document_id, recipient_id, parent_origin, return_url
         FROM embedded_sessions WHERE ticket_hash = $1",
    )
    .bind(ticket_hash)
    .fetch_optional(pool)
    .await?)
}

/// The session `id`, whatever its state.
pub async fn find(pool: &PgPool, id: EmbeddedSessionId) -> Result<Option<Session>> {
    Ok(sqlx::query_as(
        "SELECT id, account_id, document_id, recipient_id, parent_origin, return_url
         FROM embedded_sessions WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?)
}
