//! SQL of recipients.

use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;
use sqlx::PgConnection;

use crate::{
    error::{Error, Result, Rule},
    model::{
        AccountId, AuthMethod, DocumentId, EmailAddress, Recipient, RecipientId, RecipientRole,
        ReminderLinkId,
    },
};

const COLUMNS: &str = "id, account_id, document_id, name, email, role, country_code, \
                       phone_number, phone_e164, status, color_code, position, viewed_at, signed_at, \
                       declined_at, decline_reason, language, signing_order, invited_at, \
                       next_reminder_at, last_reminded_at, consented_at, consent_ip, consent_user_agent, \
                       consent_text, embedded, \
                       (SELECT e.status FROM outbound_emails e WHERE e.recipient_id = recipients.id \
                        AND e.kind = 'INVITATION') AS delivery_status, \
                       (SELECT e.last_error FROM outbound_emails e \
                        WHERE e.recipient_id = recipients.id AND e.kind = 'INVITATION' \
                        AND e.status = 'FAILED') AS delivery_error, \
                       (SELECT s.status FROM outbound_sms s WHERE s.recipient_id = recipients.id \
                        AND s.kind = 'INVITATION') AS sms_status, \
                       (SELECT s.last_error FROM outbound_sms s \
                        WHERE s.recipient_id = recipients.id AND s.kind = 'INVITATION' \
                        AND s.status = 'FAILED') AS sms_error, \
                       auth_method, auth_failures, auth_locked_at, auth_passed_at";

pub struct NewRecipient {
    pub id: RecipientId,
    pub name: String,
    pub email: EmailAddress,
    pub role: RecipientRole,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    /// The number in E.164, set when `country_code` and `phone_number` are (validated in `wire`).
    pub phone_e164: Option<String>,
    pub color_code: String,
    pub position: i32,
    /// The tag of the language of the recipient's e-mails; `None`: the document's.
    pub language: Option<String>,
    pub signing_order: Option<i32>,
    /// Signs through embedded signing sessions: no invitation, no reminder.
    pub embedded: bool,
    /// The check the recipient passes on their link, and (ACCESS_CODE) the code's hash.
    pub auth_method: Option<AuthMethod>,
    pub access_code_hash: Option<String>,
}

pub async fn list(conn: &mut PgConnection, document_id: DocumentId) -> Result<Vec<Recipient>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM recipients WHERE document_id = $1 ORDER BY position"
    )))
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

