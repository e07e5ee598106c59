//! SQL of erasure on request (issue #37, docs/retention.md): finding a person's recipients and
//! replacing what the rows that mention them hold. The audit trail's part is `audit::erase`.

use sqlx::PgConnection;

use crate::{
    error::Result,
    model::{AccountId, DocumentId, EventId, RecipientId},
};

/// A recipient row as an erasure sees it: who, where, and the personal values it holds.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Person {
    pub id: RecipientId,
    pub document_id: DocumentId,
    pub name: String,
    pub email: String,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    pub phone_e164: Option<String>,
    pub consent_ip: Option<String>,
    pub consent_user_agent: Option<String>,
    pub decline_reason: Option<String>,
    pub erased_at: Option<chrono::DateTime<chrono::Utc>>,
}

const PERSON: &str = "id, document_id, name, email, country_code, phone_number, phone_e164, \
                      consent_ip, consent_user_agent, decline_reason, erased_at";

/// The account's recipient with this id, erased or not.
pub async fn recipient(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: RecipientId,
) -> Result<Option<Person>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PERSON} FROM recipients WHERE id = $1 AND account_id = $2"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?)
}

/// The account's recipients not yet erased with this address (in any case), locked.
pub async fn by_email(
    conn: &mut PgConnection,
    account_id: AccountId,
    email: &str,
) -> Result<Vec<Person>> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PERSON} FROM recipients
         WHERE account_id = $1 AND lower(email) = lower($2) AND erased_at IS NULL
         ORDER BY document_id, id"
    )))
    .bind(account_id)
    .bind(email)
    .fetch_all(conn)
    .await?)
}

/// Replaces the recipients' name, address, number, consent's address and user agent and
/// decline reason by tombstones (the address one of its own per recipient, as the document's
/// addresses must differ), and marks them erased.
pub async fn erase_recipients(
    conn: &mut PgConnection,
    ids: &[RecipientId],
    tombstone: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients
         SET name = $2, email = 'erased-' || replace(id::text, '-', '') || '@erased.invalid',
             country_code = NULL, phone_number = NULL, phone_e164 = NULL,
             consent_ip = CASE WHEN consent_ip IS NULL THEN NULL ELSE $2 END,
             consent_user_agent = CASE WHEN consent_user_agent IS NULL THEN NULL ELSE $2 END,
             decline_reason = CASE WHEN decline_reason IS NULL THEN NULL ELSE $2 END,
             erased_at = now()
         WHERE id = ANY($1)",
    )
    .bind(ids)
    .bind(tombstone)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The outbox rows addressed to the recipients lose their address, link and error text, and
/// those not sent yet are withdrawn (an e-mail as FAILED, there being no other end for one):
/// nothing goes to a tombstone. The daily SMS counts of their numbers are forgotten.
pub async fn erase_outbox(
    conn: &mut PgConnection,
    account_id: AccountId,
    ids: &[RecipientId],
    numbers: &[String],
    tombstone: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE outbound_emails
         SET link_token = NULL,
             status = CASE WHEN status = 'PENDING' THEN 'FAILED' ELSE status END,
             last_error = CASE WHEN status = 'PENDING'
                               THEN 'withdrawn: the recipient''s personal data was erased'
                               WHEN last_error IS NULL THEN NULL ELSE $2 END
         WHERE recipient_id = ANY($1)",
    )
    .bind(ids)
    .bind(tombstone)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE outbound_sms
         SET to_e164 = $2, link_token = NULL,
             status = CASE WHEN status = 'PENDING' THEN 'WITHDRAWN' ELSE status END,
             last_error = CASE WHEN last_error IS NULL THEN NULL ELSE $2 END
         WHERE recipient_id = ANY($1)",
    )
    .bind(ids)
    .bind(tombstone)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM sms_daily_counts WHERE account_id = $1 AND number = ANY($2)")
        .bind(account_id)
        .bind(numbers)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// The event feed's bodies about these documents, with their document.
pub async fn event_payloads(
    conn: &mut PgConnection,
    account_id: AccountId,
    documents: &[DocumentId],
) -> Result<Vec<(EventId, DocumentId, String)>> {
    Ok(sqlx::query_as(
        "SELECT id, document_id, payload FROM events
         WHERE account_id = $1 AND document_id = ANY($2)",
    )
    .bind(account_id)
    .bind(documents)
    .fetch_all(conn)
    .await?)
}

pub async fn set_event_payloads(
    conn: &mut PgConnection,
    payloads: &[(EventId, String)],
) -> Result<()> {
    sqlx::query(
        "UPDATE events e SET payload = t.payload
         FROM UNNEST($1::uuid[], $2::text[]) AS t(id, payload) WHERE e.id = t.id",
    )
    .bind(payloads.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(payloads.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// The webhook deliveries' bodies about these documents, with their document.
pub async fn delivery_payloads(
    conn: &mut PgConnection,
    account_id: AccountId,
    documents: &[DocumentId],
) -> Result<Vec<(uuid::Uuid, DocumentId, String)>> {
    Ok(sqlx::query_as(
        "SELECT id, document_id, payload FROM webhook_deliveries
         WHERE account_id = $1 AND document_id = ANY($2)",
    )
    .bind(account_id)
    .bind(documents)
    .fetch_all(conn)
    .await?)
}

pub async fn set_delivery_payloads(
    conn: &mut PgConnection,
    payloads: &[(uuid::Uuid, String)],
) -> Result<()> {
    sqlx::query(
        "UPDATE webhook_deliveries w SET payload = t.payload
         FROM UNNEST($1::uuid[], $2::text[]) AS t(id, payload) WHERE w.id = t.id",
    )
    .bind(payloads.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(payloads.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// A bulk send's row that made one of these documents: its input and error.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BulkRow {
    pub bulk_send_id: uuid::Uuid,
    pub row_number: i32,
    pub document_id: DocumentId,
    pub input: serde_json::Value,
    pub error: Option<String>,
}

pub async fn bulk_rows(conn: &mut PgConnection, documents: &[DocumentId]) -> Result<Vec<BulkRow>> {
    Ok(sqlx::query_as(
        "SELECT bulk_send_id, row_number, document_id, input, error FROM bulk_send_rows
         WHERE document_id = ANY($1)",
    )
    .bind(documents)
    .fetch_all(conn)
    .await?)
}

pub async fn set_bulk_rows(conn: &mut PgConnection, rows: &[BulkRow]) -> Result<()> {
    sqlx::query(
        "UPDATE bulk_send_rows b SET input = t.input, error = t.error
         FROM UNNEST($1::uuid[], $2::int[], $3::jsonb[], $4::text[])
              AS t(bulk_send_id, row_number, input, error)
         WHERE b.bulk_send_id = t.bulk_send_id AND b.row_number = t.row_number",
    )
    .bind(rows.iter().map(|r| r.bulk_send_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.row_number).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.input.clone()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.error.clone()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// The names of the files the recipients attached, with their document.
pub async fn attachment_names(
    conn: &mut PgConnection,
    ids: &[RecipientId],
) -> Result<Vec<(uuid::Uuid, DocumentId, String)>> {
    Ok(sqlx::query_as(
        "SELECT id, document_id, file_name FROM signer_attachments WHERE recipient_id = ANY($1)",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

pub async fn set_attachment_names(
    conn: &mut PgConnection,
    names: &[(uuid::Uuid, String)],
) -> Result<()> {
    sqlx::query(
        "UPDATE signer_attachments a SET file_name = t.name
         FROM UNNEST($1::uuid[], $2::text[]) AS t(id, name) WHERE a.id = t.id",
    )
    .bind(names.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(names.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}
