//! SQL of the SMS outbox (one row per text message that must go out) and of the daily counts
//! its caps are checked against.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::infra::secrets::SigningToken;
use crate::store::outbox::{self, OutboxTable};
use crate::{
    error::Result,
    infra::jobs,
    model::{
        AccountId, DailyCaps, DocumentId, DocumentStatus, RecipientId, SmsId, SmsKind, SmsStatus,
        StoredLanguage,
    },
};

/// The outbox of SMS, which is their queue (`store::outbox`).
pub const OUTBOX: OutboxTable = OutboxTable {
    table: "outbound_sms",
    queue: jobs::SMS_QUEUE,
};

/// An SMS a change calls for. Only recipients with a phone number get one.
pub struct NewSms {
    pub recipient_id: RecipientId,
    pub kind: SmsKind,
    /// The recipient's signing token, kept only until the SMS carrying it is sent.
    pub link_token: Option<SigningToken>,
}

/// An SMS that was not queued because a daily cap was reached: recorded FAILED with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capped {
    pub recipient_id: RecipientId,
    pub to: String,
    pub kind: SmsKind,
    pub reason: String,
}

/// Puts the SMS of `candidates` whose recipient has a phone number in the outbox and queues
/// their dispatch jobs, on the caller's transaction. Each is counted against the account's
/// daily caps first; one over a cap is written FAILED with the reason, without a job, and
/// returned so that the caller can record it.
///
/// The account's count row is locked first and held to the end of the transaction, so that
/// concurrent transactions of one account take the caps in turn (and never lock two number
/// rows in opposite orders).
#[tracing::instrument(name = "sms::queue", skip_all)]
pub async fn queue(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    candidates: &[NewSms],
    caps: DailyCaps,
) -> Result<Vec<Capped>> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let numbers: Vec<(RecipientId, String)> = sqlx::query_as(
        "SELECT id, phone_e164 FROM recipients WHERE id = ANY($1) AND phone_e164 IS NOT NULL",
    )
    .bind(
        candidates
            .iter()
            .map(|c| c.recipient_id)
            .collect::<Vec<_>>(),
    )
    .fetch_all(&mut *conn)
    .await?;
    let with_number: Vec<(&NewSms, &str)> = candidates
        .iter()
        .filter_map(|c| {
            numbers
                .iter()
                .find(|(id, _)| *id == c.recipient_id)
                .map(|(_, number)| (c, number.as_str()))
        })
        .collect();
    if with_number.is_empty() {
        return Ok(Vec::new());
    }

    let (mut account_count, day): (i32, chrono::NaiveDate) = sqlx::query_as(
        "INSERT INTO sms_daily_counts AS c (account_id, number, day, queued)
         VALUES ($1, '', (now() AT TIME ZONE 'UTC')::date, 0)
         ON CONFLICT (account_id, number, day) DO UPDATE SET queued = c.queued
         RETURNING queued, day",
    )
    .bind(account_id)
    .fetch_one(&mut *conn)
    .await?;
    let mut rows = Vec::with_capacity(with_number.len());
    let mut capped = Vec::new();
    for (sms, number) in with_number {
        let refusal = if account_count >= caps.per_account {
            Some(caps.account_reached())
        } else if count_for_number(conn, account_id, number, day, caps.per_number).await? {
            account_count += 1;
            None
        } else {
            Some(caps.number_reached())
        };
        if let Some(reason) = &refusal {
            capped.push(Capped {
                recipient_id: sms.recipient_id,
                to: number.to_owned(),
                kind: sms.kind,
                reason: reason.clone(),
            });
        }
        rows.push(Row {
            id: SmsId::new(),
            account_id,
            document_id,
            sms,
            number,
            refusal,
        });
    }
    sqlx::query("UPDATE sms_daily_counts SET queued = $3 WHERE account_id = $1 AND number = '' AND day = $2")
        .bind(account_id)
        .bind(day)
        .bind(account_count)
        .execute(&mut *conn)
        .await?;

    let pending = insert_rows(conn, &rows).await?;
    announce(conn, pending).await?;
    Ok(capped)
}

