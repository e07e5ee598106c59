//! Reminders to the signers who have not signed: automatic ones on the document's schedule,
//! sent by the sweep, and the owner's, sent at once. Each carries the signer's reminder link,
//! one per signer, made at their first reminder and re-sent by every later one: its clear
//! token is derived again from a key and the link's id (`ReminderLinkKey`), never stored. (The
//! invitation's link cannot be re-sent: its clear token is not kept.)
//!
//! At most one reminder per signer per REMINDER_MIN_INTERVAL_HOURS, whoever asks: the check
//! and the record of each reminder (`last_reminded_at`) are made here, under the document's
//! row lock, so two requests at once cannot both pass. The owner's reminder skips the signers
//! reminded within the interval and is refused, changing nothing, when that is all of them;
//! the sweep moves a due reminder of such a signer to the end of the interval.
//!
//! Exactly once per due reminder: the sweep locks each document with `SKIP LOCKED` and moves
//! the signers' next reminder in the transaction that queues the e-mails, so sweeps running at
//! once on several workers never remind twice. Never after the document leaves SENT: the
//! sweep checks its status under the lock (a change to the document takes the same lock), and
//! a reminder still in the outbox when the document leaves SENT, or its signer signs, is
//! withdrawn unsent.

use chrono::{DateTime, TimeDelta, Utc};
use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Result, Rule},
    infra::{notify::Notifier, secrets::SigningToken},
    model::{
        AccountId, Actor, DeliveryStatus, Document, DocumentId, DocumentStatus, Recipient,
        RecipientId, ReminderLinkId,
    },
    store::{
        documents,
        recipients::{self, Reminded},
    },
    wire::views::{self, SkippedReminder, Timestamp},
};

const BATCH: i64 = 50;

/// Sends every reminder that is due, a batch of documents per transaction; returns how many.
#[tracing::instrument(name = "reminders::send_due", skip_all)]
pub async fn send_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    let actor = Actor::Worker;
    let mut sent = 0;
    loop {
        let mut tx = pool.begin().await?;
        let locked = documents::lock_with_reminders_due(&mut tx, BATCH).await?;
        if locked.is_empty() {
            return Ok(sent);
        }
        for document in locked {
            let document_id = document.id;
            let due = recipients::due_for_reminder(&mut tx, document_id).await?;
            if !is_open(&document) {
                recipients::stop_reminders(&mut tx, document_id, None).await?;
                continue;
            }
            let everyone = recipients::list(&mut tx, document_id).await?;
            let (waiting, done): (Vec<&Recipient>, Vec<&Recipient>) = everyone
                .iter()
                .filter(|r| due.contains(&r.id))
                .partition(|r| r.is_waiting_to_sign());
            let done: Vec<_> = done.iter().map(|r| r.id).collect();
            recipients::stop_reminders(&mut tx, document_id, Some(&done)).await?;
            // A reminder to an address whose invitation bounced would bounce too: it is
            // skipped, and the schedule moves on, so that it resumes once the owner sends
            // the invitation again.
            let (reachable, bounced): (Vec<&Recipient>, Vec<&Recipient>) =
                waiting.into_iter().partition(|r| is_reachable(r));
            let bounced: Vec<_> = bounced.iter().map(|r| r.id).collect();
            recipients::schedule_next_reminders(&mut tx, document_id, &bounced, Reminded::WhenDue)
                .await?;
            // A signer reminded within the interval (by the owner, say) is reminded when it
            // ends instead.
            let throttle = Throttle::new(notifier, Utc::now());
            let (reachable, recent): (Vec<&Recipient>, Vec<&Recipient>) =
                reachable.into_iter().partition(|r| throttle.allows(r));
            let recent: Vec<RecipientId> = recent.iter().map(|r| r.id).collect();
            recipients::defer_reminders(&mut tx, document_id, &recent, throttle.hours).await?;
            sent += reachable.len();
            remind(
                &mut tx,
                &document,
                &reachable,
                Reminded::WhenDue,
                throttle.now,
                &actor,
                notifier,
            )
            .await?;
        }
        tx.commit().await?;
    }
}

