//! The bodies and views of retention and erasure (issue #37; docs/retention.md).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{
    error::Problems,
    model::{DocumentId, RecipientId},
    wire::views::Timestamp,
};

/// The longest retention period taken: 100 years.
pub const MAX_RETENTION_DAYS: i32 = 36_500;

/// The body of `PUT /account/retention`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"days": 365}))]
pub struct RetentionInput {
    /// Days after a document ended (COMPLETED, DECLINED, EXPIRED or CANCELLED) after which
    /// its files (original, final PDF, signers' attachments) are removed; `null` turns the
    /// policy off. 1 to 36500.
    #[schema(minimum = 1, maximum = 36500)]
    pub days: Option<i64>,
}

/// The account's retention policy.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"days": 365}))]
pub struct RetentionView {
    /// Days after a document ended that its files are removed; `null`: never (the default).
    pub days: Option<i32>,
}

/// The checked number of days.
pub fn validate_retention(input: &RetentionInput, problems: &mut Problems) -> Option<i32> {
    let days = input.days?;
    if !(1..=i64::from(MAX_RETENTION_DAYS)).contains(&days) {
        problems.invalid(
            "days",
            "must be from 1 to 36500, or null to turn the policy off",
        );
        return None;
    }
    i32::try_from(days).ok()
}

/// The body of `POST /erasures`: exactly one of `email` and `recipientId` (the OpenAPI
/// document says so with a `oneOf`, added in `api/src/routes/openapi.rs`).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"email": "ann@example.com"}))]
pub struct ErasureInput {
    /// Erase every recipient of the account's documents with this address (in any case).
    #[schema(max_length = 320, pattern = "@", nullable = false)]
    pub email: Option<String>,
    /// Erase this recipient, and every other recipient of the account's documents with the
    /// same address.
    #[schema(value_type = uuid::Uuid, nullable = false)]
    pub recipient_id: Option<RecipientId>,
}

/// Who an erasure is for, once checked.
#[derive(Debug, Clone)]
pub enum ErasureTarget {
    Email(String),
    Recipient(RecipientId),
}

/// The longest address taken (RFC 5321's path limit).
const MAX_EMAIL_CHARS: usize = 320;

pub fn validate_erasure(input: &ErasureInput, problems: &mut Problems) -> Option<ErasureTarget> {
    match (&input.email, input.recipient_id) {
        (Some(_), Some(_)) | (None, None) => {
            problems.invalid("", "give exactly one of email and recipientId");
            None
        }
        (Some(email), None) => {
            if !email.contains('@') {
                problems.invalid("email", "must be an e-mail address");
                None
            } else if email.chars().count() > MAX_EMAIL_CHARS {
                problems.invalid("email", "at most 320 characters");
                None
            } else {
                Some(ErasureTarget::Email(email.trim().to_owned()))
            }
        }
        (None, Some(id)) => Some(ErasureTarget::Recipient(id)),
    }
}

/// What an erasure did: the recipients it erased now and the documents they belong to (both
/// empty when there was nothing left to erase: an erasure is idempotent).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErasureView {
    #[schema(value_type = Vec<uuid::Uuid>)]
    pub recipient_ids: Vec<RecipientId>,
    #[schema(value_type = Vec<uuid::Uuid>)]
    pub document_ids: Vec<DocumentId>,
    pub erased_at: Timestamp,
}
