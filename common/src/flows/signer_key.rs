//! How a signer reaches their document (a link's token, or an embedded session bound to a
//! browser) and what their browser presents besides: the key every signing action and every
//! step of the authentication gate resolves to a recipient, before either gets to work.

use sqlx::PgPool;

use crate::{
    error::{Error, Result},
    infra::secrets::{EmbedSecret, SigningToken},
    model::{AccountId, Document, DocumentId, EmbeddedSessionId, Recipient, RecipientId},
    store::{documents, embedded_sessions, recipients},
};

/// How a signer reaches their document: every action below takes one, and finds the
/// recipient through it ([`begin`]).
#[derive(Debug, Clone)]
pub enum SignerKey {
    /// The token of their signing link (the invitation's, or a reminder's).
    Link(SigningToken),
    /// An embedded signing session (`flows::embedding`), with the cookie of the browser it is
    /// bound to.
    Embedded {
        session: EmbeddedSessionId,
        browser: EmbedSecret,
    },
}

/// What a browser presents for a signing link: the value of its pass cookie, if it has one.
#[derive(Clone, Default)]
pub struct BrowserPass(Option<String>);

impl BrowserPass {
    /// The cookie's value as the browser sent it.
    pub fn presented(value: Option<String>) -> Self {
        Self(value.filter(|v| !v.is_empty() && v.len() <= 128))
    }

    /// The value presented, if any (the gate hashes it to find the stored pass).
    pub fn presented_value(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// No pass: what a caller that has none (the CLI, a job) presents.
    pub fn none() -> Self {
        Self(None)
    }
}

impl std::fmt::Debug for BrowserPass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "BrowserPass(..)"
        } else {
            "BrowserPass(none)"
        })
    }
}

/// [`begin`](crate::flows::signing::begin) without the authentication gate: only for the gate's own steps (sending and
/// checking a code), which show nothing of the document.
pub async fn begin_unchecked(
    pool: &PgPool,
    key: &SignerKey,
) -> Result<(
    sqlx::Transaction<'static, sqlx::Postgres>,
    Document,
    Recipient,
)> {
    let (account_id, document_id, recipient_id) = locate(pool, key).await?;
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    // Re-read under the lock: the first read may predate a concurrent action.
    let recipient = recipients::find(&mut tx, recipient_id).await?;
    Ok((tx, document, recipient))
}

/// Whom the key names, without a lock: the account, document and recipient; 404 for an
/// unknown token, or a session that is not this browser's or has expired.
pub async fn locate(
    pool: &PgPool,
    key: &SignerKey,
) -> Result<(AccountId, DocumentId, RecipientId)> {
    match key {
        SignerKey::Link(token) => recipients::find_by_token_hash(pool, &token.hash())
            .await?
            .map(|r| (r.account_id, r.document_id, r.id)),
        SignerKey::Embedded { session, browser } => {
            embedded_sessions::find_for_browser(pool, *session, &browser.hash())
                .await?
                .map(|s| (s.account_id, s.document_id, s.recipient_id))
        }
    }
    .ok_or(Error::SigningLinkNotFound)
}
