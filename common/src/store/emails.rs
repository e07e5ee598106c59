//! SQL of the outbox of e-mails: one row per e-mail that must go out.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::infra::secrets::SigningToken;
use crate::model::StoredLanguage;
use crate::store::outbox::{self, OutboxTable};
use crate::{
    error::Result,
    infra::jobs,
    model::{
        AccountId, DeliveryStatus, DocumentId, DocumentStatus, EmailId, EmailKind, RecipientId,
        RecipientRole, RecipientStatus,
    },
};

pub struct NewEmail {
    pub recipient_id: RecipientId,
    pub kind: EmailKind,
    /// The recipient's signing token, kept only until the e-mail carrying it is sent.
    pub link_token: Option<SigningToken>,
}

/// The outbox of e-mails, which is their queue (`store::outbox`).
pub const OUTBOX: OutboxTable = OutboxTable {
    table: "outbound_emails",
    queue: jobs::EMAIL_QUEUE,
};

/// Puts e-mails in the outbox, due now, on the caller's transaction; the workers hear of them
/// at its commit.
#[tracing::instrument(name = "emails::queue", skip_all)]
pub async fn queue(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    emails: &[NewEmail],
    message_id_domain: &str,
) -> Result<()> {
    if emails.is_empty() {
        return Ok(());
    }
    insert_many(conn, account_id, document_id, emails, message_id_domain).await?;
    outbox::notify(conn, OUTBOX).await
}

/// [`queue`] for the e-mails of many documents (of any accounts) at once: one statement for
/// the rows, one notification.
#[tracing::instrument(name = "emails::queue_many", skip_all)]
pub async fn queue_many(
    conn: &mut PgConnection,
    emails: &[(AccountId, DocumentId, NewEmail)],
    message_id_domain: &str,
) -> Result<()> {
    if emails.is_empty() {
        return Ok(());
    }
    insert_rows(
        conn,
        emails.iter().map(|(a, d, e)| (*a, *d, e)),
        message_id_domain,
    )
    .await?;
    outbox::notify(conn, OUTBOX).await
}

/// Inserts the rows and returns their ids, in order. `Message-ID`s are fixed here so that a
/// retried dispatch repeats the same one.
async fn insert_many(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    emails: &[NewEmail],
    message_id_domain: &str,
) -> Result<Vec<EmailId>> {
    insert_rows(
        conn,
        emails.iter().map(|e| (account_id, document_id, e)),
        message_id_domain,
    )
    .await
}

/// [`insert_many`] with each row's account and document.
async fn insert_rows<'a>(
    conn: &mut PgConnection,
    emails: impl Iterator<Item = (AccountId, DocumentId, &'a NewEmail)>,
    message_id_domain: &str,
) -> Result<Vec<EmailId>> {
    let emails: Vec<(AccountId, DocumentId, &NewEmail)> = emails.collect();
    let ids: Vec<EmailId> = emails.iter().map(|_| EmailId::new()).collect();
    sqlx::query(
        "INSERT INTO outbound_emails (id, account_id, document_id, recipient_id, kind, message_id,
                                      link_token, trace_context)
         SELECT id, account_id, document_id, recipient_id, kind, message_id, link_token, $8
         FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[])
              AS t(id, account_id, document_id, recipient_id, kind, message_id, link_token)",
    )
    .bind(&ids)
    .bind(emails.iter().map(|e| e.0).collect::<Vec<_>>())
    .bind(emails.iter().map(|e| e.1).collect::<Vec<_>>())
    .bind(emails.iter().map(|e| e.2.recipient_id).collect::<Vec<_>>())
    .bind(emails.iter().map(|e| e.2.kind.as_str()).collect::<Vec<_>>())
    .bind(
        ids.iter()
            .map(|id| format!("<{id}@{message_id_domain}>"))
            .collect::<Vec<_>>(),
    )
    .bind(
        emails
            .iter()
            .map(|e| e.2.link_token.clone())
            .collect::<Vec<_>>(),
    )
    .bind(jobs::trace_context())
    .execute(conn)
    .await?;
    Ok(ids)
}

/// Everything needed to render and send one outbox row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OutgoingEmail {
    pub id: EmailId,
    pub recipient_id: RecipientId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    #[sqlx(try_from = "String")]
    pub kind: EmailKind,
    pub message_id: String,
    pub link_token: Option<SigningToken>,
    #[sqlx(try_from = "String")]
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub recipient_name: String,
    /// As stored, not an [`EmailAddress`](crate::model::EmailAddress): an address stored before a rule changed must still
    /// load; what sends to it parses it then.
    pub recipient_email: String,
    #[sqlx(try_from = "String")]
    pub recipient_role: RecipientRole,
    #[sqlx(try_from = "String")]
    pub recipient_status: RecipientStatus,
    pub document_title: String,
    pub document_code: String,
    #[sqlx(try_from = "String")]
    pub document_status: DocumentStatus,
    pub send_message: Option<String>,
    pub send_description: Option<String>,
    pub expiry_date: Option<DateTime<Utc>>,
    pub sender_name: String,
    /// For DECLINED notices: who declined and why.
    pub declined_by: Option<String>,
    pub decline_reason: Option<String>,
    /// For CANCELLED notices: the owner's reason, when given.
    pub cancel_reason: Option<String>,
    /// The tags of the recipient's language and the document's, when they have one.
    #[sqlx(try_from = "Option<String>")]
    pub recipient_language: StoredLanguage,
    #[sqlx(try_from = "Option<String>")]
    pub document_language: StoredLanguage,
    /// The trace of the request (or job) that queued it, which its dispatch continues.
    pub trace_context: Option<String>,
}

