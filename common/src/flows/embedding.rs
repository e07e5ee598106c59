//! Embedded signing (issue #34): the account's allowed origins, a recipient's signing session
//! (a single-use ticket URL that becomes a session bound to the browser that opened it), and
//! what the page needs to know of it. The signing itself is `flows::signing`, reached through
//! [`SignerKey::Embedded`](crate::flows::signer_key::SignerKey).

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    error::{Conflict, Error, Problems, Result},
    infra::{config::SigningSettings, secrets::EmbedSecret},
    model::{
        AccountId, DocumentId, DocumentStatus, EmbeddedSessionId, RecipientId, RecipientRole,
        RecipientStatus,
    },
    store::{accounts, documents, embedded_sessions, recipients},
    wire::{
        body::Parsed,
        embedding::{self, EmbeddingInput, SigningSessionInput},
    },
};

/// The account's allowed origins.
pub async fn origins(pool: &PgPool, account_id: AccountId) -> Result<Vec<String>> {
    accounts::embed_origins(pool, account_id).await
}

/// Replaces the account's allowed origins; returns them as stored.
#[tracing::instrument(name = "embedding::set_origins", skip_all)]
pub async fn set_origins(
    pool: &PgPool,
    account_id: AccountId,
    input: Parsed<EmbeddingInput>,
) -> Result<Vec<String>> {
    let mut problems = Problems::of_reading(input.problems);
    let origins = embedding::validate_origins(&input.value, &mut problems);
    problems.into_result()?;
    accounts::set_embed_origins(pool, account_id, &origins).await?;
    Ok(origins)
}

/// A session made for the integrator: the ticket is in the clear only here, for its URL.
pub struct NewSession {
    pub ticket: EmbedSecret,
    pub expires_at: DateTime<Utc>,
}

/// Makes a signing session for a recipient whose turn has come, on a SENT document before its
/// expiry, who has not signed. Nothing is recorded on the document: opening the page records
/// VIEWED, as a link's page does.
#[tracing::instrument(name = "embedding::create_session", skip_all)]
pub async fn create_session(
    pool: &PgPool,
    settings: &SigningSettings,
    account_id: AccountId,
    document_id: DocumentId,
    recipient_id: Option<RecipientId>,
    input: Parsed<SigningSessionInput>,
) -> Result<NewSession> {
    let allowed = accounts::embed_origins(pool, account_id).await?;
    let mut problems = Problems::of_reading(input.problems);
    let request = embedding::validate_session(input.value, &allowed, &mut problems);
    let mut tx = pool.begin().await?;
    // What is wrong with the body is answered before an unknown document or recipient.
    let document = match documents::lock(&mut tx, account_id, document_id).await {
        Ok(document) => document,
        Err(refusal) => return Err(problems.before(refusal)),
    };
    let everyone = recipients::list(&mut tx, document.id).await?;
    let Some(recipient) = recipient_id.and_then(|id| everyone.into_iter().find(|r| r.id == id))
    else {
        return Err(problems.before(Error::RecipientNotFound));
    };
    problems.into_result()?;
    let past_expiry = document.expiry_date.is_some_and(|at| at <= Utc::now());
    if document.status != DocumentStatus::Sent || past_expiry {
        return Err(Conflict::NotOpen.into());
    }
    if recipient.invited_at.is_none() {
        return Err(Conflict::NotYourTurn(recipient.group()).into());
    }
    if recipient.role == RecipientRole::Signer && recipient.status == RecipientStatus::Signed {
        return Err(Conflict::RecipientSigned.into());
    }
    let ticket = EmbedSecret::generate();
    let ticket_hash = ticket.hash();
    let new = embedded_sessions::NewSession {
        id: EmbeddedSessionId::new(),
        account_id,
        document_id: document.id,
        recipient_id: recipient.id,
        ticket_hash: &ticket_hash,
        ticket_ttl: settings.embed_ticket_ttl,
        parent_origin: request.parent_origin.as_deref(),
        return_url: request.return_url.as_deref(),
    };
    let expires_at = embedded_sessions::insert(&mut tx, &new).await?;
    tx.commit().await?;
    Ok(NewSession { ticket, expires_at })
}

/// A session opened in a browser: the cookie that binds it there (in the clear only here).
pub struct Opened {
    pub session: embedded_sessions::Session,
    pub browser: EmbedSecret,
}

/// Uses a ticket, once, before it expires. `None`: unknown, used, or expired.
#[tracing::instrument(name = "embedding::open", skip_all)]
pub async fn open(
    pool: &PgPool,
    settings: &SigningSettings,
    ticket: &EmbedSecret,
) -> Result<Option<Opened>> {
    let browser = EmbedSecret::generate();
    let session = embedded_sessions::redeem(
        pool,
        &ticket.hash(),
        &browser.hash(),
        settings.embed_session_ttl,
    )
    .await?;
    Ok(session.map(|session| Opened { session, browser }))
}

/// How a page of an embedded session may be framed and whom it tells what happens.
#[derive(Debug, Clone)]
pub struct Embedding {
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    /// The origins that may frame the page and receive its messages: the session's parent
    /// origin if it named one (while the account still allows it), else every allowed one.
    pub frame_origins: Vec<String>,
    pub return_url: Option<String>,
}

async fn embedding_of(pool: &PgPool, session: embedded_sessions::Session) -> Result<Embedding> {
    let allowed = accounts::embed_origins(pool, session.account_id).await?;
    let frame_origins = match session.parent_origin {
        Some(parent) => allowed.into_iter().filter(|o| *o == parent).collect(),
        None => allowed,
    };
    Ok(Embedding {
        document_id: session.document_id,
        recipient_id: session.recipient_id,
        frame_origins,
        return_url: session.return_url,
    })
}

/// The embedding of the session `id` when `browser` is the cookie it was bound to.
pub async fn for_browser(
    pool: &PgPool,
    id: EmbeddedSessionId,
    browser: &EmbedSecret,
) -> Result<Option<Embedding>> {
    match embedded_sessions::find_for_browser(pool, id, &browser.hash()).await? {
        Some(session) => Ok(Some(embedding_of(pool, session).await?)),
        None => Ok(None),
    }
}

/// The embedding of a session that cannot be used here (its ticket used or expired, or its
/// cookie missing: a browser that blocks cookies in frames), so that its refusal can be shown
/// in the integrator's frame and told to it. `None`: no such session.
pub async fn refused(pool: &PgPool, by: Refused<'_>) -> Result<Option<Embedding>> {
    let session = match by {
        Refused::Ticket(ticket) => embedded_sessions::find_by_ticket(pool, &ticket.hash()).await?,
        Refused::Session(id) => embedded_sessions::find(pool, id).await?,
    };
    match session {
        Some(session) => Ok(Some(embedding_of(pool, session).await?)),
        None => Ok(None),
    }
}

/// What a refused page was asked with.
pub enum Refused<'a> {
    Ticket(&'a EmbedSecret),
    Session(EmbeddedSessionId),
}
