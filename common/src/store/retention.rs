//! SQL of retention (issue #37, docs/retention.md): the documents whose files are due for
//! removal under their account's policy, and the files decided for removal (`file_deletions`).

use sqlx::{PgConnection, PgPool};

use crate::{
    error::Result,
    model::{AccountId, DocumentId},
};

/// A document whose files the sweep has just marked removed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Removed {
    pub id: DocumentId,
    pub account_id: AccountId,
    pub retention_days: i32,
    pub sha256: String,
    pub final_sha256: Option<String>,
}

/// Marks up to `limit` documents removed under their account's policy (ended more than its
/// `retention_days` ago, files still there), skipping those another transaction holds, and
/// records each of their files (original, final PDF, signers' attachments) in
/// `file_deletions`; all on the caller's transaction, which must also write their audit
/// entries and events. Returns the documents in account order (their row locks' order).
pub async fn mark_due(conn: &mut PgConnection, limit: i64) -> Result<Vec<Removed>> {
    let removed: Vec<Removed> = sqlx::query_as(
        "WITH due AS (
             SELECT d.id, a.retention_days FROM accounts a
             CROSS JOIN LATERAL (
                 SELECT d.id FROM documents d
                 WHERE d.account_id = a.id AND d.ended_at IS NOT NULL
                   AND d.files_removed_at IS NULL
                   AND d.ended_at < now() - make_interval(days => a.retention_days)
                 ORDER BY d.ended_at
                 LIMIT $1
             ) d
             WHERE a.retention_days IS NOT NULL
             LIMIT $1
         ),
         locked AS (
             SELECT d.id FROM documents d
             WHERE d.id IN (SELECT id FROM due) AND d.files_removed_at IS NULL
             ORDER BY d.account_id, d.id
             FOR UPDATE SKIP LOCKED
         )
         UPDATE documents d
         SET files_removed_at = now(), files_removed_reason = 'RETENTION_POLICY'
         FROM due
         WHERE d.id = due.id AND d.id IN (SELECT id FROM locked)
         RETURNING d.id, d.account_id, due.retention_days, d.sha256, d.final_sha256",
    )
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    if removed.is_empty() {
        return Ok(removed);
    }
    let ids: Vec<DocumentId> = removed.iter().map(|r| r.id).collect();
    sqlx::query(
        "INSERT INTO file_deletions (key, document_id)
         SELECT file_key, id FROM documents WHERE id = ANY($1)
         UNION
         SELECT final_file_key, id FROM documents WHERE id = ANY($1) AND final_file_key IS NOT NULL
         UNION
         SELECT file_key, document_id FROM signer_attachments WHERE document_id = ANY($1)
         ON CONFLICT (key) DO NOTHING",
    )
    .bind(&ids)
    .execute(&mut *conn)
    .await?;
    let mut removed = removed;
    removed.sort_by_key(|r| (r.account_id, r.id));
    Ok(removed)
}

/// Up to `limit` files decided for removal, oldest first. Read without a lock: removing a file
/// twice is harmless, and each row goes only once its file is gone.
pub async fn pending_deletions(pool: &PgPool, limit: i64) -> Result<Vec<String>> {
    Ok(
        sqlx::query_scalar("SELECT key FROM file_deletions ORDER BY created_at, key LIMIT $1")
            .bind(limit)
            .fetch_all(pool)
            .await?,
    )
}

/// Forgets files that are gone from the store.
pub async fn deleted(pool: &PgPool, keys: &[String]) -> Result<()> {
    sqlx::query("DELETE FROM file_deletions WHERE key = ANY($1)")
        .bind(keys)
        .execute(pool)
        .await?;
    Ok(())
}