/// An outbox row to write: FAILED with the reason when a cap refused it.
struct Row<'a> {
    id: SmsId,
    account_id: AccountId,
    document_id: DocumentId,
    sms: &'a NewSms,
    number: &'a str,
    refusal: Option<String>,
}

/// Writes the rows; returns the ids of those PENDING, to dispatch.
async fn insert_rows(conn: &mut PgConnection, rows: &[Row<'_>]) -> Result<Vec<SmsId>> {
    // A recipient's second SMS of a kind replaces the first: only a resent invitation, whose
    // new link replaces the old one, queues one.
    let queued: Vec<(SmsId, bool)> = sqlx::query_as(
        "INSERT INTO outbound_sms AS s (id, account_id, document_id, recipient_id, kind, to_e164,
                                        link_token, status, last_error, trace_context)
         SELECT id, account_id, document_id, recipient_id, kind, to_e164, link_token,
                CASE WHEN refusal IS NULL THEN 'PENDING' ELSE 'FAILED' END, refusal, $9
         FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[],
                     $7::text[], $8::text[])
              AS t(id, account_id, document_id, recipient_id, kind, to_e164, link_token, refusal)
         ON CONFLICT (recipient_id, kind) DO UPDATE
             SET to_e164 = EXCLUDED.to_e164, link_token = EXCLUDED.link_token,
                 status = EXCLUDED.status, last_error = EXCLUDED.last_error, attempts = 0,
                 provider_message_id = NULL, segments = NULL, encoding = NULL,
                 created_at = now(), sent_at = NULL, delivered_at = NULL,
                 due_at = now(), lease_owner = NULL, trace_context = EXCLUDED.trace_context
         RETURNING s.id, s.status = 'PENDING'",
    )
    .bind(rows.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.account_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.document_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.sms.recipient_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.sms.kind.as_str()).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.number).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| {
                r.refusal
                    .is_none()
                    .then(|| r.sms.link_token.clone())
                    .flatten()
            })
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.refusal.clone()).collect::<Vec<_>>())
    .bind(jobs::trace_context())
    .fetch_all(&mut *conn)
    .await?;
    Ok(queued
        .into_iter()
        .filter(|(_, pending)| *pending)
        .map(|(sms_id, _)| sms_id)
        .collect())
}

/// Tells the workers of new PENDING outbox rows (at the commit): the one place a new row is
/// announced.
async fn announce(conn: &mut PgConnection, pending: Vec<SmsId>) -> Result<()> {
    if pending.is_empty() {
        return Ok(());
    }
    outbox::notify(conn, OUTBOX).await
}

/// An SMS not queued by [`queue_many`] because a cap was reached, with its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedIn {
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub capped: Capped,
}

