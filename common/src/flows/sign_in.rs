//! The web console's accounts side: passwords (argon2id), sign-in with a slowdown after repeated
//! failures (by address and source alike, see docs/security.md), and sessions (a random token
//! in an HttpOnly cookie, stored hashed, each with its CSRF token).

use argon2::{Argon2, PasswordHash, PasswordHasher, password_hash::SaltString};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    error::{Error, Result},
    infra::{
        limits::{Gate, Workers},
        secrets,
    },
    model::AccountId,
    store::{accounts, console_sessions, sign_in_throttle},
};

pub const MIN_PASSWORD_CHARS: usize = 10;
pub const MAX_PASSWORD_CHARS: usize = 1_000;
const SESSION_HOURS: i64 = 12;

pub fn hash_password(password: &str) -> Result<String> {
    let count = password.chars().count();
    if !(MIN_PASSWORD_CHARS..=MAX_PASSWORD_CHARS).contains(&count) {
        return Err(Error::invalid(
            "password",
            format!("must have {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters"),
        ));
    }
    hash_secret(password).map_err(|reason| Error::invalid("password", reason))
}

/// An argon2id PHC string of `secret` (a password, or a signer's access code), with a random
/// salt; the reason when it cannot be made.
pub(crate) fn hash_secret(secret: &str) -> std::result::Result<String, String> {
    let salt = SaltString::encode_b64(&secrets::random_bytes(16)).map_err(|e| e.to_string())?;
    // Argon2::default() is argon2id v19 with the recommended memory and time costs.
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `secret` matches the PHC string `stored` ([`hash_secret`]), as passwords are checked.
pub(crate) fn verify_secret(secret: &str, stored: &str) -> bool {
    verify_password(secret, stored)
}

/// The most memory a stored hash may ask for (argon2's m_cost, KiB): 64 MiB. The default is 19 MiB.
const MAX_HASH_MEMORY_KIB: u32 = 64 * 1024;

thread_local! {
    /// argon2's working memory, allocated once per hashing thread and reused: allocating and
    /// freeing 19 MiB per sign-in leaves the C allocator holding far more than is in use.
    static HASH_MEMORY: std::cell::RefCell<Vec<argon2::Block>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether `password` matches the PHC string `stored`, computed in this thread's reusable
/// memory, constant-time compared.
fn verify_password(password: &str, stored: &str) -> bool {
    let Ok(hash) = PasswordHash::new(stored) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        argon2::Algorithm::try_from(hash.algorithm),
        argon2::Params::try_from(&hash),
    ) else {
        return false;
    };
    let version = hash
        .version
        .map_or(Ok(argon2::Version::default()), argon2::Version::try_from);
    let (Ok(version), true) = (version, params.m_cost() <= MAX_HASH_MEMORY_KIB) else {
        return false;
    };
    let mut salt_buffer = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_buffer) else {
        return false;
    };
    let mut computed = vec![0u8; expected.len()];
    let blocks = params.block_count();
    let argon2 = Argon2::new(algorithm, version, params);
    HASH_MEMORY.with_borrow_mut(|memory| {
        if memory.len() < blocks {
            memory.resize(blocks, argon2::Block::default());
        }
        argon2
            .hash_password_into_with_memory(
                password.as_bytes(),
                salt,
                &mut computed,
                &mut memory[..blocks],
            )
            .is_ok()
    }) && secrets::constant_time_eq(&computed, expected.as_bytes())
}

/// A stored hash with the default parameters that no password matches: verifying against it
/// costs what verifying a real one does.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        hash_password(&secrets::base64url(&secrets::random_bytes(24))).expect("a decoy hash")
    })
}

pub async fn set_password(pool: &PgPool, account_id: AccountId, password: &str) -> Result<()> {
    let hash = hash_password(password)?;
    if !accounts::set_password_hash(pool, account_id, &hash).await? {
        return Err(Error::AccountNotFound(account_id));
    }
    // A new password ends every open session and forgives the address's failed sign-ins.
    console_sessions::delete_for_account(pool, account_id).await?;
    sign_in_throttle::forget_account(pool, account_id).await?;
    Ok(())
}

/// A signed-in browser.
#[derive(Debug, Clone)]
pub struct Session {
    pub account_id: AccountId,
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
    /// Every password-hashing slot and every place in its queue is taken: try again shortly.
    Busy,
}

/// How many failures the throttle forgives (config `SIGN_IN_FREE_FAILURES` and
/// `SIGN_IN_SOURCE_FREE_FAILURES`).
#[derive(Debug, Clone, Copy)]
pub struct Throttle {
    /// For one address from one source.
    pub free_failures: i32,
    /// From one source, whatever the address.
    pub source_free_failures: i32,
    /// The first wait, doubled with each further failure up to 15 minutes.
    pub first_delay_secs: i32,
}

