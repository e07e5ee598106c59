//! The one path for the side effects of a change to a document: each [`DocumentEvent`] records
//! its audit entry, queues its e-mails, its SMS and its webhook event (and, for a signature,
//! the completion check), on the caller's transaction, from what the caller already loaded.
//!
//! Which event writes what is decided here and nowhere else: [`DocumentEvent::audit_entry`],
//! [`DocumentEvent::emails`], [`DocumentEvent::sms`] and [`DocumentEvent::webhook`] are the
//! projections of one event onto the audit trail's fixed event list, the e-mail kinds, the SMS
//! kinds and the webhook types.

use std::{borrow::Cow, collections::HashMap};

use chrono::{DateTime, SubsecRound, Utc};
use sqlx::PgConnection;

use crate::{
    error::{Error, Result},
    infra::{
        jobs::{self, CheckCompletion},
        notify::Notifier,
        secrets::SigningToken,
    },
    model::{
        AccountId, Actor, AuditEntryId, AuditEvent, AuthMethod, Document, DocumentId, EmailKind,
        EventId, Field, Recipient, RecipientId, RecipientRole, RecipientStatus, SmsKind,
        WebhookEvent,
    },
    store::{
        accounts,
        audit::{self, DatedEntry, NewEntry},
        documents, emails,
        events::{self, NewEvent},
        fields, recipients,
        sms::{self, NewSms},
        webhooks,
    },
    wire::webhook_payload::{FailedAuthentication, FailedDelivery, WebhookPayload},
};

/// The document a change was made to.
#[derive(Debug, Clone, Copy)]
pub struct Subject {
    pub account_id: AccountId,
    pub document_id: DocumentId,
}

impl Subject {
    pub fn of(document: &Document) -> Self {
        Self {
            account_id: document.account_id,
            document_id: document.id,
        }
    }
}

