//! Signer authentication (issue #34, docs/signing.md#signer-authentication): a recipient whose
//! link asks for a code (ACCESS_CODE, EMAIL_OTP, SMS_OTP) sees nothing of the document until
//! they give it. Passing binds the browser: it gets a random value (an HttpOnly cookie), whose
//! hash is stored, so that the link alone is not enough. Every signing action goes through
//! [`gate`] (from `signing::begin`); five wrong codes lock the recipient until the sender
//! unlocks them ([`unlock`]).

use chrono::{Duration, Utc};
use rand::Rng;
use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{AuthRefusal, Error, Result},
    flows::{
        sign_in,
        signer_key::{self, BrowserPass, SignerKey},
    },
    infra::{
        limits::Workers,
        notify::Notifier,
        secrets::{self, SigningToken},
    },
    model::{AccountId, Actor, AuthMethod, DocumentId, Recipient, RecipientId, StoredLanguage},
    store::{documents, recipients, signer_auth},
    wire::inputs::{MAX_ACCESS_CODE_CHARS, ValidRecipient},
};

/// Wrong codes that lock a recipient.
pub const MAX_WRONG_CODES: i32 = 5;
pub use crate::model::CODE_VALID_MINUTES;
/// A one-time code is sent at most once a minute, and five times an hour.
pub const RESEND_AFTER_SECS: i64 = 60;
pub const SENDS_PER_HOUR: i64 = 5;
/// How long a browser's pass lasts (its cookie's `Max-Age`).
pub const PASS_HOURS: i64 = 12;

/// The one check every signing action passes: a recipient whose link asks for a code must be
/// unlocked and have passed in this browser (an unexpired pass for their method).
pub async fn gate(
    conn: &mut PgConnection,
    recipient: &Recipient,
    pass: &BrowserPass,
) -> Result<()> {
    let Some(method) = recipient.auth_method.0 else {
        return Ok(());
    };
    if recipient.auth_locked_at.is_some() {
        return Err(AuthRefusal::Locked(method).into());
    }
    if let Some(value) = pass.presented_value() {
        let hash = secrets::sha256(value.as_bytes());
        if signer_auth::has_pass(conn, recipient.id, method, &hash).await? {
            return Ok(());
        }
    }
    Err(AuthRefusal::Required(method).into())
}

/// What the code form shows, and nothing of the document: the method, whether the link is
/// locked, whether a code sent lately still works, and the reader's languages.
#[derive(Debug, Clone)]
pub struct Challenge {
    pub method: AuthMethod,
    pub locked: bool,
    /// A one-time code was sent and still works (the page does not ask for another).
    pub code_live: bool,
    pub recipient_language: StoredLanguage,
    pub document_language: StoredLanguage,
}

/// The challenge of a link that asks for a code; `None` when it asks for none.
pub async fn challenge(pool: &PgPool, key: &SignerKey) -> Result<Option<Challenge>> {
    let (mut tx, document, recipient) = signer_key::begin_unchecked(pool, key).await?;
    let Some(method) = recipient.auth_method.0 else {
        return Ok(None);
    };
    let code_live = signer_auth::live_code(&mut tx, recipient.id)
        .await?
        .is_some_and(|(_, _, _, expires_at)| expires_at > Utc::now());
    tx.rollback().await?;
    Ok(Some(Challenge {
        method,
        locked: recipient.auth_locked_at.is_some(),
        code_live,
        recipient_language: recipient.language,
        document_language: document.language,
    }))
}

/// Hashes the access codes of validated recipients (argon2id, off the async threads), keeping
/// only the hash.
pub async fn hash_access_codes(additions: &mut [(usize, ValidRecipient)]) -> Result<()> {
    for (i, recipient) in additions.iter_mut() {
        let Some(auth) = recipient.authentication.as_mut() else {
            continue;
        };
        let Some(code) = auth.access_code.take() else {
            continue;
        };
        let at = format!("[{i}].authentication.accessCode");
        let hashed = tokio::task::spawn_blocking(move || sign_in::hash_secret(&code))
            .await
            .map_err(|e| std::io::Error::other(format!("hashing task failed: {e}")))?;
        auth.access_code_hash = Some(hashed.map_err(|reason| Error::invalid(at, reason))?);
    }
    Ok(())
}

