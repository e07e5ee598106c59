//! SQL of the outbox of e-mails: one row per e-mail that must go out.

use sqlx::PgConnection;
use uuid::Uuid;

use crate::{error::Result, model::EmailKind};

pub struct NewEmail {
    pub recipient_id: Uuid,
    pub kind: EmailKind,
    /// The recipient's signing token, kept only until the e-mail carrying it is sent.
    pub link_token: Option<String>,
}

/// Inserts the rows and returns their ids, in order. `Message-ID`s are fixed here so that a
/// retried dispatch repeats the same one.
pub async fn insert_many(
    conn: &mut PgConnection,
    account_id: Uuid,
    document_id: Uuid,
    emails: &[NewEmail],
    message_id_domain: &str,
) -> Result<Vec<Uuid>> {
    let ids: Vec<Uuid> = emails.iter().map(|_| Uuid::now_v7()).collect();
    sqlx::query(
        "INSERT INTO outbound_emails (id, account_id, document_id, recipient_id, kind, message_id, link_token)
         SELECT id, $1, $2, recipient_id, kind, message_id, link_token
         FROM UNNEST($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[])
              AS t(id, recipient_id, kind, message_id, link_token)",
    )
    .bind(account_id)
    .bind(document_id)
    .bind(&ids)
    .bind(emails.iter().map(|e| e.recipient_id).collect::<Vec<_>>())
    .bind(emails.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>())
    .bind(
        ids.iter()
            .map(|id| format!("<{id}@{message_id_domain}>"))
            .collect::<Vec<_>>(),
    )
    .bind(emails.iter().map(|e| e.link_token.clone()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(ids)
}
