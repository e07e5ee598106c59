//! What a failed command tells the operator.

use signet_common::Error;

/// A failed command: what to tell the operator (on stderr, with exit status 1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CliError(pub String);

impl From<Error> for CliError {
    fn from(error: Error) -> Self {
        Self(match error {
            Error::DocumentNotFound => "document not found".into(),
            Error::Pdf(e) => format!("cannot upload: {e}"),
            Error::Invalid(problems) if problems.len() == 1 => {
                format!("{}: {}", problems[0].field, problems[0].reason)
            }
            e @ Error::Storage(_) if e.is_unavailable() => {
                format!("cannot reach the file store; nothing was saved: {e}")
            }
            e if e.is_unavailable() => format!("cannot reach the database: {e}"),
            e => e.to_string(),
        })
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> Self {
        Self(error.to_string())
    }
}
