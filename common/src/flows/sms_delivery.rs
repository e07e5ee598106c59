//! SMS that will not arrive, and the provider's delivery reports.
//!
//! An SMS that fails for good (a provider 4xx, retries used up, or the provider's report that
//! it could not be delivered) is recorded in the document's audit trail as `UPDATED`, with the
//! number and the reason, where the sender sees it beside the detail's `smsStatus`/`smsError`.
//! (An SMS refused by a daily cap is recorded the same way when it is queued, by `effects`.)
//! A delivery report is applied once; a repeated or late report changes nothing.

use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    model::{Actor, SmsId},
    store::sms::{self, Addressee, Report},
};

/// Records that the SMS to `addressee` failed for good, on the caller's transaction.
pub async fn failed_for_good(
    conn: &mut PgConnection,
    addressee: &Addressee,
    reason: &str,
    actor: &Actor,
) -> Result<()> {
    let failed = DocumentEvent::SmsFailed {
        recipient_id: addressee.recipient_id,
        to: &addressee.to_e164,
        kind: addressee.kind,
        reason,
    };
    let subject = Subject {
        account_id: addressee.account_id,
        document_id: addressee.document_id,
    };
    effects::record_in_trail(conn, subject, failed, actor).await
}

/// Applies `report` about the SMS `sms_id` (whose signed callback URL the provider used);
/// `provider_message_id` is the provider's id for the message, when it gives one. Returns
/// whether anything changed.
pub async fn record_report(
    pool: &PgPool,
    sms_id: SmsId,
    provider_message_id: Option<&str>,
    report: &Report,
    actor: &Actor,
) -> Result<bool> {
    let mut tx = pool.begin().await?;
    let Some(addressee) = sms::record_report(&mut tx, sms_id, provider_message_id, report).await?
    else {
        return Ok(false);
    };
    if let Report::Undelivered { error } = report {
        failed_for_good(&mut tx, &addressee, error, actor).await?;
    }
    tx.commit().await?;
    Ok(true)
}
