//! Reading a signature back out of a file: the last signature dictionary, its `/Contents`
//! without padding, the CMS SignedData's certificates and the check of its signature value.
//! Shared by verification and by the long-term validation data built after sealing.

use cms::{cert::CertificateChoices, signed_data::SignedData};
use der::{Decode, Encode};
use lopdf::{Dictionary, Document, Object};
use p256::ecdsa::{DerSignature, VerifyingKey};
use sha2::Sha256;
use signature::Verifier;
use spki::DecodePublicKey;
use x509_cert::Certificate;

/// The signature dictionary of the last signature field that has one.
pub(crate) fn last_signature(doc: &Document) -> Result<&Dictionary, String> {
    let catalog = doc
        .catalog()
        .map_err(|_| "the PDF has no catalog".to_owned())?;
    let fields = catalog
        .get_deref(b"AcroForm", doc)
        .and_then(Object::as_dict)
        .and_then(|form| form.get_deref(b"Fields", doc))
        .and_then(Object::as_array)
        .map_err(|_| "the PDF is not sealed: it has no signature field".to_owned())?;
    fields
        .iter()
        .rev()
        .filter_map(|field| doc.dereference(field).ok()?.1.as_dict().ok())
        .filter(|field| field.get(b"FT").and_then(Object::as_name).ok() == Some(b"Sig"))
        .find_map(|field| field.get_deref(b"V", doc).and_then(Object::as_dict).ok())
        .ok_or_else(|| "the PDF is not sealed: it has no signature".to_owned())
}

/// The signature's DER without the zeros that fill the rest of its place: a DER SEQUENCE
/// states its length, so it is read rather than guessed from trailing zeros.
pub(crate) fn trim_padding(contents: &[u8]) -> &[u8] {
    let length = der::SliceReader::new(contents).ok().and_then(|mut reader| {
        let header = der::Header::decode(&mut reader).ok()?;
        let header_len = usize::try_from(header.encoded_len().ok()?).ok()?;
        Some(header_len + usize::try_from(header.length).ok()?)
    });
    match length {
        Some(len) if len <= contents.len() => &contents[..len],
        _ => contents,
    }
}

/// Checks `signature` over `message` with `cert`'s key: ECDSA P-256 with SHA-256, or RSA
/// PKCS#1 v1.5 with SHA-256.
pub(crate) fn verify_with(
    cert: &Certificate,
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let spki = cert
        .tbs_certificate
        .subject_public_key_info
        .to_der()
        .map_err(|e| e.to_string())?;
    if let Ok(key) = VerifyingKey::from_public_key_der(&spki) {
        let signature = DerSignature::try_from(signature).map_err(|e| e.to_string())?;
        return key.verify(message, &signature).map_err(|e| e.to_string());
    }
    if let Ok(key) = rsa::pkcs1v15::VerifyingKey::<Sha256>::from_public_key_der(&spki) {
        let signature = rsa::pkcs1v15::Signature::try_from(signature).map_err(|e| e.to_string())?;
        return key.verify(message, &signature).map_err(|e| e.to_string());
    }
    Err("only ECDSA P-256 and RSA keys are supported".into())
}

/// The chain from `leaf` up: each certificate's issuer found among `certs` and its signature
/// checked, until a self-signed one.
pub(super) fn order_chain<'a>(
    leaf: &'a Certificate,
    certs: &'a [Certificate],
) -> Result<Vec<&'a Certificate>, String> {
    let mut chain = vec![leaf];
    let mut current = leaf;
    for _ in 0..8 {
        let tbs = current
            .tbs_certificate
            .to_der()
            .map_err(|e| e.to_string())?;
        let signature = current
            .signature
            .as_bytes()
            .ok_or("a certificate's signature is not whole bytes")?;
        if current.tbs_certificate.issuer == current.tbs_certificate.subject {
            verify_with(current, &tbs, signature)
                .map_err(|e| format!("the root certificate's own signature: {e}"))?;
            return Ok(chain);
        }
        let issuer = certs
            .iter()
            .find(|cert| cert.tbs_certificate.subject == current.tbs_certificate.issuer)
            .ok_or_else(|| {
                format!(
                    "the issuer of {} is not in the signature",
                    current.tbs_certificate.subject
                )
            })?;
        verify_with(issuer, &tbs, signature).map_err(|e| {
            format!(
                "{} is not signed by its issuer: {e}",
                current.tbs_certificate.subject
            )
        })?;
        chain.push(issuer);
        current = issuer;
    }
    Err("the certificate chain is too long".into())
}

/// The certificates a CMS SignedData carries.
pub(crate) fn cms_certificates(signed: &SignedData) -> Vec<Certificate> {
    signed
        .certificates
        .as_ref()
        .map(|set| {
            set.0
                .iter()
                .filter_map(|choice| match choice {
                    CertificateChoices::Certificate(cert) => Some(cert.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}
