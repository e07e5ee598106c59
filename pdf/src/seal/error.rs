//! What can go wrong while sealing.

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("seal key: {0}")]
    Key(String),
    #[error("seal certificate chain: {0}")]
    Chain(String),
    #[error("cannot seal the PDF: {0}")]
    Pdf(String),
    #[error("cannot build the signature: {0}")]
    Signature(String),
    #[error("timestamp: {0}")]
    Timestamp(String),
    #[error("revocation data: {0}")]
    Revocation(String),
}
