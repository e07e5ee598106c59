//! SQL of the pending files: files written to the store before the row that refers to them
//! is committed. See `migrations/…_pending_files.sql`.

use sqlx::{PgConnection, PgPool};
use std::time::Duration;

use crate::{
    error::Result,
    model::{DocumentId, TemplateId},
};

/// Records that `key` is about to be written for `document_id`, committed before the write:
/// if what refers to the file is never committed, the sweep finds the file by this row.
pub async fn record(pool: &PgPool, key: &str, document_id: DocumentId) -> Result<()> {
    sqlx::query(
        "INSERT INTO pending_files (key, document_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(key)
    .bind(document_id.0)
    .execute(pool)
    .await?;
    Ok(())
}

/// Records that `key` is about to be written for template `template_id` (the sweep keeps a
/// file any template refers to, whatever the row's id).
pub async fn record_for_template(pool: &PgPool, key: &str, template_id: TemplateId) -> Result<()> {
    record(pool, key, DocumentId(template_id.0)).await
}

/// Marks the file as referred to, in the transaction that makes the reference.
pub async fn settle(conn: &mut PgConnection, key: &str) -> Result<()> {
    sqlx::query("DELETE FROM pending_files WHERE key = $1")
        .bind(key)
        .execute(conn)
        .await?;
    Ok(())
}

/// Forgets a pending file that was removed from the store (best effort by the caller).
pub async fn forget(pool: &PgPool, key: &str) -> Result<()> {
    sqlx::query("DELETE FROM pending_files WHERE key = $1")
        .bind(key)
        .execute(pool)
        .await?;
    Ok(())
}

/// Pending files older than `grace`, at most `limit`, locked so that sweeps on other processes
/// skip them, each with whether a document or a template refers to it after all (then only the row goes).
pub async fn lock_abandoned(
    conn: &mut PgConnection,
    grace: Duration,
    limit: i64,
) -> Result<Vec<(String, bool)>> {
    let rows: Vec<(String, bool)> = sqlx::query_as(
        "SELECT p.key,
                EXISTS (SELECT 1 FROM documents d
                        WHERE d.id = p.document_id
                          AND (d.file_key = p.key OR d.final_file_key = p.key))
                OR EXISTS (SELECT 1 FROM templates t WHERE t.file_key = p.key)
         FROM pending_files p
         WHERE p.created_at < now() - make_interval(secs => $1)
         ORDER BY p.created_at
         LIMIT $2
         FOR UPDATE OF p SKIP LOCKED",
    )
    .bind(grace.as_secs_f64())
    .bind(limit)
    .fetch_all(conn)
    .await?;
    Ok(rows)
}