/// The recipients of all these documents, by document, then in [`list`]'s order.
pub async fn list_many(
    conn: &mut PgConnection,
    document_ids: &[DocumentId],
) -> Result<Vec<Recipient>> {
    // One index probe per document: `document_id = ANY($1)` over thousands of ids (an expiry
    // batch) is planned as a scan of the whole table.
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT r.* FROM UNNEST($1::uuid[]) WITH ORDINALITY AS d(id, ord)
         CROSS JOIN LATERAL (SELECT {COLUMNS} FROM recipients WHERE document_id = d.id) r
         ORDER BY d.ord, r.position"
    )))
    .bind(document_ids)
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
                                 phone_number, phone_e164, color_code, position, language,
                                 signing_order, embedded, auth_method, access_code_hash)
         SELECT id, $1, $2, name, email, role, country_code, phone_number, phone_e164, color_code,
                position, language, signing_order, embedded, auth_method, access_code_hash
         FROM UNNEST($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::text[], $10::text[], $11::int[], $12::text[], $13::int[], $14::bool[],
                     $15::text[], $16::text[])
              AS t(id, name, email, role, country_code, phone_number, phone_e164, color_code,
                   position, language, signing_order, embedded, auth_method, access_code_hash)",
    )
    .bind(account_id)
    .bind(document_id)
    .bind(recipients.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(column(|r| Some(r.name.clone())))
    .bind(column(|r| Some(r.email.to_string())))
    .bind(column(|r| Some(r.role.as_str().to_owned())))
    .bind(column(|r| r.country_code.clone()))
    .bind(column(|r| r.phone_number.clone()))
    .bind(column(|r| r.phone_e164.clone()))
    .bind(column(|r| Some(r.color_code.clone())))
    .bind(recipients.iter().map(|r| r.position).collect::<Vec<_>>())
    .bind(column(|r| r.language.clone()))
    .bind(
        recipients
            .iter()
            .map(|r| r.signing_order)
            .collect::<Vec<_>>(),
    )
    .bind(recipients.iter().map(|r| r.embedded).collect::<Vec<_>>())
    .bind(column(|r| r.auth_method.map(|m| m.as_str().to_owned())))
    .bind(column(|r| r.access_code_hash.clone()))
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
pub async fn set_email(
    conn: &mut PgConnection,
    id: RecipientId,
    email: &EmailAddress,
) -> Result<()> {
    sqlx::query("UPDATE recipients SET email = $2 WHERE id = $1")
        .bind(id)
        .bind(email.as_str())
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
/// The document's recipients that have no field, in order of addition.
pub async fn without_fields(
    conn: &mut PgConnection,
    document_id: DocumentId,
) -> Result<Vec<RecipientId>> {
    Ok(sqlx::query_scalar(
        "SELECT r.id FROM recipients r WHERE r.document_id = $1
           AND NOT EXISTS (SELECT 1 FROM fields f WHERE f.recipient_id = r.id)
         ORDER BY r.position",
    )
    .bind(document_id)
    .fetch_all(conn)
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

/// Marks the recipients invited now, each signer's first reminder scheduled by the document's
/// reminder schedule (none when it has none, or when it would fall after the expiry date, and
/// none for an embedded signer, whom the integrator brings to the page).
pub async fn mark_invited(
    conn: &mut PgConnection,
    document_id: DocumentId,
    ids: &[RecipientId],
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients r SET invited_at = now(),
             next_reminder_at = CASE
                 WHEN r.role = 'SIGNER' AND NOT r.embedded AND d.reminder_first_after_days IS NOT NULL
                      AND now() + make_interval(days => d.reminder_first_after_days) < d.expiry_date
                 THEN now() + make_interval(days => d.reminder_first_after_days) END
         FROM documents d
         WHERE d.id = $1 AND r.document_id = d.id AND r.id = ANY($2)",
    )
    .bind(document_id)
    .bind(ids)
    .execute(conn)
    .await?;
    Ok(())
}

/// How a reminder moves a signer's next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reminded {
    /// The sweep sent the reminder that was due: the next is `reminder_every_days` after the
    /// one that was due (after now, if the sweep ran that late), or none if the schedule does
    /// not repeat.
    WhenDue,
    /// The owner asked for one now: an automatic reminder due sooner than
    /// `reminder_every_days` from now waits until then.
    Now,
}

/// Moves the next reminder of each of `ids` after a reminder; one that would fall on or after
/// the expiry date is dropped.
pub async fn schedule_next_reminders(
    conn: &mut PgConnection,
    document_id: DocumentId,
    ids: &[RecipientId],
    reminded: Reminded,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients r SET next_reminder_at = (
             SELECT CASE WHEN n.next < d.expiry_date THEN n.next END
             FROM (SELECT CASE
                 WHEN coalesce(d.reminder_every_days, 0) = 0
                     THEN CASE WHEN $3 THEN NULL ELSE r.next_reminder_at END
                 WHEN $3 AND r.next_reminder_at + make_interval(days => d.reminder_every_days) > now()
                     THEN r.next_reminder_at + make_interval(days => d.reminder_every_days)
                 WHEN $3 THEN now() + make_interval(days => d.reminder_every_days)
                 ELSE greatest(r.next_reminder_at,
                               now() + make_interval(days => d.reminder_every_days))
             END AS next) n)
         FROM documents d
         WHERE d.id = $1 AND r.document_id = d.id AND r.id = ANY($2)
           AND r.next_reminder_at IS NOT NULL",
    )
    .bind(document_id)
    .bind(ids)
    .bind(reminded == Reminded::WhenDue)
    .execute(conn)
    .await?;
    Ok(())
}

/// The recipients of the document whose reminder is due.
pub async fn due_for_reminder(
    conn: &mut PgConnection,
    document_id: DocumentId,
) -> Result<Vec<RecipientId>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM recipients WHERE document_id = $1 AND next_reminder_at <= now()",
    )
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

/// Stops every reminder of the document's recipients (it left SENT, or they acted).
pub async fn stop_reminders(
    conn: &mut PgConnection,
    document_id: DocumentId,
    ids: Option<&[RecipientId]>,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients SET next_reminder_at = NULL
         WHERE document_id = $1 AND next_reminder_at IS NOT NULL
           AND ($2::uuid[] IS NULL OR id = ANY($2))",
    )
    .bind(document_id)
    .bind(ids)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records that each of `ids` was reminded at `at`.
