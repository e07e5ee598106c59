//! API keys: `sk_` + 43 base62 characters (≥ 256 random bits), stored as SHA-256 only.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    error::{Error, Result},
    infra::secrets,
    model::{AccountId, ApiKeyId},
};

const PREFIX: &str = "sk_";
const RANDOM_CHARS: usize = 43;

/// A freshly generated key: the only moment the full key exists outside its holder.
#[derive(Debug, Clone)]
pub struct GeneratedKey {
    pub key: String,
    pub display: String,
}

pub fn hash(key: &str) -> [u8; 32] {
    secrets::sha256(key.as_bytes())
}

/// The masked form shown after generation: `sk_abcd…wxyz`.
pub fn mask(key: &str) -> String {
    let body = key.strip_prefix(PREFIX).unwrap_or(key);
    let head: String = body.chars().take(4).collect();
    let tail: String = body
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{PREFIX}{head}…{tail}")
}

/// Issues a new key for the account; an active key is revoked in the same transaction, so the
/// old key stops working the moment the new one exists.
pub async fn generate(pool: &PgPool, account_id: AccountId) -> Result<GeneratedKey> {
    let key = format!("{PREFIX}{}", secrets::random_base62(RANDOM_CHARS));
    let display = mask(&key);
    let mut tx = pool.begin().await?;
    lock_account(&mut tx, account_id).await?;
    sqlx::query(
        "UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL",
    )
    .bind(account_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO api_keys (id, account_id, key_hash, display) VALUES ($1, $2, $3, $4)")
        .bind(ApiKeyId::new())
        .bind(account_id)
        .bind(hash(&key).as_slice())
        .bind(&display)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(GeneratedKey { key, display })
}

/// Revokes the account's active key; returns whether there was one.
pub async fn revoke(pool: &PgPool, account_id: AccountId) -> Result<bool> {
    let mut tx = pool.begin().await?;
    lock_account(&mut tx, account_id).await?;
    let revoked = sqlx::query(
        "UPDATE api_keys SET revoked_at = now() WHERE account_id = $1 AND revoked_at IS NULL",
    )
    .bind(account_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(revoked > 0)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ActiveKey {
    pub display: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

pub async fn active(pool: &PgPool, account_id: AccountId) -> Result<Option<ActiveKey>> {
    Ok(sqlx::query_as(
        "SELECT display, created_at, last_used_at FROM api_keys
         WHERE account_id = $1 AND revoked_at IS NULL",
    )
    .bind(account_id)
    .fetch_optional(pool)
    .await?)
}

async fn lock_account(tx: &mut sqlx::PgConnection, account_id: AccountId) -> Result<()> {
    sqlx::query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE")
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await?
        .map(|_: sqlx::postgres::PgRow| ())
        .ok_or(Error::AccountNotFound(account_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_keeps_prefix_and_four_characters_each_side() {
        assert_eq!(mask("sk_abcdefghijklmnopqrstuvwxyz"), "sk_abcd…wxyz");
    }
}
