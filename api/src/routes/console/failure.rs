//! A console request that cannot go on, shown as a page. API refusals keep the one mapping of
//! `ApiError` (status and message); the console only chooses how to show them.

use axum::response::{IntoResponse, Redirect, Response};

use super::views;
use crate::error::ApiError;

pub(super) enum Failure {
    SignInRequired,
    /// The form's CSRF token is missing or wrong.
    Forgery,
    Api(ApiError),
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Self::Api(error)
    }
}

impl From<signet_common::Error> for Failure {
    fn from(error: signet_common::Error) -> Self {
        Self::Api(error.into())
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        match self {
            Self::SignInRequired => Redirect::to("/app/sign-in").into_response(),
            Self::Forgery => views::form_expired(),
            Self::Api(error) => {
                error.log();
                views::error_page(error.status(), &error.to_string())
            }
        }
    }
}
