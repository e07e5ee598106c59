//! Checking a sealed file offline: the signature, what it covers, the chain and the timestamp.

use cms::{
    cert::CertificateChoices,
    content_info::ContentInfo,
    signed_data::{SignedData, SignerIdentifier},
};
use const_oid::db::rfc5911;
use der::{Decode, Encode, asn1::OctetString};
use lopdf::{Document, Object};
use sha2::{Digest, Sha256};
use x509_cert::{Certificate, attr::Attribute};

use super::{
    layout::*,
    ltv::{self, LongTermData},
    sign::timestamp_info,
    signed_file::{cms_certificates, last_signature, order_chain, trim_padding, verify_with},
};
use crate::inspect::{Limits, PdfError};
use crate::revisions::stamped_revision;
use crate::sha256_hex;

/// What [`verify`] found in a sealed file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SealReport {
    /// The seal certificate's subject.
    pub signer: String,
    /// The chain, leaf first, as subjects.
    pub chain: Vec<String>,
    /// Whether the chain ends at one of the trust anchors given.
    pub trusted: bool,
    /// The claimed signing time, `/M`.
    pub signing_time: String,
    pub reason: String,
    /// The SHA-256 of the stamped document, which the seal names and the file holds.
    pub stamped_sha256: String,
    /// The time a timestamp authority attests the seal existed at (RFC 3161 `genTime`), with
    /// the authority's certificate subject, when the seal has a timestamp.
    pub timestamp: Option<(String, String)>,
    /// The revocation data embedded after the seal (PAdES B-LT), when there is some.
    pub long_term: Option<LongTermData>,
}

/// Checks the seal of a final PDF, offline: that the last signature covers the whole file, its
/// signature over the covered bytes, its certificate chain (each signed by the next, the last
/// by itself), and that the file's first revision is the stamped document the seal names. The
/// chain is `trusted` when its root is one of `anchors` (DER certificates). `Err` says what
/// failed, in words for a person. It parses the whole file: check an untrusted file with
/// [`crate::inspect_with`] first, which bounds the work its streams can cause.
pub fn verify(pdf: &[u8], anchors: &[Certificate]) -> Result<SealReport, String> {
    check_file(pdf, anchors, Limits::default()).map_err(|e| e.to_string())
}

/// Why [`check_file`] found no seal that holds.
#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum Unverified {
    /// The file is not one Signet can read: the upload's checks refused it.
    #[error("not a readable PDF: {0}")]
    Unreadable(PdfError),
    /// The file reads, but its seal does not hold; in words for a person.
    #[error("{0}")]
    Broken(String),
}

/// [`verify`] for a file from anyone: the upload's checks first, within `limits`, on the one
/// parse of the file that the seal's check then uses too.
pub fn check_file(
    pdf: &[u8],
    anchors: &[Certificate],
    limits: Limits,
) -> Result<SealReport, Unverified> {
    let (doc, _) = crate::inspect::read(pdf, limits).map_err(Unverified::Unreadable)?;
    check_seal(pdf, &doc, anchors, limits).map_err(Unverified::Broken)
}