/// [`queue`] for the SMS of many documents (of any accounts) at once, in a few statements
/// whatever their number: the numbers, the accounts' count rows (locked in account order, as
/// [`queue`] locks one), the numbers' count rows, the new counts and the outbox rows. The candidates are counted against the caps in the order given, exactly as calls of
/// [`queue`] one document after another would count them.
#[tracing::instrument(name = "sms::queue_many", skip_all)]
pub async fn queue_many(
    conn: &mut PgConnection,
    candidates: &[(AccountId, DocumentId, NewSms)],
    caps: DailyCaps,
) -> Result<Vec<CappedIn>> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let numbers: HashMap<RecipientId, String> = sqlx::query_as(
        "SELECT id, phone_e164 FROM recipients WHERE id = ANY($1) AND phone_e164 IS NOT NULL",
    )
    .bind(
        candidates
            .iter()
            .map(|c| c.2.recipient_id)
            .collect::<Vec<_>>(),
    )
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .collect();
    let with_number: Vec<(&(AccountId, DocumentId, NewSms), &str)> = candidates
        .iter()
        .filter_map(|c| numbers.get(&c.2.recipient_id).map(|n| (c, n.as_str())))
        .collect();
    if with_number.is_empty() {
        return Ok(Vec::new());
    }

    let mut accounts: Vec<AccountId> = with_number.iter().map(|(c, _)| c.0).collect();
    accounts.sort();
    accounts.dedup();
    let locked: Vec<(AccountId, i32, chrono::NaiveDate)> = sqlx::query_as(
        "INSERT INTO sms_daily_counts AS c (account_id, number, day, queued)
         SELECT account_id, '', (now() AT TIME ZONE 'UTC')::date, 0
         FROM UNNEST($1::uuid[]) WITH ORDINALITY AS t(account_id, n) ORDER BY n
         ON CONFLICT (account_id, number, day) DO UPDATE SET queued = c.queued
         RETURNING account_id, queued, day",
    )
    .bind(&accounts)
    .fetch_all(&mut *conn)
    .await?;
    let day = locked[0].2;
    let mut account_counts: HashMap<AccountId, i32> = locked
        .into_iter()
        .map(|(a, queued, _)| (a, queued))
        .collect();
    let mut pairs: Vec<(AccountId, &str)> = with_number.iter().map(|(c, n)| (c.0, *n)).collect();
    pairs.sort();
    pairs.dedup();
    // The accounts' rows, locked above, already keep other transactions off these rows.
    let mut number_counts: HashMap<(AccountId, String), i32> = sqlx::query_as(
        "SELECT c.account_id, c.number, c.queued FROM sms_daily_counts c
         JOIN UNNEST($1::uuid[], $2::text[]) AS t(account_id, number)
           ON c.account_id = t.account_id AND c.number = t.number
         WHERE c.day = $3",
    )
    .bind(pairs.iter().map(|p| p.0).collect::<Vec<_>>())
    .bind(pairs.iter().map(|p| p.1).collect::<Vec<_>>())
    .bind(day)
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|(a, n, q): (AccountId, String, i32)| ((a, n), q))
    .collect();

    let mut rows = Vec::with_capacity(with_number.len());
    let mut capped = Vec::new();
    let mut counted: Vec<(AccountId, &str)> = Vec::new();
    for ((account_id, document_id, sms), number) in with_number {
        let account_count = account_counts
            .get_mut(account_id)
            .expect("every account's row was locked");
        let refusal = if *account_count >= caps.per_account {
            Some(caps.account_reached())
        } else {
            // As `count_for_number`: a number without a row today is always counted.
            let key = (*account_id, number.to_owned());
            if number_counts
                .get(&key)
                .is_none_or(|count| *count < caps.per_number)
            {
                *number_counts.entry(key).or_insert(0) += 1;
                *account_count += 1;
                counted.push((*account_id, number));
                None
            } else {
                Some(caps.number_reached())
            }
        };
        if let Some(reason) = &refusal {
            capped.push(CappedIn {
                account_id: *account_id,
                document_id: *document_id,
                capped: Capped {
                    recipient_id: sms.recipient_id,
                    to: number.to_owned(),
                    kind: sms.kind,
                    reason: reason.clone(),
                },
            });
        }
        rows.push(Row {
            id: SmsId::new(),
            account_id: *account_id,
            document_id: *document_id,
            sms,
            number,
            refusal,
        });
    }
    counted.sort();
    counted.dedup();
    let mut writes: Vec<(AccountId, String, i32)> = accounts
        .iter()
        .map(|a| (*a, String::new(), account_counts[a]))
        .collect();
    writes.extend(
        counted
            .into_iter()
            .map(|(a, n)| (a, n.to_owned(), number_counts[&(a, n.to_owned())])),
    );
    sqlx::query(
        "INSERT INTO sms_daily_counts AS c (account_id, number, day, queued)
         SELECT account_id, number, $4, queued
         FROM UNNEST($1::uuid[], $2::text[], $3::int[]) AS t(account_id, number, queued)
         ON CONFLICT (account_id, number, day) DO UPDATE SET queued = EXCLUDED.queued",
    )
    .bind(writes.iter().map(|w| w.0).collect::<Vec<_>>())
    .bind(writes.iter().map(|w| w.1.as_str()).collect::<Vec<_>>())
    .bind(writes.iter().map(|w| w.2).collect::<Vec<_>>())
    .bind(day)
    .execute(&mut *conn)
    .await?;
    let pending = insert_rows(conn, &rows).await?;
    announce(conn, pending).await?;
    Ok(capped)
}

