//! SQL of recipients.

use sqlx::AssertSqlSafe;
use sqlx::PgConnection;

use crate::{
    error::{Error, Result, Rule},
    model::{AccountId, DocumentId, Recipient, RecipientId, RecipientRole},
};

const COLUMNS: &str = "id, account_id, document_id, name, email, role, country_code, \
                       phone_number, phone_e164, status, color_code, position, viewed_at, signed_at, \
                       declined_at, decline_reason, language, consented_at, consent_ip, consent_user_agent, \
                       consent_text, \
                       (SELECT e.status FROM outbound_emails e WHERE e.recipient_id = recipients.id \
                        AND e.kind = 'INVITATION') AS delivery_status, \
                       (SELECT e.last_error FROM outbound_emails e \
                        WHERE e.recipient_id = recipients.id AND e.kind = 'INVITATION' \
                        AND e.status = 'FAILED') AS delivery_error, \
                       (SELECT s.status FROM outbound_sms s WHERE s.recipient_id = recipients.id \
                        AND s.kind = 'INVITATION') AS sms_status, \
                       (SELECT s.last_error FROM outbound_sms s \
                        WHERE s.recipient_id = recipients.id AND s.kind = 'INVITATION' \
                        AND s.status = 'FAILED') AS sms_error";

pub struct NewRecipient {
    pub id: RecipientId,
    pub name: String,
    pub email: String,
    pub role: RecipientRole,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    /// The number in E.164, set when `country_code` and `phone_number` are (validated in `wire`).
    pub phone_e164: Option<String>,
    pub color_code: String,
    pub position: i32,
    /// The tag of the language of the recipient's e-mails; `None`: the document's.
    pub language: Option<String>,
}

pub async fn list(conn: &mut PgConnection, document_id: DocumentId) -> Result<Vec<Recipient>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM recipients WHERE document_id = $1 ORDER BY position"
    )))
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

pub async fn insert_many(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    recipients: &[NewRecipient],
) -> Result<()> {
    let column = |f: fn(&NewRecipient) -> Option<String>| -> Vec<Option<String>> {
        recipients.iter().map(f).collect()
    };
    sqlx::query(
        "INSERT INTO recipients (id, account_id, document_id, name, email, role, country_code,
                                 phone_number, phone_e164, color_code, position, language)
         SELECT id, $1, $2, name, email, role, country_code, phone_number, phone_e164, color_code,
                position, language
         FROM UNNEST($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::int[], $12::text[])
              AS t(id, name, email, role, country_code, phone_number, phone_e164, color_code,
                   position, language)",
    )
    .bind(account_id)
    .bind(document_id)
    .bind(recipients.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(column(|r| Some(r.name.clone())))
    .bind(column(|r| Some(r.email.clone())))
    .bind(column(|r| Some(r.role.as_str().to_owned())))
    .bind(column(|r| r.country_code.clone()))
    .bind(column(|r| r.phone_number.clone()))
    .bind(column(|r| r.phone_e164.clone()))
    .bind(column(|r| Some(r.color_code.clone())))
    .bind(recipients.iter().map(|r| r.position).collect::<Vec<_>>())
    .bind(column(|r| r.language.clone()))
    .execute(conn)
    .await
    .map_err(duplicate_recipient)?;
    Ok(())
}

/// A second recipient with the same address on a document is the rule's error, not the database's.
fn duplicate_recipient(e: sqlx::Error) -> Error {
    if crate::infra::db::is_unique_violation(&e, "recipients_email_per_document") {
        Error::Rule(Rule::DuplicateRecipient)
    } else {
        e.into()
    }
}

/// Changes a recipient's e-mail address; a duplicate on the document is refused.
pub async fn set_email(conn: &mut PgConnection, id: RecipientId, email: &str) -> Result<()> {
    sqlx::query("UPDATE recipients SET email = $2 WHERE id = $1")
        .bind(id)
        .bind(email)
        .execute(conn)
        .await
        .map_err(duplicate_recipient)?;
    Ok(())
}

/// Removes a recipient and their fields.
pub async fn delete(
    conn: &mut PgConnection,
    document_id: DocumentId,
    id: RecipientId,
) -> Result<()> {
    sqlx::query("DELETE FROM fields WHERE document_id = $1 AND recipient_id = $2")
        .bind(document_id)
        .bind(id)
        .execute(&mut *conn)
        .await?;
    sqlx::query("DELETE FROM recipients WHERE document_id = $1 AND id = $2")
        .bind(document_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// How many recipients of the document have no field assigned.
pub async fn count_without_fields(conn: &mut PgConnection, document_id: DocumentId) -> Result<i64> {
    Ok(sqlx::query_scalar(
        "SELECT count(*) FROM recipients r WHERE r.document_id = $1
           AND NOT EXISTS (SELECT 1 FROM fields f WHERE f.recipient_id = r.id)",
    )
    .bind(document_id)
    .fetch_one(conn)
    .await?)
}

pub async fn set_signing_token_hashes(
    conn: &mut PgConnection,
    tokens: &[(RecipientId, [u8; 32])],
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients r SET signing_token_hash = t.hash
         FROM UNNEST($1::uuid[], $2::bytea[]) AS t(id, hash) WHERE r.id = t.id",
    )
    .bind(tokens.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(tokens.iter().map(|(_, h)| h.to_vec()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// The recipient a signing token belongs to.
pub async fn find_by_token_hash(pool: &sqlx::PgPool, hash: &[u8]) -> Result<Option<Recipient>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM recipients WHERE signing_token_hash = $1"
    )))
    .bind(hash)
    .fetch_optional(pool)
    .await?)
}

pub async fn find(conn: &mut PgConnection, id: RecipientId) -> Result<Recipient> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM recipients WHERE id = $1"
    )))
    .bind(id)
    .fetch_one(conn)
    .await?)
}

pub async fn mark_viewed(conn: &mut PgConnection, id: RecipientId) -> Result<()> {
    sqlx::query("UPDATE recipients SET status = 'VIEWED', viewed_at = now() WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn mark_signed(conn: &mut PgConnection, id: RecipientId) -> Result<()> {
    sqlx::query(
        "UPDATE recipients SET status = 'SIGNED', signed_at = now(),
             viewed_at = COALESCE(viewed_at, now()) WHERE id = $1",
    )
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records the signer's consent to electronic records, once: the first agreement stands.
pub async fn record_consent(
    conn: &mut PgConnection,
    id: RecipientId,
    actor: &crate::model::Actor,
    text: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients SET consented_at = now(), consent_ip = $2, consent_user_agent = $3,
             consent_text = $4 WHERE id = $1 AND consented_at IS NULL",
    )
    .bind(id)
    .bind(&actor.ip_address)
    .bind(&actor.user_agent)
    .bind(text)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn mark_declined(
    conn: &mut PgConnection,
    id: RecipientId,
    reason: Option<&str>,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients SET status = 'DECLINED', declined_at = now(), decline_reason = $2,
             viewed_at = COALESCE(viewed_at, now()) WHERE id = $1",
    )
    .bind(id)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}
