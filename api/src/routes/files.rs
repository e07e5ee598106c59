//! `GET /files/{id}?expires=…&sig=…`: the document's PDF behind a signed, expiring link.

use axum::{
    Router,
    body::Body,
    extract::{Path, RawQuery, State},
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::Utc;
use signet_common::{
    model::{DocumentId, DocumentStatus},
    store::documents,
};
use tokio_util::io::ReaderStream;

use crate::{AppState, error::ApiError};

pub fn router() -> Router<AppState> {
    Router::new().route("/files/{id}", get(download))
}

async fn download(
    State(state): State<AppState>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let id = DocumentId(id.parse().map_err(|_| ApiError::InvalidFileLink)?);
    let (mut expires, mut sig, mut original) = (None, None, false);
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            "expires" => expires = value.parse::<i64>().ok(),
            "sig" => sig = Some(value.into_owned()),
            // The link's authority is the document; which of its files is the reader's choice.
            "original" => original = value == "1",
            _ => {}
        }
    }
    let (Some(expires), Some(sig)) = (expires, sig) else {
        return Err(ApiError::InvalidFileLink);
    };
    if !state.links.verify(id, expires, &sig, Utc::now()) {
        return Err(ApiError::InvalidFileLink);
    }
    let document = documents::find_by_signed_link(&state.db.pool, id).await?;
    let key = match (&document.status, &document.final_file_key) {
        (DocumentStatus::Completed, Some(final_key)) if !original => final_key,
        _ => &document.file_key,
    };
    let file = tokio::fs::File::open(state.store.path(key))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, document = %id, "stored file missing");
            ApiError::Internal
        })?;
    let length = file.metadata().await.map(|m| m.len()).ok();
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/pdf".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{}.pdf\"", document.code),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        Body::from_stream(ReaderStream::new(file)),
    )
        .into_response();
    if let Some(length) = length {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, length.into());
    }
    Ok(response)
}