/// The claimed rows `ids` with everything needed to render and send them.
pub async fn load(conn: &mut PgConnection, ids: &[uuid::Uuid]) -> Result<Vec<OutgoingEmail>> {
    Ok(sqlx::query_as(
        "SELECT e.id, e.recipient_id, e.account_id, e.document_id, e.kind, e.message_id, e.link_token, e.status,
                e.attempts, r.name AS recipient_name, r.email AS recipient_email,
                r.role AS recipient_role, r.status AS recipient_status, d.title AS document_title, d.code AS document_code,
                d.status AS document_status, d.send_message, d.send_description, d.expiry_date,
                a.name AS sender_name, dr.email AS declined_by, dr.decline_reason, d.cancel_reason,
                r.language AS recipient_language, d.language AS document_language, e.trace_context
         FROM outbound_emails e
         JOIN recipients r ON r.id = e.recipient_id
         JOIN documents d ON d.id = e.document_id
         JOIN accounts a ON a.id = e.account_id
         LEFT JOIN LATERAL (
             SELECT email, decline_reason FROM recipients
             WHERE document_id = e.document_id AND status = 'DECLINED' LIMIT 1
         ) dr ON e.kind = 'DECLINED'
         WHERE e.id = ANY($1)",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// Marks PENDING rows sent, in one statement; the signing tokens they carried are no longer
/// kept. Returns the rows marked: one no longer PENDING had its outcome written already.
pub async fn mark_sent(conn: &mut PgConnection, ids: &[EmailId]) -> Result<Vec<EmailId>> {
    Ok(sqlx::query_scalar(
        "UPDATE outbound_emails SET status = 'SENT', sent_at = now(), attempts = attempts + 1,
             link_token = NULL, last_error = NULL
         WHERE id = ANY($1) AND status = 'PENDING' RETURNING id",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// A recipient's invitation row, as `lock_invitation` finds it.
#[derive(sqlx::FromRow)]
struct Invitation {
    id: EmailId,
    document_id: DocumentId,
    #[sqlx(try_from = "String")]
    status: DeliveryStatus,
}

/// Locks a recipient's invitation row (before its document, in the order dispatch locks
/// them): its id, document and status, `None` if the recipient has none or is not the account's.
pub async fn lock_invitation(
    conn: &mut PgConnection,
    account_id: AccountId,
    recipient_id: RecipientId,
) -> Result<Option<(EmailId, DocumentId, DeliveryStatus)>> {
    let invitation: Option<Invitation> = sqlx::query_as(
        "SELECT id, document_id, status FROM outbound_emails
         WHERE recipient_id = $1 AND account_id = $2 AND kind = 'INVITATION'
         FOR UPDATE",
    )
    .bind(recipient_id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?;
    Ok(invitation.map(|row| (row.id, row.document_id, row.status)))
}

/// Puts a failed invitation back in the outbox with a new signing token (a failed row keeps
/// no clear token), its attempts reset.
pub async fn requeue_invitation(
    conn: &mut PgConnection,
    email_id: EmailId,
    link_token: &SigningToken,
) -> Result<()> {
    sqlx::query(
        "UPDATE outbound_emails SET status = 'PENDING', attempts = 0, last_error = NULL,
             link_token = $2, due_at = now(), lease_owner = NULL, trace_context = $3
         WHERE id = $1",
    )
    .bind(email_id)
    .bind(link_token)
    .bind(jobs::trace_context())
    .execute(&mut *conn)
    .await?;
    outbox::notify(conn, OUTBOX).await
}

/// Withdraws the document's invitations and reminders not sent yet (their signing tokens are
/// dropped with them): in the transaction that takes the document out of SENT.
pub async fn withdraw_invitations(conn: &mut PgConnection, document_id: DocumentId) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE outbound_emails SET status = 'WITHDRAWN', link_token = NULL
         WHERE document_id = $1 AND kind IN ('INVITATION', 'REMINDER') AND status = 'PENDING'",
    )
    .bind(document_id)
    .execute(conn)
    .await?
    .rows_affected())
}

/// Withdraws one unsent e-mail whose document has left SENT.
pub async fn withdraw(conn: &mut PgConnection, email_id: EmailId) -> Result<()> {
    sqlx::query(
        "UPDATE outbound_emails SET status = 'WITHDRAWN', link_token = NULL, lease_owner = NULL
         WHERE id = $1 AND status = 'PENDING'",
    )
    .bind(email_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records a failed attempt on a PENDING row: due again after `retry_in`, or, with none,
/// FAILED for good with the signing token it carried dropped (nothing will send it any more).
/// Returns the attempts so far, or None when the row was no longer PENDING.
pub async fn record_failure(
    conn: &mut PgConnection,
    email_id: EmailId,
    error: &str,
    retry_in: Option<std::time::Duration>,
) -> Result<Option<i32>> {
    Ok(sqlx::query_scalar(
        "UPDATE outbound_emails SET attempts = attempts + 1, last_error = $2, lease_owner = NULL,
             status = CASE WHEN $3::float8 IS NULL THEN 'FAILED' ELSE status END,
             link_token = CASE WHEN $3::float8 IS NULL THEN NULL ELSE link_token END,
             due_at = CASE WHEN $3::float8 IS NULL THEN due_at
                           ELSE now() + make_interval(secs => $3) END
         WHERE id = $1 AND status = 'PENDING' RETURNING attempts",
    )
    .bind(email_id)
    .bind(error)
    .bind(retry_in.map(|delay| delay.as_secs_f64()))
    .fetch_optional(conn)
    .await?)
}
