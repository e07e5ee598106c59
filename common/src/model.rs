//! Domain vocabulary and the rows the SQL modules return.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;
use uuid::Uuid;

use signet_pdf::PageSize;

mod daily_caps;
pub mod email_address;
pub mod feed;
pub mod field_values;

pub use daily_caps::DailyCaps;

/// How long a one-time code sent to a signer works (`flows::signer_auth`), as the SMS and
/// e-mail carrying it say.
pub const CODE_VALID_MINUTES: i64 = 10;

/// Whether `value` holds a control character other than a line break or a tab: NUL and the
/// like, which PostgreSQL refuses in text and which no name, title, message or field value
/// needs.
pub fn has_control_chars(value: &str) -> bool {
    value
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

pub const CONTROL_CHARS: &str = "must not contain control characters";
pub use email_address::EmailAddress;

macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
            strum::EnumString, strum::IntoStaticStr, strum::Display, strum::VariantArray,
        )]
        #[serde(rename_all = "UPPERCASE")]
        #[strum(serialize_all = "UPPERCASE")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// Every value, in declaration order.
            pub fn all() -> &'static [Self] {
                <Self as strum::VariantArray>::VARIANTS
            }
        }

        impl TryFrom<String> for $name {
            type Error = strum::ParseError;
            fn try_from(value: String) -> Result<Self, Self::Error> {
                value.parse()
            }
        }
    };
}

macro_rules! typed_id {
    ($($(#[$meta:meta])* $name:ident;)+) => {$(
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            sqlx::Type,
        )]
        #[serde(transparent)]
        #[sqlx(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A fresh, time-ordered id (UUIDv7).
            #[allow(clippy::new_without_default)]
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }

        impl From<$name> for Uuid {
            fn from(id: $name) -> Self {
                id.0
            }
        }
    )+};
}

typed_id! {
    /// The id of an account (the tenant every document, key and delivery belongs to).
    AccountId;
    /// The id of a document.
    DocumentId;
    /// The id of a recipient of a document.
    RecipientId;
    /// The id of an outbox e-mail (a row of `outbound_emails`).
    EmailId;
    /// The id of an outbox SMS (a row of `outbound_sms`).
    SmsId;
    /// The id of an event of the event feed (a row of `events`), which its webhook delivery
    /// carries as `msg_<32 hex>` ([`EventId::wire`]).
    EventId;
    /// The id of a webhook delivery (a row of `webhook_deliveries`).
    WebhookDeliveryId;
    /// The id of one attempt at a webhook delivery (a row of `webhook_attempts`).
    WebhookAttemptId;
    /// The id of a field placed on a document (a row of `fields`).
    FieldId;
    /// The id of an audit trail entry (a row of `audit_entries`).
    AuditEntryId;
    /// The id of an account's API key (a row of `api_keys`).
    ApiKeyId;
    /// The id a recipient's reminder link (a row of `signing_links`) derives its clear token
    /// from, with the recipient's id (`infra::secrets::ReminderLinkKey::token`).
    ReminderLinkId;
    /// The id of a template (issue #32: a document's PDF, roles and fields prepared once).
    TemplateId;
    /// The id of a file a signer attached to an ATTACHMENT field (a row of
    /// `signer_attachments`); the field's value once signed.
    AttachmentId;
    /// The id of a role of a template (a row of `template_roles`).
    TemplateRoleId;
    /// The id of a field of a template (a row of `template_fields`).
    TemplateFieldId;
    /// The id of a bulk send (a template made into many sent documents, a row each).
    BulkSendId;
    /// The id of an embedded signing session (a row of `embedded_sessions`): its ticket and,
    /// once used, the browser session it became.
    EmbeddedSessionId;
}

impl EventId {
    /// The id as webhooks and the event feed give it: the `webhook-id` header's
    /// `msg_<32 hex>`.
    pub fn wire(self) -> String {
        format!("msg_{}", self.0.simple())
    }
}

impl ReminderLinkId {
    /// A fresh random id (UUIDv4), as reminder links have always been given.
    pub fn random() -> Self {
        Self(Uuid::new_v4())
    }
}

