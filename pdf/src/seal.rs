//! The seal: one PAdES signature (ETSI EN 319 142, `/SubFilter /ETSI.CAdES.detached`) over the
//! whole final PDF, applied by the operator's key as an incremental update, so that the stamped
//! document and the certificate pages stay byte-identical below it and anyone can check that
//! the file came from this Signet and was not changed since.
//!
//! The signature is a CMS SignedData (RFC 5652) built with RustCrypto's `cms` crate: detached
//! (the signed bytes are the file minus the signature's own `/Contents`), SHA-256, signed
//! attributes content-type, message-digest and signing-certificate-v2 (RFC 5035, which CAdES
//! requires; no signing-time attribute: PAdES takes the claimed time from the dictionary's
//! `/M`). The certificates of the chain travel in it. Keys are ECDSA P-256, or RSA of at least
//! 2048 bits (PKCS#1 v1.5, SHA-256).
//!
//! [`verify`] checks a sealed file offline: the signature over what its `/ByteRange` covers,
//! that it covers the whole file, the chain up to a trust anchor, and that the stamped document
//! (the first revision) is the one the seal names.

pub use x509_cert::Certificate as X509Certificate;

mod ltv;
pub use ltv::{LongTermData, RevocationSource, ValidationData, ValidationPlan, with_dss};

mod key;
mod sign;
mod verify;
pub use key::*;
pub use sign::*;
pub use verify::*;

/// Room for the CMS signature in the file: a P-256 signature with a chain of a few
/// certificates needs about 2 KiB; a timestamp token or a longer chain fits too.
const SIGNATURE_ROOM: usize = 16 * 1024;
/// What `/ByteRange` holds until the real offsets are known; the same width, padded, after.
const BYTE_RANGE_PLACEHOLDER: &str = "0 9999999999 9999999999 9999999999";
/// The seal dictionary's own entry for the stamped document's SHA-256 (a second-class name, as
/// PDF allows for private data): covered by the signature, checked by [`verify`].
const STAMPED_SHA256_KEY: &[u8] = b"Signet_StampedSHA256";
/// id-aa-signatureTimeStampToken (RFC 3161 appendix A; not in const-oid's database).
const ID_AA_SIGNATURE_TIME_STAMP_TOKEN: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.14");
/// The name of the seal's signature field.
const FIELD_NAME: &str = "Signet seal";

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

#[cfg(test)]
mod tests;
