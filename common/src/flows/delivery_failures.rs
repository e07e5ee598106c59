//! E-mails that fail for good: how the sender learns of it, and how they fix it.
//!
//! When an e-mail fails for good (an SMTP 5xx, an address the mail layer cannot use, or the
//! retry schedule used up), the failure is recorded in the document's audit trail as `UPDATED`
//! (the spec's event list is fixed; the message says what failed and why) and a
//! `recipient.delivery_failed` webhook event goes out. The recipient's `deliveryStatus` in the
//! document detail reads `FAILED` with the reason. The sender can then send the invitation
//! again, to a corrected address if it was wrong ([`resend_invitation`]).

use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Error, Result, Rule},
    infra::{notify::Notifier, secrets::SigningToken},
    model::{
        AccountId, Actor, DeliveryStatus, DocumentId, DocumentStatus, EmailAddress, RecipientId,
        SmsKind,
    },
    store::{
        documents,
        emails::{self, OutgoingEmail},
        recipients,
        sms::NewSms,
    },
};

/// The longest failure reason the audit trail keeps (SMTP answers can be long).
const MAX_REASON_CHARS: usize = 300;

/// Records that `email` failed for good, on the caller's transaction, which holds the
/// e-mail's row lock: an `UPDATED` audit entry and a `recipient.delivery_failed` event.
pub async fn failed_for_good(
    conn: &mut PgConnection,
    email: &OutgoingEmail,
    reason: &str,
    notifier: &Notifier,
) -> Result<()> {
    let reason: String = reason.chars().take(MAX_REASON_CHARS).collect();
    let subject = Subject {
        account_id: email.account_id,
        document_id: email.document_id,
    };
    let failed = DocumentEvent::DeliveryFailed {
        recipient: (email.recipient_id, &email.recipient_email),
        kind: email.kind,
        reason: &reason,
    };
    effects::record(conn, subject, failed, &Actor::Worker, notifier).await
}

/// The corrected address typed where a failed invitation is sent again: none when blank, else
/// parsed as the API parses recipients' addresses (refused as `email`).
pub fn corrected_address(typed: Option<&str>) -> Result<Option<EmailAddress>> {
    typed
        .map(str::trim)
        .filter(|email| !email.is_empty())
        .map(|email| EmailAddress::parse(email).map_err(|reason| Error::invalid("email", reason)))
        .transpose()
}

/// Sends a recipient's failed invitation again, to `corrected_email` if given (which must be
/// unique on the document). Only a FAILED invitation of a SENT document qualifies. The
/// invitation carries a new signing link (a failed invitation keeps no clear token, and the old
/// link was never delivered); an `UPDATED` audit entry records the change.
pub async fn resend_invitation(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    recipient_id: RecipientId,
    corrected_email: Option<&EmailAddress>,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let mut tx = pool.begin().await?;
    // The e-mail row first, then the document, as the dispatch job locks them.
    let (email_id, status) =
        match emails::lock_invitation(&mut tx, account_id, recipient_id).await? {
            Some((email_id, document, status)) if document == document_id => (email_id, status),
            _ => return Err(Rule::NotResendable.into()),
        };
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    if status != DeliveryStatus::Failed || document.status != DocumentStatus::Sent {
        return Err(Rule::NotResendable.into());
    }
    let recipient = recipients::find(&mut tx, recipient_id).await?;
    let new_email = corrected_email.map_or(recipient.email.as_str(), EmailAddress::as_str);
    if let Some(corrected) = corrected_email
        && corrected.as_str() != recipient.email
    {
        recipients::set_email(&mut tx, recipient_id, corrected).await?;
        // Reminders' links went to the old address too.
        recipients::revoke_extra_signing_links(&mut tx, recipient_id).await?;
    }
    let token = SigningToken::generate();
    recipients::set_signing_token_hashes(&mut tx, &[(recipient_id, token.hash())]).await?;
    emails::requeue_invitation(&mut tx, email_id, &token).await?;
    let resent = DocumentEvent::InvitationResent {
        recipient_id,
        old_email: &recipient.email,
        new_email,
    };
    effects::record_in_trail(&mut tx, Subject::of(&document), resent, actor).await?;
    // The old link no longer works: an SMS invitation carries the new one too.
    let text = NewSms {
        recipient_id,
        kind: SmsKind::Invitation,
        link_token: Some(token),
    };
    effects::queue_sms(&mut tx, Subject::of(&document), &[text], actor, notifier).await?;
    tx.commit().await?;
    Ok(())
}