pub async fn mark_reminded(
    conn: &mut PgConnection,
    ids: &[RecipientId],
    at: DateTime<Utc>,
) -> Result<()> {
    sqlx::query("UPDATE recipients SET last_reminded_at = $2 WHERE id = ANY($1)")
        .bind(ids)
        .bind(at)
        .execute(conn)
        .await?;
    Ok(())
}

/// Moves the due reminder of each of `ids`, reminded less than `interval_hours` ago, to when
/// the interval ends (dropped if that falls on or after the expiry date).
pub async fn defer_reminders(
    conn: &mut PgConnection,
    document_id: DocumentId,
    ids: &[RecipientId],
    interval_hours: u32,
) -> Result<()> {
    sqlx::query(
        "UPDATE recipients r SET next_reminder_at = CASE
                 WHEN d.expiry_date IS NULL
                      OR r.last_reminded_at + make_interval(hours => $3) < d.expiry_date
                 THEN r.last_reminded_at + make_interval(hours => $3) END
         FROM documents d
         WHERE d.id = $1 AND r.document_id = d.id AND r.id = ANY($2)",
    )
    .bind(document_id)
    .bind(ids)
    .bind(interval_hours as i32)
    .execute(conn)
    .await?;
    Ok(())
}

/// A recipient's reminder link: the id its clear token is derived from, and the token's hash.
#[derive(Debug, sqlx::FromRow)]
pub struct ReminderLink {
    pub recipient_id: RecipientId,
    pub reminder_link_id: ReminderLinkId,
    pub token_hash: Vec<u8>,
}

/// The reminder links of `ids` (one per recipient at most).
pub async fn reminder_links(
    conn: &mut PgConnection,
    ids: &[RecipientId],
) -> Result<Vec<ReminderLink>> {
    Ok(sqlx::query_as(
        "SELECT recipient_id, reminder_link_id, token_hash FROM signing_links
         WHERE recipient_id = ANY($1) AND reminder_link_id IS NOT NULL",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// Gives each recipient a new reminder link (id, hash of its token). A link it had before
/// keeps working, but is no longer its reminder link: its token could not be derived again.
pub async fn replace_reminder_links(
    conn: &mut PgConnection,
    account_id: AccountId,
    links: &[(RecipientId, ReminderLinkId, [u8; 32])],
) -> Result<()> {
    let ids: Vec<_> = links.iter().map(|(id, _, _)| *id).collect();
    sqlx::query(
        "UPDATE signing_links SET reminder_link_id = NULL
         WHERE recipient_id = ANY($1) AND reminder_link_id IS NOT NULL",
    )
    .bind(&ids)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO signing_links (token_hash, account_id, recipient_id, reminder_link_id)
         SELECT hash, $1, id, link FROM UNNEST($2::uuid[], $3::uuid[], $4::bytea[])
              AS t(id, link, hash)",
    )
    .bind(account_id)
    .bind(&ids)
    .bind(links.iter().map(|(_, link, _)| *link).collect::<Vec<_>>())
    .bind(links.iter().map(|(_, _, h)| h.to_vec()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Revokes every signing link of the recipient but `signing_token_hash`, their reminder link
/// included (their address was corrected: the links sent to the old one must stop working; the
/// next reminder makes a new reminder link).
pub async fn revoke_extra_signing_links(conn: &mut PgConnection, id: RecipientId) -> Result<()> {
    sqlx::query("DELETE FROM signing_links WHERE recipient_id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// The recipient a signing token belongs to: the invitation's link or a reminder's.
pub async fn find_by_token_hash(pool: &sqlx::PgPool, hash: &[u8]) -> Result<Option<Recipient>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM recipients
         WHERE id = coalesce((SELECT id FROM recipients WHERE signing_token_hash = $1),
                             (SELECT recipient_id FROM signing_links WHERE token_hash = $1))"
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
        "UPDATE recipients SET status = 'SIGNED', signed_at = now(), next_reminder_at = NULL,
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
    let recorded = actor.record();
    sqlx::query(
        "UPDATE recipients SET consented_at = now(), consent_ip = $2, consent_user_agent = $3,
             consent_text = $4 WHERE id = $1 AND consented_at IS NULL",
    )
    .bind(id)
    .bind(&recorded.ip_address)
    .bind(&recorded.user_agent)
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
