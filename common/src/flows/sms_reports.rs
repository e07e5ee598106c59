//! Delivery reports from the SMS provider: a report that a message was delivered marks its row
//! DELIVERED; one that it could not be delivered marks it FAILED with the provider's reason
//! and records that in the audit trail, where the sender sees it. Reports are applied once;
//! a repeated or late report changes nothing.

use sqlx::PgPool;
use uuid::Uuid;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    model::Actor,
    store::sms::{self, Report},
};

/// Applies `report` about the SMS `sms_id` (whose signed callback URL the provider used);
/// `provider_message_id` is the provider's id for the message, when it gives one. Returns
/// whether anything changed.
pub async fn record(
    pool: &PgPool,
    sms_id: Uuid,
    provider_message_id: Option<&str>,
    report: &Report,
    actor: &Actor,
) -> Result<bool> {
    let mut tx = pool.begin().await?;
    let Some(reported) = sms::record_report(&mut tx, sms_id, provider_message_id, report).await?
    else {
        return Ok(false);
    };
    if let Report::Undelivered { error } = report {
        let failed = DocumentEvent::SmsFailed {
            recipient_id: reported.recipient_id,
            to: &reported.to_e164,
            kind: reported.kind,
            reason: error,
        };
        let subject = Subject {
            account_id: reported.account_id,
            document_id: reported.document_id,
        };
        effects::record_in_trail(&mut tx, subject, failed, actor).await?;
    }
    tx.commit().await?;
    Ok(true)
}
