//! The API's error type and its single mapping to the response envelope.

use axum::{
    Json,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use signet_common::{AuthRefusal, Error, Problem, Rule};

use crate::envelope::{Empty, Envelope, ProblemView};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("API key is missing or invalid")]
    MissingKey,
    #[error("Invalid API key")]
    InvalidKey,
    #[error("API rate limit exceeded")]
    RateLimited { retry_after_secs: u64 },
    #[error("Not found")]
    RouteNotFound,
    #[error("Method not allowed")]
    MethodNotAllowed,
    #[error("Request body too large")]
    PayloadTooLarge,
    #[error("Invalid request body or validation error")]
    InvalidBody(Vec<Problem>),
    /// A query parameter, named in the message (as ever) and, with what it must be, in `errors`.
    #[error("Invalid query parameter: {}", .0.field)]
    InvalidQuery(Problem),
    /// A rule of the document: its message, and (when there is more to say) every problem
    /// found, each naming where (`[1].email`, `recipients[2]`).
    #[error("{0}")]
    Rule(Rule, Vec<Problem>),
    #[error("Document not found")]
    DocumentNotFound,
    #[error("Template not found")]
    TemplateNotFound,
    #[error("Template is archived")]
    TemplateArchived,
    #[error("Bulk send not found")]
    BulkSendNotFound,
    #[error("Bulk send is already completed: every row was made")]
    BulkSendCompleted,
    #[error("File link is invalid or has expired")]
    InvalidFileLink,
    /// Issue #37: the file is gone under the account's retention policy (docs/retention.md).
    #[error("The document's files were removed under the account's retention policy")]
    FilesRemoved,
    /// A byte range outside a file of this many bytes (`GET /files/{id}`).
    #[error("Requested range is not satisfiable")]
    RangeNotSatisfiable(u64),
    #[error("Signing link not found")]
    SigningLinkNotFound,
    #[error("Recipient not found")]
    RecipientNotFound,
    /// Signer authentication (issue #34): the link asks for a code first, is locked, or a
    /// code cannot be sent or checked now.
    #[error("{0}")]
    SignerAuth(AuthRefusal),
    #[error("This form has expired; reload the page and try again")]
    CsrfRejected,
    #[error("{0}")]
    Conflict(signet_common::Conflict),
    /// The first request with this `Idempotency-Key` has not been answered yet.
    #[error("A request with this Idempotency-Key is still being processed")]
    IdempotencyKeyInFlight,
    /// The `Idempotency-Key` came before with a different method, path or body.
    #[error("This Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    #[error("Service unavailable")]
    Unavailable,
    /// Work of this kind is at its bound for the account or overall (docs/security.md).
    #[error("{0}")]
    Busy(&'static str),
    #[error("Internal server error")]
    Internal,
    /// A failure on our side (database, file store, job queue…): answered as `Unavailable`
    /// when the database cannot be reached, else as `Internal`, and logged when answered.
    #[error("{}", answered_as(.0))]
    Failed(Error),
}

/// The `Retry-After` of a 429 for work at its bound: a bulk send's check or an upload passes in
/// seconds.
pub const BUSY_RETRY_AFTER_SECS: u64 = 5;

/// The `Retry-After` of a 503: a database restart or a full connection budget passes in seconds.
pub const UNAVAILABLE_RETRY_AFTER_SECS: u64 = 2;

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::MissingKey | Self::InvalidKey => StatusCode::UNAUTHORIZED,
            Self::RateLimited { .. } | Self::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
            Self::RouteNotFound
            | Self::DocumentNotFound
            | Self::TemplateNotFound
            | Self::BulkSendNotFound
            | Self::RecipientNotFound
            | Self::SigningLinkNotFound => StatusCode::NOT_FOUND,
            Self::SignerAuth(refusal) => match refusal {
                AuthRefusal::Required(_) => StatusCode::UNAUTHORIZED,
                AuthRefusal::Locked(_) => StatusCode::FORBIDDEN,
                AuthRefusal::TooSoon { .. } => StatusCode::TOO_MANY_REQUESTS,
                AuthRefusal::NotSent | AuthRefusal::NoneAsked => StatusCode::BAD_REQUEST,
            },
            Self::Conflict(_)
            | Self::IdempotencyKeyInFlight
            | Self::TemplateArchived
            | Self::BulkSendCompleted => StatusCode::CONFLICT,
            Self::IdempotencyKeyReused => StatusCode::UNPROCESSABLE_ENTITY,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::InvalidBody(_) | Self::InvalidQuery(_) | Self::Rule(..) => {
                StatusCode::BAD_REQUEST
            }
            Self::InvalidFileLink | Self::CsrfRejected => StatusCode::FORBIDDEN,
            Self::FilesRemoved => StatusCode::GONE,
            Self::RangeNotSatisfiable(_) => StatusCode::RANGE_NOT_SATISFIABLE,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Failed(error) => answered_as(error).status(),
        }
    }

    /// The problems of a refused request, property by property (a form shows them as text).
    pub fn problems(&self) -> Option<&[Problem]> {
        match self {
            Self::InvalidBody(problems) | Self::Rule(_, problems) if !problems.is_empty() => {
                Some(problems)
            }
            _ => None,
        }
    }

    /// Logs a failure on our side; called once, where its response is made.
    pub fn log(&self) {
        match self {
            Self::Failed(error) if error.is_unavailable() => {
                tracing::warn!(error = %error, "database unavailable");
            }
            Self::Failed(error) => tracing::error!(error = %error, "request failed"),
            _ => {}
        }
    }

    /// The error an unexpected status maps to, for responses not made by this type.
    pub fn for_status(status: StatusCode) -> Self {
        match status {
            StatusCode::NOT_FOUND => Self::RouteNotFound,
            StatusCode::METHOD_NOT_ALLOWED => Self::MethodNotAllowed,
            StatusCode::PAYLOAD_TOO_LARGE => Self::PayloadTooLarge,
            StatusCode::SERVICE_UNAVAILABLE | StatusCode::REQUEST_TIMEOUT => Self::Unavailable,
            s if s.is_client_error() => Self::InvalidBody(Vec::new()),
            _ => Self::Internal,
        }
    }
}

