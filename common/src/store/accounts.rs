//! SQL of the account aggregate, including the per-request authentication and usage count.

use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use sqlx::{PgConnection, PgPool};

use crate::{
    error::{Error, Result},
    infra::{db::Lsn, secrets},
    model::{AccountId, ApiKeyId, EmailAddress},
};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    /// As stored, not an [`EmailAddress`]: an address stored before a rule changed must still
    /// load; a new account's is parsed ([`create`]).
    pub email: String,
    pub api_usage_count: i32,
    pub api_usage_limit: i32,
    pub usage_window_start: DateTime<Utc>,
    pub webhook_url: Option<String>,
    pub webhook_secret: String,
    pub created_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, name, email, api_usage_count, api_usage_limit, usage_window_start, \
                       webhook_url, webhook_secret, created_at";

/// A Standard Webhooks signing secret: `whsec_` + base64 of 24 random bytes.
pub fn new_webhook_secret() -> String {
    use base64::Engine;
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(secrets::random_bytes(24))
    )
}

pub async fn create(
    pool: &PgPool,
    name: &str,
    email: &EmailAddress,
    usage_limit: i32,
) -> Result<Account> {
    sqlx::query_as(AssertSqlSafe(format!(
        "INSERT INTO accounts (id, name, email, api_usage_limit, webhook_secret)
         VALUES ($1, $2, $3, $4, $5) RETURNING {COLUMNS}"
    )))
    .bind(AccountId::new())
    .bind(name)
    .bind(email.as_str())
    .bind(usage_limit)
    .bind(new_webhook_secret())
    .fetch_one(pool)
    .await
    .map_err(|e| {
        if crate::infra::db::is_unique_violation(&e, "accounts_email_key") {
            Error::invalid("email", "an account with this e-mail already exists")
        } else {
            e.into()
        }
    })
}

pub async fn find(pool: &PgPool, id: AccountId) -> Result<Account> {
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM accounts WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or(Error::AccountNotFound(id))
}

pub async fn find_by_email(pool: &PgPool, email: &str) -> Result<Option<Account>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM accounts WHERE lower(email) = lower($1)"
    )))
    .bind(email)
    .fetch_optional(pool)
    .await?)
}

/// Where an account's webhook deliveries go, and the secret they are signed with.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct WebhookTarget {
    /// `None` once the account has removed its webhook URL.
    pub url: Option<String>,
    pub secret: String,
}

/// The account's webhook target, as a delivery attempt reads it.
pub async fn webhook_target(conn: &mut PgConnection, id: AccountId) -> Result<WebhookTarget> {
    Ok(sqlx::query_as(
        "SELECT webhook_url AS url, webhook_secret AS secret FROM accounts WHERE id = $1",
    )
    .bind(id)
    .fetch_one(conn)
    .await?)
}

/// What to change on an account; `None` leaves a setting as it is.
#[derive(Debug, Default)]
pub struct AccountUpdate {
    pub usage_limit: Option<i32>,
    /// `Some(None)` removes the webhook URL.
    pub webhook_url: Option<Option<String>>,
}

