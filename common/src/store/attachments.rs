//! SQL of the files signers attach to ATTACHMENT fields (`signer_attachments`).

use std::time::Duration;

use sqlx::PgConnection;

use crate::{
    error::Result,
    model::{AttachmentId, DocumentId, FieldId, RecipientId},
};

/// A file a signer attached, as recorded.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Attachment {
    pub id: AttachmentId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    pub field_id: FieldId,
    pub file_key: String,
    pub file_name: String,
    pub media_type: String,
    pub size: i64,
    pub sha256: String,
}

pub async fn insert(conn: &mut PgConnection, attachment: &Attachment) -> Result<()> {
    sqlx::query(
        "INSERT INTO signer_attachments
             (id, document_id, recipient_id, field_id, file_key, file_name, media_type, size,
              sha256)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(attachment.id)
    .bind(attachment.document_id)
    .bind(attachment.recipient_id)
    .bind(attachment.field_id)
    .bind(&attachment.file_key)
    .bind(&attachment.file_name)
    .bind(&attachment.media_type)
    .bind(attachment.size)
    .bind(&attachment.sha256)
    .execute(conn)
    .await?;
    Ok(())
}

/// The attachments `ids` that `recipient_id` uploaded, each for the field it names.
pub async fn find_own(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    ids: &[AttachmentId],
) -> Result<Vec<Attachment>> {
    Ok(sqlx::query_as(
        "SELECT id, document_id, recipient_id, field_id, file_key, file_name, media_type, size,
                sha256
         FROM signer_attachments WHERE recipient_id = $1 AND id = ANY($2)
         FOR SHARE",
    )
    .bind(recipient_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// The attachments the document's fields hold as their values (those signed with), in the
/// order of `created_at`.
pub async fn list_signed(
    conn: &mut PgConnection,
    document_id: DocumentId,
) -> Result<Vec<Attachment>> {
    Ok(sqlx::query_as(
        "SELECT id, document_id, recipient_id, field_id, file_key, file_name, media_type, size,
                sha256
         FROM signer_attachments a
         WHERE a.document_id = $1
           AND EXISTS (SELECT 1 FROM fields f WHERE f.id = a.field_id AND f.value = a.id::text)
         ORDER BY a.created_at, a.id",
    )
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

/// The bytes the document's other fields' attachments hold: each field's latest upload
/// (`field_id`'s is what a new upload replaces).
pub async fn bytes_held(
    conn: &mut PgConnection,
    document_id: DocumentId,
    field_id: FieldId,
) -> Result<i64> {
    let (held,): (Option<i64>,) = sqlx::query_as(
        "SELECT sum(size)::bigint FROM (
             SELECT DISTINCT ON (field_id) size FROM signer_attachments
             WHERE document_id = $1 AND field_id <> $2
             ORDER BY field_id, created_at DESC, id DESC) latest",
    )
    .bind(document_id)
    .bind(field_id)
    .fetch_one(conn)
    .await?;
    Ok(held.unwrap_or(0))
}

/// Attachments older than `grace` that no field holds and none will: replaced by a later
/// upload for the same field, or whose signer can no longer sign with them (signed, declined,
/// or the document no longer out for signing). At most `limit`, locked so that sweeps on
/// other processes skip them.
pub async fn lock_stale(
    conn: &mut PgConnection,
    grace: Duration,
    limit: i64,
) -> Result<Vec<(AttachmentId, String)>> {
    Ok(sqlx::query_as(
        "SELECT a.id, a.file_key FROM signer_attachments a
         JOIN documents d ON d.id = a.document_id
         JOIN recipients r ON r.id = a.recipient_id
         WHERE a.created_at < now() - make_interval(secs => $1)
           AND NOT EXISTS (SELECT 1 FROM fields f WHERE f.id = a.field_id AND f.value = a.id::text)
           AND (d.status <> 'SENT'
                OR r.status IN ('SIGNED', 'DECLINED')
                OR EXISTS (SELECT 1 FROM signer_attachments later
                           WHERE later.field_id = a.field_id
                             AND later.recipient_id = a.recipient_id
                             AND (later.created_at, later.id) > (a.created_at, a.id)))
         ORDER BY a.created_at
         LIMIT $2
         FOR UPDATE OF a SKIP LOCKED",
    )
    .bind(grace.as_secs_f64())
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

pub async fn delete(conn: &mut PgConnection, id: AttachmentId) -> Result<()> {
    sqlx::query("DELETE FROM signer_attachments WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
