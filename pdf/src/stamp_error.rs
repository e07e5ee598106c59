//! What can go wrong while the final PDF is made, for every module that makes a part of it
//! (stamping, images, the certificate pages, the revisions), none of which imports another's.

#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum StampError {
    #[error("cannot read the original PDF: {0}")]
    Read(String),
    #[error("field on page {0}, which the document does not have")]
    NoSuchPage(u32),
    #[error("cannot write the final PDF: {0}")]
    Write(String),
}

/// A new object lopdf would not add to the document (it holds too many).
pub(crate) fn too_many_objects(error: lopdf::Error) -> StampError {
    StampError::Write(error.to_string())
}
