//! `GET /files/{id}?expires=…&sig=…`: the document's PDF behind a signed, expiring link,
//! streamed from the file store with its length, a strong `ETag` (its SHA-256) and single
//! byte ranges, or, with `FILE_DOWNLOADS=redirect` and a bucket, a `307` to a presigned URL.

use std::time::Duration;

use axum::{
    Router,
    body::Body,
    extract::{Path, RawQuery, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::Utc;
use signet_common::{
    Error,
    infra::{config::FileDownloads, db::Lsn, files::StoreError},
    model::{DocumentId, DocumentStatus},
    store::documents,
};

use crate::{AppState, error::ApiError, extract::query_once};

pub fn router() -> Router<AppState> {
    Router::new().route("/files/{id}", get(download))
}

async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    request_headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = DocumentId(id.parse().map_err(|_| ApiError::InvalidFileLink)?);
    let query = query.as_deref();
    let expires = query_once(query, "expires").and_then(|value| value.parse::<i64>().ok());
    let (Some(expires), Some(sig)) = (expires, query_once(query, "sig")) else {
        return Err(ApiError::InvalidFileLink);
    };
    // The link's authority is the document; which of its files is the reader's choice.
    let original = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .any(|(name, value)| name == "original" && value == "1");
    if !state.links.verify(id, expires, &sig, Utc::now()) {
        return Err(ApiError::InvalidFileLink);
    }
    // A file link is a read of the document's metadata: a replica may answer it.
    let reads = state.db.reads(Lsn::default());
    let document = signet_common::read!(reads, |db| documents::find_by_signed_link(db, id))?;
    if document.files_removed_at.is_some() {
        return Err(ApiError::FilesRemoved);
    }
    let (key, sha256) = match (&document.status, &document.final_file_key) {
        (DocumentStatus::Completed, Some(final_key)) if !original => {
            (final_key, document.final_sha256.as_deref())
        }
        _ => (&document.file_key, Some(document.sha256.as_str())),
    };
    let filename = format!("{}.pdf", document.code);
    if state.config.files.downloads == FileDownloads::Redirect
        && let Some(url) = state
            .store
            .presigned_url(key, PRESIGNED_TTL, &filename)
            .await
    {
        let url = url.map_err(Error::from)?;
        return Ok((
            StatusCode::TEMPORARY_REDIRECT,
            [
                (header::LOCATION, url.to_string()),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
        )
            .into_response());
    }
    // The file under a key never changes, so its SHA-256 is a strong validator.
    let etag = sha256.map(|sha256| format!("\"{sha256}\""));
    let mut headers = vec![
        (header::CONTENT_TYPE, "application/pdf".to_owned()),
        (
            header::CONTENT_DISPOSITION,
            format!("inline; filename=\"{filename}\""),
        ),
        (header::CACHE_CONTROL, "private, no-store".to_owned()),
        (header::ACCEPT_RANGES, "bytes".to_owned()),
    ];
    if let Some(etag) = &etag {
        headers.push((header::ETAG, etag.clone()));
        if matches_any(request_headers.get(header::IF_NONE_MATCH), etag) {
            return Ok(with_headers(
                StatusCode::NOT_MODIFIED,
                headers,
                Body::empty(),
            ));
        }
    }
    let range = match requested_range(&request_headers, etag.as_deref()) {
        None => None,
        Some(range) => {
            let size = state.store.size(key).await.map_err(|e| missing(e, id))?;
            match range.validate(size) {
                Ok(ranges) if ranges.len() == 1 => {
                    let range = &ranges[0];
                    Some(*range.start()..range.end() + 1)
                }
                // Several ranges: the whole file (RFC 9110 lets a server ignore Range).
                Ok(_) => None,
                Err(_) => return Err(ApiError::RangeNotSatisfiable(size)),
            }
        }
    };
    let partial = range.is_some();
    let file = state
        .store
        .open(key, range)
        .await
        .map_err(|e| missing(e, id))?;
    headers.push((
        header::CONTENT_LENGTH,
        (file.range.end - file.range.start).to_string(),
    ));
    let status = if partial {
        headers.push((
            header::CONTENT_RANGE,
            format!(
                "bytes {}-{}/{}",
                file.range.start,
                file.range.end - 1,
                file.size
            ),
        ));
        StatusCode::PARTIAL_CONTENT
    } else {
        StatusCode::OK
    };
    Ok(with_headers(
        status,
        headers,
        Body::from_stream(file.stream),
    ))
}

/// How long a presigned URL of the bucket works (FILE_DOWNLOADS=redirect): long enough to
/// follow the redirect, short enough that a copied URL soon stops working.
const PRESIGNED_TTL: Duration = Duration::from_secs(300);

/// A file a document names but the store does not have is our failure, logged; a store that
/// cannot be reached is a 503.
fn missing(error: StoreError, id: DocumentId) -> ApiError {
    if matches!(error, StoreError::NotFound { .. }) {
        tracing::error!(error = %error, document = %id, "stored file missing");
    }
    Error::from(error).into()
}

/// The single range asked for, unless `If-Range` names another version of the file. A range
/// header that cannot be parsed is ignored, as RFC 9110 allows.
fn requested_range(
    headers: &HeaderMap,
    etag: Option<&str>,
) -> Option<http_range_header::ParsedRanges> {
    let range = headers.get(header::RANGE)?.to_str().ok()?;
    if let Some(if_range) = headers.get(header::IF_RANGE)
        && Some(if_range.as_bytes()) != etag.map(str::as_bytes)
    {
        return None;
    }
    http_range_header::parse_range_header(range).ok()
}

/// Whether an `If-None-Match` value names `etag` (or is `*`).
fn matches_any(value: Option<&HeaderValue>, etag: &str) -> bool {
    let Some(value) = value.and_then(|v| v.to_str().ok()) else {
        return false;
    };
    value
        .split(',')
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag == etag)
}

fn with_headers(
    status: StatusCode,
    headers: Vec<(header::HeaderName, String)>,
    body: Body,
) -> Response {
    let mut response = (status, body).into_response();
    for (name, value) in headers {
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}
