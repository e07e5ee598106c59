//! The domain error: what went wrong, in terms an API response or an operator message can be
//! derived from. The API maps it to the envelope in exactly one place.

use signet_pdf::PdfError;

/// One thing wrong with a request body, pointing at the offending property (`[0].email`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub field: String,
    pub reason: String,
}

/// The most characters of a problem's `field` kept: a name taken from the input (a CSV's
/// column) is cut there, so that no refusal repeats its input without a bound.
pub const MAX_FIELD_CHARS: usize = 200;
/// The most characters of a problem's `reason` kept.
pub const MAX_REASON_CHARS: usize = 1000;

impl Problem {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: cut(field.into(), MAX_FIELD_CHARS),
            reason: cut(reason.into(), MAX_REASON_CHARS),
        }
    }

    /// Whether this problem is about `path` or a part of it (`[0]` holds `[0].email`; the
    /// whole body, `""`, holds everything).
    pub fn concerns(&self, path: &str) -> bool {
        within(&self.field, path)
    }
}

/// `text` cut to `max` characters, with `…` where it was cut.
fn cut(mut text: String, max: usize) -> String {
    if let Some((end, _)) = text.char_indices().nth(max) {
        text.truncate(end);
        text.push('…');
    }
    text
}

/// Whether `field` is `path` or a property or element under it.
pub fn within(field: &str, path: &str) -> bool {
    path.is_empty()
        || field
            .strip_prefix(path)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}

/// The most problems one refusal lists; the last entry then says how many more there were.
pub const MAX_LISTED_PROBLEMS: usize = 1000;

/// Everything wrong with one request, gathered in one pass so that it is answered at once:
/// first what its body could not be read as, then what its values break, then the rules of
/// the document it names that it breaks, in the order the contract checks them. The first
/// problem found decides the message, as it did when the first problem ended the checking: a
/// value of the body, "Invalid request body or validation error"; a rule, that rule's.
#[derive(Debug, Default)]
pub struct Problems {
    /// At most [`MAX_LISTED_PROBLEMS`]; the rest are counted in `unlisted`.
    list: Vec<Problem>,
    unlisted: usize,
    /// The first `read` of `list` are the body's properties that could not be read at all; the
    /// value passed on holds a stand-in there, whose checks would only repeat them.
    read: usize,
    /// The first problem's kind: `None` for a value of the body, else the rule.
    first: Option<Option<Rule>>,
}

impl Problems {
    /// Starts from the problems of reading the body (`wire::body::Parsed::problems`).
    pub fn of_reading(read: Vec<Problem>) -> Self {
        Self {
            read: read.len(),
            first: (!read.is_empty()).then_some(None),
            list: read,
            unlisted: 0,
        }
    }

    /// A value of the body is wrong in itself (unless it could not be read at all: that is
    /// said already).
    pub fn invalid(&mut self, field: impl Into<String>, reason: impl Into<String>) {
        let field = field.into();
        if self.list[..self.read]
            .iter()
            .any(|p| within(&field, &p.field))
        {
            return;
        }
        self.push(Problem::new(field, reason));
        self.first.get_or_insert(None);
    }

    /// Adds a problem while fewer than [`MAX_LISTED_PROBLEMS`] are listed; counts it after.
    fn push(&mut self, problem: Problem) {
        if self.list.len() < MAX_LISTED_PROBLEMS - 1 {
            self.list.push(problem);
        } else {
            self.unlisted += 1;
        }
    }

    /// The request breaks `rule` of the document it names, at `field`.
    pub fn broken(&mut self, rule: Rule, field: impl Into<String>, reason: impl Into<String>) {
        self.push(Problem::new(field, reason));
        self.first.get_or_insert(Some(rule));
    }

