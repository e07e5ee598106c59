//! The bodies and views of the bulk send routes (issue #32; docs/templates.md); their rows are
//! read by [`super::bulk_rows`].

use serde::{Deserialize, Serialize};
use signet_i18n::Language;
use utoipa::ToSchema;

use crate::{
    model::{BulkSendId, BulkSendStatus, TemplateId},
    wire::{bulk_rows::ReadRows, views::Timestamp},
};

/// The body of `POST /templates/{id}/bulk-sends` as JSON.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"rows": [{"Tenant.name": "Zoë Ñúñez-O'Brien", "Tenant.email": "zoe@example.com"}], "message": "Please sign the lease.", "expiryDate": "2030-01-31T17:00:00Z"}))]
pub struct BulkSendInput {
    /// One object per document, numbered from 1 in the errors (`rows[1].Tenant.email`): for
    /// each role of the template `<Role>.name`, `<Role>.email`, and optionally
    /// `<Role>.countryCode`, `<Role>.phoneNumber`, `<Role>.language`; and prefilled values by
    /// field label. A blank or `null` value is no value. At most `BULK_SEND_MAX_ROWS` rows
    /// (default 10,000).
    #[schema(value_type = Vec<BTreeMap<String, String>>, min_items = 1)]
    pub rows: ReadRows,
    /// `true`: check every row and answer the report; nothing is created
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Every document's title; default: the template's. At most 500 characters
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// The send's `message`, `description`, `expiryDate` and `language`, as
    /// `POST /templates/{id}/documents` with `"send": true` takes them (each absent one from
    /// the template's defaults)
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub expiry_date: Option<String>,
    #[serde(default)]
    pub language: Option<Language>,
}

impl BulkSendInput {
    /// What every row shares, as the body gives it.
    pub fn overrides(&self) -> BulkOverrides {
        BulkOverrides {
            title: self.title.clone(),
            message: self.message.clone(),
            description: self.description.clone(),
            expiry_date: self.expiry_date.clone(),
            language: self.language,
        }
    }
}

/// What a bulk send gives every document it makes, each absent one taken from the template's
/// defaults, as `POST /templates/{id}/documents` with `"send": true` takes them (stored with
/// the bulk send).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkOverrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

/// The report of a bulk send checked with `dryRun`: every row would be made.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendCheck {
    /// Always `true`: a bulk send with a problem is refused with `400`, naming each
    pub valid: bool,
    /// How many documents it would make
    pub rows: usize,
}

/// A bulk send accepted: its rows are made into sent documents by the workers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendAccepted {
    #[schema(value_type = uuid::Uuid)]
    pub id: BulkSendId,
    /// How many documents it makes
    pub total: usize,
}

/// A row that could not be made when its turn came, and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendFailure {
    /// Its number, from 1, as in the request
    pub row: i32,
    pub reason: String,
}

/// A bulk send's progress.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkSendView {
    #[schema(value_type = uuid::Uuid)]
    pub id: BulkSendId,
    #[schema(value_type = uuid::Uuid)]
    pub template_id: TemplateId,
    /// RUNNING, COMPLETED (every row SENT or FAILED) or CANCELLED
    pub status: BulkSendStatus,
    pub total: i64,
    /// Documents made (each is sent in the same transaction)
    pub created: i64,
    pub sent: i64,
    pub failed: i64,
    pub cancelled: i64,
    pub pending: i64,
    /// The first 100 failed rows, by row number (`failed` counts them all)
    pub failures: Vec<BulkSendFailure>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// When it was COMPLETED or CANCELLED
    pub finished_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_of_the_wrong_shape_is_refused_naming_each_property() {
        let fields = |body: &str| -> Vec<String> {
            let problems = match crate::wire::body::parse::<BulkSendInput>(body.as_bytes()) {
                Ok(parsed) => parsed.problems,
                Err(problems) => problems,
            };
            problems.into_iter().map(|p| p.field).collect()
        };
        let found = fields(r#"{"rows": 3, "language": "xx", "dryRun": "yes"}"#);
        for field in ["rows", "language", "dryRun"] {
            assert!(found.iter().any(|f| f == field), "{field}: {found:?}");
        }
        assert_eq!(fields(r#"{"message": "Hi"}"#), ["rows"]);
        assert!(fields(r#"{"rows": [{}], "message": "Hi"}"#).is_empty());
    }
}
