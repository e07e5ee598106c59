//! Files nothing refers to: an upload whose document insert failed, a final PDF whose
//! completion was discarded or never committed, a signer's attachment replaced or never signed
//! with. They are found by their `pending_files` (or `signer_attachments`) row, never by
//! listing the store (which would cost in proportion to every file ever stored).

use std::time::Duration;

use sqlx::PgPool;

use crate::{
    error::Result,
    infra::files::FileStore,
    store::{attachments, pending_files},
};

/// How many abandoned files one sweep removes at most.
const BATCH: i64 = 100;

/// Removes the files whose pending row is older than `grace` and that no document refers to,
/// then their rows; a row whose file a document does refer to only loses the row. The rows are
/// locked (`SKIP LOCKED`), so sweeps on several processes share the work. When the store
/// cannot remove a file, the sweep stops there and the rest keep their rows for the next one.
#[tracing::instrument(name = "files::remove_abandoned", skip_all)]
pub async fn remove_abandoned(pool: &PgPool, store: &FileStore, grace: Duration) -> Result<usize> {
    let mut tx = pool.begin().await?;
    let abandoned = pending_files::lock_abandoned(&mut tx, grace, BATCH).await?;
    let mut removed = 0;
    for (key, referred_to) in abandoned {
        if !referred_to {
            if let Err(e) = store.remove(&key).await {
                // The store is likely away: stop here rather than hold the rows (and a
                // connection) through a retry per file; the next sweep goes on.
                tracing::warn!(key, error = %e, "an abandoned file could not be removed yet");
                break;
            }
            removed += 1;
        }
        pending_files::settle(&mut tx, &key).await?;
    }
    tx.commit().await?;
    Ok(removed + remove_stale_attachments(pool, store, grace).await?)
}

/// Removes signers' attachments that no field holds and none will (replaced by a later upload
/// for the field, or never signed with), with their rows, once older than `grace`. An
/// attachment a field holds is never one of them: the query excludes it, and the signature
/// that makes a field hold one locks its row (`FOR SHARE`), which this sweep skips.
async fn remove_stale_attachments(
    pool: &PgPool,
    store: &FileStore,
    grace: Duration,
) -> Result<usize> {
    let mut tx = pool.begin().await?;
    let stale = attachments::lock_stale(&mut tx, grace, BATCH).await?;
    let mut removed = 0;
    for (id, key) in stale {
        if let Err(e) = store.remove(&key).await {
            tracing::warn!(key, error = %e, "a stale attachment could not be removed yet");
            break;
        }
        attachments::delete(&mut tx, id).await?;
        removed += 1;
    }
    tx.commit().await?;
    Ok(removed)
}

/// What [`copy_all`] did.
#[derive(Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CopyReport {
    pub documents: u64,
    /// Files copied and read back from the destination with the recorded SHA-256.
    pub verified: u64,
    /// Files with no recorded SHA-256 (final PDFs completed before it was recorded): copied
    /// and read back equal to the source.
    pub verified_against_source: u64,
    /// Files that could not be copied, or whose bytes differ from the record: key and reason.
    pub failed: Vec<(String, String)>,
}

/// How many documents' files one page of the copy reads.
const COPY_PAGE: i64 = 500;
/// How many files are copied at once.
const COPY_CONCURRENCY: usize = 8;

/// Copies every file a document refers to from `from` to `to`, and checks each copy by reading
/// it back and comparing its SHA-256 with the database's (`documents.sha256`,
/// `final_sha256`). A file whose source already differs from the record is not copied.
/// Idempotent: a run again copies everything again and checks it again.
pub async fn copy_all(pool: &PgPool, from: &FileStore, to: &FileStore) -> Result<CopyReport> {
    use futures::StreamExt as _;
    let mut report = CopyReport::default();
    let mut after = None;
    loop {
        let files = crate::store::documents::stored_files_after(pool, after, COPY_PAGE).await?;
        let Some(last) = files.last() else {
            break;
        };
        after = Some(last.document_id);
        let mut documents: Vec<_> = files.iter().map(|f| f.document_id).collect();
        documents.dedup();
        report.documents += documents.len() as u64;
        let outcomes: Vec<_> = futures::stream::iter(files)
            .map(|file| async move {
                let outcome = copy_one(from, to, &file).await;
                (file.key, outcome)
            })
            .buffer_unordered(COPY_CONCURRENCY)
            .collect()
            .await;
        for (key, outcome) in outcomes {
            match outcome {
                Ok(true) => report.verified += 1,
                Ok(false) => report.verified_against_source += 1,
                Err(reason) => report.failed.push((key, reason)),
            }
        }
    }
    report.failed.sort();
    Ok(report)
}

/// Copies one file and reads it back: `Ok(true)` when it matched the recorded SHA-256,
/// `Ok(false)` when there was none to match and it matched the source.
async fn copy_one(
    from: &FileStore,
    to: &FileStore,
    file: &crate::store::documents::StoredFile,
) -> std::result::Result<bool, String> {
    let bytes = from
        .get(&file.key)
        .await
        .map_err(|e| format!("cannot read it from the source: {e}"))?;
    let source_sha256 = signet_pdf::sha256_hex(&bytes);
    if let Some(recorded) = &file.sha256
        && *recorded != source_sha256
    {
        return Err(format!(
            "the source's SHA-256 is {source_sha256}, the database records {recorded}; not copied"
        ));
    }
    to.put(&file.key, bytes)
        .await
        .map_err(|e| format!("cannot write it to the destination: {e}"))?;
    let copied = to
        .get(&file.key)
        .await
        .map_err(|e| format!("cannot read it back from the destination: {e}"))?;
    let copied_sha256 = signet_pdf::sha256_hex(&copied);
    if copied_sha256 != source_sha256 {
        return Err(format!(
            "the copy's SHA-256 is {copied_sha256}, the source's {source_sha256}"
        ));
    }
    Ok(file.sha256.is_some())
}
