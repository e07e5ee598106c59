//! The console's upload: a multipart form (title and PDF) read in chunks up to the largest
//! accepted PDF, stored through the same function as `signet-api document upload` (or, with
//! "Find fields in the PDF" ticked, with the fields its tags and form fields give, waiting for
//! recipients); refusals are shown on the documents page.

use axum::{
    extract::{Multipart, State},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Redirect, Response},
};
use signet_common::{
    Problem,
    flows::{drafting, found_fields},
    wire::inputs,
};

use super::{documents::render_list, failure::Failure, session::Console};
use crate::{
    AppState,
    error::ApiError,
    extract::{ClientActor, ListParams},
};

/// Room for the form fields around the largest accepted PDF.
pub(super) const UPLOAD_BODY_LIMIT: usize = signet_pdf::MAX_UPLOAD_BYTES + 64 * 1024;

/// The upload form's fields; the file is read up to the largest accepted PDF.
#[derive(Default)]
struct UploadForm {
    csrf: String,
    title: String,
    /// "Find fields in the PDF" ticked.
    find_fields: bool,
    file_name: String,
    bytes: Vec<u8>,
    too_large: bool,
}

impl UploadForm {
    async fn read(mut multipart: Multipart) -> Self {
        let mut form = Self::default();
        while let Ok(Some(mut field)) = multipart.next_field().await {
            match field.name().unwrap_or_default() {
                "csrf" => form.csrf = field.text().await.unwrap_or_default(),
                "title" => form.title = field.text().await.unwrap_or_default(),
                "find_fields" => form.find_fields = true,
                "file" => {
                    form.file_name = field.file_name().unwrap_or_default().to_owned();
                    while let Ok(Some(chunk)) = field.chunk().await {
                        if form.bytes.len() + chunk.len() > signet_pdf::MAX_UPLOAD_BYTES {
                            form.too_large = true;
                            break;
                        }
                        form.bytes.extend_from_slice(&chunk);
                    }
                }
                _ => {}
            }
        }
        form
    }
}

/// Streams the upload into memory up to the limit (the PDF is inspected whole anyway), then
/// stores it through the same function as `signet-api document upload`.
pub(super) async fn upload(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    multipart: Multipart,
) -> Result<Response, Failure> {
    // Before the body is read: each upload holds up to 50 MiB and a blocking thread.
    let Some(_admitted) = state.gates.uploads.admit(console.session.account_id).await else {
        let busy = crate::extract::UPLOADS_BUSY;
        let mut response =
            upload_refused(&state, &console, busy, StatusCode::TOO_MANY_REQUESTS).await?;
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return Ok(response);
    };
    let form = UploadForm::read(multipart).await;
    console.check_token(&form.csrf)?;
    if form.too_large {
        let too_large = "The file is larger than 50 MiB.";
        return upload_refused(&state, &console, too_large, StatusCode::BAD_REQUEST).await;
    }
    let title = inputs::upload_title(Some(&form.title), &form.file_name);
    let (pool, store, account_id) = (&state.db.pool, &state.store, console.session.account_id);
    let uploaded = if form.find_fields {
        let sandbox = &state.gates.pdf;
        found_fields::upload(pool, store, account_id, &title, form.bytes, sandbox, &actor).await
    } else {
        let sandbox = &state.gates.pdf;
        drafting::upload_document(pool, store, account_id, &title, form.bytes, sandbox, &actor)
            .await
    };
    match uploaded.map_err(ApiError::from) {
        Ok(document) => {
            Ok(Redirect::to(&format!("/app/documents/{}", document.id)).into_response())
        }
        Err(error @ ApiError::InvalidBody(_)) => {
            let message = upload_refusal(error.problems().unwrap_or_default());
            upload_refused(&state, &console, &message, error.status()).await
        }
        Err(ApiError::Failed(error @ signet_common::Error::Storage(_)))
            if error.is_unavailable() =>
        {
            tracing::warn!(error = %error, "upload: the file store cannot be reached");
            let unreachable = "The file store cannot be reached right now; nothing was saved. Try again in a moment.";
            let mut response = upload_refused(
                &state,
                &console,
                unreachable,
                StatusCode::SERVICE_UNAVAILABLE,
            )
            .await?;
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            Ok(response)
        }
        Err(error) => Err(error.into()),
    }
}

/// The list (unfiltered) with why the upload was refused.
async fn upload_refused(
    state: &AppState,
    console: &Console,
    message: &str,
    status: StatusCode,
) -> Result<Response, Failure> {
    render_list(
        &state.db.reads(signet_common::infra::db::Lsn::LATEST),
        console,
        &ListParams::default(),
        Some(message),
        status,
    )
    .await
}

/// An upload's refusal in words: the file's (its reason names the file) or the title's.
fn upload_refusal(problems: &[Problem]) -> String {
    match problems.first() {
        Some(problem) if problem.field == "file" => format!("Cannot upload: {}.", problem.reason),
        Some(problem)
            if problem.field.starts_with("tags[") || problem.field.starts_with("form[") =>
        {
            format!(
                "Cannot upload: the field {} found in the PDF is refused: {}.",
                problem.field, problem.reason
            )
        }
        Some(problem) if problem.field.starts_with("roles") => {
            format!(
                "Cannot upload: the fields found in the PDF are refused ({}: {}).",
                problem.field, problem.reason
            )
        }
        Some(problem) => format!("Cannot upload: the title {}.", problem.reason),
        None => "Cannot upload: the title is invalid.".into(),
    }
}