pub async fn update(pool: &PgPool, id: AccountId, update: &AccountUpdate) -> Result<Account> {
    sqlx::query_as(AssertSqlSafe(format!(
        "UPDATE accounts SET
            api_usage_limit = COALESCE($2, api_usage_limit),
            webhook_url = CASE WHEN $3 THEN $4 ELSE webhook_url END
         WHERE id = $1 RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(update.usage_limit)
    .bind(update.webhook_url.is_some())
    .bind(update.webhook_url.clone().flatten())
    .fetch_optional(pool)
    .await?
    .ok_or(Error::AccountNotFound(id))
}

/// The outcome of presenting an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authentication {
    /// No active key has this hash.
    UnknownKey,
    /// The request is authenticated and has been counted.
    Allowed {
        account_id: AccountId,
        quota: Quota,
        /// The account's last write through the API: its reads wait for a replica that has
        /// replayed it (see `note_write`).
        read_after: Lsn,
    },
    /// The account's usage limit for the current window is used up; nothing was counted.
    Limited {
        account_id: AccountId,
        retry_after_secs: u64,
        quota: Quota,
    },
}

/// Where an account stands in its usage window, as the counting statement left it: what the
/// `RateLimit-Policy` and `RateLimit` headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Requests allowed per window (`api_usage_limit`).
    pub limit: i64,
    /// Requests left in the current window after this one.
    pub remaining: i64,
    /// Seconds until the current window ends and the count starts again.
    pub reset_secs: i64,
}

/// Records that the account has just written (its transaction committed): from now on its
/// reads go to a replica only once that replica has replayed the primary's WAL up to here.
/// Asynchronous commit, as the usage count: the row is visible to the next request at once; a
/// crash of the primary within the WAL writer's delay may forget it, and the account's next
/// reads may then be served within the lag bound without that write.
pub async fn note_write(pool: &PgPool, account_id: AccountId) -> Result<()> {
    sqlx::query(
        "UPDATE accounts SET read_after_lsn = GREATEST(read_after_lsn,
                 (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint)
           FROM (SELECT set_config('synchronous_commit', 'off', true)) async_commit
          WHERE id = $1",
    )
    .bind(account_id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Authenticates a key and counts the request against its account's usage window in one
/// statement. The conditional UPDATE re-checks the count on the locked row, so concurrent
/// requests across any number of API processes never over- or under-count.
///
/// The statement commits with `synchronous_commit = off` (set for its own transaction only):
/// a crash may forget the last instant of counts, never a business write (DESIGN §3), and the
/// request does not wait for the WAL flush. Only when nothing was counted (an unknown key, or
/// the limit reached) does a second statement tell the two apart; and once a minute at most a
/// key's `last_used_at` is written.
#[tracing::instrument(name = "accounts::authenticate", skip_all)]
pub async fn authenticate(
    pool: &PgPool,
    key_hash: &[u8],
    window_secs: i64,
) -> Result<Authentication> {
    let counted: Option<(AccountId, ApiKeyId, bool, i64, i64, i64, i64)> = sqlx::query_as(
        "UPDATE accounts a SET
             api_usage_count = CASE WHEN a.usage_window_start <= now() - make_interval(secs => $2)
                                    THEN 1 ELSE a.api_usage_count + 1 END,
             usage_window_start = CASE WHEN a.usage_window_start <= now() - make_interval(secs => $2)
                                       THEN now() ELSE a.usage_window_start END
         FROM api_keys k, (SELECT set_config('synchronous_commit', 'off', true)) async_commit
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND a.id = k.account_id
           AND a.api_usage_limit > 0
           AND (a.usage_window_start <= now() - make_interval(secs => $2)
                OR a.api_usage_count < a.api_usage_limit)
         RETURNING a.id, k.id,
                   k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute',
                   a.api_usage_limit::bigint,
                   GREATEST(0, a.api_usage_limit - a.api_usage_count)::bigint,
                   GREATEST(0, CEIL(EXTRACT(EPOCH FROM
                       a.usage_window_start + make_interval(secs => $2) - now())))::bigint,
                   a.read_after_lsn",
    )
    .bind(key_hash)
    .bind(window_secs as f64)
    .fetch_optional(pool)
    .await?;
    if let Some((account_id, key_id, stale, limit, remaining, reset_secs, read_after)) = counted {
        if stale {
            sqlx::query(
                "UPDATE api_keys SET last_used_at = now() WHERE id = $1
                   AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
            )
            .bind(key_id)
            .execute(pool)
            .await?;
        }
        return Ok(Authentication::Allowed {
            account_id,
            quota: Quota {
                limit,
                remaining,
                reset_secs,
            },
            read_after: Lsn(read_after),
        });
    }
    let limited: Option<(AccountId, i64, i64)> = sqlx::query_as(
        "SELECT a.id,
                GREATEST(1, CEIL(EXTRACT(EPOCH FROM
                    a.usage_window_start + make_interval(secs => $2) - now())))::bigint,
                a.api_usage_limit::bigint
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE k.key_hash = $1 AND k.revoked_at IS NULL",
    )
    .bind(key_hash)
    .bind(window_secs as f64)
    .fetch_optional(pool)
    .await?;
    Ok(match limited {
        None => Authentication::UnknownKey,
        Some((account_id, retry_after, limit)) => Authentication::Limited {
            account_id,
            retry_after_secs: retry_after.max(1) as u64,
            quota: Quota {
                limit,
                remaining: 0,
                reset_secs: retry_after.max(1),
            },
        },
    })
}

/// Counts one console action that makes Signet send e-mail (send, remind, resend, cancel)
/// against the account's usage window, as [`authenticate`] counts an API request, with the
/// same conditional UPDATE. `None`: counted; `Some(seconds)`: the limit is used up until the
/// window ends, nothing was counted.
pub async fn count_console_action(
    pool: &PgPool,
    id: AccountId,
    window_secs: i64,
) -> Result<Option<u64>> {
    let counted = sqlx::query(
        "UPDATE accounts a SET
             api_usage_count = CASE WHEN a.usage_window_start <= now() - make_interval(secs => $2)
                                    THEN 1 ELSE a.api_usage_count + 1 END,
             usage_window_start = CASE WHEN a.usage_window_start <= now() - make_interval(secs => $2)
                                       THEN now() ELSE a.usage_window_start END
         WHERE a.id = $1 AND a.api_usage_limit > 0
           AND (a.usage_window_start <= now() - make_interval(secs => $2)
                OR a.api_usage_count < a.api_usage_limit)",
    )
    .bind(id)
    .bind(window_secs as f64)
    .execute(pool)
    .await?
    .rows_affected();
    if counted == 1 {
        return Ok(None);
    }
    let retry_after: i64 = sqlx::query_scalar(
        "SELECT GREATEST(1, CEIL(EXTRACT(EPOCH FROM
                    usage_window_start + make_interval(secs => $2) - now())))::bigint
         FROM accounts WHERE id = $1",
    )
    .bind(id)
    .bind(window_secs as f64)
    .fetch_optional(pool)
    .await?
    .ok_or(Error::AccountNotFound(id))?;
    Ok(Some(retry_after.max(1) as u64))
}

