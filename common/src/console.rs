//! The web console's accounts side: passwords (argon2id), sign-in with a slowdown after repeated
//! failures, and sessions (a random token in an HttpOnly cookie, stored hashed, each with its
//! CSRF token).

use argon2::{Argon2, PasswordHash, PasswordHasher, PasswordVerifier, password_hash::SaltString};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::{
    error::{Error, Result},
    secrets,
};

pub const MIN_PASSWORD_CHARS: usize = 10;
pub const MAX_PASSWORD_CHARS: usize = 1_000;
/// Failed sign-ins allowed before each further attempt must wait.
const FREE_FAILURES: i32 = 5;
const SESSION_HOURS: i64 = 12;

pub fn hash_password(password: &str) -> Result<String> {
    let count = password.chars().count();
    if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&count) {
        return Err(Error::invalid(
            "password",
            format!("must have {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters"),
        ));
    }
    let salt = SaltString::encode_b64(&secrets::random_bytes(16))
        .map_err(|e| Error::invalid("password", e.to_string()))?;
    // Argon2::default() is argon2id v19 with the recommended memory and time costs.
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| Error::invalid("password", e.to_string()))
}

fn verify_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

pub async fn set_password(pool: &PgPool, account_id: Uuid, password: &str) -> Result<()> {
    let hash = hash_password(password)?;
    let updated = sqlx::query(
        "UPDATE accounts SET password_hash = $2, failed_sign_ins = 0, sign_in_blocked_until = NULL
         WHERE id = $1",
    )
    .bind(account_id)
    .bind(hash)
    .execute(pool)
    .await?
    .rows_affected();
    if updated == 0 {
        return Err(Error::AccountNotFound(account_id));
    }
    // A new password ends every open session.
    sqlx::query("DELETE FROM console_sessions WHERE account_id = $1")
        .bind(account_id)
        .execute(pool)
        .await?;
    Ok(())
}

/// A signed-in browser.
#[derive(Debug, Clone)]
pub struct Session {
    pub account_id: Uuid,
    pub csrf_token: String,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignIn {
    /// The session token for the cookie.
    Ok { token: String },
    /// Unknown e-mail, no password set, or wrong password: indistinguishable on purpose.
    WrongCredentials,
    /// Too many failures: wait this many seconds.
    Throttled { retry_after_secs: i64 },
}

/// Checks the password and opens a session. After `FREE_FAILURES` failures in a row each further
/// attempt is refused until a delay doubling with every failure (up to 15 minutes) has passed.
#[tracing::instrument(name = "console::sign_in", skip_all)]
pub async fn sign_in(pool: &PgPool, email: &str, password: &str) -> Result<SignIn> {
    let account: Option<(Uuid, Option<String>, Option<DateTime<Utc>>)> = sqlx::query_as(
        "SELECT id, password_hash, sign_in_blocked_until FROM accounts WHERE lower(email) = lower($1)",
    )
    .bind(email.trim())
    .fetch_optional(pool)
    .await?;
    if let Some(until) = account
        .as_ref()
        .and_then(|(_, _, blocked_until)| *blocked_until)
        .filter(|until| *until > Utc::now())
    {
        return Ok(SignIn::Throttled {
            retry_after_secs: (until - Utc::now()).num_seconds().max(1),
        });
    }
    let stored = account.as_ref().and_then(|(_, stored, _)| stored.clone());
    let password = password.to_owned();
    // The same work for an unknown e-mail, an account without a password and a wrong password,
    // so timing does not tell them apart; off the async threads, as hashing is slow on purpose.
    let verified = tokio::task::spawn_blocking(move || match stored {
        Some(stored) => verify_password(&password, &stored),
        None => {
            let _ = hash_password("not-a-real-password-at-all");
            false
        }
    })
    .await
    .unwrap_or(false);
    let Some((account_id, _, _)) = account else {
        return Ok(SignIn::WrongCredentials);
    };
    if !verified {
        sqlx::query(
            "UPDATE accounts SET failed_sign_ins = failed_sign_ins + 1,
                 sign_in_blocked_until = CASE WHEN failed_sign_ins + 1 >= $2
                     THEN now() + make_interval(secs => LEAST(900, power(2, failed_sign_ins + 1 - $2)))
                     ELSE NULL END
             WHERE id = $1",
        )
        .bind(account_id)
        .bind(FREE_FAILURES)
        .execute(pool)
        .await?;
        return Ok(SignIn::WrongCredentials);
    }
    let token = secrets::base64url(&secrets::random_bytes(32));
    let mut tx = pool.begin().await?;
    sqlx::query(
        "UPDATE accounts SET failed_sign_ins = 0, sign_in_blocked_until = NULL WHERE id = $1",
    )
    .bind(account_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO console_sessions (token_hash, account_id, csrf_token, expires_at)
         VALUES ($1, $2, $3, now() + make_interval(hours => $4))",
    )
    .bind(secrets::sha256(token.as_bytes()).as_slice())
    .bind(account_id)
    .bind(secrets::base64url(&secrets::random_bytes(32)))
    .bind(SESSION_HOURS as i32)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(SignIn::Ok { token })
}

pub async fn session(pool: &PgPool, token: &str) -> Result<Option<Session>> {
    let row: Option<(Uuid, String, DateTime<Utc>)> = sqlx::query_as(
        "SELECT account_id, csrf_token, expires_at FROM console_sessions
         WHERE token_hash = $1 AND expires_at > now()",
    )
    .bind(secrets::sha256(token.as_bytes()).as_slice())
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(account_id, csrf_token, expires_at)| Session {
        account_id,
        csrf_token,
        expires_at,
    }))
}

pub async fn sign_out(pool: &PgPool, token: &str) -> Result<()> {
    sqlx::query("DELETE FROM console_sessions WHERE token_hash = $1")
        .bind(secrets::sha256(token.as_bytes()).as_slice())
        .execute(pool)
        .await?;
    Ok(())
}

/// Rotates the account's webhook signing secret; deliveries from now on use the new one.
pub async fn rotate_webhook_secret(pool: &PgPool, account_id: Uuid) -> Result<String> {
    sqlx::query_scalar(
        "UPDATE accounts SET webhook_secret = $2 WHERE id = $1 RETURNING webhook_secret",
    )
    .bind(account_id)
    .bind(crate::accounts::new_webhook_secret())
    .fetch_optional(pool)
    .await?
    .ok_or(Error::AccountNotFound(account_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_with_argon2id_and_verify() {
        let hash = hash_password("correct horse battery").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password("correct horse battery", &hash));
        assert!(!verify_password("correct horse batterY", &hash));
        assert_ne!(
            hash,
            hash_password("correct horse battery").unwrap(),
            "salted"
        );
        assert!(hash_password("short").is_err());
    }
}
