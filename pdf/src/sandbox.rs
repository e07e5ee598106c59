//! The work Signet does on a PDF someone else made, in the form a separate process takes it:
//! a [`Task`] and the file in, an [`Answer`] (and the file made, if any) out.
//!
//! Every parse of an untrusted PDF (an upload, a file given to `/verify`, the original a final
//! PDF is made from) runs in a child process that the OS bounds in memory and CPU time, so that
//! a file that makes lopdf allocate gigabytes, loop or crash takes down only that child. The
//! process side (starting the child, its limits, its deadline) is in `signet-common`'s
//! `infra::pdf_sandbox`; this module is what the child runs, with no I/O but the two streams.
//!
//! A message is a little-endian `u64` length, that many bytes of JSON (the task or answer),
//! then the payload (the PDF) to the end of the stream.

use std::io::{Read, Write};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::attachment_image::{ImageError, ImageKind, ImageSize};
use crate::certificate::Certificate;
use crate::embedded_files::EmbeddedFile;
use crate::form_fields::FormError;
use crate::inspect::{InspectedPdf, Limits, MAX_UPLOAD_BYTES, PdfError};
use crate::seal::{self, SealDetails, SealReport, Unverified, ValidationData};
use crate::stamp::StampField;
use crate::text::TextBox;
use crate::text::tags::TakenTags;

/// The longest task the child reads: drawn signatures travel in it, each at most 512 KiB.
const MAX_TASK_BYTES: u64 = 64 * 1024 * 1024;
/// The most bytes a document's attachments (ATTACHMENT fields) may hold together: they travel
/// with the original to the rendering and are embedded in the final PDF.
pub const MAX_ATTACHMENT_BYTES: usize = 100 * 1024 * 1024;
/// The longest payload the child reads: a final PDF is the original, at most
/// [`MAX_UPLOAD_BYTES`], with stamps, certificate pages, the attachments and the seal.
pub const MAX_PAYLOAD_BYTES: usize = 2 * MAX_UPLOAD_BYTES + MAX_ATTACHMENT_BYTES;

/// What to do with the payload.
#[derive(Debug, Serialize, Deserialize)]
pub enum Task {
    /// The upload's checks: [`crate::inspect_with`].
    Inspect { limits: Limits },
    /// The upload's checks, then the seal's: [`seal::check_file`]. `anchors_pem`: the
    /// certificates a chain may end at to be trusted.
    Verify { limits: Limits, anchors_pem: String },
    /// The final PDF made from the original (the payload), with its seal's place left empty:
    /// [`crate::render_final_with`] then [`seal::with_placeholder`]. The parent signs it.
    /// The attachments' bytes follow the original in the payload, in order, each its `size`
    /// long.
    Render {
        limits: Limits,
        stamps: Vec<StampField>,
        #[serde(default)]
        attachments: Vec<EmbeddedFile>,
        certificate: Certificate,
        reason: String,
        signing_time: DateTime<Utc>,
    },
    /// The PDF's own form fields, each as the JSON of a `FieldInput`: [`crate::import_form`].
    ImportForm { limits: Limits },
    /// A sealed final PDF (the payload) with its long-term validation data: [`seal::with_dss`].
    EmbedValidationData {
        limits: Limits,
        data: ValidationData,
    },
    /// Where each of `needles` is shown: [`crate::find_text`].
    FindText {
        limits: Limits,
        needles: Vec<String>,
    },
    /// The text tags and the file without them (the payload of the answer, when it has any):
    /// [`crate::take_tags`].
    TakeTags { limits: Limits },
    /// A signer's attached image (the payload) decoded whole: [`crate::check_attachment_image`].
    CheckImage { kind: ImageKind },
}