/// The account's name: who a signer is told the document comes from.
pub async fn name(conn: &mut PgConnection, id: AccountId) -> Result<String> {
    Ok(
        sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_one(conn)
            .await?,
    )
}

/// The account's webhook URL, if it has one, on the caller's transaction.
pub async fn webhook_url(conn: &mut PgConnection, id: AccountId) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT webhook_url FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_one(conn)
            .await?,
    )
}

/// Which of these accounts have a webhook URL at this moment, on the caller's transaction.
pub async fn with_webhook_url(
    conn: &mut PgConnection,
    ids: &[AccountId],
) -> Result<Vec<AccountId>> {
    Ok(
        sqlx::query_scalar(
            "SELECT id FROM accounts WHERE id = ANY($1) AND webhook_url IS NOT NULL",
        )
        .bind(ids)
        .fetch_all(conn)
        .await?,
    )
}

/// Sets the console password's hash; false when there is no such account.
pub async fn set_password_hash(pool: &PgPool, id: AccountId, hash: &str) -> Result<bool> {
    let updated = sqlx::query("UPDATE accounts SET password_hash = $2 WHERE id = $1")
        .bind(id)
        .bind(hash)
        .execute(pool)
        .await?;
    Ok(updated.rows_affected() == 1)
}

/// The id and console password hash of the account with this (lower-case) address.
pub async fn password_hash_by_email(
    pool: &PgPool,
    email: &str,
) -> Result<Option<(AccountId, Option<String>)>> {
    Ok(
        sqlx::query_as("SELECT id, password_hash FROM accounts WHERE lower(email) = $1")
            .bind(email)
            .fetch_optional(pool)
            .await?,
    )
}

/// Gives the account a new webhook signing secret and returns it; `None` for no such account.
pub async fn rotate_webhook_secret(pool: &PgPool, id: AccountId) -> Result<Option<String>> {
    Ok(sqlx::query_scalar(
        "UPDATE accounts SET webhook_secret = $2 WHERE id = $1 RETURNING webhook_secret",
    )
    .bind(id)
    .bind(new_webhook_secret())
    .fetch_optional(pool)
    .await?)
}

/// The origins allowed to frame the account's embedded signing pages, in the order set.
pub async fn embed_origins(pool: &PgPool, id: AccountId) -> Result<Vec<String>> {
    sqlx::query_scalar("SELECT embed_allowed_origins FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?
        .ok_or(Error::AccountNotFound(id))
}

/// Replaces the origins allowed to frame the account's embedded signing pages.
pub async fn set_embed_origins(pool: &PgPool, id: AccountId, origins: &[String]) -> Result<()> {
    sqlx::query("UPDATE accounts SET embed_allowed_origins = $2 WHERE id = $1")
        .bind(id)
        .bind(origins)
        .execute(pool)
        .await?;
    Ok(())
}

/// Days after a document ended that its files are removed; `None`: never (issue #37).
pub async fn retention_days(pool: &PgPool, id: AccountId) -> Result<Option<i32>> {
    sqlx::query_scalar("SELECT retention_days FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?
        .ok_or(Error::AccountNotFound(id))
}

/// Sets the account's retention policy (`None`: off).
pub async fn set_retention_days(pool: &PgPool, id: AccountId, days: Option<i32>) -> Result<()> {
    sqlx::query("UPDATE accounts SET retention_days = $2 WHERE id = $1")
        .bind(id)
        .bind(days)
        .execute(pool)
        .await?;
    Ok(())
}