text_enum!(
    /// DRAFT → SENT → COMPLETED, or SENT → DECLINED / EXPIRED, or DRAFT/SENT → CANCELLED.
    DocumentStatus { Draft, Sent, Completed, Declined, Expired, Cancelled }
);
text_enum!(RecipientRole { Signer, Viewer });
text_enum!(
    /// RUNNING → COMPLETED (every row SENT or FAILED), or RUNNING → CANCELLED.
    BulkSendStatus { Running, Completed, Cancelled }
);
text_enum!(
    /// PENDING → SENT (its document made and sent), FAILED (refused when made) or CANCELLED.
    BulkRowStatus { Pending, Sent, Failed, Cancelled }
);
text_enum!(RecipientStatus {
    Pending,
    Viewed,
    Signed,
    Declined
});
text_enum!(
    /// Where an outbox e-mail is (the recipient's invitation as the document detail shows it, and
    /// every other e-mail): queued or being retried, handed to the SMTP server, failed for good
    /// (an SMTP 5xx, an unusable address, or retries used up), or withdrawn unsent because the
    /// document left SENT first. (Named for the detail's `deliveryStatus`, whose schema it is.)
    DeliveryStatus { Pending, Sent, Failed, Withdrawn }
);
text_enum!(
    /// Where an outbox SMS is: queued or being retried, accepted by the provider, reported
    /// delivered by the provider's status callback, failed for good (a provider 4xx, a
    /// number it refused, the retry schedule used up, a daily cap reached, or the provider's
    /// report that it could not be delivered), or withdrawn unsent because the document left
    /// SENT first.
    SmsStatus { Pending, Sent, Delivered, Failed, Withdrawn }
);
text_enum!(
    /// The SMS Signet sends (docs/sms.md says why these and no others): the signing link, and
    /// to a signer who had not signed yet, that their link stopped working because the
    /// document was declined or expired; and a one-time code for a recipient whose link asks
    /// for one (SMS_OTP).
    SmsKind { Invitation, Declined, Expired, Code }
);
text_enum!(
    /// Where a webhook delivery is: another attempt to come (or the first), delivered (a 2xx),
    /// or failed for good (410 Gone, or the retry schedule used up).
    WebhookDeliveryStatus { Pending, Delivered, Failed }
);
text_enum!(
    /// What a field asks for (docs/fields.md): the contract's four, and the kinds issue #33
    /// adds.
    FieldType {
        Signature,
        Text,
        Date,
        Initials,
        Checkbox,
        Radio,
        Dropdown,
        Number,
        Email,
        Name,
        Company,
        Attachment,
    }
);

impl FieldType {
    /// Whether a field of this kind can be given a value before its signer sees it (prefilled,
    /// and then possibly read-only).
    pub fn takes_prefill(self) -> bool {
        matches!(
            self,
            Self::Text
                | Self::Number
                | Self::Email
                | Self::Name
                | Self::Company
                | Self::Checkbox
                | Self::Radio
                | Self::Dropdown
        )
    }

    /// Whether the signer picks the value among the field's `options`.
    pub fn has_options(self) -> bool {
        matches!(self, Self::Radio | Self::Dropdown)
    }

    /// Whether `maxLength` and `pattern` apply.
    pub fn has_text_rules(self) -> bool {
        matches!(self, Self::Text | Self::Company)
    }
}

/// What a field asks of its value beyond its kind (docs/fields.md), as stored with it (a
/// JSON column of `fields` and `template_fields`): only the properties its kind takes, each
/// checked when the field was made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldRules {
    /// RADIO, DROPDOWN: the values the signer picks from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// NUMBER: inclusive bounds, and the most digits after the point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decimals: Option<i32>,
    /// TEXT, COMPANY: the most characters, and a regular expression the whole value matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}
text_enum!(AuditEvent {
    Created,
    Sent,
    Viewed,
    Signed,
    Declined,
    Completed,
    Expired,
    Updated
});
text_enum!(EmailKind {
    Invitation,
    Completed,
    Declined,
    Expired,
    Cancelled,
    Reminder,
    // A one-time code for a recipient whose link asks for one (EMAIL_OTP).
    Code
});

/// How a recipient proves who they are before their signing link shows anything of the
/// document (issue #34, docs/signing.md#signer-authentication).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
    strum::VariantArray,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum AuthMethod {
    /// A code the sender gave the recipient themselves (stored hashed).
    AccessCode,
    /// A six-digit code e-mailed to the recipient's address when they ask for it.
    EmailOtp,
    /// A six-digit code sent by SMS to the recipient's phone number when they ask for it.
    SmsOtp,
}

impl AuthMethod {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the code is one Signet sends (and may send again).
    pub fn is_one_time(self) -> bool {
        matches!(self, Self::EmailOtp | Self::SmsOtp)
    }
}

