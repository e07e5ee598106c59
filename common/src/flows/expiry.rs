//! The expiry sweep: SENT documents past their expiry date become EXPIRED.

use std::collections::HashMap;

use futures::{StreamExt, TryStreamExt, stream};
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

/// Batches one sweep runs side by side, each on its own connection. A batch is mostly
/// PostgreSQL's work (index updates of the status change, the outbox, audit and event
/// inserts), done by one backend on one core, with round trips between its statements; side
/// by side they keep the cores busy. Measured on 2 cores for 100,000 documents
/// (docs/performance.md, "Expiry at volume"): 1 at once 27.9–30.4 s, 2 15.7–17.5 s,
/// 3 13.7–14.3 s, 4 14.6 s. Batches never wait for each other: they lock disjoint documents,
/// and the count rows their status updates touch are spread over slots by connection.
pub const BATCHES_AT_ONCE: usize = 3;

/// Expires every due document, a batch per transaction. Batches are claimed with
/// `SKIP LOCKED`, so sweeps running at once on several workers share the work and never
/// expire a document twice.
#[tracing::instrument(name = "expiry::expire_due", skip_all)]
pub async fn expire_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    // A sweep-only worker's pool may hold a single connection: its batches then take turns
    // rather than wait for one another's connection until the acquire timeout.
    let connections = usize::try_from(pool.options().get_max_connections()).unwrap_or(1);
    expire_due_in_batches(pool, notifier, BATCH, BATCHES_AT_ONCE.min(connections)).await
}

/// [`expire_due`] with `batch` documents per transaction and `at_once` transactions at a time
/// (the benchmark compares both).
pub async fn expire_due_in_batches(
    pool: &PgPool,
    notifier: &Notifier,
    batch: i64,
    at_once: usize,
) -> Result<usize> {
    let mut expired = 0;
    loop {
        let candidates = documents::due_for_expiry(pool, batch * BATCHES_PER_SCAN).await?;
        let size = usize::try_from(batch).unwrap_or(1).max(1);
        // Each batch's future owns what it uses: futures borrowing the pool and the notifier
        // from a closure do not prove `Send` for every lifetime, which the sweep's job needs.
        let done: Vec<usize> = stream::iter(candidates.chunks(size).map(<[_]>::to_vec))
            .map(|chunk| {
                let (pool, notifier) = (pool.clone(), notifier.clone());
                async move { expire_batch(&pool, &notifier, &chunk).await }
            })
            .buffer_unordered(at_once.max(1))
            .try_collect()
            .await?;
        // Nothing due, or all of it held by sweeps on other workers.
        if done.iter().all(|&n| n == 0) {
            return Ok(expired);
        }
        expired += done.iter().sum::<usize>();
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
