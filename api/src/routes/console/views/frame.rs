//! The frame every console page shares: the page itself, its header, the CSRF field of its
//! forms, and the pages of a refusal.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
};
use maud::{Markup, html};

use crate::html::layout;

/// A console page in the shared frame, with its status.
pub(in crate::routes::console) fn page(status: StatusCode, title: &str, body: Markup) -> Response {
    (status, layout(title, body)).into_response()
}

/// The hidden field that carries the session's CSRF token in every state-changing form.
pub(super) fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

/// The console's header: its sections and sign-out.
pub(super) fn nav(csrf: &str) -> Markup {
    html! {
        nav.top {
            a href="/app/documents" { "Documents" }
            a href="/app/templates" { "Templates" }
            a href="/app/settings/api" { "API settings" }
            span style="flex:1" {}
            form method="post" action="/app/sign-out" { (csrf_field(csrf)) button type="submit" { "Sign out" } }
        }
    }
}

/// A form whose CSRF token is missing or wrong.
pub(in crate::routes::console) fn form_expired() -> Response {
    page(
        StatusCode::FORBIDDEN,
        "Form expired",
        html! {
            h1 { "This form has expired" }
            p { "Reload the page and try again." }
        },
    )
}

/// Any other refusal or failure: the API's status and message.
pub(in crate::routes::console) fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Error",
        html! { h1 { "Something went wrong" } p { (message) } },
    )
}