/// The webhook event types (Standard Webhooks `type`), which the event feed filters by.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::Display, strum::VariantArray,
)]
pub enum WebhookEvent {
    #[strum(serialize = "document.sent")]
    Sent,
    #[strum(serialize = "document.viewed")]
    Viewed,
    #[strum(serialize = "document.signed")]
    Signed,
    #[strum(serialize = "document.completed")]
    Completed,
    #[strum(serialize = "document.declined")]
    Declined,
    #[strum(serialize = "document.expired")]
    Expired,
    #[strum(serialize = "document.cancelled")]
    Cancelled,
    /// A later group of the signing order was invited, every signer before it having signed.
    #[strum(serialize = "document.group_invited")]
    GroupInvited,
    #[strum(serialize = "recipient.delivery_failed")]
    DeliveryFailed,
    /// A recipient gave the fifth wrong code and is locked until the sender unlocks them.
    #[strum(serialize = "recipient.auth_failed")]
    AuthFailed,
    /// Every row of a bulk send was made (or failed); not about one document.
    #[strum(serialize = "bulk_send.completed")]
    BulkSendCompleted,
    /// The document's files were removed under the account's retention policy (issue #37).
    #[strum(serialize = "document.files_removed")]
    FilesRemoved,
    /// A person's personal data in the document was erased on request (issue #37).
    #[strum(serialize = "document.personal_data_erased")]
    PersonalDataErased,
}

impl DocumentStatus {
    /// The statuses the list filter `TRASH` stands for.
    pub const TRASH: [DocumentStatus; 3] = [Self::Declined, Self::Expired, Self::Cancelled];
}