/// The owner's reminder: every invited signer who has not signed is reminded now, but those
/// whose invitation failed for good (send it again instead) and those reminded less than
/// REMINDER_MIN_INTERVAL_HOURS ago (named in the answer); refused when that leaves no one of
/// those waiting. An automatic reminder due sooner than the schedule's interval waits for it.
/// Nobody is reminded when every signer has signed and completion is under way.
#[tracing::instrument(name = "reminders::remind_now", skip_all)]
pub async fn remind_now(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<views::Reminded> {
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    if !is_open(&document) {
        // Past its expiry, a document is closed before the sweep marks it EXPIRED.
        let status = match document.status {
            DocumentStatus::Sent => DocumentStatus::Expired,
            status => status,
        };
        return Err(Rule::NotRemindable(status.to_string()).into());
    }
    let everyone = recipients::list(&mut tx, document_id).await?;
    let throttle = Throttle::new(notifier, Utc::now());
    let (waiting, recent): (Vec<&Recipient>, Vec<&Recipient>) = everyone
        .iter()
        .filter(|r| r.is_waiting_to_sign() && is_reachable(r))
        .partition(|r| throttle.allows(r));
    let skipped: Vec<SkippedReminder> = recent
        .iter()
        .filter_map(|r| {
            let at = r.last_reminded_at?;
            Some(SkippedReminder {
                email: r.email.clone(),
                reminded_at: Timestamp(at),
                next_reminder_after: Timestamp(throttle.next_allowed(at)),
            })
        })
        .collect();
    if waiting.is_empty()
        && let Some(first) = skipped.iter().map(|s| s.next_reminder_after.0).min()
    {
        return Err(Rule::RemindedRecently {
            interval_hours: throttle.hours,
            next_allowed_at: first,
        }
        .into());
    }
    remind(
        &mut tx,
        &document,
        &waiting,
        Reminded::Now,
        throttle.now,
        actor,
        notifier,
    )
    .await?;
    tx.commit().await?;
    Ok(views::Reminded {
        reminded: waiting.iter().map(|r| r.email.clone()).collect(),
        skipped,
    })
}

/// REMINDER_MIN_INTERVAL_HOURS, applied at one instant.
struct Throttle {
    hours: u32,
    now: DateTime<Utc>,
}

impl Throttle {
    fn new(notifier: &Notifier, now: DateTime<Utc>) -> Self {
        Self {
            hours: notifier.reminder_min_interval_hours,
            now,
        }
    }

    /// Whether the signer may be reminded now: always when the throttle is off (0 hours).
    fn allows(&self, signer: &Recipient) -> bool {
        let interval = TimeDelta::hours(i64::from(self.hours));
        self.hours == 0
            || signer
                .last_reminded_at
                .is_none_or(|at| at + interval <= self.now)
    }

    /// When a signer reminded `at` may be reminded again, rounded up to a whole second: it is
    /// shown to the second, as a time after which a reminder is allowed.
    fn next_allowed(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        let next = at + TimeDelta::hours(i64::from(self.hours));
        match next.timestamp_subsec_nanos() {
            0 => next,
            _ => DateTime::from_timestamp(next.timestamp() + 1, 0).unwrap_or(next),
        }
    }
}

/// Whether the signer's invitation did not fail for good, and Signet invites them at all (an
/// embedded signer is brought to the page by the integrator).
fn is_reachable(signer: &Recipient) -> bool {
    !signer.embedded && signer.delivery_status.0 != Some(DeliveryStatus::Failed)
}

fn is_open(document: &Document) -> bool {
    document.status == DocumentStatus::Sent
        && document
            .expiry_date
            .is_none_or(|expiry| expiry > Utc::now())
}

async fn remind(
    conn: &mut PgConnection,
    document: &Document,
    signers: &[&Recipient],
    reminded: Reminded,
    now: DateTime<Utc>,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    if signers.is_empty() {
        return Ok(());
    }
    let ids: Vec<_> = signers.iter().map(|r| r.id).collect();
    let tokens = reminder_link_tokens(conn, document.account_id, &ids, notifier).await?;
    recipients::schedule_next_reminders(conn, document.id, &ids, reminded).await?;
    recipients::mark_reminded(conn, &ids, now).await?;
    for (recipient, link_token) in signers.iter().zip(tokens) {
        let event = DocumentEvent::Reminded {
            recipient,
            link_token,
        };
        effects::record(conn, Subject::of(document), event, actor, notifier).await?;
    }
    Ok(())
}

/// The clear token of each signer's reminder link, in the order of `ids`: the link they have,
/// its token derived again, or a new one for a signer without one (their first reminder, an
/// address corrected since, or a key changed since, whose derived token no longer matches).
async fn reminder_link_tokens(
    conn: &mut PgConnection,
    account_id: AccountId,
    ids: &[RecipientId],
    notifier: &Notifier,
) -> Result<Vec<SigningToken>> {
    let key = &notifier.reminder_link_key;
    let existing = recipients::reminder_links(conn, ids).await?;
    let mut new_links = Vec::new();
    let tokens = ids
        .iter()
        .map(|&id| {
            let reusable = existing.iter().find_map(|link| {
                let token = key.token(id, link.reminder_link_id);
                (link.recipient_id == id && link.token_hash == token.hash()).then_some(token)
            });
            reusable.unwrap_or_else(|| {
                let link_id = ReminderLinkId::random();
                let token = key.token(id, link_id);
                new_links.push((id, link_id, token.hash()));
                token
            })
        })
        .collect();
    if !new_links.is_empty() {
        recipients::replace_reminder_links(conn, account_id, &new_links).await?;
    }
    Ok(tokens)
}