    /// Whether any problem so far concerns `path` or a part of it: an element with one is not
    /// checked against the document.
    pub fn touch(&self, path: &str) -> bool {
        self.list.iter().any(|p| p.concerns(path))
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Takes in the problems of a part of the request checked on its own, each element named
    /// under `at` (`rows[3].`; `""` keeps the names).
    pub fn extend_at(&mut self, at: &str, part: Problems) {
        self.unlisted += part.unlisted;
        for problem in part.list {
            self.push(Problem::new(
                format!("{at}{}", problem.field),
                problem.reason,
            ));
        }
        if let Some(kind) = part.first {
            self.first.get_or_insert(kind);
        }
    }

    /// Nothing wrong, or the refusal that says everything that is.
    pub fn into_result(mut self) -> Result<()> {
        if self.unlisted > 0 {
            self.list.push(Problem::new(
                "",
                format!("and {} more problems, not listed", self.unlisted),
            ));
        }
        match self.first {
            None => Ok(()),
            Some(None) => Err(Error::Invalid(self.list)),
            Some(Some(rule)) => Err(Error::Refused {
                rule,
                problems: self.list,
            }),
        }
    }

    /// The answer to a request whose document cannot take it (`refusal`: not found, not a
    /// DRAFT): what was found wrong before the document was asked, if anything, as those
    /// checks come first; else the refusal. Failures on our side are answered as themselves.
    pub fn before(self, refusal: Error) -> Error {
        match refusal {
            Error::DocumentNotFound
            | Error::RecipientNotFound
            | Error::TemplateNotFound
            | Error::TemplateArchived
            | Error::Rule(_) => self.into_result().err().unwrap_or(refusal),
            refusal => refusal,
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
    /// An embedded signing session for a recipient whose group of the signing order is not
    /// invited yet.
    #[error(
        "The recipient's turn has not come: group {0} of the signing order waits until every signer of the earlier groups has signed"
    )]
    NotYourTurn(i32),
    /// An embedded signing session for a signer who has signed.
    #[error("The recipient has already signed this document")]
    RecipientSigned,
    /// An erasure for a person who is a recipient of a document out for signing.
    #[error(
        "The person is a recipient of document {0}, which is out for signing: cancel it or let it end before erasing their data"
    )]
    OutForSigning(crate::model::DocumentId),
}

