//! Where the seal sits in the file and what it is called there: shared by sealing and
//! verification, which must agree on every byte.

/// Room for the CMS signature in the file: a P-256 signature with a chain of a few
/// certificates needs about 2 KiB; a timestamp token or a longer chain fits too.
pub(super) const SIGNATURE_ROOM: usize = 16 * 1024;
/// What `/ByteRange` holds until the real offsets are known; the same width, padded, after.
pub(super) const BYTE_RANGE_PLACEHOLDER: &str = "0 9999999999 9999999999 9999999999";
/// The seal dictionary's own entry for the stamped document's SHA-256 (a second-class name, as
/// PDF allows for private data): covered by the signature, checked by [`verify`].
pub(super) const STAMPED_SHA256_KEY: &[u8] = b"Signet_StampedSHA256";
/// id-aa-signatureTimeStampToken (RFC 3161 appendix A; not in const-oid's database).
pub(super) const ID_AA_SIGNATURE_TIME_STAMP_TOKEN: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.14");
/// The name of the seal's signature field.
pub(super) const FIELD_NAME: &str = "Signet seal";