/// What the child found. A task that yields a file sends it as the payload after this.
#[derive(Debug, Serialize, Deserialize)]
pub enum Answer {
    Inspected(Result<InspectedPdf, PdfError>),
    Verified(Result<SealReport, Unverified>),
    Rendered(Result<Rendered, String>),
    Embedded(Result<(), String>),
    FormImported(Result<Vec<serde_json::Value>, FormError>),
    FoundText(Result<Vec<Vec<TextBox>>, PdfError>),
    TookTags(Result<TakenTags, PdfError>),
    CheckedImage(Result<ImageSize, ImageError>),
    /// The task could not be read.
    Refused(String),
}

/// A final PDF with an empty seal (the payload), and what the completion records of it.
#[derive(Debug, Serialize, Deserialize)]
pub struct Rendered {
    pub stamped_sha256: String,
    pub certificate_pages: usize,
}

/// Writes one message.
pub fn write_message(
    to: &mut impl Write,
    header: &impl Serialize,
    payload: &[u8],
) -> std::io::Result<()> {
    let header = serde_json::to_vec(header).map_err(std::io::Error::other)?;
    to.write_all(&(header.len() as u64).to_le_bytes())?;
    to.write_all(&header)?;
    to.write_all(payload)?;
    to.flush()
}

/// Splits a whole message into its header and payload.
pub fn split_message<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<(T, &[u8]), String> {
    let (length, rest) = bytes
        .split_first_chunk::<8>()
        .ok_or("the message is shorter than its length")?;
    let length = usize::try_from(u64::from_le_bytes(*length))
        .ok()
        .filter(|&length| length <= rest.len())
        .ok_or("the message is shorter than its header")?;
    let (header, payload) = rest.split_at(length);
    let header = serde_json::from_slice(header).map_err(|e| e.to_string())?;
    Ok((header, payload))
}

/// The child's whole life: reads one task and its payload from `input`, does it, writes the
/// answer to `output`.
pub fn serve(input: impl Read, mut output: impl Write) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    input
        .take(8 + MAX_TASK_BYTES + MAX_PAYLOAD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    let (answer, made) = match split_message::<Task>(&bytes) {
        Ok((task, payload)) => perform(task, payload),
        Err(reason) => (Answer::Refused(reason), Vec::new()),
    };
    write_message(&mut output, &answer, &made)
}

fn perform(task: Task, pdf: &[u8]) -> (Answer, Vec<u8>) {
    if pdf.len() > MAX_PAYLOAD_BYTES {
        return (Answer::Refused("the file is too large".into()), Vec::new());
    }
    match task {
        Task::Inspect { limits } => (
            Answer::Inspected(crate::inspect_with(pdf, limits)),
            Vec::new(),
        ),
        Task::Verify {
            limits,
            anchors_pem,
        } => {
            let anchors = if anchors_pem.is_empty() {
                Vec::new()
            } else {
                match seal::certificates_from_pem(&anchors_pem) {
                    Ok(anchors) => anchors,
                    Err(reason) => return (Answer::Refused(reason), Vec::new()),
                }
            };
            (
                Answer::Verified(seal::check_file(pdf, &anchors, limits)),
                Vec::new(),
            )
        }
        Task::Render {
            limits,
            stamps,
            attachments,
            certificate,
            reason,
            signing_time,
        } => {
            let Some((pdf, files)) = split_attachments(pdf, attachments) else {
                return (
                    Answer::Refused("the attachments' sizes do not fit the payload".into()),
                    Vec::new(),
                );
            };
            let rendered = crate::render_final_with(pdf, &stamps, &files, &certificate, limits)
                .map_err(|e| e.to_string())
                .and_then(|rendered| {
                    let details = SealDetails {
                        reason: &reason,
                        signing_time,
                        stamped_sha256: &rendered.stamped_sha256,
                    };
                    let bytes = seal::with_placeholder(&rendered.bytes, &details, limits)
                        .map_err(|e| e.to_string())?;
                    Ok((rendered, bytes))
                });
            match rendered {
                Ok((rendered, bytes)) => (
                    Answer::Rendered(Ok(Rendered {
                        stamped_sha256: rendered.stamped_sha256,
                        certificate_pages: rendered.certificate_pages,
                    })),
                    bytes,
                ),
                Err(reason) => (Answer::Rendered(Err(reason)), Vec::new()),
            }
        }
        Task::ImportForm { limits } => (
            Answer::FormImported(crate::import_form(pdf, limits)),
            Vec::new(),
        ),
        Task::EmbedValidationData { limits, data } => match seal::with_dss(pdf, &data, limits) {
            Ok(bytes) => (Answer::Embedded(Ok(())), bytes),
            Err(e) => (Answer::Embedded(Err(e.to_string())), Vec::new()),
        },
        Task::FindText { limits, needles } => (
            Answer::FoundText(crate::find_text(pdf, &needles, limits)),
            Vec::new(),
        ),
        Task::TakeTags { limits } => match crate::take_tags(pdf, limits) {
            Ok((taken, cleaned)) => (Answer::TookTags(Ok(taken)), cleaned.unwrap_or_default()),
            Err(e) => (Answer::TookTags(Err(e)), Vec::new()),
        },
        Task::CheckImage { kind } => (
            Answer::CheckedImage(crate::check_attachment_image(kind, pdf)),
            Vec::new(),
        ),
    }
}

