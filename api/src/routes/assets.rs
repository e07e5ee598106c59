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
        "copy.mjs",
        "text/javascript",
        include_bytes!("../../static/copy.mjs"),
    ),
    (
        "sign-page.mjs",
        "text/javascript",
        include_bytes!("../../static/sign-page.mjs"),
    ),
];

pub fn router() -> Router<AppState> {
    Router::new()
        .route(&format!("{BASE}/{{name}}"), get(asset))
        .route(&format!("{BASE}/fonts/{{name}}"), get(font))
}

/// The fonts the final PDF is drawn with, for previews that show text as the PDF will.
async fn font(Path(name): Path<String>) -> Response {
    match signet_pdf::font_files().find(|(file, _)| *file == name) {
        Some((_, bytes)) => (
            [
                (header::CONTENT_TYPE, "font/ttf"),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            bytes,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// `@font-face` rules naming the shipped fonts "Signet Text", in the order the final PDF picks
/// them, each limited to the characters it is picked for, so that a browser fetches only the
/// files a text needs.
pub fn font_faces() -> String {
    const FACES: [(&str, &str); 5] = [
        (
            "NotoSans-Regular.ttf",
            "U+0000-058F, U+1E00-1FFF, U+2000-2BFF",
        ),
        (
            "NotoSansArabic-Regular.ttf",
            "U+0600-06FF, U+0750-077F, U+08A0-08FF, U+FB50-FDFF, U+FE70-FEFF",
        ),
        ("NotoSansHebrew-Regular.ttf", "U+0590-05FF, U+FB1D-FB4F"),
        (
            "NotoSansDevanagari-Regular.ttf",
            "U+0900-097F, U+A8E0-A8FF, U+1CD0-1CFF",
        ),
        (
            "wqy-microhei.ttc",
            "U+3000-30FF, U+3100-318F, U+3400-4DBF, U+4E00-9FFF, U+AC00-D7AF, U+F900-FAFF, U+FF00-FFEF",
        ),
    ];
    FACES
        .iter()
        .map(|(file, range)| {
            format!(
                "@font-face{{font-family:\"Signet Text\";src:url(\"{BASE}/fonts/{file}\");unicode-range:{range}}}"
            )
        })
        .collect()
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
