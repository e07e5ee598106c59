//! The public verification page: a form for a final PDF, and the verdict on one.

use maud::{Markup, html};
use signet_common::store::documents::IssuedDocument;

use crate::html::{isolated, time};

/// What the page says about an uploaded file.
pub(in crate::routes::console) enum Verdict {
    /// Nothing uploaded yet.
    Ask,
    /// The seal holds and this service issued exactly this file.
    Issued {
        document: IssuedDocument,
        sealed_by: String,
        trusted: bool,
    },
    /// The seal holds, but this service holds no completed document with this exact file.
    Unknown { sealed_by: String },
    /// The seal does not hold, or there is none.
    Refused(String),
}

pub(in crate::routes::console) fn verify(verdict: &Verdict) -> Markup {
    html! {
        h1 { "Verify a signed document" }
        p { "Upload a final PDF from this Signet service to check its seal: that it was issued here and has not changed by a single byte since. The file is checked and forgotten; nothing is stored." }
        form.card method="post" action="/verify" enctype="multipart/form-data" {
            label for="file" { "Final PDF" }
            input type="file" id="file" name="file" accept="application/pdf" required;
            button.primary type="submit" { "Verify" }
        }
        @match verdict {
            Verdict::Ask => {}
            Verdict::Issued { document, sealed_by, trusted } => {
                section.card.verdict.verified role="status" {
                    h2 { "Verified: issued by this service and unchanged" }
                    dl {
                        dt { "Document code" } dd { (document.code) }
                        dt { "Title" } dd { (isolated(&document.title)) }
                        dt { "Signed by" } dd { @for (i, signer) in document.signers.iter().enumerate() { @if i > 0 { ", " } (isolated(signer)) } }
                        dt { "Completed" } dd { (time(document.completed_at)) }
                        dt { "Sealed by" } dd { (sealed_by) }
                    }
                    @if let Some(removed) = document.files_removed_at {
                        p id="files-removed" { "This service no longer keeps the document's files: they were removed on " (time(removed))
                            " under the account's retention policy. The file you hold is the copy it issued; its SHA-256 is the one the audit trail keeps." }
                    }
                    @if !trusted {
                        p.error { "The seal is this service's development seal, which no one else trusts: fine for trying Signet, not for production." }
                    }
                }
            }
            Verdict::Unknown { sealed_by } => {
                section.card.verdict.unknown role="status" {
                    h2 { "Not issued by this service" }
                    p { "The file's seal is intact (sealed by " (sealed_by) "), but this service holds no completed document with exactly this file." }
                }
            }
            Verdict::Refused(reason) => {
                section.card.verdict.refused role="alert" {
                    h2 { "Not verified" }
                    p.error { (reason) }
                }
            }
        }
    }
}