/// Something that happened to a document, with what its side effects need.
/// (`DocumentEventKind` lists the variants: docs/architecture.md's table is checked against
/// every one of them by `common/tests/effects_table.rs`.)
#[derive(Debug, strum::EnumDiscriminants)]
#[strum_discriminants(name(DocumentEventKind), derive(strum::EnumIter, strum::IntoStaticStr))]
pub enum DocumentEvent<'a> {
    /// A DRAFT was made from an upload.
    Created,
    /// A DRAFT's recipients or fields changed; the words say how.
    DraftChanged(String),
    /// Out for signing: one invitation per recipient of the first group of the signing order
    /// (everyone, without one), each carrying its signing token, but for the `embedded` ones,
    /// whom the integrator brings to the page; `waiting` recipients follow.
    Sent {
        invitations: Vec<(RecipientId, SigningToken)>,
        embedded: usize,
        waiting: usize,
    },
    /// Every signer of the earlier groups has signed: the next group is invited.
    GroupInvited {
        group: i32,
        invitations: Vec<(RecipientId, SigningToken)>,
        emails: Vec<&'a str>,
    },
    /// A signer who has not signed is reminded, with a signing link of its own.
    Reminded {
        recipient: &'a Recipient,
        link_token: SigningToken,
    },
    /// A recipient opened their link for the first time.
    Viewed(&'a Recipient),
    /// A signer signed every one of their fields; `last` when no signer is left (decided
    /// under the document's row lock).
    Signed { by: &'a Recipient, last: bool },
    /// A signer declined; every other recipient is told.
    Declined {
        by: &'a Recipient,
        reason: Option<&'a str>,
        recipients: &'a [Recipient],
    },
    /// Every signer has signed; the entry's id and time were chosen before the final PDF's
    /// certificate (which lists the entry) was rendered.
    Completed {
        entry: (AuditEntryId, DateTime<Utc>),
        recipients: &'a [Recipient],
    },
    /// The expiry date passed while the document was SENT.
    Expired { recipients: &'a [Recipient] },
    /// The owner cancelled a DRAFT or SENT document; the recipients invited so far are told.
    Cancelled {
        reason: Option<&'a str>,
        recipients: &'a [Recipient],
    },
    /// An e-mail to a recipient failed for good.
    DeliveryFailed {
        recipient: (RecipientId, &'a str),
        kind: EmailKind,
        reason: &'a str,
    },
    /// An SMS will not reach its recipient: a daily cap was reached, the provider refused it,
    /// retries were used up, or the provider reported it undelivered.
    SmsFailed {
        recipient_id: RecipientId,
        to: &'a str,
        kind: SmsKind,
        reason: &'a str,
    },
    /// The owner sent a failed invitation again, maybe to a corrected address.
    InvitationResent {
        recipient_id: RecipientId,
        old_email: &'a str,
        new_email: &'a str,
    },
    /// A one-time code for the recipient's link was queued by e-mail (EMAIL_OTP); `code`
    /// rides in the outbox row's `link_token` only until the e-mail is sent.
    CodeEmailed {
        recipient: &'a Recipient,
        code: SigningToken,
    },
    /// The same by SMS (SMS_OTP).
    CodeTexted {
        recipient: &'a Recipient,
        code: SigningToken,
    },
    /// A recipient passed their link's check (never the code, only the method).
    AuthPassed {
        recipient: &'a Recipient,
        method: AuthMethod,
    },
    /// A recipient gave the fifth wrong code: their link shows nothing until the sender
    /// unlocks them.
    AuthLocked {
        recipient: &'a Recipient,
        method: AuthMethod,
        failures: i32,
    },
    /// The sender unlocked a locked recipient.
    AuthUnlocked { recipient: &'a Recipient },
    /// The retention sweep removed the document's files, `retention_days` after it ended; the
    /// hashes of what was stored and signed stay on record (docs/retention.md).
    FilesRemoved {
        retention_days: i32,
        sha256: &'a str,
        final_sha256: Option<&'a str>,
    },
    /// A recipient's personal data was erased on request (GDPR Art. 17; docs/retention.md).
    PersonalDataErased { recipient_id: RecipientId },
}

/// The message of the COMPLETED entry.
pub const COMPLETED_MESSAGE: &str = "All recipients have signed";

/// What the message of a reminder's entry starts with (the address follows).
pub const REMINDER_MESSAGE_PREFIX: &str = "Reminder sent to ";

/// Whether `entry` records a reminder, and to which address (as the entry says it).
pub fn reminded_address(entry: &crate::model::AuditEntry) -> Option<&str> {
    match entry.event {
        AuditEvent::Updated if entry.recipient_id.is_some() => {
            entry.message.strip_prefix(REMINDER_MESSAGE_PREFIX)
        }
        _ => None,
    }
}

const DECLINED_PREFIX: &str = "Document declined by ";
/// What a SIGNED message says between the signer's address and the consent's time, address
/// and user agent.
const CONSENT_WORDS: &str = ", who agreed to use electronic records and signatures at ";
const CODE_SENT_PREFIX: &str = "One-time code sent to ";
const IDENTITY_PREFIX: &str = "Identity of ";
const IDENTITY_CHECKED: &str = " checked: passed ";
const LOCKED_SUFFIX: &str = ": the signing link is locked until the sender unlocks it";
const CORRECTED_PREFIX: &str = "Recipient address corrected from ";

/// Whether an entry naming a recipient records what that recipient did on their own signing
/// link (opened it, signed, declined, asked for or gave a one-time code), so that the entry's
/// IP address and user agent are theirs. Every other entry was made by the sender, an
/// operator or the worker.
pub fn done_on_the_link(event: AuditEvent, message: &str) -> bool {
    match event {
        AuditEvent::Viewed | AuditEvent::Signed | AuditEvent::Declined => true,
        AuditEvent::Updated => {
            message.starts_with(CODE_SENT_PREFIX)
                || (message.starts_with(IDENTITY_PREFIX) && message.contains(IDENTITY_CHECKED))
                || message.ends_with(LOCKED_SUFFIX)
        }
        _ => false,
    }
}

/// The message of an entry about the recipient it names with what that recipient chose
/// replaced whole by `tombstone`: a DECLINED entry's reason, the address and user agent of a
/// SIGNED entry's consent. No other message holds a value a signer chose.
pub fn without_signer_choices<'m>(
    event: AuditEvent,
    message: &'m str,
    tombstone: &str,
) -> Cow<'m, str> {
    match event {
        AuditEvent::Declined => {
            // An address holds no ": ", so the reason is all after the first.
            if let Some(rest) = message.strip_prefix(DECLINED_PREFIX)
                && let Some((by, _reason)) = rest.split_once(": ")
            {
                return Cow::Owned(format!("{DECLINED_PREFIX}{by}: {tombstone}"));
            }
        }
        AuditEvent::Signed => {
            // The time holds no space, so the consent's address starts at the first " from ".
            if let Some((signed_by, consent)) = message.split_once(CONSENT_WORDS)
                && let Some((at, _origin)) = consent.split_once(" from ")
            {
                return Cow::Owned(format!(
                    "{signed_by}{CONSENT_WORDS}{at} from {tombstone} ({tombstone})"
                ));
            }
        }
        _ => {}
    }
    Cow::Borrowed(message)
}

/// The address an entry about a recipient says their address was corrected from.
pub fn corrected_address(event: AuditEvent, message: &str) -> Option<&str> {
    match event {
        AuditEvent::Updated => message
            .strip_prefix(CORRECTED_PREFIX)?
            .split_once(" to ")
            .map(|(old, _)| old),
        _ => None,
    }
}

impl DocumentEvent<'_> {
    /// The entry this event adds to the audit trail.
    pub fn audit_entry(&self) -> NewEntry {
        let (event, message, recipient_id) = match self {
            Self::Created => (AuditEvent::Created, "Document created".to_owned(), None),
            Self::DraftChanged(message) => (AuditEvent::Updated, message.clone(), None),
            Self::Sent {
                invitations,
                embedded,
                waiting,
            } => {
                let sent = match invitations.len() + embedded {
                    1 => "Document sent to 1 recipient".to_owned(),
                    n => format!("Document sent to {n} recipients"),
                };
                let message = match waiting {
                    0 => sent,
                    n => format!("{sent}; {n} more follow in signing order"),
                };
                (AuditEvent::Sent, message, None)
            }
            Self::GroupInvited { group, emails, .. } => (
                AuditEvent::Updated,
                format!(
                    "Signing order: group {group} invited: {}",
                    emails.join(", ")
                ),
                None,
            ),
            Self::Reminded { recipient, .. } => (
                AuditEvent::Updated,
                format!("{REMINDER_MESSAGE_PREFIX}{}", recipient.email),
                Some(recipient.id),
            ),
            Self::Viewed(r) => (
                AuditEvent::Viewed,
                format!("Document viewed by {}", r.email),
                Some(r.id),
            ),
            // The event list is fixed, so the consent given before signing is part of the
            // SIGNED entry's message (docs/signing.md).
            Self::Signed { by: r, .. } => (
                AuditEvent::Signed,
                match (&r.consented_at, &r.consent_ip, &r.consent_user_agent) {
                    (Some(at), Some(ip), Some(agent)) => format!(
                        "Document signed by {}{CONSENT_WORDS}{} from {ip} ({agent})",
                        r.email,
                        at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                    ),
                    _ => format!("Document signed by {}", r.email),
                },
                Some(r.id),
            ),
            Self::Declined { by, reason, .. } => (
                AuditEvent::Declined,
                match reason {
                    Some(reason) => format!("{DECLINED_PREFIX}{}: {reason}", by.email),
                    None => format!("{DECLINED_PREFIX}{}", by.email),
                },
                Some(by.id),
            ),
            Self::Completed { .. } => (AuditEvent::Completed, COMPLETED_MESSAGE.to_owned(), None),
            Self::Expired { .. } => (AuditEvent::Expired, "Document expired".to_owned(), None),
            // The spec's event list is fixed: a cancellation and a delivery failure are UPDATED.
            Self::Cancelled { reason, .. } => (
                AuditEvent::Updated,
                match reason {
                    Some(reason) => format!("Document cancelled: {reason}"),
                    None => "Document cancelled".to_owned(),
                },
                None,
            ),
            Self::DeliveryFailed {
                recipient: (id, email),
                kind,
                reason,
            } => (
                AuditEvent::Updated,
                format!(
                    "The {} e-mail to {email} could not be delivered: {reason}",
                    kind.as_str().to_lowercase()
                ),
                Some(*id),
            ),
            Self::SmsFailed {
                recipient_id,
                to,
                kind,
                reason,
            } => (
                AuditEvent::Updated,
                format!(
                    "The {} SMS to {to} could not be delivered: {reason}",
                    kind.as_str().to_lowercase()
                ),
                Some(*recipient_id),
            ),
            Self::InvitationResent {
                recipient_id,
                old_email,
                new_email,
            } => (
                AuditEvent::Updated,
                if old_email == new_email {
                    format!("Invitation to {old_email} sent again")
                } else {
                    format!("{CORRECTED_PREFIX}{old_email} to {new_email}; invitation sent again")
                },
                Some(*recipient_id),
            ),
            Self::CodeEmailed { recipient, .. } => (
                AuditEvent::Updated,
                format!("{CODE_SENT_PREFIX}{} by e-mail", recipient.email),
                Some(recipient.id),
            ),
            Self::CodeTexted { recipient, .. } => (
                AuditEvent::Updated,
                format!(
                    "{CODE_SENT_PREFIX}{} by SMS",
                    recipient.phone_e164.as_deref().unwrap_or(&recipient.email)
                ),
                Some(recipient.id),
            ),
            Self::AuthPassed { recipient, method } => (
                AuditEvent::Updated,
                format!(
                    "{IDENTITY_PREFIX}{}{IDENTITY_CHECKED}{method}",
                    recipient.email
                ),
                Some(recipient.id),
            ),
            Self::AuthLocked {
                recipient,
                method,
                failures,
            } => (
                AuditEvent::Updated,
                format!(
                    "{} gave {failures} wrong codes ({method}){LOCKED_SUFFIX}",
                    recipient.email
                ),
                Some(recipient.id),
            ),
            Self::AuthUnlocked { recipient } => (
                AuditEvent::Updated,
                format!("Signing link of {} unlocked by the sender", recipient.email),
                Some(recipient.id),
            ),
            Self::FilesRemoved {
                retention_days,
                sha256,
                final_sha256,
            } => (
                AuditEvent::Updated,
                format!(
                    "Files removed under the account's retention policy ({retention_days} days \
                     after the document ended); on record: the original's SHA-256 {sha256}{}",
                    final_sha256
                        .map(|h| format!(", the final PDF's SHA-256 {h}"))
                        .unwrap_or_default()
                ),
                None,
            ),
            Self::PersonalDataErased { recipient_id } => (
                AuditEvent::Updated,
                format!(
                    "Personal data of recipient {recipient_id} erased on request (GDPR Art. 17)"
                ),
                Some(*recipient_id),
            ),
        };
        NewEntry {
            event,
            message,
            recipient_id,
        }
    }

    /// The e-mails this event sends. A recipient whose group of the signing order was not
    /// reached has heard of nothing, and is told nothing.
    pub fn emails(&self) -> Vec<emails::NewEmail> {
        let to_each = |recipients: &[Recipient], kind, except: Option<RecipientId>| {
            recipients
                .iter()
                .filter(|r| Some(r.id) != except && r.invited_at.is_some())
                .map(|r| emails::NewEmail {
                    recipient_id: r.id,
                    kind,
                    link_token: None,
                })
                .collect()
        };
        match self {
            Self::Sent { invitations, .. } | Self::GroupInvited { invitations, .. } => invitations
                .iter()
                .map(|(recipient_id, token)| emails::NewEmail {
                    recipient_id: *recipient_id,
                    kind: EmailKind::Invitation,
                    link_token: Some(token.clone()),
                })
                .collect(),
            Self::Reminded {
                recipient,
                link_token,
            } => vec![emails::NewEmail {
                recipient_id: recipient.id,
                kind: EmailKind::Reminder,
                link_token: Some(link_token.clone()),
            }],
            Self::CodeEmailed { recipient, code } => vec![emails::NewEmail {
                recipient_id: recipient.id,
                kind: EmailKind::Code,
                link_token: Some(code.clone()),
            }],
            Self::Cancelled { recipients, .. } => to_each(recipients, EmailKind::Cancelled, None),
            Self::Declined { by, recipients, .. } => {
                to_each(recipients, EmailKind::Declined, Some(by.id))
            }
            Self::Completed { recipients, .. } => to_each(recipients, EmailKind::Completed, None),
            Self::Expired { recipients } => to_each(recipients, EmailKind::Expired, None),
            _ => Vec::new(),
        }
    }

    /// The SMS this event sends, to those of the recipients who have a phone number (docs/sms.md):
    /// the signing link, and to signers who had not signed yet, that the document was declined
    /// or expired (their link no longer works). Completion, cancellation and reminders send none.
    pub fn sms(&self) -> Vec<NewSms> {
        let to_waiting_signers = |recipients: &[Recipient], kind, except: Option<RecipientId>| {
            recipients
                .iter()
                .filter(|r| {
                    Some(r.id) != except
                        && r.invited_at.is_some()
                        && !r.embedded
                        && r.role == RecipientRole::Signer
                        && matches!(r.status, RecipientStatus::Pending | RecipientStatus::Viewed)
                })
                .map(|r| NewSms {
                    recipient_id: r.id,
                    kind,
                    link_token: None,
                })
                .collect()
        };
        match self {
            Self::Sent { invitations, .. } | Self::GroupInvited { invitations, .. } => invitations
                .iter()
                .map(|(recipient_id, token)| NewSms {
                    recipient_id: *recipient_id,
                    kind: SmsKind::Invitation,
                    link_token: Some(token.clone()),
                })
                .collect(),
            Self::Declined { by, recipients, .. } => {
                to_waiting_signers(recipients, SmsKind::Declined, Some(by.id))
            }
            Self::Expired { recipients } => to_waiting_signers(recipients, SmsKind::Expired, None),
            Self::CodeTexted { recipient, code } => vec![NewSms {
                recipient_id: recipient.id,
                kind: SmsKind::Code,
                link_token: Some(code.clone()),
            }],
            _ => Vec::new(),
        }
    }

    /// Whether this event queues the completion of its document: only the last signature
    /// does, so that one job renders and seals.
    pub fn queues_completion(&self) -> bool {
        matches!(self, Self::Signed { last: true, .. })
    }

    /// What the webhook payload of a delivery failure or of a locked link adds.
    fn payload_details(&self) -> (Option<FailedDelivery>, Option<FailedAuthentication>) {
        let failure = match self {
            Self::DeliveryFailed {
                recipient: (id, email),
                kind,
                reason,
            } => Some(FailedDelivery {
                recipient_id: *id,
                email: (*email).to_owned(),
                email_kind: kind.as_str(),
                reason: (*reason).to_owned(),
            }),
            _ => None,
        };
        let locked = match self {
            Self::AuthLocked {
                recipient,
                method,
                failures,
            } => Some(FailedAuthentication {
                recipient_id: recipient.id,
                email: recipient.email.clone(),
                method: *method,
                failed_attempts: *failures,
            }),
            _ => None,
        };
        (failure, locked)
    }

    /// Every recipient of the document as it stands after the event, when the event carries
    /// them all.
    fn all_recipients(&self) -> Option<&[Recipient]> {
        match self {
            Self::Expired { recipients } => Some(recipients),
            _ => None,
        }
    }

    /// The webhook event this event raises, if any.
    pub fn webhook(&self) -> Option<WebhookEvent> {
        match self {
            Self::Sent { .. } => Some(WebhookEvent::Sent),
            Self::Viewed(_) => Some(WebhookEvent::Viewed),
            Self::Signed { .. } => Some(WebhookEvent::Signed),
            Self::Declined { .. } => Some(WebhookEvent::Declined),
            Self::Completed { .. } => Some(WebhookEvent::Completed),
            Self::Expired { .. } => Some(WebhookEvent::Expired),
            Self::Cancelled { .. } => Some(WebhookEvent::Cancelled),
            Self::GroupInvited { .. } => Some(WebhookEvent::GroupInvited),
            Self::DeliveryFailed { .. } => Some(WebhookEvent::DeliveryFailed),
            Self::AuthLocked { .. } => Some(WebhookEvent::AuthFailed),
            Self::FilesRemoved { .. } => Some(WebhookEvent::FilesRemoved),
            Self::PersonalDataErased { .. } => Some(WebhookEvent::PersonalDataErased),
            Self::Created
            | Self::DraftChanged(_)
            | Self::Reminded { .. }
            | Self::SmsFailed { .. }
            | Self::InvitationResent { .. }
            | Self::CodeEmailed { .. }
            | Self::CodeTexted { .. }
            | Self::AuthPassed { .. }
            | Self::AuthUnlocked { .. } => None,
        }
    }
}

/// Records `event`'s audit entry, e-mails, webhook event and jobs on the caller's transaction,
/// which has made the change itself.
#[tracing::instrument(name = "effects::record", skip_all)]
pub async fn record(
    conn: &mut PgConnection,
    subject: Subject,
    event: DocumentEvent<'_>,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    apply(conn, subject, event, actor, Some(notifier)).await
}

/// [`record`] for the events that reach no one outside the audit trail (the changes to a
/// DRAFT, a resent invitation, whose e-mail is queued by its flow): they need
/// no e-mail domain or payload links.
pub async fn record_in_trail(
    conn: &mut PgConnection,
    subject: Subject,
    event: DocumentEvent<'_>,
    actor: &Actor,
) -> Result<()> {
    debug_assert!(event.emails().is_empty() && event.sms().is_empty() && event.webhook().is_none());
    apply(conn, subject, event, actor, None).await
}

async fn apply(
    conn: &mut PgConnection,
    subject: Subject,
    event: DocumentEvent<'_>,
    actor: &Actor,
    notifier: Option<&Notifier>,
) -> Result<()> {
    let Subject {
        account_id,
        document_id,
    } = subject;
    let entry = event.audit_entry();
    match &event {
        DocumentEvent::Completed { entry: at, .. } => {
            audit::append_at(conn, account_id, document_id, &entry, actor, *at).await?
        }
        _ => audit::append(conn, account_id, document_id, &entry, actor).await?,
    };
    if event.queues_completion() {
        jobs::enqueue(conn, &[CheckCompletion { document_id }]).await?;
    }
    let emails = event.emails();
    let texts = event.sms();
    let webhook = event.webhook();
    if emails.is_empty() && texts.is_empty() && webhook.is_none() {
        return Ok(());
    }
    let notifier =
        notifier.expect("events with e-mails, SMS or a webhook are recorded with a notifier");
    emails::queue(
        conn,
        account_id,
        document_id,
        &emails,
        &notifier.message_id_domain,
    )
    .await?;
    queue_sms(conn, subject, &texts, actor, notifier).await?;
    if let Some(webhook) = webhook {
        let (failure, locked) = event.payload_details();
        record_webhook(
            conn,
            subject,
            webhook,
            failure.as_ref(),
            locked.as_ref(),
            notifier,
        )
        .await?;
    }
    Ok(())
}

/// [`record`] for events about many documents at once, each document at most once, on the
/// caller's transaction, which has made the changes and holds the documents' row locks (taken
/// in account order). Each document gets exactly what [`record`] would give it — the same
/// audit entry chained to its trail, e-mails, SMS (counted against the caps in the order
/// given), webhook event and jobs — in a few statements for the whole batch instead of a dozen
/// per document.
#[tracing::instrument(name = "effects::record_batch", skip_all, fields(events = events.len()))]
pub async fn record_batch(
    conn: &mut PgConnection,
    events: &[(Subject, DocumentEvent<'_>)],
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    if events.is_empty() {
        return Ok(());
    }
    debug_assert!(
        {
            let mut ids: Vec<DocumentId> = events.iter().map(|(s, _)| s.document_id).collect();
            ids.sort();
            ids.windows(2).all(|w| w[0] != w[1])
        },
        "a batch names each document once"
    );
    let now = Utc::now().trunc_subsecs(6);
    let entries: Vec<DatedEntry> = events
        .iter()
        .map(|(subject, event)| DatedEntry {
            account_id: subject.account_id,
            document_id: subject.document_id,
            entry: event.audit_entry(),
            at: match event {
                DocumentEvent::Completed { entry, .. } => *entry,
                _ => (AuditEntryId::new(), now),
            },
        })
        .collect();
    audit::append_many(conn, &entries, actor).await?;
    let completions: Vec<CheckCompletion> = events
        .iter()
        .filter(|(_, event)| event.queues_completion())
        .map(|(subject, _)| CheckCompletion {
            document_id: subject.document_id,
        })
        .collect();
    if !completions.is_empty() {
        jobs::enqueue(conn, &completions).await?;
    }
    let emails: Vec<(AccountId, DocumentId, emails::NewEmail)> = events
        .iter()
        .flat_map(|(subject, event)| {
            event
                .emails()
                .into_iter()
                .map(|email| (subject.account_id, subject.document_id, email))
        })
        .collect();
    emails::queue_many(conn, &emails, &notifier.message_id_domain).await?;
    if let Some(caps) = notifier.sms_caps {
        let texts: Vec<(AccountId, DocumentId, NewSms)> = events
            .iter()
            .flat_map(|(subject, event)| {
                event
                    .sms()
                    .into_iter()
                    .map(|sms| (subject.account_id, subject.document_id, sms))
            })
            .collect();
        let capped = sms::queue_many(conn, &texts, caps).await?;
        let entries: Vec<DatedEntry> = capped
            .iter()
            .map(|refused| {
                tracing::warn!(document = %refused.document_id.0, kind = %refused.capped.kind, reason = %refused.capped.reason, "SMS not queued");
                DatedEntry {
                    account_id: refused.account_id,
                    document_id: refused.document_id,
                    entry: DocumentEvent::SmsFailed {
                        recipient_id: refused.capped.recipient_id,
                        to: &refused.capped.to,
                        kind: refused.capped.kind,
                        reason: &refused.capped.reason,
                    }
                    .audit_entry(),
                    at: (AuditEntryId::new(), Utc::now().trunc_subsecs(6)),
                }
            })
            .collect();
        audit::append_many(conn, &entries, actor).await?;
    }
    record_webhooks(conn, events, notifier).await
}

/// [`record_webhook`] for the events of a batch that raise one: the documents, recipients and
/// fields of all of them in three statements, the events and deliveries in two more.
async fn record_webhooks(
    conn: &mut PgConnection,
    events: &[(Subject, DocumentEvent<'_>)],
    notifier: &Notifier,
) -> Result<()> {
    let raised: Vec<(Subject, WebhookEvent, &DocumentEvent<'_>)> = events
        .iter()
        .filter_map(|(subject, event)| event.webhook().map(|webhook| (*subject, webhook, event)))
        .collect();
    if raised.is_empty() {
        return Ok(());
    }
    let now = Utc::now();
    let ids: Vec<DocumentId> = raised.iter().map(|(s, ..)| s.document_id).collect();
    let documents: HashMap<DocumentId, Document> = documents::lock_many(conn, &ids)
        .await?
        .into_iter()
        .map(|d| (d.id, d))
        .collect();
    // An event that carries every recipient of its document (an expiry's, read by the sweep
    // on this transaction) spares reading them again.
    let unread: Vec<DocumentId> = raised
        .iter()
        .filter(|(.., event)| event.all_recipients().is_none())
        .map(|(s, ..)| s.document_id)
        .collect();
    let mut recipients: HashMap<DocumentId, Vec<Recipient>> = HashMap::new();
    if !unread.is_empty() {
        for recipient in recipients::list_many(conn, &unread).await? {
            recipients
                .entry(recipient.document_id)
                .or_default()
                .push(recipient);
        }
    }
    let mut fields: HashMap<DocumentId, Vec<Field>> = HashMap::new();
    for (document_id, field) in fields::list_many(conn, &ids).await? {
        fields.entry(document_id).or_default().push(field);
    }
    let bodies: Vec<String> = raised
        .iter()
        .map(|(subject, webhook, event)| {
            let id = subject.document_id;
            let document = documents.get(&id).ok_or(Error::DocumentNotFound)?;
            let (failure, locked) = event.payload_details();
            let link = notifier.payload_links.url(id, now);
            Ok(WebhookPayload::new(
                *webhook,
                now,
                document,
                link,
                event
                    .all_recipients()
                    .unwrap_or_else(|| recipients.get(&id).map_or(&[][..], Vec::as_slice)),
                fields.get(&id).map_or(&[][..], Vec::as_slice),
                failure.as_ref(),
            )
            .with_authentication(locked.as_ref())
            .to_json())
        })
        .collect::<Result<_>>()?;
    let new_events: Vec<NewEvent<'_>> = raised
        .iter()
        .zip(&bodies)
        .map(|((subject, webhook, _), body)| NewEvent {
            id: EventId::new(),
            account_id: subject.account_id,
            document_id: Some(subject.document_id),
            event: *webhook,
            body,
        })
        .collect();
    publish_many(conn, &new_events).await
}

/// [`publish`] for many events (of any accounts) at once, in the order given.
pub async fn publish_many(conn: &mut PgConnection, new_events: &[NewEvent<'_>]) -> Result<()> {
    if new_events.is_empty() {
        return Ok(());
    }
    events::insert_many(conn, new_events).await?;
    let mut accounts: Vec<AccountId> = new_events.iter().map(|e| e.account_id).collect();
    accounts.sort();
    accounts.dedup();
    let with_url = accounts::with_webhook_url(conn, &accounts).await?;
    let deliveries: Vec<NewEvent<'_>> = new_events
        .iter()
        .filter(|e| with_url.contains(&e.account_id))
        .copied()
        .collect();
    webhooks::insert_many(conn, &deliveries).await
}

/// Queues `texts` to those of their recipients who have a phone number, unless SMS are off; an
/// SMS refused by a daily cap is recorded in the audit trail. Also used by a resent invitation,
/// whose new link replaces the one its SMS carried.
pub async fn queue_sms(
    conn: &mut PgConnection,
    subject: Subject,
    texts: &[NewSms],
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let Some(caps) = notifier.sms_caps else {
        return Ok(());
    };
    let capped = sms::queue(conn, subject.account_id, subject.document_id, texts, caps).await?;
    for refused in &capped {
        tracing::warn!(document = %subject.document_id.0, kind = %refused.kind, reason = %refused.reason, "SMS not queued");
        let event = DocumentEvent::SmsFailed {
            recipient_id: refused.recipient_id,
            to: &refused.to,
            kind: refused.kind,
            reason: &refused.reason,
        };
        let entry = event.audit_entry();
        audit::append(conn, subject.account_id, subject.document_id, &entry, actor).await?;
    }
    Ok(())
}

/// Records a webhook event about the document: its body shows the document as the change left
/// it, read back on the caller's transaction (the database sets its timestamps), with a
/// `filePath` valid for the notifier's payload link lifetime.
async fn record_webhook(
    conn: &mut PgConnection,
    Subject {
        account_id,
        document_id,
    }: Subject,
    event: WebhookEvent,
    failure: Option<&FailedDelivery>,
    locked: Option<&FailedAuthentication>,
    notifier: &Notifier,
) -> Result<()> {
    let now = Utc::now();
    let document = documents::lock(conn, account_id, document_id).await?;
    let recipients = recipients::list(conn, document_id).await?;
    let fields = fields::list(conn, document_id).await?;
    let link = notifier.payload_links.url(document_id, now);
    let body = WebhookPayload::new(event, now, &document, link, &recipients, &fields, failure)
        .with_authentication(locked)
        .to_json();
    publish(conn, account_id, Some(document_id), event, &body).await?;
    Ok(())
}

/// Where every webhook event is born: it is recorded in the account's event feed
/// (`GET /events`, kept `EVENT_RETENTION_DAYS`) and, if the account has a webhook URL at this
/// moment, a delivery with the same id and body is queued, on the caller's transaction.
pub async fn publish(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: Option<DocumentId>,
    event: WebhookEvent,
    body: &str,
) -> Result<EventId> {
    let id = EventId::new();
    events::insert(conn, id, account_id, document_id, event, body).await?;
    if accounts::webhook_url(&mut *conn, account_id)
        .await?
        .is_some()
    {
        webhooks::insert(conn, account_id, document_id, id, event, body).await?;
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipient() -> Recipient {
        Recipient {
            name: "Ann Lee".into(),
            country_code: Some("+44".into()),
            phone_number: Some("7911 123456".into()),
            phone_e164: Some("+447911123456".into()),
            status: RecipientStatus::Signed,
            consented_at: Some(Utc::now()),
            consent_ip: Some("198.51.100.7".into()),
            consent_user_agent: Some("by from (signed): Qz/1".into()),
            ..Recipient::for_tests("ann@example.com", RecipientRole::Signer)
        }
    }

    #[test]
    fn the_link_side_entries_are_told_from_the_senders_by_their_words() {
        let r = recipient();
        let code = || SigningToken::from_link("123456".into());
        let on_the_link = [
            DocumentEvent::Viewed(&r),
            DocumentEvent::Signed {
                by: &r,
                last: false,
            },
            DocumentEvent::Declined {
                by: &r,
                reason: Some("Reminder sent to x"),
                recipients: &[],
            },
            DocumentEvent::CodeEmailed {
                recipient: &r,
                code: code(),
            },
            DocumentEvent::CodeTexted {
                recipient: &r,
                code: code(),
            },
            DocumentEvent::AuthPassed {
                recipient: &r,
                method: AuthMethod::AccessCode,
            },
            DocumentEvent::AuthLocked {
                recipient: &r,
                method: AuthMethod::EmailOtp,
                failures: 5,
            },
        ];
        for event in &on_the_link {
            let entry = event.audit_entry();
            assert!(
                done_on_the_link(entry.event, &entry.message),
                "{}",
                entry.message
            );
        }
        let by_others = [
            DocumentEvent::Reminded {
                recipient: &r,
                link_token: code(),
            },
            DocumentEvent::AuthUnlocked { recipient: &r },
            DocumentEvent::InvitationResent {
                recipient_id: r.id,
                old_email: "old@example.com",
                new_email: &r.email,
            },
            DocumentEvent::DeliveryFailed {
                recipient: (r.id, &r.email),
                kind: EmailKind::Invitation,
                reason: "550 no such user",
            },
            DocumentEvent::SmsFailed {
                recipient_id: r.id,
                to: "+447911123456",
                kind: SmsKind::Invitation,
                reason: "cap",
            },
            DocumentEvent::PersonalDataErased { recipient_id: r.id },
            DocumentEvent::DraftChanged("Recipients added: ann@example.com".into()),
        ];
        for event in &by_others {
            let entry = event.audit_entry();
            assert!(
                !done_on_the_link(entry.event, &entry.message),
                "{}",
                entry.message
            );
        }
    }

    #[test]
    fn a_signers_choices_are_taken_whole_from_their_own_entries() {
        let r = recipient();
        let signed = DocumentEvent::Signed { by: &r, last: true }.audit_entry();
        let erased = without_signer_choices(signed.event, &signed.message, "[erased]");
        assert!(
            erased.starts_with("Document signed by ann@example.com, who agreed to use"),
            "{erased}"
        );
        assert!(erased.ends_with(" from [erased] ([erased])"), "{erased}");
        assert!(
            !erased.contains("198.51.100.7") && !erased.contains("Qz/1"),
            "{erased}"
        );

        let reason = "signed: by Bea Example: from";
        let declined = DocumentEvent::Declined {
            by: &r,
            reason: Some(reason),
            recipients: &[],
        }
        .audit_entry();
        assert_eq!(
            without_signer_choices(declined.event, &declined.message, "[erased]"),
            "Document declined by ann@example.com: [erased]"
        );
        let without_reason = DocumentEvent::Declined {
            by: &r,
            reason: None,
            recipients: &[],
        }
        .audit_entry();
        assert_eq!(
            without_signer_choices(without_reason.event, &without_reason.message, "[erased]"),
            "Document declined by ann@example.com"
        );
        let viewed = DocumentEvent::Viewed(&r).audit_entry();
        assert_eq!(
            without_signer_choices(viewed.event, &viewed.message, "[erased]"),
            viewed.message
        );

        let corrected = DocumentEvent::InvitationResent {
            recipient_id: r.id,
            old_email: "an@example.com",
            new_email: &r.email,
        }
        .audit_entry();
        assert_eq!(
            corrected_address(corrected.event, &corrected.message),
            Some("an@example.com")
        );
    }
}
