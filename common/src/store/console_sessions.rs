//! SQL of console sessions: one row per signed-in browser, keyed by the SHA-256 of its token.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

use crate::{error::Result, model::AccountId};

pub async fn insert(
    conn: &mut PgConnection,
    token_hash: &[u8],
    account_id: AccountId,
    csrf_token: &str,
    hours: i64,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO console_sessions (token_hash, account_id, csrf_token, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(hours => $4))",
    )
    .bind(token_hash)
    .bind(account_id)
    .bind(csrf_token)
    .bind(hours as i32)
    .execute(conn)
    .await?;
    Ok(())
}

/// The unexpired session with this token hash: its account, CSRF token and expiry.
pub async fn find(
    pool: &PgPool,
    token_hash: &[u8],
) -> Result<Option<(AccountId, String, DateTime<Utc>)>> {
    Ok(sqlx::query_as(
        "SELECT account_id, csrf_token, expires_at FROM console_sessions
         WHERE token_hash = $1 AND expires_at > now()",
    )
    .bind(token_hash)
    .fetch_optional(pool)
    .await?)
}

pub async fn delete(pool: &PgPool, token_hash: &[u8]) -> Result<()> {
    sqlx::query("DELETE FROM console_sessions WHERE token_hash = $1")
        .bind(token_hash)
        .execute(pool)
        .await?;
    Ok(())
}

pub async fn delete_for_account(pool: &PgPool, account_id: AccountId) -> Result<()> {
    sqlx::query("DELETE FROM console_sessions WHERE account_id = $1")
        .bind(account_id)
        .execute(pool)
        .await?;
    Ok(())
}
