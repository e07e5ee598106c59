//! SQL of signer authentication (issue #34): a recipient's access code hash, wrong codes and
//! lock (columns of `recipients`), the one-time codes sent (`signer_auth_codes`) and the
//! browsers that passed (`signer_auth_passes`).

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::{
    error::Result,
    model::{AuthMethod, RecipientId},
};

/// A recipient's stored access code (an argon2id PHC string), if they have one.
pub async fn access_code_hash(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT access_code_hash FROM recipients WHERE id = $1")
            .bind(recipient_id)
            .fetch_optional(conn)
            .await?
            .flatten(),
    )
}

/// Counts one wrong code, unless the recipient is locked already; the `locks_at`-th locks them.
/// Returns the wrong codes so far and whether this one locked the recipient; `None` when they
/// were locked already.
pub async fn count_failure(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    locks_at: i32,
) -> Result<Option<(i32, bool)>> {
    Ok(sqlx::query_as(
        "UPDATE recipients SET auth_failures = auth_failures + 1,
             auth_locked_at = CASE WHEN auth_failures + 1 >= $2 THEN now() END
         WHERE id = $1 AND auth_locked_at IS NULL
         RETURNING auth_failures, auth_locked_at IS NOT NULL",
    )
    .bind(recipient_id)
    .bind(locks_at)
    .fetch_optional(conn)
    .await?)
}

/// Records a pass: the wrong codes are forgiven, the first pass is kept, and the browser's
/// pass (the hash of its cookie's value) is valid until `expires_at`.
pub async fn record_pass(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    method: AuthMethod,
    pass_hash: &[u8],
    expires_at: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients SET auth_failures = 0, auth_passed_at = coalesce(auth_passed_at, now())
         WHERE id = $1",
    )
    .bind(recipient_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO signer_auth_passes (token_hash, recipient_id, method, expires_at)
         VALUES ($1, $2, $3, $4)",
    )
    .bind(pass_hash)
    .bind(recipient_id)
    .bind(method.as_str())
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Whether a browser presenting the cookie value hashed to `pass_hash` passed the recipient's
/// check, with `method`, and its pass has not expired.
pub async fn has_pass(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    method: AuthMethod,
    pass_hash: &[u8],
) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM signer_auth_passes
                        WHERE token_hash = $1 AND recipient_id = $2 AND method = $3
                          AND expires_at > now())",
    )
    .bind(pass_hash)
    .bind(recipient_id)
    .bind(method.as_str())
    .fetch_one(conn)
    .await?)
}

/// Unlocks a recipient: the wrong codes are forgiven and the codes sent so far stop working.
/// Returns whether they were locked.
pub async fn unlock(conn: &mut PgConnection, recipient_id: RecipientId) -> Result<bool> {
    let was_locked: Option<bool> = sqlx::query_scalar(
        "UPDATE recipients r SET auth_failures = 0, auth_locked_at = NULL
         FROM (SELECT auth_locked_at FROM recipients WHERE id = $1) before
         WHERE r.id = $1
         RETURNING before.auth_locked_at IS NOT NULL",
    )
    .bind(recipient_id)
    .fetch_optional(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE signer_auth_codes SET used_at = now() WHERE recipient_id = $1 AND used_at IS NULL",
    )
    .bind(recipient_id)
    .execute(conn)
    .await?;
    Ok(was_locked.unwrap_or(false))
}

/// The codes sent to a recipient lately: when the last went, and how many since `since`.
pub async fn sends_since(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    since: DateTime<Utc>,
) -> Result<(Option<DateTime<Utc>>, Option<DateTime<Utc>>, i64)> {
    Ok(sqlx::query_as(
        "SELECT max(sent_at), min(sent_at) FILTER (WHERE sent_at > $2),
                count(*) FILTER (WHERE sent_at > $2)
         FROM signer_auth_codes WHERE recipient_id = $1",
    )
    .bind(recipient_id)
    .bind(since)
    .fetch_one(conn)
    .await?)
}

/// Stores a code sent now (its salted hash), valid until `expires_at`; earlier codes stop
/// working.
pub async fn insert_code(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    salt: &[u8],
    code_hash: &[u8],
    expires_at: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "UPDATE signer_auth_codes SET used_at = now() WHERE recipient_id = $1 AND used_at IS NULL",
    )
    .bind(recipient_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO signer_auth_codes (id, recipient_id, salt, code_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(uuid::Uuid::now_v7())
    .bind(recipient_id)
    .bind(salt)
    .bind(code_hash)
    .bind(expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The code a recipient may type now, as stored: its id, salt, hash and expiry. `None` when
/// none was sent or the last was used.
pub async fn live_code(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
) -> Result<Option<(uuid::Uuid, Vec<u8>, Vec<u8>, DateTime<Utc>)>> {
    Ok(sqlx::query_as(
        "SELECT id, salt, code_hash, expires_at FROM signer_auth_codes
         WHERE recipient_id = $1 AND used_at IS NULL
         ORDER BY sent_at DESC LIMIT 1",
    )
    .bind(recipient_id)
    .fetch_optional(conn)
    .await?)
}

/// Marks a code used: it works once.
pub async fn use_code(conn: &mut PgConnection, code_id: uuid::Uuid) -> Result<()> {
    sqlx::query("UPDATE signer_auth_codes SET used_at = now() WHERE id = $1")
        .bind(code_id)
        .execute(conn)
        .await?;
    Ok(())
}