/// Why a signing link refuses, or refuses to send or check a code, for signer authentication
/// (issue #34). What it says names the method and never anything of the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthRefusal {
    /// The recipient has not passed their check in this browser.
    #[error("Enter your code to open this document")]
    Required(crate::model::AuthMethod),
    /// Five wrong codes locked the recipient until the sender unlocks them.
    #[error("This signing link is locked after too many wrong codes; contact the sender")]
    Locked(crate::model::AuthMethod),
    /// A code was sent too lately to send another (at most one a minute, five an hour).
    #[error("A code was sent a short while ago; ask for another after {retry_after_secs} s")]
    TooSoon { retry_after_secs: u64 },
    /// A code was asked for on a link whose code is the sender's to give (ACCESS_CODE).
    #[error("The code for this link is given by the sender; it is not sent")]
    NotSent,
    /// A code was given or asked for on a link that asks for none.
    #[error("This signing link asks for no code")]
    NoneAsked,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Document not found")]
    DocumentNotFound,
    #[error("Template not found")]
    TemplateNotFound,
    #[error("Template is archived")]
    TemplateArchived,
    #[error("Bulk send not found")]
    BulkSendNotFound,
    /// Cancelling a bulk send whose every row is made already.
    #[error("Bulk send is already completed: every row was made")]
    BulkSendCompleted,
    /// A file of a document whose files were removed under the account's retention policy.
    #[error("The document's files were removed under the account's retention policy")]
    FilesRemoved,
    #[error("account {0} not found")]
    AccountNotFound(crate::model::AccountId),
    #[error("invalid input: {}", describe(.0))]
    Invalid(Vec<Problem>),
    #[error("Invalid query parameter: {}", .0.field)]
    InvalidQuery(Problem),
    #[error(transparent)]
    Rule(#[from] Rule),
    /// Rules of the document that a request breaks, each problem naming where; `rule`, the
    /// first broken, gives the message.
    #[error("{rule}")]
    Refused { rule: Rule, problems: Vec<Problem> },
    #[error(transparent)]
    Conflict(#[from] Conflict),
    #[error("Signing link not found")]
    SigningLinkNotFound,
    #[error(transparent)]
    SignerAuth(#[from] AuthRefusal),
    /// A recipient id that names none of the document's recipients.
    #[error("Recipient not found")]
    RecipientNotFound,
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
    Storage(#[from] object_store::Error),
    /// Work of ours that failed without a cause to name (a panic on a worker thread).
    #[error("internal: {0}")]
    Internal(String),
}

impl Error {
    pub fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Invalid(vec![Problem::new(field, reason)])
    }

    /// True when the database or the file store could not be reached at all, as opposed to
    /// refusing a statement or missing a file.
    pub fn is_unavailable(&self) -> bool {
        match self {
            Error::Storage(e) => !matches!(e, object_store::Error::NotFound { .. }),
            Error::Database(e) => database_unreachable(e),
            Error::Migration(
                sqlx::migrate::MigrateError::Execute(e)
                | sqlx::migrate::MigrateError::ExecuteMigration(e, _),
            ) => database_unreachable(e),
            Error::Queue(apalis_postgres::Error::Database(e)) => database_unreachable(e),
            _ => false,
        }
    }
}

impl Error {
    /// True when a read on a streaming replica failed in a way the primary may not: it could
    /// not be reached, or it cancelled the query for a conflict with recovery (40001).
    pub fn is_replica_failure(&self) -> bool {
        match self {
            Error::Database(e) => {
                database_unreachable(e)
                    || matches!(e, sqlx::Error::Database(db) if db.code().as_deref() == Some("40001"))
            }
            _ => false,
        }
    }

    /// True when a hot standby refused a write (25006 read_only_sql_transaction): a read that
    /// sometimes writes (a search term's counts kept the first time) must run on the primary.
    pub fn is_read_only_refusal(&self) -> bool {
        matches!(self, Error::Database(sqlx::Error::Database(db)) if db.code().as_deref() == Some("25006"))
    }

    /// True for the answers "no such row" that a replica can give for a row it has not
    /// replayed yet.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::DocumentNotFound
                | Error::RecipientNotFound
                | Error::TemplateNotFound
                | Error::BulkSendNotFound
                | Error::AccountNotFound(_)
                | Error::SigningLinkNotFound
        )
    }
}

/// True for errors that mean "the database could not be reached", not "it refused the statement".
fn database_unreachable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection
        // exceptions, 53300 too_many_connections (the server's or a role's limit)
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|c| c.starts_with("57P") || c.starts_with("08") || c == "53300"),
        _ => false,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_repeats_at_most_a_bounded_part_of_its_input() {
        let long = "Ω".repeat(5_000);
        let problem = Problem::new(format!("header.{long}"), long.clone());
        assert_eq!(problem.field.chars().count(), MAX_FIELD_CHARS + 1);
        assert!(problem.field.starts_with("header.ΩΩ") && problem.field.ends_with('…'));
        assert_eq!(problem.reason.chars().count(), MAX_REASON_CHARS + 1);
        assert_eq!(Problem::new("a", "b"), Problem::new("a", "b"));
    }

    #[test]
    fn problems_past_the_listed_bound_are_counted() {
        let mut problems = Problems::default();
        for i in 0..5_000 {
            problems.invalid(format!("rows[{i}]"), "wrong");
        }
        let Err(Error::Invalid(listed)) = problems.into_result() else {
            panic!("refused")
        };
        assert_eq!(listed.len(), MAX_LISTED_PROBLEMS);
        assert_eq!(
            listed.last().unwrap().reason,
            "and 4001 more problems, not listed"
        );
    }
}
