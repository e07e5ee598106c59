//! The PDF engine of Signet: what it reads from an uploaded PDF, and the final PDF it writes
//! once a document is complete.
//!
//! - [`inspect`] checks an upload within a budget and reads its pages and their sizes.
//! - [`render_final`] stamps the filled fields into the original and appends certificate pages
//!   as an incremental update; [`stamped_revision`] finds the stamped document in the result.
//! - [`font_files`] are the shipped fonts every text of the final PDF is drawn with.
//!
//! Nothing here touches a database or an async runtime: parsing and rendering are CPU-bound,
//! and callers in async code run them inside `spawn_blocking`.

mod inspect;
mod page_tree;
mod stamp;
mod typeset;

pub use inspect::{
    InspectedPdf, Limits, MAX_PAGES, MAX_UPLOAD_BYTES, PageSize, PdfError, inspect, inspect_with,
};
pub use stamp::{
    Certificate, CertificateAuditLine, CertificateRecipient, FinalPdf, StampError, StampField,
    StampKind, render_final, stamped_revision,
};
pub use typeset::font_files;
