//! Reminders to the signers who have not signed: automatic ones on the document's schedule,
//! sent by the sweep, and the owner's, sent at once. Each carries a signing link of its own
//! (clear tokens are not kept, so the invitation's cannot be sent again); the earlier links
//! keep working.
//!
//! Exactly once per due reminder: the sweep locks each document with `SKIP LOCKED` and moves
//! the signers' next reminder in the transaction that queues the e-mails, so sweeps running at
//! once on several workers never remind twice. Never after the document leaves SENT: the
//! sweep checks its status under the lock (a change to the document takes the same lock), and
//! a reminder still in the outbox when the document leaves SENT, or its signer signs, is
//! withdrawn unsent.

use chrono::Utc;
use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Result, Rule},
    infra::{notify::Notifier, secrets},
    model::{AccountId, Actor, DeliveryStatus, Document, DocumentId, DocumentStatus, Recipient},
    store::{
        documents,
        recipients::{self, Reminded},
    },
};

const BATCH: i64 = 50;

/// Sends every reminder that is due, a batch of documents per transaction; returns how many.
#[tracing::instrument(name = "reminders::send_due", skip_all)]
pub async fn send_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    let actor = Actor::worker();
    let mut sent = 0;
    loop {
        let mut tx = pool.begin().await?;
        let locked = documents::lock_with_reminders_due(&mut tx, BATCH).await?;
        if locked.is_empty() {
            return Ok(sent);
        }
        for document in locked {
            let document_id = document.id;
            let due = recipients::due_for_reminder(&mut tx, document_id).await?;
            if !is_open(&document) {
                recipients::stop_reminders(&mut tx, document_id, None).await?;
                continue;
            }
            let everyone = recipients::list(&mut tx, document_id).await?;
            let (waiting, done): (Vec<&Recipient>, Vec<&Recipient>) = everyone
                .iter()
                .filter(|r| due.contains(&r.id))
                .partition(|r| r.is_waiting_to_sign());
            let done: Vec<_> = done.iter().map(|r| r.id).collect();
            recipients::stop_reminders(&mut tx, document_id, Some(&done)).await?;
            // A reminder to an address whose invitation bounced would bounce too: it is
            // skipped, and the schedule moves on, so that it resumes once the owner sends
            // the invitation again.
            let (reachable, bounced): (Vec<&Recipient>, Vec<&Recipient>) =
                waiting.into_iter().partition(|r| is_reachable(r));
            let bounced: Vec<_> = bounced.iter().map(|r| r.id).collect();
            recipients::schedule_next_reminders(&mut tx, document_id, &bounced, Reminded::WhenDue)
                .await?;
            sent += reachable.len();
            remind(
                &mut tx,
                &document,
                &reachable,
                Reminded::WhenDue,
                &actor,
                notifier,
            )
            .await?;
        }
        tx.commit().await?;
    }
}

/// The owner's reminder: every invited signer who has not signed is reminded now, but those
/// whose invitation failed for good (send it again instead); an automatic reminder due sooner
/// than the schedule's interval waits for it. Returns the addresses reminded (none when every
/// signer has signed and completion is under way).
#[tracing::instrument(name = "reminders::remind_now", skip_all)]
pub async fn remind_now(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<Vec<String>> {
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    if !is_open(&document) {
        // Past its expiry, a document is closed before the sweep marks it EXPIRED.
        let status = match document.status {
            DocumentStatus::Sent => DocumentStatus::Expired,
            status => status,
        };
        return Err(Rule::NotRemindable(status.to_string()).into());
    }
    let everyone = recipients::list(&mut tx, document_id).await?;
    let waiting: Vec<&Recipient> = everyone
        .iter()
        .filter(|r| r.is_waiting_to_sign() && is_reachable(r))
        .collect();
    remind(&mut tx, &document, &waiting, Reminded::Now, actor, notifier).await?;
    tx.commit().await?;
    Ok(waiting.iter().map(|r| r.email.clone()).collect())
}

/// Whether the signer's invitation did not fail for good.
fn is_reachable(signer: &Recipient) -> bool {
    signer.delivery_status.0 != Some(DeliveryStatus::Failed)
}

fn is_open(document: &Document) -> bool {
    document.status == DocumentStatus::Sent
        && document
            .expiry_date
            .is_none_or(|expiry| expiry > Utc::now())
}

async fn remind(
    conn: &mut PgConnection,
    document: &Document,
    signers: &[&Recipient],
    reminded: Reminded,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    if signers.is_empty() {
        return Ok(());
    }
    let (tokens, links): (Vec<String>, Vec<_>) = signers
        .iter()
        .map(|r| {
            let (token, hash) = secrets::signing_link_token();
            (token, (r.id, hash))
        })
        .unzip();
    recipients::add_signing_links(conn, document.account_id, &links).await?;
    let ids: Vec<_> = signers.iter().map(|r| r.id).collect();
    recipients::schedule_next_reminders(conn, document.id, &ids, reminded).await?;
    for (recipient, link_token) in signers.iter().zip(tokens) {
        let event = DocumentEvent::Reminded {
            recipient,
            link_token,
        };
        effects::record(conn, Subject::of(document), event, actor, notifier).await?;
    }
    Ok(())
}
