//! The body of a webhook event: its type, when it happened, and the document as the change left
//! it (the same shape as the API's document detail).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

use crate::{
    model::{AuthMethod, Document, Field, Recipient, RecipientId, WebhookEvent},
    wire::views::DocumentDetail,
};

#[derive(Serialize)]
pub struct WebhookPayload<'a> {
    #[serde(rename = "type")]
    event_type: &'static str,
    timestamp: String,
    data: DocumentDetail,
    /// Only in `recipient.delivery_failed`: which e-mail failed and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    delivery: Option<&'a FailedDelivery>,
    /// Only in `recipient.auth_failed`: who was locked out, and by which check.
    #[serde(skip_serializing_if = "Option::is_none")]
    authentication: Option<&'a FailedAuthentication>,
}

/// A recipient locked after five wrong codes, as `recipient.auth_failed` reports it (never a
/// code).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedAuthentication {
    pub recipient_id: RecipientId,
    pub email: String,
    pub method: AuthMethod,
    pub failed_attempts: i32,
}

/// An e-mail that failed for good, as `recipient.delivery_failed` reports it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedDelivery {
    pub recipient_id: RecipientId,
    pub email: String,
    /// INVITATION, COMPLETED, DECLINED, EXPIRED or CANCELLED.
    pub email_kind: &'static str,
    pub reason: String,
}

impl<'a> WebhookPayload<'a> {
    pub fn new(
        event: WebhookEvent,
        at: DateTime<Utc>,
        document: &Document,
        file_path: String,
        recipients: &[Recipient],
        fields: &[Field],
        delivery: Option<&'a FailedDelivery>,
    ) -> Self {
        Self {
            event_type: event.into(),
            timestamp: at.to_rfc3339_opts(SecondsFormat::Millis, true),
            data: DocumentDetail::new(document, file_path, recipients, fields),
            delivery,
            authentication: None,
        }
    }

    /// The same payload, saying which recipient was locked out.
    pub fn with_authentication(mut self, failure: Option<&'a FailedAuthentication>) -> Self {
        self.authentication = failure;
        self
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("payloads serialise")
    }
}