impl From<&crate::infra::config::Limits> for Throttle {
    fn from(limits: &crate::infra::config::Limits) -> Self {
        Self {
            free_failures: limits.sign_in_free_failures,
            source_free_failures: limits.sign_in_source_free_failures,
            first_delay_secs: limits.sign_in_first_delay_secs,
        }
    }
}

/// Where a sign-in comes from, as the throttle counts it: an IPv4 address, or the /64 an IPv6
/// address is in (one host usually holds a whole /64).
pub fn source_of(ip: std::net::IpAddr) -> String {
    match ip.to_canonical() {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

/// Checks the password and opens a session.
///
/// Every attempt is first counted as a failure, atomically with the check that it may be made,
/// under two keys: the address (whether or not an account has it) from this source, and the
/// source alone. After `free_failures` (resp. `source_free_failures`) each further attempt is
/// refused until a delay doubling with every failure (up to 15 minutes) has passed. A success
/// clears the address's count and takes its attempt back from the source's. Only then, and
/// within `gate`, is the password hashed; when the gate is full the answer is [`SignIn::Busy`]
/// at once.
#[tracing::instrument(name = "sign_in::sign_in", skip_all)]
pub async fn sign_in(
    pool: &PgPool,
    gate: &Gate,
    hashing: &Workers,
    throttle: Throttle,
    source: &str,
    email: &str,
    password: &str,
) -> Result<SignIn> {
    let Some(ticket) = gate.admit() else {
        return Ok(SignIn::Busy);
    };
    let email = email.trim().to_lowercase();
    // No account has such an address, and PostgreSQL refuses NUL in text.
    if crate::wire::inputs::has_control_chars(&email) {
        return Ok(SignIn::WrongCredentials);
    }
    let address_key = format!("address:{email}|{source}");
    let source_key = format!("source:{source}");
    if let Some(retry_after_secs) = count_attempt(pool, &address_key, &source_key, throttle).await?
    {
        return Ok(SignIn::Throttled { retry_after_secs });
    }
    let account = accounts::password_hash_by_email(pool, &email).await?;
    let stored = account.as_ref().and_then(|(_, stored)| stored.clone());
    let password = password.to_owned();
    let running = ticket.run().await;
    // The same work for an unknown e-mail, an account without a password and a wrong password,
    // so timing does not tell them apart; off the async threads, as hashing is slow on purpose.
    let verified = hashing
        .run(move || match stored {
            Some(stored) => verify_password(&password, &stored),
            None => {
                let _ = verify_password(&password, decoy_hash());
                false
            }
        })
        .await
        .unwrap_or(false);
    drop(running);
    let Some((account_id, _)) = account.filter(|_| verified) else {
        return Ok(SignIn::WrongCredentials);
    };
    let token = secrets::base64url(&secrets::random_bytes(32));
    let mut tx = pool.begin().await?;
    sign_in_throttle::forgive(&mut tx, &address_key, &source_key).await?;
    let token_hash = secrets::sha256(token.as_bytes());
    let csrf_token = secrets::base64url(&secrets::random_bytes(32));
    console_sessions::insert(&mut tx, &token_hash, account_id, &csrf_token, SESSION_HOURS).await?;
    tx.commit().await?;
    Ok(SignIn::Ok { token })
}

/// Counts an attempt under both keys if neither is blocked, in one transaction holding both
/// rows; otherwise counts nothing and returns the seconds to wait.
async fn count_attempt(
    pool: &PgPool,
    address_key: &str,
    source_key: &str,
    throttle: Throttle,
) -> Result<Option<i64>> {
    let mut tx = pool.begin().await?;
    sign_in_throttle::forget_quiet(&mut tx).await?;
    let wait = sign_in_throttle::lock_keys(&mut tx, address_key, source_key)
        .await?
        .into_iter()
        .flatten()
        .filter(|wait| *wait > 0.0)
        .reduce(f64::max);
    if let Some(wait) = wait {
        tx.rollback().await?;
        return Ok(Some((wait.ceil() as i64).max(1)));
    }
    let keys = [
        (address_key, throttle.free_failures),
        (source_key, throttle.source_free_failures),
    ];
    sign_in_throttle::count_failure(&mut tx, keys, throttle.first_delay_secs).await?;
    tx.commit().await?;
    Ok(None)
}

pub async fn session(pool: &PgPool, token: &str) -> Result<Option<Session>> {
    let row = console_sessions::find(pool, &secrets::sha256(token.as_bytes())).await?;
    Ok(row.map(|(account_id, csrf_token, expires_at)| Session {
        account_id,
        csrf_token,
        expires_at,
    }))
}

pub async fn sign_out(pool: &PgPool, token: &str) -> Result<()> {
    console_sessions::delete(pool, &secrets::sha256(token.as_bytes())).await
}

/// Rotates the account's webhook signing secret; deliveries from now on use the new one.
pub async fn rotate_webhook_secret(pool: &PgPool, account_id: AccountId) -> Result<String> {
    accounts::rotate_webhook_secret(pool, account_id)
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
