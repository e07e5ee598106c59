//! The JSON shapes of the external API v1 (and of webhook payloads, which repeat the detail).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Serialize, Serializer};
use signet_i18n::Language;
use utoipa::ToSchema;

use crate::model::{
    AuditEntry, AuditEntryId, AuditEvent, AuthMethod, DeliveryStatus, Document, DocumentId,
    DocumentStatus, Field, FieldId, FieldType, Recipient, RecipientId, RecipientRole,
    RecipientStatus, SmsStatus, TemplateId,
};

/// An instant, serialised as RFC 3339 UTC with milliseconds: `2026-11-21T22:38:39.123Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(value_type = String, format = DateTime, example = "2026-11-21T22:38:39.123Z")]
pub struct Timestamp(pub DateTime<Utc>);

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A measure in pixels; whole values are written without a fraction (`72`, not `72.0`).
#[derive(Debug, Clone, Copy, PartialEq, ToSchema)]
#[schema(value_type = f64)]
pub struct Pixels(pub f64);

impl Serialize for Pixels {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// The fields a list item and a detail share.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSummary {
    #[schema(value_type = uuid::Uuid)]
    pub id: DocumentId,
    pub title: String,
    pub status: DocumentStatus,
    /// Signed, expiring URL of the PDF (the final, stamped PDF once COMPLETED).
    pub file_path: String,
    pub pages: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub expiry_date: Option<Timestamp>,
    /// Additive: the document's language, given on send (its certificate, and the e-mails of
    /// recipients without their own); `null`: the operator's default.
    pub language: Option<Language>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentListItem {
    #[serde(flatten)]
    pub summary: DocumentSummary,
    /// Short document code
    pub code: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentList {
    pub items: Vec<DocumentListItem>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
    pub total_pages: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentDetail {
    #[serde(flatten)]
    pub summary: DocumentSummary,
    pub recipients: Vec<RecipientView>,
    /// Additive: why the owner cancelled the document, when they said; `null` otherwise.
    #[serde(rename = "cancelReason")]
    pub cancel_reason: Option<String>,
    /// Additive: the automatic reminder schedule fixed on send; `null` when the document
    /// sends none (or is a DRAFT).
    pub reminders: Option<ReminderSchedule>,
    /// Additive: the template the document was made from, for the record; `null` otherwise.
    #[serde(rename = "templateId")]
    #[schema(value_type = Option<uuid::Uuid>)]
    pub template_id: Option<TemplateId>,
    /// Additive (issue #37): when the document's files (original, final PDF, signers'
    /// attachments) were removed from the store, `null` while they are kept; `filePath` then
    /// answers `410`. The hashes of what was stored and signed stay in the audit trail.
    #[serde(rename = "filesRemovedAt")]
    pub files_removed_at: Option<Timestamp>,
    /// Additive (issue #37): why the files were removed: `RETENTION_POLICY` (the account's
    /// retention policy, `PUT /account/retention`); `null` while they are kept.
    #[serde(rename = "filesRemovedReason")]
    pub files_removed_reason: Option<String>,
}

/// The answer of `POST /documents/{id}/remind`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Reminded {
    /// The addresses of the signers reminded; empty when every signer has signed.
    pub reminded: Vec<String>,
    /// Additive: the signers not reminded because they were reminded less than the server's
    /// interval (REMINDER_MIN_INTERVAL_HOURS, default 24) ago.
    pub skipped: Vec<SkippedReminder>,
}

/// A signer left out of a reminder: reminded too recently.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedReminder {
    pub email: String,
    /// When they were last reminded.
    pub reminded_at: Timestamp,
    /// When the next reminder to them can be sent.
    pub next_reminder_after: Timestamp,
}

/// When the signers who have not signed are reminded, counted from each one's invitation.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReminderSchedule {
    pub first_after_days: i32,
    /// 0: a single reminder.
    pub every_days: i32,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientView {
    #[schema(value_type = uuid::Uuid)]
    pub id: RecipientId,
    pub name: String,
    pub email: String,
    pub role: RecipientRole,
    pub status: RecipientStatus,
    /// `#RRGGBB`
    pub color_code: String,
    pub fields: Vec<FieldView>,
    /// Additive: the state of the recipient's invitation e-mail, `null` until the document is
    /// sent. `FAILED` means it will not be retried; `deliveryError` says why.
    pub delivery_status: Option<DeliveryStatus>,
    /// Additive: why the invitation failed for good (the SMTP server's answer or the reason
    /// the address cannot be used); `null` unless `deliveryStatus` is `FAILED`.
    pub delivery_error: Option<String>,
    /// Additive: the state of the recipient's invitation SMS, `null` when the recipient has no
    /// phone number, SMS is off (`SMS_PROVIDER=none`) or the document is not sent. `SENT`: the
    /// provider accepted it; `DELIVERED`: the provider reported it delivered; `FAILED`: it will
    /// not be retried, `smsError` says why.
    pub sms_status: Option<SmsStatus>,
    /// Additive: why the invitation SMS failed for good; `null` unless `smsStatus` is `FAILED`.
    pub sms_error: Option<String>,
    /// Additive: the language of the recipient's e-mails; `null`: the document's language.
    pub language: Option<Language>,
    /// Additive: the recipient's group in the signing order; `null` counts as 1.
    pub signing_order: Option<i32>,
    /// Additive: when the recipient's invitation was queued; `null` until the document is sent
    /// and, with a signing order, until every signer of the earlier groups has signed.
    pub invited_at: Option<Timestamp>,
    /// Additive: when the signer is reminded next; `null` when no reminder is scheduled.
    pub next_reminder_at: Option<Timestamp>,
    /// Additive: the recipient signs inside the integrator's product (embedded signing): no
    /// invitation e-mail or SMS is sent to them and they are not reminded; `invitedAt` is when
    /// their turn came.
    pub embedded: bool,
    /// Additive (issue #34): the check the recipient passes before their signing link shows
    /// the document, and where they are with it; `null` when their link asks for none. Never
    /// the code.
    pub authentication: Option<AuthenticationView>,
}

/// A recipient's authentication as the detail shows it: the method, never the code.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"method": "EMAIL_OTP", "locked": false, "lockedAt": null, "failedAttempts": 0, "passedAt": "2026-11-27T10:00:00.000Z"}))]
pub struct AuthenticationView {
    pub method: AuthMethod,
    /// `true` after five wrong codes: the link shows nothing until the sender unlocks the
    /// recipient (`POST /documents/{id}/recipients/{recipientId}/unlock`)
    pub locked: bool,
    /// When the fifth wrong code locked the recipient; `null` unless `locked`
    pub locked_at: Option<Timestamp>,
    /// Wrong codes given since the last pass or unlock (five lock the recipient)
    #[schema(minimum = 0, maximum = 5)]
    pub failed_attempts: i32,
    /// When the recipient first passed the check; `null` until they have
    pub passed_at: Option<Timestamp>,
}

impl AuthenticationView {
    pub fn of(r: &Recipient) -> Option<Self> {
        r.auth_method.0.map(|method| Self {
            method,
            locked: r.auth_locked_at.is_some(),
            locked_at: r.auth_locked_at.map(Timestamp),
            failed_attempts: r.auth_failures,
            passed_at: r.auth_passed_at.map(Timestamp),
        })
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldView {
    #[schema(value_type = uuid::Uuid)]
    pub id: FieldId,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    pub page: i32,
    pub x: Pixels,
    pub y: Pixels,
    pub width: Pixels,
    pub height: Pixels,
    /// Additive: `true` for a field with a value its signer may not change (it is stamped as
    /// given); `false` for every other field
    #[serde(rename = "readOnly")]
    pub read_only: bool,
    /// Additive: the field's label, unique in the document; `null` when it has none
    pub label: Option<String>,
    /// Additive: `false` when its signer may leave the field empty
    pub required: bool,
    /// Additive (RADIO, DROPDOWN): the choices
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// Additive (NUMBER): the least value, inclusive
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Additive (NUMBER): the greatest value, inclusive
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// Additive (NUMBER): the most digits after the decimal point
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<i32>,
    /// Additive (TEXT, COMPANY): the most characters of the value
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i32>,
    /// Additive (TEXT, COMPANY): the regular expression the whole value matches
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    #[schema(value_type = uuid::Uuid)]
    pub id: AuditEntryId,
    pub event: AuditEvent,
    pub message: String,
    pub ip_address: String,
    pub user_agent: String,
    pub created_at: Timestamp,
}

impl DocumentSummary {
    pub fn new(doc: &Document, file_path: String) -> Self {
        Self {
            id: doc.id,
            title: doc.title.clone(),
            status: doc.status,
            file_path,
            pages: doc.pages,
            created_at: Timestamp(doc.created_at),
            updated_at: Timestamp(doc.updated_at),
            expiry_date: doc.expiry_date.map(Timestamp),
            language: doc.language.0,
        }
    }
}

impl DocumentListItem {
    pub fn new(doc: &Document, file_path: String) -> Self {
        Self {
            summary: DocumentSummary::new(doc, file_path),
            code: doc.code.clone(),
        }
    }
}

impl DocumentDetail {
    pub fn new(
        doc: &Document,
        file_path: String,
        recipients: &[Recipient],
        fields: &[Field],
    ) -> Self {
        Self {
            summary: DocumentSummary::new(doc, file_path),
            recipients: recipients
                .iter()
                .map(|r| RecipientView {
                    id: r.id,
                    name: r.name.clone(),
                    email: r.email.clone(),
                    role: r.role,
                    status: r.status,
                    color_code: r.color_code.clone(),
                    fields: fields
                        .iter()
                        .filter(|f| f.recipient_id == r.id)
                        .map(FieldView::from)
                        .collect(),
                    delivery_status: r.delivery_status.0,
                    delivery_error: r.delivery_error.clone(),
                    sms_status: r.sms_status.0,
                    sms_error: r.sms_error.clone(),
                    language: r.language.0,
                    signing_order: r.signing_order,
                    invited_at: r.invited_at.map(Timestamp),
                    next_reminder_at: r.next_reminder_at.map(Timestamp),
                    embedded: r.embedded,
                    authentication: AuthenticationView::of(r),
                })
                .collect(),
            cancel_reason: doc.cancel_reason.clone(),
            reminders: doc
                .reminder_first_after_days
                .map(|first_after_days| ReminderSchedule {
                    first_after_days,
                    every_days: doc.reminder_every_days.unwrap_or(0),
                }),
            template_id: doc.template_id,
            files_removed_at: doc.files_removed_at.map(Timestamp),
            files_removed_reason: doc.files_removed_reason.clone(),
        }
    }
}

impl From<&Field> for FieldView {
    fn from(f: &Field) -> Self {
        Self {
            id: f.id,
            field_type: f.field_type,
            page: f.page,
            x: Pixels(f.x),
            y: Pixels(f.y),
            width: Pixels(f.width),
            height: Pixels(f.height),
            read_only: f.read_only,
            label: f.label.clone(),
            required: f.required,
            options: f.rules.options.clone(),
            min: f.rules.min,
            max: f.rules.max,
            decimals: f.rules.decimals,
            max_length: f.rules.max_length,
            pattern: f.rules.pattern.clone(),
        }
    }
}

impl From<&AuditEntry> for AuditEntryView {
    fn from(e: &AuditEntry) -> Self {
        Self {
            id: e.id,
            event: e.event,
            message: e.message.clone(),
            ip_address: e.ip_address.clone(),
            user_agent: e.user_agent.clone(),
            created_at: Timestamp(e.created_at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_have_milliseconds_and_z() {
        let t = DateTime::parse_from_rfc3339("2026-11-21T22:38:39.123456+02:00")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            serde_json::to_string(&Timestamp(t)).unwrap(),
            "\"2026-11-21T20:38:39.123Z\""
        );
    }

    #[test]
    fn whole_pixels_are_integers() {
        assert_eq!(serde_json::to_string(&Pixels(72.0)).unwrap(), "72");
        assert_eq!(serde_json::to_string(&Pixels(72.5)).unwrap(), "72.5");
    }
}