/// Counts one more SMS to `number` today, unless that would pass the cap: false then.
async fn count_for_number(
    conn: &mut PgConnection,
    account_id: AccountId,
    number: &str,
    day: chrono::NaiveDate,
    cap: i32,
) -> Result<bool> {
    let counted: Option<i32> = sqlx::query_scalar(
        "INSERT INTO sms_daily_counts AS c (account_id, number, day, queued)
         VALUES ($1, $2, $3, 1)
         ON CONFLICT (account_id, number, day) DO UPDATE SET queued = c.queued + 1
         WHERE c.queued < $4
         RETURNING queued",
    )
    .bind(account_id)
    .bind(number)
    .bind(day)
    .bind(cap)
    .fetch_optional(conn)
    .await?;
    Ok(counted.is_some())
}

/// Forgets the daily counts of days before yesterday (UTC); returns how many rows went.
pub async fn forget_old_counts(pool: &sqlx::PgPool) -> Result<u64> {
    Ok(
        sqlx::query(
            "DELETE FROM sms_daily_counts WHERE day < (now() AT TIME ZONE 'UTC')::date - 1",
        )
        .execute(pool)
        .await?
        .rows_affected(),
    )
}

/// Everything needed to render and send one outbox row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OutgoingSms {
    pub id: SmsId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    #[sqlx(try_from = "String")]
    pub kind: SmsKind,
    pub to_e164: String,
    pub link_token: Option<SigningToken>,
    #[sqlx(try_from = "String")]
    pub status: SmsStatus,
    pub attempts: i32,
    pub document_title: String,
    #[sqlx(try_from = "String")]
    pub document_status: DocumentStatus,
    pub expiry_date: Option<DateTime<Utc>>,
    pub sender_name: String,
    /// The tags of the recipient's language and the document's, when they have one.
    #[sqlx(try_from = "Option<String>")]
    pub recipient_language: StoredLanguage,
    #[sqlx(try_from = "Option<String>")]
    pub document_language: StoredLanguage,
    /// The trace of the request (or job) that queued it, which its dispatch continues.
    pub trace_context: Option<String>,
}

impl OutgoingSms {
    pub fn addressee(&self) -> Addressee {
        Addressee {
            account_id: self.account_id,
            document_id: self.document_id,
            recipient_id: self.recipient_id,
            to_e164: self.to_e164.clone(),
            kind: self.kind,
        }
    }
}

