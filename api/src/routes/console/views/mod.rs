//! The console's pages: markup only. Handlers gather the data and pick the status; these
//! functions turn it into HTML inside the shared frame (`crate::html::layout`).

mod document_list;
mod document_page;
mod field_placement;
mod settings;
mod sign_in;
mod verify;

pub(super) use document_list::{DocumentList, document_list};
pub(super) use document_page::{DocumentPage, cancel_page, document_page};
pub(super) use field_placement::{Placement, field_placement};
pub(super) use settings::{Flash, Settings, settings};
pub(super) use sign_in::sign_in;
pub(super) use verify::{Verdict, verify};

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
};
use maud::{Markup, html};

use crate::html::layout;

/// A console page in the shared frame, with its status.
pub(super) fn page(status: StatusCode, title: &str, body: Markup) -> Response {
    (status, layout(title, body)).into_response()
}

/// The hidden field that carries the session's CSRF token in every state-changing form.
fn csrf_field(csrf: &str) -> Markup {
    html! { input type="hidden" name="csrf" value=(csrf); }
}

/// The console's header: its sections and sign-out.
fn nav(csrf: &str) -> Markup {
    html! {
        nav.top {
            a href="/app/documents" { "Documents" }
            a href="/app/settings/api" { "API settings" }
            span style="flex:1" {}
            form method="post" action="/app/sign-out" { (csrf_field(csrf)) button type="submit" { "Sign out" } }
        }
    }
}

/// A form whose CSRF token is missing or wrong.
pub(super) fn form_expired() -> Response {
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
pub(super) fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Error",
        html! { h1 { "Something went wrong" } p { (message) } },
    )
}