/// The language a recipient reads Signet in (their e-mails, and the signing page unless they
/// pick another): their own, else their document's, else the operator's `default`
/// (docs/languages.md).
pub fn reader_language(
    recipient: StoredLanguage,
    document: StoredLanguage,
    default: signet_i18n::Language,
) -> signet_i18n::Language {
    recipient.0.or(document.0).unwrap_or(default)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Document {
    pub id: DocumentId,
    pub account_id: AccountId,
    pub code: String,
    pub title: String,
    #[sqlx(try_from = "String")]
    pub status: DocumentStatus,
    pub file_key: String,
    pub sha256: String,
    pub pages: i32,
    pub page_sizes: Json<Vec<PageSize>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub expiry_date: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub send_message: Option<String>,
    pub send_description: Option<String>,
    pub final_file_key: Option<String>,
    pub final_sha256: Option<String>,
    /// Why the owner cancelled it, when they said.
    pub cancel_reason: Option<String>,
    /// The reminder schedule fixed on send: first after this many days, then every
    /// `reminder_every_days` (0: no more); `None`: no automatic reminders.
    pub reminder_first_after_days: Option<i32>,
    pub reminder_every_days: Option<i32>,
    /// The document's language (its certificate, and the e-mails of recipients without one of
    /// their own); none: the operator's default.
    #[sqlx(try_from = "Option<String>")]
    pub language: StoredLanguage,
    /// The template it was made from, for the record (it copied what it needs).
    pub template_id: Option<TemplateId>,
    /// When its files (original, final PDF, signers' attachments) were removed from the store,
    /// and why (`RETENTION_POLICY`); their keys and hashes stay (docs/retention.md).
    pub files_removed_at: Option<DateTime<Utc>>,
    pub files_removed_reason: Option<String>,
}

/// A stored language tag, read as the language it names: none for no tag, and for a tag Signet
/// no longer speaks (a catalogue removed), which counts as no tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoredLanguage(pub Option<signet_i18n::Language>);

impl From<Option<String>> for StoredLanguage {
    fn from(tag: Option<String>) -> Self {
        Self(tag.as_deref().and_then(signet_i18n::Language::from_tag))
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Recipient {
    pub id: RecipientId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub name: String,
    /// As stored, not an [`EmailAddress`]: an address stored before a rule changed must still
    /// load; what sends to it parses it then.
    pub email: String,
    #[sqlx(try_from = "String")]
    pub role: RecipientRole,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    /// `country_code` + `phone_number` in E.164, for SMS; `None` without a number (and for
    /// rows from before the column whose number could not be converted safely in SQL).
    pub phone_e164: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: RecipientStatus,
    pub color_code: String,
    pub position: i32,
    pub viewed_at: Option<DateTime<Utc>>,
    pub signed_at: Option<DateTime<Utc>>,
    pub declined_at: Option<DateTime<Utc>>,
    pub decline_reason: Option<String>,
    /// The language of the recipient's e-mails; none: the document's.
    #[sqlx(try_from = "Option<String>")]
    pub language: StoredLanguage,
    /// The recipient's group in the signing order (`None` counts as 1).
    pub signing_order: Option<i32>,
    /// When the recipient's invitation was queued; `None` until their group is reached.
    pub invited_at: Option<DateTime<Utc>>,
    /// When the sweep reminds this signer next; `None`: no reminder is due.
    pub next_reminder_at: Option<DateTime<Utc>>,
    /// When the signer was last reminded (by anyone); another reminder waits
    /// REMINDER_MIN_INTERVAL_HOURS after it.
    pub last_reminded_at: Option<DateTime<Utc>>,
    /// When the signer agreed to use electronic records and signatures, from where, and the
    /// words they agreed to (docs/signing.md).
    pub consented_at: Option<DateTime<Utc>>,
    pub consent_ip: Option<String>,
    pub consent_user_agent: Option<String>,
    pub consent_text: Option<String>,
    /// The state of the recipient's invitation e-mail; `None` before the document is sent.
    #[sqlx(try_from = "Option<String>")]
    pub delivery_status: OptionalStatus<DeliveryStatus>,
    /// Why the invitation failed for good, when it did.
    pub delivery_error: Option<String>,
    /// The state of the recipient's invitation SMS; `None` without a number or before the
    /// document is sent.
    #[sqlx(try_from = "Option<String>")]
    pub sms_status: OptionalStatus<SmsStatus>,
    /// Why the invitation SMS failed for good, when it did.
    pub sms_error: Option<String>,
    /// Signs in the integrator's product (embedded signing): no invitation, no reminder.
    pub embedded: bool,
    /// The check the recipient passes before their link shows the document; `None`: none.
    #[sqlx(try_from = "Option<String>")]
    pub auth_method: OptionalStatus<AuthMethod>,
    /// Wrong codes given since the last pass or unlock; the fifth locks the recipient.
    pub auth_failures: i32,
    /// When the fifth wrong code locked the recipient, until the sender unlocks them.
    pub auth_locked_at: Option<DateTime<Utc>>,
    /// When the recipient first passed the check.
    pub auth_passed_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
impl Recipient {
    /// A PENDING signer of nothing in particular, for unit tests to change what they need of.
    pub(crate) fn for_tests(email: &str, role: RecipientRole) -> Self {
        Self {
            id: RecipientId::new(),
            account_id: AccountId(uuid::Uuid::nil()),
            document_id: DocumentId(uuid::Uuid::nil()),
            name: email.into(),
            email: email.into(),
            role,
            country_code: None,
            phone_number: None,
            phone_e164: None,
            status: RecipientStatus::Pending,
            color_code: "#000000".into(),
            position: 0,
            viewed_at: None,
            signed_at: None,
            declined_at: None,
            decline_reason: None,
            language: StoredLanguage::default(),
            signing_order: None,
            invited_at: None,
            next_reminder_at: None,
            last_reminded_at: None,
            consented_at: None,
            consent_ip: None,
            consent_user_agent: None,
            consent_text: None,
            delivery_status: OptionalStatus::default(),
            delivery_error: None,
            sms_status: OptionalStatus::default(),
            sms_error: None,
            embedded: false,
            auth_method: OptionalStatus::default(),
            auth_failures: 0,
            auth_locked_at: None,
            auth_passed_at: None,
        }
    }
}

impl Recipient {
    /// The recipient's group in the signing order: groups are invited in ascending order.
    pub fn group(&self) -> i32 {
        self.signing_order.unwrap_or(1)
    }

    /// A signer who was invited and has neither signed nor declined.
    pub fn is_waiting_to_sign(&self) -> bool {
        self.role == RecipientRole::Signer
            && self.invited_at.is_some()
            && matches!(
                self.status,
                RecipientStatus::Pending | RecipientStatus::Viewed
            )
    }
}

/// A nullable status column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionalStatus<S>(pub Option<S>);

impl<S> Default for OptionalStatus<S> {
    fn default() -> Self {
        Self(None)
    }
}

impl<S: std::str::FromStr<Err = strum::ParseError>> TryFrom<Option<String>> for OptionalStatus<S> {
    type Error = strum::ParseError;
    fn try_from(value: Option<String>) -> Result<Self, Self::Error> {
        value
            .map(|value| value.parse())
            .transpose()
            .map(OptionalStatus)
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Field {
    pub id: FieldId,
    pub recipient_id: RecipientId,
    #[sqlx(rename = "type", try_from = "String")]
    pub field_type: FieldType,
    pub page: i32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub value: Option<String>,
    /// The prefilled value is stamped as given: the signer may not change it.
    pub read_only: bool,
    /// Unique in the document when given (a template's prefill names the field by it).
    pub label: Option<String>,
    /// `false`: the signer may leave the field empty (it is then not stamped).
    pub required: bool,
    pub rules: Json<FieldRules>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct AuditEntry {
    pub seq: i64,
    pub id: AuditEntryId,
    pub account_id: AccountId,
    pub document_id: DocumentId,
    #[sqlx(try_from = "String")]
    pub event: AuditEvent,
    pub message: String,
    /// The recipient the entry concerns (their view, signature, decline, e-mail), if any.
    pub recipient_id: Option<RecipientId>,
    pub ip_address: String,
    pub user_agent: String,
    pub created_at: DateTime<Utc>,
    pub prev_hash: Vec<u8>,
    pub hash: Vec<u8>,
    /// What the hash covers (see `store::audit::FORMAT`).
    pub format: i16,
    /// Format 3: the random salt of `personal_digest`, `None` once erased.
    pub personal_salt: Option<Vec<u8>>,
    /// Format 3: SHA-256 of the salt and the personal part (message, IP address, user agent),
    /// which the hash covers in their stead.
    pub personal_digest: Option<Vec<u8>>,
    /// When an erasure on request replaced the entry's personal data by tombstones.
    pub erased_at: Option<DateTime<Utc>>,
}

/// Who caused a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// A request: the client's address (canonical), when the connection gave one, and its
    /// user agent.
    Client {
        ip: Option<std::net::IpAddr>,
        user_agent: String,
    },
    /// An operator command on the server itself.
    Operator,
    /// A background job.
    Worker,
}

/// An actor as the audit trail (and a signer's consent) records it. Existing hash chains were
/// computed over this form, so it must stay byte for byte what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedActor {
    pub ip_address: String,
    pub user_agent: String,
}

impl Actor {
    /// Where no address is known (the server's own changes, or a request without a peer).
    const NO_ADDRESS: &str = "0.0.0.0";

    pub fn record(&self) -> RecordedActor {
        let (ip_address, user_agent) = match self {
            Self::Client { ip, user_agent } => (
                ip.map_or_else(|| Self::NO_ADDRESS.to_owned(), |ip| ip.to_string()),
                user_agent.clone(),
            ),
            Self::Operator => (
                Self::NO_ADDRESS.to_owned(),
                format!("signet-api-cli/{}", crate::VERSION),
            ),
            Self::Worker => (
                Self::NO_ADDRESS.to_owned(),
                format!("signet-worker/{}", crate::VERSION),
            ),
        };
        RecordedActor {
            ip_address,
            user_agent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::jobs::CheckCompletion;

    #[test]
    fn typed_ids_read_and_write_as_their_uuid() {
        let uuid = Uuid::now_v7();
        let id = DocumentId(uuid);
        assert_eq!(id.to_string(), uuid.to_string());
        assert_eq!(uuid.to_string().parse::<DocumentId>().unwrap(), id);
        // Queued jobs written before the ids were typed still read, and new ones look the same.
        let json = format!(r#"{{"document_id":"{uuid}"}}"#);
        let job = CheckCompletion { document_id: id };
        assert_eq!(serde_json::to_string(&job).unwrap(), json);
        assert_eq!(serde_json::from_str::<CheckCompletion>(&json).unwrap(), job);
    }

    #[test]
    fn actors_are_recorded_as_before_they_were_typed() {
        let recorded = |actor: Actor| {
            let RecordedActor {
                ip_address,
                user_agent,
            } = actor.record();
            (ip_address, user_agent)
        };
        let version = crate::VERSION;
        assert_eq!(
            recorded(Actor::Worker),
            ("0.0.0.0".into(), format!("signet-worker/{version}"))
        );
        assert_eq!(
            recorded(Actor::Operator),
            ("0.0.0.0".into(), format!("signet-api-cli/{version}"))
        );
        let client = |ip: Option<&str>| Actor::Client {
            ip: ip.map(|ip| ip.parse().unwrap()),
            user_agent: "curl/8".into(),
        };
        assert_eq!(recorded(client(None)), ("0.0.0.0".into(), "curl/8".into()));
        assert_eq!(
            recorded(client(Some("2001:db8::1"))),
            ("2001:db8::1".into(), "curl/8".into())
        );
    }
}

/// The most days a reminder schedule may name, between reminders or before the first.
pub const MAX_REMINDER_DAYS: i64 = 365;

/// The operator's default reminder schedule (`REMINDER_FIRST_AFTER_DAYS`, 0 for none;
/// `REMINDER_EVERY_DAYS`, 0 for a single reminder). A setting the request rules apply, so it
/// lives with the vocabulary both share, and the settings import nothing from the wire layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReminderDefaults {
    pub first_after_days: u32,
    pub every_days: u32,
}
