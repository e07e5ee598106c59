//! SQL of the idempotency keys of the external API's POSTs. See
//! `migrations/…_idempotency_keys.sql`.

use std::time::Duration;

use sqlx::{PgConnection, PgPool};

use crate::{error::Result, model::AccountId};

/// An account's key with the fingerprint of the request that brought it.
#[derive(Debug, Clone)]
pub struct KeyedRequest {
    pub account_id: AccountId,
    pub key: String,
    pub fingerprint: [u8; 32],
    /// The fingerprint an earlier release gave the same request, before it counted the
    /// `Content-Type`: a key stored then still matches the retries of its request (until it
    /// expires, 24 hours after) instead of calling them another request.
    pub earlier_fingerprint: Option<[u8; 32]>,
}

impl KeyedRequest {
    fn is_fingerprinted_as(&self, stored: &[u8]) -> bool {
        stored == self.fingerprint || self.earlier_fingerprint.is_some_and(|e| stored == e)
    }
}

/// The answer stored for a key, replayed to every repeat of its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// A successful write's answer, stored by the write's own transaction.
#[derive(Debug, Clone)]
pub struct Receipt {
    pub request: KeyedRequest,
    pub answer: StoredAnswer,
}

/// A key's fingerprint, and its answer's status and body once it has one.
type HeldKey = (Vec<u8>, Option<i16>, Option<Vec<u8>>);

/// What a key is when a request brings it.
#[derive(Debug, PartialEq, Eq)]
pub enum Claim {
    /// New (or free again): this request runs, and its answer is stored under the key.
    Claimed,
    /// Answered before: the stored answer is the answer.
    Answered(StoredAnswer),
    /// A request with this key is running now.
    InFlight,
    /// The key was used for a different request.
    OtherRequest,
}

/// Claims the key for this request, in one statement that concurrent requests serialise on: a
/// key that is new, past its retention, or whose claim's lease ended with no answer (its
/// request died before its transaction committed) goes to this request. Otherwise what the key
/// holds decides.
pub async fn claim(
    pool: &PgPool,
    request: &KeyedRequest,
    lease: Duration,
    retention: Duration,
) -> Result<Claim> {
    // A key purged between the two statements is simply claimed on the next turn.
    for _ in 0..3 {
        let claimed: Option<bool> = sqlx::query_scalar(
            "INSERT INTO idempotency_keys (account_id, key, fingerprint, locked_until, expires_at)
             VALUES ($1, $2, $3, now() + make_interval(secs => $4),
                     now() + make_interval(secs => $5))
             ON CONFLICT (account_id, key) DO UPDATE
                SET fingerprint = EXCLUDED.fingerprint,
                    locked_until = EXCLUDED.locked_until,
                    expires_at = EXCLUDED.expires_at,
                    created_at = now(),
                    response_status = NULL,
                    response_body = NULL
                WHERE idempotency_keys.expires_at <= now()
                   OR (idempotency_keys.response_status IS NULL
                       AND idempotency_keys.locked_until <= now()
                       AND idempotency_keys.fingerprint IN (EXCLUDED.fingerprint, $6))
             RETURNING true",
        )
        .bind(request.account_id.0)
        .bind(&request.key)
        .bind(&request.fingerprint[..])
        .bind(lease.as_secs_f64())
        .bind(retention.as_secs_f64())
        .bind(request.earlier_fingerprint.as_ref().map(|f| &f[..]))
        .fetch_optional(pool)
        .await?;
        if claimed.is_some() {
            return Ok(Claim::Claimed);
        }
        let held: Option<HeldKey> = sqlx::query_as(
            "SELECT fingerprint, response_status, response_body FROM idempotency_keys
             WHERE account_id = $1 AND key = $2 AND expires_at > now()",
        )
        .bind(request.account_id.0)
        .bind(&request.key)
        .fetch_optional(pool)
        .await?;
        match held {
            None => continue,
            Some((fingerprint, _, _)) if !request.is_fingerprinted_as(&fingerprint) => {
                return Ok(Claim::OtherRequest);
            }
            Some((_, Some(status), body)) => {
                return Ok(Claim::Answered(StoredAnswer {
                    status: status as u16,
                    body: body.unwrap_or_default(),
                }));
            }
            Some((_, None, _)) => return Ok(Claim::InFlight),
        }
    }
    Ok(Claim::InFlight)
}

/// Stores the answer of a claimed key, on the caller's connection or transaction; a key that
/// already holds one keeps it.
pub async fn store_answer(
    conn: &mut PgConnection,
    request: &KeyedRequest,
    answer: &StoredAnswer,
) -> Result<()> {
    sqlx::query(
        "UPDATE idempotency_keys SET response_status = $3, response_body = $4
         WHERE account_id = $1 AND key = $2 AND response_status IS NULL",
    )
    .bind(request.account_id.0)
    .bind(&request.key)
    .bind(answer.status as i16)
    .bind(&answer.body)
    .execute(conn)
    .await?;
    Ok(())
}

/// Frees a claimed key that got no answer worth keeping (a failure on our side): the next
/// request with it runs again.
pub async fn release(pool: &PgPool, request: &KeyedRequest) -> Result<()> {
    sqlx::query(
        "DELETE FROM idempotency_keys
         WHERE account_id = $1 AND key = $2 AND response_status IS NULL",
    )
    .bind(request.account_id.0)
    .bind(&request.key)
    .execute(pool)
    .await?;
    Ok(())
}

/// Deletes keys past their retention, at most `limit`; returns how many.
pub async fn purge_expired(pool: &PgPool, limit: i64) -> Result<u64> {
    let deleted = sqlx::query(
        "DELETE FROM idempotency_keys WHERE ctid IN (
            SELECT ctid FROM idempotency_keys WHERE expires_at <= now()
            ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)",
    )
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(deleted.rows_affected())
}