fn check_seal(
    pdf: &[u8],
    doc: &Document,
    anchors: &[Certificate],
    limits: Limits,
) -> Result<SealReport, String> {
    let signature = last_signature(doc)?;
    let range: Vec<usize> = signature
        .get(b"ByteRange")
        .and_then(Object::as_array)
        .map_err(|_| "the seal has no /ByteRange".to_owned())?
        .iter()
        .map(|n| n.as_i64().ok().and_then(|n| usize::try_from(n).ok()))
        .collect::<Option<_>>()
        .ok_or("the seal's /ByteRange is not four offsets")?;
    let [start, first_len, second_start, second_len] = range[..] else {
        return Err("the seal's /ByteRange is not four offsets".into());
    };
    let signed_len = second_start
        .checked_add(second_len)
        .filter(|&end| start == 0 && end <= pdf.len())
        .ok_or("the seal's /ByteRange does not fit the file")?;
    // Only long-term validation data may follow the seal's own revision.
    let dss = ltv::check_update(pdf, signed_len, doc, limits)?;
    if first_len >= second_start
        || pdf.get(first_len) != Some(&b'<')
        || pdf[second_start - 1] != b'>'
    {
        return Err("the seal's /ByteRange does not leave out exactly its signature".into());
    }
    let contents = signature
        .get(b"Contents")
        .and_then(Object::as_str)
        .map_err(|_| "the seal has no /Contents".to_owned())?;
    // Signet's seals fit the room it keeps for them; a larger one is not Signet's, and the
    // certificates in a CMS are decoded with a cost that grows with the square of their count.
    if contents.len() > SIGNATURE_ROOM {
        return Err(format!(
            "the signature is larger than the {} KiB Signet keeps for its seals",
            SIGNATURE_ROOM / 1024
        ));
    }
    // The signature's place is left out of the digest: the zeros after the signature must be
    // zeros still, or the file is not byte for byte what was sealed.
    let signature_der = trim_padding(contents);
    if contents[signature_der.len()..]
        .iter()
        .any(|&byte| byte != 0)
    {
        return Err(
            "the file was changed after it was sealed: bytes inside the signature's place \
             differ from what was sealed"
                .into(),
        );
    }
    let info = ContentInfo::from_der(signature_der)
        .map_err(|e| format!("the signature is not CMS: {e}"))?;
    let signed_data: SignedData = info
        .content
        .decode_as()
        .map_err(|e| format!("the signature is not CMS SignedData: {e}"))?;
    let signer_info = signed_data
        .signer_infos
        .0
        .get(0)
        .ok_or("the signature has no signer")?;
    let certs = cms_certificates(&signed_data);

    let mut hasher = Sha256::new();
    hasher.update(&pdf[..first_len]);
    hasher.update(&pdf[second_start..signed_len]);
    let digest = hasher.finalize();
    let attributes = signer_info
        .signed_attrs
        .as_ref()
        .ok_or("the signature has no signed attributes")?;
    let message_digest = message_digest(attributes).ok_or("the signature has no message digest")?;
    if message_digest.as_bytes() != digest.as_slice() {
        return Err("the file was changed after it was sealed: its digest differs".into());
    }
    let SignerIdentifier::IssuerAndSerialNumber(id) = &signer_info.sid else {
        return Err("the signer is not named by issuer and serial number".into());
    };
    let leaf = certs
        .iter()
        .find(|cert| {
            cert.tbs_certificate.issuer == id.issuer
                && cert.tbs_certificate.serial_number == id.serial_number
        })
        .ok_or("the seal certificate is not in the signature")?;
    let signed = attributes
        .to_der()
        .map_err(|e| format!("the signed attributes cannot be encoded: {e}"))?;
    verify_with(leaf, &signed, signer_info.signature.as_bytes())
        .map_err(|e| format!("the signature does not verify: {e}"))?;

    let timestamp_attribute = signer_info.unsigned_attrs.as_ref().and_then(|attrs| {
        attrs
            .iter()
            .find(|attr| attr.oid == ID_AA_SIGNATURE_TIME_STAMP_TOKEN)
    });
    let timestamp = timestamp_attribute
        .map(|attr| check_timestamp(attr, signer_info.signature.as_bytes()))
        .transpose()?;
    let chain = order_chain(leaf, &certs)?;
    let long_term = match dss {
        None => None,
        Some(dss) => {
            // The seal's chain leaf first, then the timestamp authority's.
            let mut all: Vec<Certificate> = chain.iter().map(|&cert| cert.clone()).collect();
            all.extend(certs.iter().cloned());
            all.extend(
                timestamp_attribute
                    .and_then(timestamp_signed_data)
                    .map(|token| cms_certificates(&token))
                    .unwrap_or_default(),
            );
            let mut seen = Vec::new();
            all.retain(|cert| {
                let first = !seen.contains(cert);
                seen.push(cert.clone());
                first
            });
            Some(ltv::statuses(doc, &dss, &all)?)
        }
    };
    let root = chain.last().expect("the chain starts with the leaf");
    let trusted = anchors.iter().any(|anchor| anchor == *root);
    let stamped_sha256 = signature
        .get(STAMPED_SHA256_KEY)
        .and_then(Object::as_str)
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .map_err(|_| "the seal does not name the stamped document".to_owned())?;
    let stamped = stamped_revision(pdf).ok_or("the stamped document cannot be found")?;
    if sha256_hex(stamped) != stamped_sha256 {
        return Err("the stamped document is not the one the seal names".into());
    }
    let text = |key: &[u8]| {
        signature
            .get(key)
            .and_then(Object::as_str)
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default()
    };
    Ok(SealReport {
        signer: leaf.tbs_certificate.subject.to_string(),
        chain: chain
            .iter()
            .map(|cert| cert.tbs_certificate.subject.to_string())
            .collect(),
        trusted,
        signing_time: text(b"M"),
        reason: text(b"Reason"),
        stamped_sha256,
        timestamp,
        long_term,
    })
}

