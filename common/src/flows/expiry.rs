//! The expiry sweep: SENT documents past their expiry date become EXPIRED.

use std::collections::HashMap;

use sqlx::PgPool;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    infra::notify::Notifier,
    model::{Actor, DocumentId, DocumentStatus, Recipient},
    store::{documents, recipients},
};

/// Documents expired per transaction. A batch is set-based (a handful of statements, whatever
/// its size); docs/performance.md ("Expiry at volume") has the sizes measured.
pub const BATCH: i64 = 4000;

/// Batches whose candidates one scan of the expiring documents reads.
const BATCHES_PER_SCAN: i64 = 20;

/// Expires every due document, a batch per transaction. Batches are claimed with
/// `SKIP LOCKED`, so sweeps running at once on several workers share the work and never
/// expire a document twice.
#[tracing::instrument(name = "expiry::expire_due", skip_all)]
pub async fn expire_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    expire_due_in_batches(pool, notifier, BATCH).await
}

/// [`expire_due`] with `batch` documents per transaction (the benchmark compares sizes).
pub async fn expire_due_in_batches(
    pool: &PgPool,
    notifier: &Notifier,
    batch: i64,
) -> Result<usize> {
    let mut expired = 0;
    loop {
        let candidates = documents::due_for_expiry(pool, batch * BATCHES_PER_SCAN).await?;
        let mut progressed = false;
        for chunk in candidates.chunks(usize::try_from(batch).unwrap_or(1).max(1)) {
            let done = expire_batch(pool, notifier, chunk).await?;
            progressed |= done > 0;
            expired += done;
        }
        // Nothing due, or all of it held by sweeps on other workers.
        if !progressed {
            return Ok(expired);
        }
    }
}

/// Expires those of `candidates` still due and not held by another sweep, in one transaction.
async fn expire_batch(
    pool: &PgPool,
    notifier: &Notifier,
    candidates: &[DocumentId],
) -> Result<usize> {
    let actor = Actor::Worker;
    let mut tx = pool.begin().await?;
    let due = documents::lock_due_among(&mut tx, candidates).await?;
    if due.is_empty() {
        return Ok(0);
    }
    let ids: Vec<DocumentId> = due.iter().map(|(id, _)| *id).collect();
    documents::set_statuses(&mut tx, &ids, DocumentStatus::Expired).await?;
    let mut by_document: HashMap<DocumentId, Vec<Recipient>> = HashMap::new();
    for recipient in recipients::list_many(&mut tx, &ids).await? {
        by_document
            .entry(recipient.document_id)
            .or_default()
            .push(recipient);
    }
    let events: Vec<(Subject, DocumentEvent<'_>)> = due
        .iter()
        .map(|&(document_id, account_id)| {
            let recipients = by_document.get(&document_id).map_or(&[][..], Vec::as_slice);
            (
                Subject {
                    account_id,
                    document_id,
                },
                DocumentEvent::Expired { recipients },
            )
        })
        .collect();
    effects::record_batch(&mut tx, &events, &actor, notifier).await?;
    tx.commit().await?;
    Ok(due.len())
}
