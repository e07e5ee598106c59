//! The domain error: what went wrong, in terms an API response or an operator message can be
//! derived from. The API maps it to the envelope in exactly one place.

use signet_pdf::PdfError;

/// One thing wrong with a request body, pointing at the offending property (`[0].email`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub field: String,
    pub reason: String,
}

impl Problem {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// A business rule that refused an otherwise well-formed request. The messages are part of
/// the public contract (DESIGN §3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rule {
    #[error("Document is not in DRAFT status")]
    NotDraft,
    #[error("Recipient with this email already exists")]
    DuplicateRecipient,
    #[error("Recipient not found for email: {0}")]
    RecipientNotFound(String),
    #[error("Page {page} is out of range (document has {pages} pages)")]
    PageOutOfRange { page: i64, pages: i32 },
    #[error("Field is outside the bounds of page {0}")]
    FieldOutOfBounds(i64),
    #[error("Document has no recipients")]
    NoRecipients,
    #[error("Every recipient must have at least one field")]
    RecipientWithoutFields,
    #[error("expiryDate must be in the future")]
    ExpiryNotInFuture,
    #[error("Document is {0}; only DRAFT or SENT documents can be cancelled")]
    NotCancellable(String),
    #[error("Document is {0}; only SENT documents have signers to remind")]
    NotRemindable(String),
    /// Every signer who would be reminded was reminded less than REMINDER_MIN_INTERVAL_HOURS
    /// ago; `next_allowed_at` (whole seconds, rounded up) is when the first of them may be.
    #[error(
        "Signers were reminded less than {} ago; the next reminder can be sent after {}",
        hours(*.interval_hours),
        .next_allowed_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    )]
    RemindedRecently {
        interval_hours: u32,
        next_allowed_at: chrono::DateTime<chrono::Utc>,
    },
    #[error("Only signers can sign or decline this document")]
    NotASigner,
    #[error("Agree to use electronic records and signatures before signing")]
    ConsentRequired,
    #[error("Only an invitation that failed for good, on a SENT document, can be sent again")]
    NotResendable,
}

/// A signing action that the document's or recipient's state no longer allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    #[error("Document is no longer open for signing")]
    NotOpen,
    #[error("You have already signed this document")]
    AlreadySigned,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Document not found")]
    DocumentNotFound,
    #[error("account {0} not found")]
    AccountNotFound(crate::model::AccountId),
    #[error("invalid input: {}", describe(.0))]
    Invalid(Vec<Problem>),
    #[error("Invalid query parameter: {}", .0.field)]
    InvalidQuery(Problem),
    #[error(transparent)]
    Rule(#[from] Rule),
    #[error(transparent)]
    Conflict(#[from] Conflict),
    #[error("Signing link not found")]
    SigningLinkNotFound,
    #[error("final PDF: {0}")]
    Stamp(#[from] signet_pdf::StampError),
    #[error("seal: {0}")]
    Seal(#[from] signet_pdf::seal::SealError),
    #[error(transparent)]
    Pdf(#[from] PdfError),
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("migration: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    #[error("job queue: {0}")]
    Queue(#[from] apalis_postgres::Error),
    #[error("file store: {0}")]
    Io(#[from] std::io::Error),
    #[error("file store: {0}")]
    Storage(#[from] crate::infra::files::StoreError),
}

impl Error {
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid(vec![Problem::new(field, reason)])
    }

    /// True when the database or the file store could not be reached at all, as opposed to
    /// refusing a statement or missing a file.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Error::Storage(e) => !matches!(e, crate::infra::files::StoreError::NotFound { .. }),
            Error::Database(e) => crate::infra::db::is_unavailable(e),
            Error::Queue(apalis_postgres::Error::Database(e)) => {
                crate::infra::db::is_unavailable(e)
            }
            _ => false,
        }
    }
}

fn hours(n: u32) -> String {
    match n {
        1 => "1 hour".to_owned(),
        n => format!("{n} hours"),
    }
}

fn describe(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("{}: {}", p.field, p.reason))
        .collect::<Vec<_>>()
        .join("; ")
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
