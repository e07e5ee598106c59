//! The PDF engine of Signet: what it reads from an uploaded PDF, and the final PDF it writes
//! once a document is complete.
//!
//! - [`inspect`] checks an upload within a budget and reads its pages and their sizes.
//! - [`render_final`] stamps the filled fields into the original and appends certificate pages
//!   as an incremental update; [`stamped_revision`] finds the stamped document in the result.
//! - [`check_signature_png`] checks a drawn signature when a signer submits it;
//!   [`check_attachment_image`] an image a signer attaches.
//! - [`font_files`] are the shipped fonts every text of the final PDF is drawn with.
//!
//! Nothing here touches a database or an async runtime: parsing and rendering are CPU-bound,
//! and callers in async code run them inside `spawn_blocking`.
//!
//! The modules, in the order a document meets them:
//!
//! - `inspect`: upload checks, the inflation and time budget, [`PdfError`].
//! - `page_tree`: the one walk that lists a document's pages, for inspection and stamping alike,
//!   and what a page inherits from its ancestors.
//! - `page_geometry`: a page's visible box and rotation, and so its displayed [`PageSize`].
//! - `signature_image`: drawn signatures (PNG) checked, decoded and embedded as images.
//! - `stamp`: filled fields drawn into their boxes.
//! - `certificate`: the certificate pages' content and layout.
//! - `revisions`: saving the stamped document, the incremental update that appends pages, and
//!   finding the stamped revision again.
//! - `form_fields`: [`import_form`], a PDF's own form fields read as Signet fields; `flatten`:
//!   its widgets drawn into the pages of the final PDF.
//! - `attachment_image`: a signer's PNG or JPEG attachment decoded whole before it is taken;
//!   `embedded_files`: the signers' attachments, embedded in the stamped document.
//! - `final_pdf`: [`render_final`], which runs the above in order.
//! - `sandbox`: the tasks above as a child process takes them, for untrusted files.
//! - `text`: the pages' text with where each character is shown ([`find_text`] for anchors,
//!   [`take_tags`] for text tags).
//! - `typeset`: shaping, bidi, font choice and embedded font subsets; `content_stream`: how
//!   numbers are written in the operators everything draws with.

mod attachment_image;
mod certificate;
mod content_stream;
mod embedded_files;
mod final_pdf;
mod flatten;
mod form_fields;
mod hash;
mod inspect;
mod page_geometry;
mod page_tree;
mod revisions;
pub mod sandbox;
pub mod seal;
mod signature_image;
mod stamp;
mod stamp_error;
mod text;
mod typeset;

pub use attachment_image::{
    ImageError, ImageKind, ImageSize, MAX_ATTACHMENT_PIXELS, check_attachment_image,
};
pub use certificate::{Certificate, CertificateAuditLine, CertificateField, CertificateRecipient};
pub use embedded_files::EmbeddedFile;
pub use final_pdf::{FinalPdf, render_final, render_final_with};
pub use form_fields::{FormError, MAX_FORM_FIELDS, import_form};
pub use hash::sha256_hex;
pub use inspect::{
    InspectedPdf, Limits, MAX_NESTING, MAX_PAGES, MAX_UPLOAD_BYTES, MAX_VALUES, PdfError, inspect,
    inspect_with,
};
pub use page_geometry::PageSize;
pub use revisions::stamped_revision;
pub use signature_image::{
    MAX_SIGNATURE_IMAGE_HEIGHT, MAX_SIGNATURE_IMAGE_WIDTH, SignatureImageError, check_signature_png,
};
pub use stamp::{StampField, StampKind};
pub use stamp_error::StampError;
pub use text::tags::{FoundTag, MAX_TAGS, TakenTags, take_tags};
pub use text::{TextBox, find_text};
pub use typeset::font_files;
