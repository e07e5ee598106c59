//! `/verify`: the public page where anyone checks a final PDF's seal without signing in. The
//! seal is checked offline (`signet_pdf::seal::verify`, on the PDF threads, within the upload
//! gate); only when it holds *and* the file is byte for byte the final PDF of a completed
//! document here does the page show that document's code, title, signers and completion time —
//! what the file's own certificate page says. Anything else reveals nothing about documents.

use axum::{
    extract::{Multipart, State},
    http::{HeaderValue, StatusCode, header},
    response::Response,
};
use signet_common::store::documents;

use super::views::{self, Verdict, page};
use crate::AppState;

pub(super) async fn form() -> Response {
    page(StatusCode::OK, "Verify", views::verify(&Verdict::Ask))
}

pub(super) async fn check(State(state): State<AppState>, multipart: Multipart) -> Response {
    // Before the body is read, as for uploads: each holds up to 50 MiB and a PDF thread.
    let Some(ticket) = state.gates.uploads.admit() else {
        let busy =
            Verdict::Refused("Too many files are being checked. Try again in a moment.".into());
        let mut response = page(
            StatusCode::TOO_MANY_REQUESTS,
            "Verify",
            views::verify(&busy),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        return response;
    };
    let _running = ticket.run().await;
    let verdict = match read_pdf(multipart).await {
        Err(reason) => Verdict::Refused(reason.into()),
        Ok(pdf) => verdict(&state, pdf).await,
    };
    let status = match verdict {
        Verdict::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::OK,
    };
    page(status, "Verify", views::verify(&verdict))
}

async fn verdict(state: &AppState, pdf: Vec<u8>) -> Verdict {
    let anchors = state.seal_anchors.clone();
    let limits = state.config.limits.pdf;
    let checked = state
        .gates
        .inspecting
        .run(move || {
            // The upload's checks first, within the same inflation and time budget: the file
            // is untrusted, and the seal's check parses it whole.
            signet_pdf::inspect_with(&pdf, limits)
                .map_err(|e| format!("it is not a PDF Signet can read ({e})"))?;
            let sha256 = signet_pdf::sha256_hex(&pdf);
            signet_pdf::seal::verify(&pdf, &anchors).map(|report| (report, sha256))
        })
        .await;
    let (report, sha256) = match checked {
        None => return Verdict::Refused("The file could not be read.".into()),
        Some(Err(reason)) => return Verdict::Refused(format!("The seal does not hold: {reason}.")),
        Some(Ok(checked)) => checked,
    };
    match documents::issued_with_final_sha256(&state.db.pool, &sha256).await {
        Ok(Some(document)) => Verdict::Issued {
            document,
            sealed_by: report.signer,
            trusted: report.trusted,
        },
        Ok(None) => Verdict::Unknown {
            sealed_by: report.signer,
        },
        Err(e) => {
            tracing::error!(error = %e, "verify: the document lookup failed");
            Verdict::Refused(
                "The service cannot check this file right now. Try again later.".into(),
            )
        }
    }
}

/// The uploaded file, up to the largest PDF Signet accepts.
async fn read_pdf(mut multipart: Multipart) -> Result<Vec<u8>, &'static str> {
    while let Ok(Some(mut field)) = multipart.next_field().await {
        if field.name() != Some("file") {
            continue;
        }
        let mut bytes = Vec::new();
        while let Ok(Some(chunk)) = field.chunk().await {
            if bytes.len() + chunk.len() > signet_pdf::MAX_UPLOAD_BYTES {
                return Err("The file is larger than any final PDF Signet makes.");
            }
            bytes.extend_from_slice(&chunk);
        }
        return if bytes.is_empty() {
            Err("Choose a PDF file to verify.")
        } else {
            Ok(bytes)
        };
    }
    Err("Choose a PDF file to verify.")
}