/// Sends the recipient a new one-time code (EMAIL_OTP by e-mail, SMS_OTP by SMS, through the
/// outbox), valid [`CODE_VALID_MINUTES`]; earlier codes stop working. At most one a
/// minute and [`SENDS_PER_HOUR`] an hour, counted in the database (every API process shares
/// them). Returns the method.
#[tracing::instrument(name = "signer_auth::send_code", skip_all)]
pub async fn send_code(
    pool: &PgPool,
    key: &SignerKey,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<AuthMethod> {
    let (mut tx, document, recipient) = signer_key::begin_unchecked(pool, key).await?;
    let method = recipient.auth_method.0.ok_or(AuthRefusal::NoneAsked)?;
    if !method.is_one_time() {
        return Err(AuthRefusal::NotSent.into());
    }
    if recipient.auth_locked_at.is_some() {
        return Err(AuthRefusal::Locked(method).into());
    }
    let now = Utc::now();
    let hour_ago = now - Duration::hours(1);
    let (last, first_in_hour, in_hour) =
        signer_auth::sends_since(&mut tx, recipient.id, hour_ago).await?;
    let wait = |until: chrono::DateTime<Utc>| (until - now).num_seconds().max(1) as u64;
    if let Some(last) = last.filter(|last| *last > now - Duration::seconds(RESEND_AFTER_SECS)) {
        let retry_after_secs = wait(last + Duration::seconds(RESEND_AFTER_SECS));
        return Err(AuthRefusal::TooSoon { retry_after_secs }.into());
    }
    if in_hour >= SENDS_PER_HOUR {
        let first = first_in_hour.unwrap_or(now);
        let retry_after_secs = wait(first + Duration::hours(1));
        return Err(AuthRefusal::TooSoon { retry_after_secs }.into());
    }
    let code = format!("{:06}", rand::rng().random_range(0..1_000_000u32));
    let salt = secrets::random_bytes(16);
    let expires_at = now + Duration::minutes(CODE_VALID_MINUTES);
    signer_auth::insert_code(
        &mut tx,
        recipient.id,
        &salt,
        &code_hash(&salt, &code),
        expires_at,
    )
    .await?;
    // The clear code rides in the outbox row only until the message is sent, as a signing
    // token does.
    let code = SigningToken::from_link(code);
    let event = match method {
        AuthMethod::SmsOtp => DocumentEvent::CodeTexted {
            recipient: &recipient,
            code,
        },
        _ => DocumentEvent::CodeEmailed {
            recipient: &recipient,
            code,
        },
    };
    effects::record(&mut tx, Subject::of(&document), event, actor, notifier).await?;
    tx.commit().await?;
    Ok(method)
}

/// Checks a code. Right: the browser's pass, a random value to keep in its cookie (stored
/// hashed), and an audit entry naming the method. Wrong: counted (in the database, under the
/// document's lock), a 400 naming `code` with the tries left; the fifth locks the recipient
/// (audit entry, `recipient.auth_failed`). An expired or used one-time code is not counted.
#[tracing::instrument(name = "signer_auth::check_code", skip_all)]
pub async fn check_code(
    pool: &PgPool,
    hashing: &Workers,
    key: &SignerKey,
    code: &str,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<String> {
    let (_, _, recipient_id) = signer_key::locate(pool, key).await?;
    let found = {
        let mut conn = pool.acquire().await?;
        recipients::find(&mut conn, recipient_id).await?
    };
    let method = found.auth_method.0.ok_or(AuthRefusal::NoneAsked)?;
    if found.auth_locked_at.is_some() {
        return Err(AuthRefusal::Locked(method).into());
    }
    let plausible = !code.is_empty() && code.chars().count() <= MAX_ACCESS_CODE_CHARS;
    // Slow on purpose: before the document's row is locked, on the hashing threads.
    let access_code_right = if method == AuthMethod::AccessCode {
        let mut conn = pool.acquire().await?;
        let stored = signer_auth::access_code_hash(&mut conn, found.id).await?;
        drop(conn);
        let given = code.to_owned();
        match stored {
            Some(stored) if plausible => hashing
                .run(move || sign_in::verify_secret(&given, &stored))
                .await
                .unwrap_or(false),
            _ => false,
        }
    } else {
        false
    };
    let (mut tx, document, recipient) = signer_key::begin_unchecked(pool, key).await?;
    if recipient.auth_locked_at.is_some() || recipient.auth_method.0 != Some(method) {
        return Err(AuthRefusal::Locked(method).into());
    }
    let right = match method {
        AuthMethod::AccessCode => access_code_right,
        AuthMethod::EmailOtp | AuthMethod::SmsOtp => {
            let given: String = code.chars().filter(|c| !c.is_whitespace()).collect();
            match signer_auth::live_code(&mut tx, recipient.id).await? {
                None => {
                    return Err(Error::invalid(
                        "code",
                        "no code is waiting: ask for a new one",
                    ));
                }
                Some((_, _, _, expires_at)) if expires_at <= Utc::now() => {
                    return Err(Error::invalid(
                        "code",
                        "this code has expired: ask for a new one",
                    ));
                }
                Some((id, salt, hash, _)) => {
                    let right = given.len() == 6
                        && secrets::constant_time_eq(&code_hash(&salt, &given), &hash);
                    if right {
                        signer_auth::use_code(&mut tx, id).await?;
                    }
                    right
                }
            }
        }
    };
    let subject = Subject::of(&document);
    if !right {
        let Some((failures, locked)) =
            signer_auth::count_failure(&mut tx, recipient.id, MAX_WRONG_CODES).await?
        else {
            return Err(AuthRefusal::Locked(method).into());
        };
        if locked {
            let event = DocumentEvent::AuthLocked {
                recipient: &recipient,
                method,
                failures,
            };
            effects::record(&mut tx, subject, event, actor, notifier).await?;
            tx.commit().await?;
            return Err(AuthRefusal::Locked(method).into());
        }
        tx.commit().await?;
        let left = MAX_WRONG_CODES - failures;
        return Err(Error::invalid(
            "code",
            match left {
                1 => "wrong code: 1 more wrong code locks this link".to_owned(),
                n => format!("wrong code: {n} more wrong codes lock this link"),
            },
        ));
    }
    let pass = secrets::base64url(&secrets::random_bytes(32));
    let expires_at = Utc::now() + Duration::hours(PASS_HOURS);
    let pass_hash = secrets::sha256(pass.as_bytes());
    signer_auth::record_pass(&mut tx, recipient.id, method, &pass_hash, expires_at).await?;
    let passed = DocumentEvent::AuthPassed {
        recipient: &recipient,
        method,
    };
    effects::record_in_trail(&mut tx, subject, passed, actor).await?;
    tx.commit().await?;
    Ok(pass)
}

/// The sender unlocks a recipient locked by wrong codes: their count starts again and any
/// code sent before stops working. Unlocking a recipient who is not locked changes nothing.
#[tracing::instrument(name = "signer_auth::unlock", skip_all)]
pub async fn unlock(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    recipient_id: RecipientId,
    actor: &Actor,
) -> Result<()> {
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    let recipient = recipients::list(&mut tx, document.id)
        .await?
        .into_iter()
        .find(|r| r.id == recipient_id)
        .ok_or(Error::RecipientNotFound)?;
    if recipient.auth_method.0.is_none() {
        return Err(AuthRefusal::NoneAsked.into());
    }
    if signer_auth::unlock(&mut tx, recipient.id).await? {
        let event = DocumentEvent::AuthUnlocked {
            recipient: &recipient,
        };
        effects::record_in_trail(&mut tx, Subject::of(&document), event, actor).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// A one-time code as stored: SHA-256 of a random salt and the code.
fn code_hash(salt: &[u8], code: &str) -> [u8; 32] {
    secrets::sha256(&[salt, code.as_bytes()].concat())
}
