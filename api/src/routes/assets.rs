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
        "template-roles.mjs",
        "text/javascript",
        include_bytes!("../../static/template-roles.mjs"),
    ),
    (
        "copy.mjs",
        "text/javascript",
        include_bytes!("../../static/copy.mjs"),
    ),
    (
        "bulk-progress.mjs",
        "text/javascript",
        include_bytes!("../../static/bulk-progress.mjs"),
    ),
    (
        "sign-page.mjs",
        "text/javascript",
        include_bytes!("../../static/sign-page.mjs"),
    ),
    (
        "embedded.mjs",
        "text/javascript",
        include_bytes!("../../static/embedded.mjs"),
    ),
    (
        "sign-auth.mjs",
        "text/javascript",
        include_bytes!("../../static/sign-auth.mjs"),
    ),
];

pub fn router() -> Router<AppState> {
    Router::new()
        .route(&format!("{BASE}/{{name}}"), get(asset))
        .route(&format!("{BASE}/fonts/{{name}}"), get(font))
        .route("/embed.js", get(embed_js))
}

/// `/embed.js`: the integrator's script for embedded signing (docs/signing.md, "Embedded
/// signing"). At a fixed address, for integrators to load from their pages: cached for an hour.
async fn embed_js() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        include_str!("../../static/embed.js"),
    )
        .into_response()
}

/// The fonts the final PDF is drawn with, for previews that show text as the PDF will: the Noto
/// files as they are, and its CJK face as WOFF2 subsets (browsers refuse the TrueType
/// collection itself).
async fn font(Path(name): Path<String>) -> Response {
    let served = |file: &&str| *file == name;
    let ttf = TTF_FACES
        .iter()
        .find(|(file, _)| served(file))
        .and_then(|_| signet_pdf::font_files().find(|(file, _)| served(file)))
        .map(|(_, bytes)| ("font/ttf", bytes));
    let woff2 = || {
        CJK_FACES
            .iter()
            .find(|(file, _, _)| *file == name)
            .map(|(_, bytes, _)| ("font/woff2", *bytes))
    };
    match ttf.or_else(woff2) {
        Some((content_type, bytes)) => (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            bytes,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The shipped TrueType fonts served as they are, with the characters each is picked for.
const TTF_FACES: [(&str, &str); 4] = [
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
];

/// The final PDF's CJK face (WenQuanYi Micro Hei) as WOFF2 subsets made by
/// `scripts/web-fonts.sh` (api/static/fonts/README.md): every CJK character it has (1.1 MiB),
/// then the page's own (the language names and the zh-Hans, ja and ko strings). The page's comes
/// last, so that a browser looks in it first and fetches the whole face only for a name, title
/// or value that has a character the page's words lack.
const CJK_FACES: [(&str, &[u8], &str); 2] = [
    (
        "wqy-microhei.woff2",
        include_bytes!("../../static/fonts/wqy-microhei.woff2"),
        include_str!("../../static/fonts/wqy-microhei.unicode-range"),
    ),
    (
        "wqy-microhei-page.woff2",
        include_bytes!("../../static/fonts/wqy-microhei-page.woff2"),
        include_str!("../../static/fonts/wqy-microhei-page.unicode-range"),
    ),
];

/// `@font-face` rules for the fonts of the final PDF, each limited to the characters the final
/// PDF picks it for, so that a browser fetches only the files a text needs: "Signet Text" for
/// the Noto faces, "Signet CJK" for the CJK face. (Of rules whose ranges overlap, a browser tries
/// the last first.)
pub fn font_faces() -> String {
    let ttf = TTF_FACES
        .iter()
        .map(|(file, range)| ("Signet Text", *file, "truetype", *range));
    let cjk = CJK_FACES
        .iter()
        .map(|(file, _, range)| ("Signet CJK", *file, "woff2", range.trim()));
    ttf.chain(cjk)
        .map(|(family, file, format, range)| {
            format!(
                "@font-face{{font-family:\"{family}\";src:url(\"{BASE}/fonts/{file}\") format(\"{format}\");unicode-range:{range}}}"
            )
        })
        .collect()
}

/// Whether the page's CJK font (`wqy-microhei-page.woff2`) is declared for `c`.
#[cfg(test)]
pub(crate) fn page_font_has(c: char) -> bool {
    CJK_FACES[1].2.trim().split(',').any(|range| {
        let range = range.trim().trim_start_matches("U+");
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let code = |hex: &str| u32::from_str_radix(hex, 16).expect("a unicode-range");
        (code(first)..=code(last)).contains(&u32::from(c))
    })
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
