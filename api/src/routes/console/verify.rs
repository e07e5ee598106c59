//! `/verify`: the public page where anyone checks a final PDF's seal without signing in. The
//! seal is checked offline (`signet_pdf::seal::check_file`, in the PDF sandbox, within its
//! own gates: a rate and one check at a time per client, `VERIFY_CONCURRENCY` overall); only when it holds *and* the file is byte for byte the final PDF of a completed
//! document here does the page show that document's code, title, signers and completion time —
//! what the file's own certificate page says. Anything else reveals nothing about documents.

use axum::{
    extract::{Multipart, State},
    http::{HeaderValue, StatusCode, header},
    response::Response,
};
use signet_common::store::documents;
use signet_pdf::seal::Unverified;

use super::views::{self, Verdict, page};
use crate::{AppState, extract::ClientActor, html::count};

pub(super) async fn form() -> Response {
    page(StatusCode::OK, "Verify", views::verify(&Verdict::Ask))
}

pub(super) async fn check(
    State(state): State<AppState>,
    ClientActor(actor): ClientActor,
    multipart: Multipart,
) -> Response {
    // Before the body is read, as for uploads: each check holds up to VERIFY_MAX_MIB and a
    // sandbox child. The client's rate, then its one place, then a place overall.
    let client = super::session::client_source(&actor);
    let gates = &state.gates;
    if let Err(wait) = gates.verify_rate.try_count(client.clone()) {
        let seconds = wait.as_secs().clamp(1, 60);
        let refusal = format!(
            "You have checked {} files in the last minute. Try again in {}.",
            state.config.limits.verify.per_client_per_minute,
            count(seconds as i64, "second", "seconds")
        );
        return refused(StatusCode::TOO_MANY_REQUESTS, refusal, Some(seconds));
    }
    let client_slot = gates.verify_per_client.try_acquire(client);
    let (Some(client_slot), Some(ticket)) = (client_slot, gates.verify.admit()) else {
        let busy = "Too many files are being checked. Try again in a moment.";
        return refused(StatusCode::TOO_MANY_REQUESTS, busy.into(), Some(5));
    };
    let running = ticket.run().await;
    let pdf = match read_pdf(multipart, state.config.limits.verify.max_bytes).await {
        Err((status, reason)) => return refused(status, reason, None),
        Ok(pdf) => pdf,
    };
    let verdict = verdict(&state, pdf, (client_slot, running)).await;
    let status = match verdict {
        Verdict::Refused(_) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::OK,
    };
    page(status, "Verify", views::verify(&verdict))
}

fn refused(status: StatusCode, reason: String, retry_after: Option<u64>) -> Response {
    let mut response = page(status, "Verify", views::verify(&Verdict::Refused(reason)));
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// The verdict on `pdf`. Its places (`hold`) are kept until the sandbox child is gone, even
/// if the request ends first.
async fn verdict(state: &AppState, pdf: Vec<u8>, hold: impl Send + 'static) -> Verdict {
    let checked = state
        .gates
        .pdf
        .verify(&pdf, state.seal_anchors.clone(), hold)
        .await;
    let report = match checked {
        Err(Unverified::Unreadable(e)) => {
            return Verdict::Refused(format!(
                "The seal does not hold: it is not a PDF Signet can read ({e})."
            ));
        }
        Err(Unverified::Broken(reason)) => {
            return Verdict::Refused(format!("The seal does not hold: {reason}."));
        }
        Ok(report) => report,
    };
    let sha256 = signet_pdf::sha256_hex(&pdf);
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

/// The uploaded file, up to `max_bytes`.
async fn read_pdf(
    mut multipart: Multipart,
    max_bytes: usize,
) -> Result<Vec<u8>, (StatusCode, String)> {
    let choose = || {
        (
            StatusCode::BAD_REQUEST,
            "Choose a PDF file to verify.".to_owned(),
        )
    };
    while let Ok(Some(mut field)) = multipart.next_field().await {
        if field.name() != Some("file") {
            continue;
        }
        let mut bytes = Vec::new();
        while let Ok(Some(chunk)) = field.chunk().await {
            if bytes.len() + chunk.len() > max_bytes {
                return Err((
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "The file is larger than the {} MiB this page checks.",
                        max_bytes / (1024 * 1024)
                    ),
                ));
            }
            bytes.extend_from_slice(&chunk);
        }
        return if bytes.is_empty() {
            Err(choose())
        } else {
            Ok(bytes)
        };
    }
    Err(choose())
}
