//! The envelope every response carries, and the successful answers made in it (the errors'
//! are made in `error`).

use axum::{
    body::Bytes,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Serialize;

/// The envelope every response carries.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Envelope<T> {
    /// "DEFAULT" on success; "ERROR" or "UNAUTHENTICATED" on failure
    pub code: &'static str,
    pub message: String,
    pub data: T,
    /// On 400 responses: everything that was wrong, each problem naming its property or
    /// element (`[1].email`), not only the first; `message` is the first one's general message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ProblemView>>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ProblemView {
    pub field: String,
    pub reason: String,
}

/// `{}`: the data of every error and of successful writes.
#[derive(Debug, Default, Serialize, utoipa::ToSchema)]
pub struct Empty {}

/// A successful response: 200, code DEFAULT (made as a write's [`Answer`] is, which an
/// idempotent write also stores).
pub fn success<T: Serialize>(message: &str, data: T) -> Response {
    Answer::success(message, data).into_response()
}

/// A successful answer made before its effect, so that the effect's transaction can store it.
pub struct Answer {
    status: StatusCode,
    body: Bytes,
}

impl Answer {
    /// The body, as an idempotent write stores it.
    pub(crate) fn body(&self) -> &Bytes {
        &self.body
    }

    /// The status, as an idempotent write stores it.
    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }

    /// 202, code DEFAULT: taken, to be done by the workers.
    pub fn accepted<T: Serialize>(message: &str, data: T) -> Self {
        Self {
            status: StatusCode::ACCEPTED,
            ..Self::success(message, data)
        }
    }

    /// 200, code DEFAULT.
    pub fn success<T: Serialize>(message: &str, data: T) -> Self {
        let envelope = Envelope {
            code: "DEFAULT",
            message: message.to_owned(),
            data,
            errors: None,
        };
        Self {
            status: StatusCode::OK,
            body: serde_json::to_vec(&envelope)
                .expect("an envelope serialises")
                .into(),
        }
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        json_response(self.status, self.body)
    }
}

pub(crate) fn json_response(status: StatusCode, body: Bytes) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