/// The one mapping from the domain error to the envelope's errors. It does not log: a
/// conversion may be inspected and dropped; [`ApiError::log`] runs where the response is made.
impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        match error {
            Error::DocumentNotFound => Self::DocumentNotFound,
            Error::TemplateNotFound => Self::TemplateNotFound,
            Error::TemplateArchived => Self::TemplateArchived,
            Error::BulkSendNotFound => Self::BulkSendNotFound,
            Error::BulkSendCompleted => Self::BulkSendCompleted,
            Error::FilesRemoved => Self::FilesRemoved,
            Error::Invalid(problems) => Self::InvalidBody(problems),
            Error::InvalidQuery(problem) => Self::InvalidQuery(problem),
            Error::Rule(rule) => Self::Rule(rule, Vec::new()),
            Error::Refused { rule, problems } => Self::Rule(rule, problems),
            Error::Conflict(conflict) => Self::Conflict(conflict),
            Error::SigningLinkNotFound => Self::SigningLinkNotFound,
            Error::RecipientNotFound => Self::RecipientNotFound,
            Error::SignerAuth(refusal) => Self::SignerAuth(refusal),
            // Only an upload reads a PDF; the file is the property at fault.
            Error::Pdf(e) => Self::InvalidBody(vec![Problem::new("file", e.to_string())]),
            e => Self::Failed(e),
        }
    }
}

/// What a failure on our side is answered as.
fn answered_as(error: &Error) -> ApiError {
    if error.is_unavailable() {
        ApiError::Unavailable
    } else {
        ApiError::Internal
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Self::Failed(error) = &self {
            self.log();
            return answered_as(error).into_response();
        }
        let code = match self {
            Self::MissingKey | Self::InvalidKey => "UNAUTHENTICATED",
            Self::SignerAuth(AuthRefusal::Required(_)) => "AUTHENTICATION_REQUIRED",
            Self::SignerAuth(AuthRefusal::Locked(_)) => "AUTHENTICATION_LOCKED",
            _ => "ERROR",
        };
        // The method is all a refused signing link says: nothing of the document.
        if let Self::SignerAuth(AuthRefusal::Required(method) | AuthRefusal::Locked(method)) = &self
        {
            let data = serde_json::json!({ "method": method });
            return (
                self.status(),
                [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
                Json(Envelope {
                    code,
                    message: self.to_string(),
                    data,
                    errors: None,
                }),
            )
                .into_response();
        }
        let view = |p: &Problem| ProblemView {
            field: p.field.clone(),
            reason: p.reason.clone(),
        };
        let errors = match &self {
            Self::InvalidQuery(problem) => Some(vec![view(problem)]),
            other => other.problems().map(|problems| {
                problems
                    .iter()
                    .take(signet_common::error::MAX_LISTED_PROBLEMS)
                    .map(view)
                    .collect()
            }),
        };
        let mut response = (
            self.status(),
            Json(Envelope {
                code,
                message: self.to_string(),
                data: Empty {},
                errors,
            }),
        )
            .into_response();
        match self {
            Self::RangeNotSatisfiable(size) => {
                if let Ok(value) = HeaderValue::from_str(&format!("bytes */{size}")) {
                    response.headers_mut().insert(header::CONTENT_RANGE, value);
                }
            }
            Self::RateLimited { retry_after_secs }
            | Self::SignerAuth(AuthRefusal::TooSoon { retry_after_secs }) => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            }
            // The database is away or every connection of the budget is busy, or the first
            // request with this key is still running: worth another try shortly.
            Self::Busy(_) => {
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(BUSY_RETRY_AFTER_SECS),
                );
            }
            Self::Unavailable | Self::IdempotencyKeyInFlight => {
                response.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(UNAVAILABLE_RETRY_AFTER_SECS),
                );
            }
            _ => {}
        }
        response
    }
}
