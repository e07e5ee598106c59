//! The final PDF of a completed document: the original with every filled field stamped into its
//! box, followed by certificate pages that record who signed what and when.
//!
//! The final file is built in two revisions. The first is the stamped document, saved whole; the
//! second is an incremental update that appends the certificate pages. The first revision is
//! therefore a byte-for-byte prefix of the final file, so the `stamped_sha256` that the
//! certificate shows can be checked against the final file alone (see
//! [`crate::stamped_revision`]).

use lopdf::Document;

use crate::certificate::{self, Certificate};
use crate::embedded_files::{self, EmbeddedFile};
use crate::flatten;
use crate::inspect::Limits;
use crate::page_tree::{self, PageTreeError};
use crate::revisions;
use crate::sha256_hex;
use crate::stamp::{self, StampField};
use crate::stamp_error::{StampError, too_many_objects};

#[derive(Debug, Clone)]
pub struct FinalPdf {
    pub bytes: Vec<u8>,
    /// Lowercase hex SHA-256 of `bytes`.
    pub sha256: String,
    /// Lowercase hex SHA-256 of the stamped document: the original with the fields stamped,
    /// before the certificate pages were appended, as saved by lopdf with a cross-reference
    /// table. Those exact bytes are the first revision of `bytes`: a prefix of it, ending with
    /// `%%EOF` and a line feed, which the incremental update adding the certificate pages
    /// follows. [`crate::stamped_revision`] extracts them from the final file.
    pub stamped_sha256: String,
    pub certificate_pages: usize,
}

/// Stamps `fields` into `original` and appends the certificate pages. A form in the original is
/// flattened first (see `flatten`): its widgets drawn into the pages, its `/AcroForm` removed.
///
/// The output is deterministic: the same inputs give the same bytes. Text in any script is
/// shaped, laid out and drawn with subsets of the shipped fonts (see [`crate::typeset`]). A
/// signature whose PNG data URL cannot be decoded is stamped as the text "[signature]". Fields
/// whose box has no area, or whose coordinates are not finite, are skipped.
///
/// Encrypted originals are refused, as [`crate::inspect()`] refuses them at upload. Parsing
/// and rendering are CPU-bound: from async code, call this inside `spawn_blocking`.
pub fn render_final(
    original: &[u8],
    fields: &[StampField],
    certificate: &Certificate,
) -> Result<FinalPdf, StampError> {
    render_final_with(original, fields, &[], certificate, Limits::default())
}

/// [`render_final`], reading the original within `limits`, as its upload was read, with the
/// signers' `attachments` embedded in the stamped document (see [`crate::EmbeddedFile`]).
pub fn render_final_with(
    original: &[u8],
    fields: &[StampField],
    attachments: &[(EmbeddedFile, &[u8])],
    certificate: &Certificate,
    limits: Limits,
) -> Result<FinalPdf, StampError> {
    // lopdf is a large parser and the original is untrusted: a bug in it must not bring down
    // the caller.
    std::panic::catch_unwind(|| render(original, fields, attachments, certificate, limits))
        .unwrap_or_else(|_| Err(StampError::Read("the PDF parser failed on it".into())))
}

fn render(
    original: &[u8],
    fields: &[StampField],
    attachments: &[(EmbeddedFile, &[u8])],
    certificate: &Certificate,
    limits: Limits,
) -> Result<FinalPdf, StampError> {
    let mut doc = load(original, limits)?;
    // The pages that inspection counted at upload: see `page_tree`.
    let pages = page_tree::leaf_pages(&mut doc).map_err(|error| match error {
        PageTreeError::NoCatalog(_) => StampError::Read(error.to_string()),
        PageTreeError::TooManyObjects(error) => too_many_objects(error),
    })?;
    if pages.is_empty() {
        return Err(StampError::Read("the PDF has no pages".into()));
    }
    flatten::flatten_form(&mut doc, &pages, fields)?;
    stamp::stamp_fields(&mut doc, &pages, fields)?;
    embedded_files::embed(&mut doc, attachments)?;

    let stamped = revisions::save_stamped(&mut doc)?;
    let stamped_sha256 = sha256_hex(&stamped);
    let certificate_pages = certificate::layout(certificate, &stamped_sha256);
    let bytes = revisions::append_pages(stamped, doc, pages.len(), |update, root| {
        certificate::add_pages(update, root, &certificate_pages, certificate.language)
    })?;
    Ok(FinalPdf {
        sha256: sha256_hex(&bytes),
        bytes,
        stamped_sha256,
        certificate_pages: certificate_pages.len(),
    })
}

fn load(bytes: &[u8], limits: Limits) -> Result<Document, StampError> {
    let doc =
        crate::inspect::load(bytes, limits).map_err(|error| StampError::Read(error.to_string()))?;
    // lopdf decrypts a file that the empty password opens; writing it back would either drop
    // its protection or leave an /Encrypt that no longer matches.
    if doc.trailer.has(b"Encrypt") || doc.was_encrypted() {
        return Err(StampError::Read("the PDF is encrypted".into()));
    }
    Ok(doc)
}

#[cfg(test)]
mod tests;