/// The claimed rows `ids` with everything needed to render and send them.
pub async fn load(conn: &mut PgConnection, ids: &[uuid::Uuid]) -> Result<Vec<OutgoingSms>> {
    Ok(sqlx::query_as(
        "SELECT s.id, s.account_id, s.document_id, s.recipient_id, s.kind, s.to_e164, s.link_token,
                s.status, s.attempts, d.title AS document_title, d.status AS document_status,
                d.expiry_date, a.name AS sender_name,
                r.language AS recipient_language, d.language AS document_language, s.trace_context
         FROM outbound_sms s
         JOIN documents d ON d.id = s.document_id
         JOIN accounts a ON a.id = s.account_id
         JOIN recipients r ON r.id = s.recipient_id
         WHERE s.id = ANY($1)",
    )
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// What an SMS costs, as the text that went out was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub segments: i32,
    pub encoding: &'static str,
}

/// Marks a PENDING row accepted by the provider, with the provider's id for it; the signing
/// token it carried is no longer kept. False when the row was no longer PENDING.
pub async fn mark_sent(
    conn: &mut PgConnection,
    sms_id: SmsId,
    provider_message_id: Option<&str>,
    cost: Cost,
) -> Result<bool> {
    let updated = sqlx::query(
        "UPDATE outbound_sms SET status = 'SENT', sent_at = now(), attempts = attempts + 1,
             link_token = NULL, last_error = NULL, provider_message_id = $2, segments = $3,
             encoding = $4
         WHERE id = $1 AND status = 'PENDING'",
    )
    .bind(sms_id)
    .bind(provider_message_id)
    .bind(cost.segments)
    .bind(cost.encoding)
    .execute(conn)
    .await?;
    Ok(updated.rows_affected() == 1)
}

/// Records a failed attempt on a PENDING row: due again after `retry_in`, or, with none,
/// FAILED for good with the signing token it carried dropped. Returns the attempts so far, or
/// None when the row was no longer PENDING.
pub async fn record_failure(
    conn: &mut PgConnection,
    sms_id: SmsId,
    error: &str,
    retry_in: Option<std::time::Duration>,
    cost: Cost,
) -> Result<Option<i32>> {
    Ok(sqlx::query_scalar(
        "UPDATE outbound_sms SET attempts = attempts + 1, last_error = $2, lease_owner = NULL,
             status = CASE WHEN $3::float8 IS NULL THEN 'FAILED' ELSE status END,
             link_token = CASE WHEN $3::float8 IS NULL THEN NULL ELSE link_token END,
             due_at = CASE WHEN $3::float8 IS NULL THEN due_at
                           ELSE now() + make_interval(secs => $3) END,
             segments = $4, encoding = $5
         WHERE id = $1 AND status = 'PENDING' RETURNING attempts",
    )
    .bind(sms_id)
    .bind(error)
    .bind(retry_in.map(|delay| delay.as_secs_f64()))
    .bind(cost.segments)
    .bind(cost.encoding)
    .fetch_optional(conn)
    .await?)
}

/// Withdraws one unsent SMS whose document has left SENT.
pub async fn withdraw(conn: &mut PgConnection, sms_id: SmsId) -> Result<()> {
    sqlx::query(
        "UPDATE outbound_sms SET status = 'WITHDRAWN', link_token = NULL, lease_owner = NULL
         WHERE id = $1 AND status = 'PENDING'",
    )
    .bind(sms_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Withdraws the document's invitation SMS not sent yet (their signing tokens are dropped with
/// them): in the transaction that takes the document out of SENT.
pub async fn withdraw_invitations(conn: &mut PgConnection, document_id: DocumentId) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE outbound_sms SET status = 'WITHDRAWN', link_token = NULL
         WHERE document_id = $1 AND kind = 'INVITATION' AND status = 'PENDING'",
    )
    .bind(document_id)
    .execute(conn)
    .await?
    .rows_affected())
}

/// What a provider's delivery report said about a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    Delivered,
    Undelivered { error: String },
}

/// Who an SMS was for: what its failure's audit entry names.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Addressee {
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    pub to_e164: String,
    #[sqlx(try_from = "String")]
    pub kind: SmsKind,
}

/// Applies a delivery report to the row, if the provider's `message_id` (when it gives one) is
/// the row's. Only a SENT row changes; a report about a row that is already DELIVERED or
/// FAILED, or that came before the provider's own answer was recorded, changes nothing.
pub async fn record_report(
    conn: &mut PgConnection,
    sms_id: SmsId,
    provider_message_id: Option<&str>,
    report: &Report,
) -> Result<Option<Addressee>> {
    let (status, error) = match report {
        Report::Delivered => ("DELIVERED", None),
        Report::Undelivered { error } => ("FAILED", Some(error.as_str())),
    };
    Ok(sqlx::query_as(
        "UPDATE outbound_sms SET status = $3, last_error = $4,
             delivered_at = CASE WHEN $3 = 'DELIVERED' THEN now() END
         WHERE id = $1 AND status = 'SENT'
           AND ($2::text IS NULL OR provider_message_id = $2)
         RETURNING account_id, document_id, recipient_id, to_e164, kind",
    )
    .bind(sms_id)
    .bind(provider_message_id)
    .bind(status)
    .bind(error)
    .fetch_optional(conn)
    .await?)
}
