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

mod error;
mod key;
mod layout;
mod ltv;
mod sign;
mod signed_file;
mod verify;

pub use error::SealError;
pub use key::*;
pub use ltv::{LongTermData, RevocationSource, ValidationData, ValidationPlan, with_dss};
pub use sign::*;
pub use verify::*;

#[cfg(test)]
mod tests;
