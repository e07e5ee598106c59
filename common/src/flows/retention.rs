//! Retention (issue #37, docs/retention.md): an account's policy, and the sweep that removes
//! the files of documents that ended more than the policy's days ago.

use sqlx::PgPool;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Problems, Result},
    infra::{files::FileStore, notify::Notifier},
    model::Actor,
    store::{accounts, retention},
    wire::{
        body::Parsed,
        retention::{RetentionInput, validate_retention},
    },
};

/// Documents marked per transaction of the sweep.
const BATCH: i64 = 100;
/// Files removed from the store per read of `file_deletions`.
const FILES_PER_READ: i64 = 300;
/// Reads of `file_deletions` per sweep: bounded work per tick; the rest waits for the next.
const READS_PER_SWEEP: usize = 10;

pub async fn policy(pool: &PgPool, account_id: crate::model::AccountId) -> Result<Option<i32>> {
    accounts::retention_days(pool, account_id).await
}

/// Sets (or, with `days: null`, turns off) the account's policy. Documents already past a new,
/// shorter period lose their files at the next sweep.
#[tracing::instrument(name = "retention::set_policy", skip_all)]
pub async fn set_policy(
    pool: &PgPool,
    account_id: crate::model::AccountId,
    input: Parsed<RetentionInput>,
) -> Result<Option<i32>> {
    let mut problems = Problems::of_reading(input.problems);
    let days = validate_retention(&input.value, &mut problems);
    problems.into_result()?;
    accounts::set_retention_days(pool, account_id, days).await?;
    Ok(days)
}

/// Marks the documents due under their account's policy (batches of [`BATCH`], `SKIP LOCKED`,
/// each with its audit entry and `document.files_removed` event in the same transaction, and
/// its files recorded in `file_deletions`), then removes those files from the store after the
/// commit. Idempotent: a document is marked once; a file is removed until its row is gone.
#[tracing::instrument(name = "retention::remove_due", skip_all)]
pub async fn remove_due(pool: &PgPool, store: &FileStore, notifier: &Notifier) -> Result<usize> {
    let mut marked = 0;
    loop {
        let mut tx = pool.begin().await?;
        let removed = retention::mark_due(&mut tx, BATCH).await?;
        let events: Vec<(Subject, DocumentEvent<'_>)> = removed
            .iter()
            .map(|r| {
                (
                    Subject {
                        account_id: r.account_id,
                        document_id: r.id,
                    },
                    DocumentEvent::FilesRemoved {
                        retention_days: r.retention_days,
                        sha256: &r.sha256,
                        final_sha256: r.final_sha256.as_deref(),
                    },
                )
            })
            .collect();
        effects::record_batch(&mut tx, &events, &Actor::Worker, notifier).await?;
        tx.commit().await?;
        marked += removed.len();
        if (removed.len() as i64) < BATCH {
            break;
        }
    }
    remove_files(pool, store).await?;
    Ok(marked)
}

/// Removes the files recorded in `file_deletions` from the store, with no transaction open,
/// and forgets each row once its file is gone. When the store cannot remove a file, this stops
/// and the rest wait for the next sweep.
pub async fn remove_files(pool: &PgPool, store: &FileStore) -> Result<usize> {
    let mut removed = 0;
    for _ in 0..READS_PER_SWEEP {
        let keys = retention::pending_deletions(pool, FILES_PER_READ).await?;
        let mut gone = Vec::with_capacity(keys.len());
        let mut failed = false;
        for key in &keys {
            if let Err(e) = store.remove(key).await {
                tracing::warn!(key, error = %e, "a file due under a retention policy could not be removed yet");
                failed = true;
                break;
            }
            gone.push(key.clone());
        }
        retention::deleted(pool, &gone).await?;
        removed += gone.len();
        if failed || (keys.len() as i64) < FILES_PER_READ {
            break;
        }
    }
    Ok(removed)
}

/// Refuses a file of a document whose files were removed.
pub fn ensure_files(document: &crate::model::Document) -> Result<()> {
    match document.files_removed_at {
        Some(_) => Err(crate::Error::FilesRemoved),
        None => Ok(()),
    }
}