/// Checks a signature-time-stamp attribute: a TimeStampToken whose TSTInfo is for the SHA-256
/// of `signature_value`, signed by the certificate in it. Its time and that certificate's
/// subject. (Whether the TSA is trusted is for a validator with the operator's trust list.)
fn check_timestamp(attr: &Attribute, signature_value: &[u8]) -> Result<(String, String), String> {
    let token = attr
        .values
        .get(0)
        .and_then(|value| ContentInfo::from_der(&value.to_der().ok()?).ok())
        .ok_or("the timestamp is not a TimeStampToken")?;
    let info = timestamp_info(&token)?;
    if info.message_imprint.hashed_message.as_bytes() != Sha256::digest(signature_value).as_slice()
    {
        return Err("the timestamp is for another signature".into());
    }
    let signed = timestamp_signed_data(attr).ok_or("the timestamp is not SignedData")?;
    let tst_info = signed
        .encap_content_info
        .econtent
        .as_ref()
        .and_then(|content| OctetString::from_der(&content.to_der().ok()?).ok())
        .ok_or("the timestamp has no TSTInfo")?;
    let signer = signed
        .signer_infos
        .0
        .get(0)
        .ok_or("the timestamp has no signer")?;
    let attributes = signer
        .signed_attrs
        .as_ref()
        .ok_or("the timestamp has no signed attributes")?;
    let digest = message_digest(attributes).ok_or("the timestamp has no message digest")?;
    if digest.as_bytes() != Sha256::digest(tst_info.as_bytes()).as_slice() {
        return Err("the timestamp's signature is not over its TSTInfo".into());
    }
    let SignerIdentifier::IssuerAndSerialNumber(id) = &signer.sid else {
        return Err("the timestamp's signer is not named by issuer and serial number".into());
    };
    let tsa = signed
        .certificates
        .as_ref()
        .and_then(|set| {
            set.0.iter().find_map(|choice| match choice {
                CertificateChoices::Certificate(cert)
                    if cert.tbs_certificate.issuer == id.issuer
                        && cert.tbs_certificate.serial_number == id.serial_number =>
                {
                    Some(cert.clone())
                }
                _ => None,
            })
        })
        .ok_or("the timestamp authority's certificate is not in the timestamp")?;
    let signed_attributes = attributes.to_der().map_err(|e| e.to_string())?;
    verify_with(&tsa, &signed_attributes, signer.signature.as_bytes())
        .map_err(|e| format!("the timestamp's signature does not verify: {e}"))?;
    Ok((
        info.gen_time.to_date_time().to_string(),
        tsa.tbs_certificate.subject.to_string(),
    ))
}

/// The SignedData of a signature-time-stamp attribute's token.
fn timestamp_signed_data(attr: &Attribute) -> Option<SignedData> {
    let token = ContentInfo::from_der(&attr.values.get(0)?.to_der().ok()?).ok()?;
    token.content.decode_as().ok()
}

/// The message-digest attribute among a signer's signed attributes.
fn message_digest(attributes: &cms::signed_data::SignedAttributes) -> Option<OctetString> {
    attributes
        .iter()
        .find(|attr| attr.oid == rfc5911::ID_MESSAGE_DIGEST)
        .and_then(|attr| attr.values.get(0))
        .and_then(|value| OctetString::from_der(&value.to_der().ok()?).ok())
}
