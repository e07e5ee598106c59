//! Static assets of the console, embedded in the binary and served under a path that names the
//! release, so they can be cached forever.

use axum::{
    Router,
    extract::Path,
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};

use crate::AppState;

/// Where the assets of this release are served.
pub const BASE: &str = concat!("/app/static/", env!("CARGO_PKG_VERSION"));

const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "pdf.min.mjs",
        "text/javascript",
        include_bytes!("../../static/pdfjs/pdf.min.mjs"),
    ),
    (
        "pdf.worker.min.mjs",
        "text/javascript",
        include_bytes!("../../static/pdfjs/pdf.worker.min.mjs"),
    ),
    (
        "pdfjs-LICENSE.txt",
        "text/plain; charset=utf-8",
        include_bytes!("../../static/pdfjs/LICENSE"),
    ),
    (
        "pages.mjs",
        "text/javascript",
        include_bytes!("../../static/pages.mjs"),
    ),
    (
        "place-fields.mjs",
        "text/javascript",
        include_bytes!("../../static/place-fields.mjs"),
    ),
    (
        "sign-page.mjs",
        "text/javascript",
        include_bytes!("../../static/sign-page.mjs"),
    ),
];

pub fn router() -> Router<AppState> {
    Router::new().route(&format!("{BASE}/{{name}}"), get(asset))
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(asset, _, _)| *asset == name) {
        Some((_, content_type, bytes)) => (
            [
                (header::CONTENT_TYPE, *content_type),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            *bytes,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
