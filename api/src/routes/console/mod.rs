//! The account console at `/app` (server-rendered): sign-in, the API settings of DESIGN and the
//! spec, and the documents. Every route of it is listed here; each feature's handlers live in
//! their own module, and the page markup in `views`.
//!
//! - `session`: the signed-in account (`Console`), cookies, CSRF, sign-in and sign-out.
//! - `settings`: the API key, usage, webhook URL, signing secret, delivery log and replay.
//! - `documents`: the list, document page, recipients, fields, send, cancel, resend.
//! - `templates`: the templates list and page, its roles and fields on the placement page,
//!   using a template, making one from a draft.
//! - `bulk_sends`: "Send to a list" from a template (CSV preview, send), its progress, cancel.
//! - `upload`: uploading a PDF from the documents page.
//! - `verify`: the public page that checks a final PDF's seal (`/verify`, no sign-in).
//! - `failure`: how a refused or failed console request is shown.
//! - `views`: the pages' markup, apart from the handlers.

mod bulk_sends;
mod documents;
mod failure;
mod session;
mod settings;
mod templates;
mod upload;
mod verify;
mod views;

use axum::{
    Router,
    extract::DefaultBodyLimit,
    response::Redirect,
    routing::{get, post},
};

use crate::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/app", get(|| async { Redirect::to("/app/documents") }))
        .route(
            "/app/sign-in",
            get(session::sign_in_page).post(session::sign_in),
        )
        .route("/app/sign-out", post(session::sign_out))
        .route(
            "/verify",
            get(verify::form)
                .post(verify::check)
                .layer(DefaultBodyLimit::max(upload::UPLOAD_BODY_LIMIT)),
        )
        .route("/app/settings/api", get(settings::show))
        .route(
            "/app/settings/api/key/generate",
            post(settings::generate_key),
        )
        .route("/app/settings/api/key/revoke", post(settings::revoke_key))
        .route("/app/settings/api/webhook", post(settings::set_webhook_url))
        .route("/app/settings/api/embedding", post(settings::set_embedding))
        .route(
            "/app/settings/api/webhook/secret/reveal",
            post(settings::reveal_secret),
        )
        .route(
            "/app/settings/api/webhook/secret/rotate",
            post(settings::rotate_secret),
        )
        .route(
            "/app/settings/api/deliveries/{id}/replay",
            post(settings::replay),
        )
        .route(
            "/app/documents",
            get(documents::list)
                .post(upload::upload)
                .layer(DefaultBodyLimit::max(upload::UPLOAD_BODY_LIMIT)),
        )
        .route("/app/documents/{id}", get(documents::detail))
        .route(
            "/app/documents/{id}/cancel",
            get(documents::confirm_cancel).post(documents::cancel),
        )
        .route("/app/documents/{id}/remind", post(documents::remind))
        .route(
            "/app/documents/{id}/recipients",
            post(documents::add_recipient),
        )
        .route("/app/documents/{id}/place", get(documents::place))
        .route("/app/documents/{id}/fields", post(documents::save_fields))
        .route("/app/documents/{id}/send", post(documents::send))
        .route(
            "/app/documents/{id}/placeholders",
            post(documents::assign_role),
        )
        .route(
            "/app/documents/{id}/recipients/{recipient}/resend",
            post(documents::resend_invitation),
        )
        .route(
            "/app/documents/{id}/recipients/{recipient}/remove",
            post(documents::remove_recipient),
        )
        .route(
            "/app/documents/{id}/recipients/{recipient}/unlock",
            post(documents::unlock_recipient),
        )
        .route(
            "/app/documents/{id}/template",
            post(templates::make_from_document),
        )
        .route("/app/templates", get(templates::list))
        .route("/app/templates/{id}", get(templates::detail))
        .route(
            "/app/templates/{id}/documents",
            post(templates::instantiate),
        )
        .route("/app/templates/{id}/archive", post(templates::archive))
        .route("/app/templates/{id}/place", get(templates::place))
        .route("/app/templates/{id}/file", get(templates::file))
        .route("/app/templates/{id}/roles", post(templates::save_roles))
        .route(
            "/app/templates/{id}/bulk-sends/preview",
            post(bulk_sends::preview).layer(DefaultBodyLimit::max(bulk_sends::PREVIEW_BODY_LIMIT)),
        )
        .route(
            "/app/templates/{id}/bulk-sends",
            post(bulk_sends::create).layer(DefaultBodyLimit::max(bulk_sends::CONFIRM_BODY_LIMIT)),
        )
        .route(
            "/app/templates/{id}/bulk-sends/header.csv",
            get(bulk_sends::csv_header),
        )
        .route("/app/bulk-sends/{id}", get(bulk_sends::progress))
        .route(
            "/app/bulk-sends/{id}/progress.json",
            get(bulk_sends::progress_json),
        )
        .route("/app/bulk-sends/{id}/cancel", post(bulk_sends::cancel))
}