/// Each attachment with its bytes.
type Attached<'a> = Vec<(EmbeddedFile, &'a [u8])>;

/// The original and each attachment with its bytes, cut from the end of `payload`.
fn split_attachments(
    payload: &[u8],
    attachments: Vec<EmbeddedFile>,
) -> Option<(&[u8], Attached<'_>)> {
    let total = attachments
        .iter()
        .try_fold(0usize, |sum, file| sum.checked_add(file.size))?;
    let original_len = payload.len().checked_sub(total)?;
    let (original, mut rest) = payload.split_at(original_len);
    let mut files = Vec::with_capacity(attachments.len());
    for file in attachments {
        let (bytes, after) = rest.split_at(file.size);
        files.push((file, bytes));
        rest = after;
    }
    Some((original, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(task: &Task, pdf: &[u8]) -> (Answer, Vec<u8>) {
        let mut input = Vec::new();
        write_message(&mut input, task, pdf).unwrap();
        let mut output = Vec::new();
        serve(&input[..], &mut output).unwrap();
        let (answer, payload) = split_message::<Answer>(&output).unwrap();
        (answer, payload.to_vec())
    }

    #[test]
    fn an_inspection_travels_through_the_two_streams() {
        let pdf = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../demo/demo-agreement.pdf"
        ))
        .unwrap();
        let limits = Limits::default();
        let (answer, payload) = round_trip(&Task::Inspect { limits }, &pdf);
        let Answer::Inspected(Ok(inspected)) = answer else {
            panic!("not inspected: {answer:?}");
        };
        assert_eq!(inspected.pages, 2);
        assert!(payload.is_empty());
        let (answer, _) = round_trip(&Task::Inspect { limits }, b"not a pdf");
        assert!(matches!(answer, Answer::Inspected(Err(PdfError::NotPdf))));
    }

    #[test]
    fn a_form_import_travels_through_the_two_streams() {
        let pdf = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../demo/demo-agreement.pdf"
        ))
        .unwrap();
        let limits = Limits::default();
        let (answer, _) = round_trip(&Task::ImportForm { limits }, &pdf);
        assert!(
            matches!(&answer, Answer::FormImported(Ok(fields)) if fields.is_empty()),
            "{answer:?}"
        );
        let (answer, _) = round_trip(&Task::ImportForm { limits }, b"not a pdf");
        assert!(
            matches!(answer, Answer::FormImported(Err(FormError::Unreadable(_)))),
            "{answer:?}"
        );
    }

    #[test]
    fn a_garbled_task_is_refused_not_guessed() {
        let mut output = Vec::new();
        serve(&b"\x05\0\0\0\0\0\0\0{\"no\":"[..], &mut output).unwrap();
        let (answer, _) = split_message::<Answer>(&output).unwrap();
        assert!(matches!(answer, Answer::Refused(_)));
    }
}
