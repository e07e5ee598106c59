//! Sealing: the placeholder signature in an incremental update, the CMS signature over the
//! file's bytes, and an RFC 3161 timestamp on it.

use chrono::{DateTime, Utc};
use cms::{
    builder::{SignedDataBuilder, SignerInfoBuilder},
    cert::{CertificateChoices, IssuerAndSerialNumber},
    content_info::ContentInfo,
    signed_data::{EncapsulatedContentInfo, SignedData, SignerIdentifier},
};
use const_oid::db::{rfc5911, rfc5912};
use der::{
    Decode, Encode, Sequence,
    asn1::{OctetString, SetOfVec},
};
use lopdf::{Dictionary, IncrementalDocument, Object, ObjectId, StringFormat, dictionary};
use p256::ecdsa::DerSignature;
use sha2::{Digest, Sha256};
use spki::AlgorithmIdentifierOwned;
use x509_cert::{Certificate, attr::Attribute};

use super::{
    error::SealError,
    key::{Key, SealKey, rand_bytes},
    layout::*,
};
use crate::inspect::Limits;

/// What the seal says besides the signature.
pub struct SealDetails<'a> {
    /// "Completed in Signet, document <code>".
    pub reason: &'a str,
    /// The claimed signing time, the dictionary's `/M`.
    pub signing_time: DateTime<Utc>,
    /// The SHA-256 of the stamped document (the final file's first revision), as the
    /// certificate pages show it.
    pub stamped_sha256: &'a str,
}

/// Seals `pdf` (a final PDF from [`crate::render_final`]): appends an incremental update with
/// the signature field, its signature dictionary and the CMS signature over every byte of the
/// result but the signature itself. CPU-bound: call from `spawn_blocking` in async code.
pub fn seal(pdf: &[u8], key: &SealKey, details: &SealDetails<'_>) -> Result<Vec<u8>, SealError> {
    prepare(pdf, key, details)?.finish(None)
}

/// A sealed file whose signature is made but not yet written, so that a timestamp of the
/// signature (RFC 3161, PAdES B-T) can be added to it first: [`PreparedSeal::finish`].
pub struct PreparedSeal {
    bytes: Vec<u8>,
    contents_start: usize,
    signed_data: SignedData,
}

/// [`seal`] up to the signature: the file with its byte range set and the CMS SignedData made.
pub fn prepare(
    pdf: &[u8],
    key: &SealKey,
    details: &SealDetails<'_>,
) -> Result<PreparedSeal, SealError> {
    sign(with_empty_signature(pdf, details, Limits::default())?, key)
}

/// The part of [`prepare`] that reads the PDF: `pdf` with the seal's incremental update, its
/// `/Contents` zeros and its `/ByteRange` a placeholder. It parses a file that holds the
/// original upload, so Signet runs it in the PDF sandbox, within `limits`; [`sign`] then
/// needs no parsing.
pub fn with_placeholder(
    pdf: &[u8],
    details: &SealDetails<'_>,
    limits: Limits,
) -> Result<Vec<u8>, SealError> {
    with_empty_signature(pdf, details, limits)
}

/// The rest of [`prepare`]: fills in the byte range of a file from [`with_placeholder`] and
/// signs it. Reads only the places the placeholder left.
pub fn sign(mut bytes: Vec<u8>, key: &SealKey) -> Result<PreparedSeal, SealError> {
    let (contents_start, contents_end) = placeholder(&bytes, b'<', b'>', SIGNATURE_ROOM * 2)
        .ok_or_else(|| SealError::Pdf("the signature's place was not written".into()))?;
    let range_text = format!(
        "0 {contents_start} {contents_end} {}",
        bytes.len() - contents_end
    );
    let range_at = find(&bytes, BYTE_RANGE_PLACEHOLDER.as_bytes())
        .ok_or_else(|| SealError::Pdf("the byte range's place was not written".into()))?;
    let padded = format!("{range_text:<width$}", width = BYTE_RANGE_PLACEHOLDER.len());
    bytes[range_at..range_at + padded.len()].copy_from_slice(padded.as_bytes());

    let mut hasher = Sha256::new();
    hasher.update(&bytes[..contents_start]);
    hasher.update(&bytes[contents_end..]);
    let digest = hasher.finalize();
    let info = ContentInfo::from_der(&cms_signature(key, &digest)?)
        .map_err(|e| SealError::Signature(e.to_string()))?;
    let signed_data = info
        .content
        .decode_as()
        .map_err(|e| SealError::Signature(e.to_string()))?;
    Ok(PreparedSeal {
        bytes,
        contents_start,
        signed_data,
    })
}

impl PreparedSeal {
    /// The signature's value, which a timestamp covers (RFC 3161 over its SHA-256).
    pub fn signature_value(&self) -> &[u8] {
        self.signed_data
            .signer_infos
            .0
            .get(0)
            .map(|signer| signer.signature.as_bytes())
            .unwrap_or_default()
    }

    /// Writes the signature into the file, with `timestamp_token` (a DER TimeStampToken from
    /// [`timestamp_token`]) as its signature-time-stamp attribute when given.
    pub fn finish(self, timestamp_token: Option<&[u8]>) -> Result<Vec<u8>, SealError> {
        let fail = |e: der::Error| SealError::Signature(e.to_string());
        let mut signed_data = self.signed_data;
        if let Some(token) = timestamp_token {
            let mut signers = signed_data.signer_infos.0.into_vec();
            let signer = signers
                .first_mut()
                .ok_or_else(|| SealError::Signature("no signer".into()))?;
            let mut values = SetOfVec::new();
            values
                .insert(der::Any::from_der(token).map_err(fail)?)
                .map_err(fail)?;
            let attribute = Attribute {
                oid: ID_AA_SIGNATURE_TIME_STAMP_TOKEN,
                values,
            };
            let mut unsigned = signer
                .unsigned_attrs
                .take()
                .map(SetOfVec::into_vec)
                .unwrap_or_default();
            unsigned.push(attribute);
            signer.unsigned_attrs = Some(SetOfVec::try_from(unsigned).map_err(fail)?);
            signed_data.signer_infos =
                cms::signed_data::SignerInfos(SetOfVec::try_from(signers).map_err(fail)?);
        }
        let info = ContentInfo {
            content_type: rfc5911::ID_SIGNED_DATA,
            content: der::Any::encode_from(&signed_data).map_err(fail)?,
        };
        let signature = info.to_der().map_err(fail)?;
        let hex = hex::encode_upper(&signature);
        if hex.len() > SIGNATURE_ROOM * 2 {
            return Err(SealError::Signature(format!(
                "{} bytes do not fit the {SIGNATURE_ROOM} bytes kept for it",
                signature.len()
            )));
        }
        let mut bytes = self.bytes;
        let at = self.contents_start + 1;
        bytes[at..at + hex.len()].copy_from_slice(hex.as_bytes());
        Ok(bytes)
    }
}

/// An RFC 3161 request for a timestamp of `signature_value` (SHA-256, with a nonce, asking for
/// the TSA's certificate): its DER and its nonce.
pub fn timestamp_request(signature_value: &[u8]) -> Result<(Vec<u8>, Vec<u8>), SealError> {
    let fail = |e: der::Error| SealError::Timestamp(e.to_string());
    let mut nonce = rand_bytes()[..8].to_vec();
    nonce[0] &= 0x7f; // a positive INTEGER
    nonce[0] |= 0x01; // with no leading zero byte
    let request = x509_tsp::TimeStampReq {
        version: x509_tsp::TspVersion::V1,
        message_imprint: x509_tsp::MessageImprint {
            hash_algorithm: spki::AlgorithmIdentifier {
                oid: rfc5912::ID_SHA_256,
                parameters: None,
            },
            hashed_message: OctetString::new(Sha256::digest(signature_value).to_vec())
                .map_err(fail)?,
        },
        req_policy: None,
        nonce: Some(der::asn1::Int::new(&nonce).map_err(fail)?),
        cert_req: true,
        extensions: None,
    };
    Ok((request.to_der().map_err(fail)?, nonce))
}

/// The TimeStampToken (DER) of a TSA's response to [`timestamp_request`], after checking that
/// it was granted and is for this signature and this request's nonce.
pub fn timestamp_token(
    response: &[u8],
    nonce: &[u8],
    signature_value: &[u8],
) -> Result<Vec<u8>, SealError> {
    let fail = |e: &dyn std::fmt::Display| SealError::Timestamp(e.to_string());
    let response = x509_tsp::TimeStampResp::from_der(response)
        .map_err(|e| fail(&format!("the TSA's answer is not a TimeStampResp: {e}")))?;
    use cmpv2::status::PkiStatus;
    if !matches!(
        response.status.status,
        PkiStatus::Accepted | PkiStatus::GrantedWithMods
    ) {
        return Err(fail(&format!(
            "the TSA refused: {:?}",
            response.status.status
        )));
    }
    let token = response
        .time_stamp_token
        .ok_or_else(|| fail(&"the TSA granted no token"))?;
    let info = timestamp_info(&token).map_err(|e| fail(&e))?;
    if info.message_imprint.hashed_message.as_bytes() != Sha256::digest(signature_value).as_slice()
    {
        return Err(fail(&"the token is for another signature"));
    }
    if info.nonce.as_ref().map(|n| n.as_bytes()) != Some(nonce) {
        return Err(fail(&"the token does not answer this request (nonce)"));
    }
    token.to_der().map_err(|e| fail(&e))
}

/// The TSTInfo inside a TimeStampToken.
pub(crate) fn timestamp_info(token: &ContentInfo) -> Result<x509_tsp::TstInfo, String> {
    let signed: SignedData = token
        .content
        .decode_as()
        .map_err(|e| format!("the token is not SignedData: {e}"))?;
    let content = signed
        .encap_content_info
        .econtent
        .ok_or("the token has no TSTInfo")?;
    let octets = OctetString::from_der(&content.to_der().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    x509_tsp::TstInfo::from_der(octets.as_bytes()).map_err(|e| format!("not a TSTInfo: {e}"))
}

/// The final PDF with the seal's incremental update, its `/Contents` zeros and its
/// `/ByteRange` a placeholder.
fn with_empty_signature(
    pdf: &[u8],
    details: &SealDetails<'_>,
    limits: Limits,
) -> Result<Vec<u8>, SealError> {
    let read = |e: lopdf::Error| SealError::Pdf(e.to_string());
    let doc = crate::inspect::load(pdf, limits).map_err(|e| SealError::Pdf(e.to_string()))?;
    let catalog_id = doc
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(read)?;
    let first_page = *doc
        .get_pages()
        .values()
        .next()
        .ok_or_else(|| SealError::Pdf("the PDF has no pages".into()))?;
    let mut catalog = doc.get_dictionary(catalog_id).map_err(read)?.clone();
    let mut page = doc.get_dictionary(first_page).map_err(read)?.clone();
    let existing_form = catalog
        .get_deref(b"AcroForm", &doc)
        .and_then(Object::as_dict)
        .ok()
        .cloned();
    let existing_fields = existing_form
        .as_ref()
        .and_then(|form| {
            form.get_deref(b"Fields", &doc)
                .and_then(Object::as_array)
                .ok()
        })
        .cloned()
        .unwrap_or_default();
    let existing_annots = page
        .get_deref(b"Annots", &doc)
        .and_then(Object::as_array)
        .cloned()
        .unwrap_or_default();

    let mut update = IncrementalDocument::create_from(pdf.to_vec(), doc);
    let new = &mut update.new_document;
    let too_many = |e: lopdf::Error| SealError::Pdf(e.to_string());
    let signature_id: ObjectId = new.try_new_object_id().map_err(too_many)?;
    let field_id: ObjectId = new.try_new_object_id().map_err(too_many)?;

    let byte_range: Vec<Object> = BYTE_RANGE_PLACEHOLDER
        .split(' ')
        .map(|n| Object::Integer(n.parse().expect("placeholder digits")))
        .collect();
    let mut signature = dictionary! {
        "Type" => "Sig",
        "Filter" => "Adobe.PPKLite",
        "SubFilter" => "ETSI.CAdES.detached",
        "ByteRange" => byte_range,
        "Contents" => Object::String(vec![0; SIGNATURE_ROOM], StringFormat::Hexadecimal),
        "M" => Object::string_literal(pdf_date(details.signing_time)),
        "Name" => Object::string_literal("Signet"),
        "Reason" => Object::string_literal(details.reason),
        "Prop_Build" => dictionary! {
            "App" => dictionary! { "Name" => "Signet", "REx" => Object::string_literal(env!("CARGO_PKG_VERSION")) },
        },
    };
    signature.set(
        STAMPED_SHA256_KEY,
        Object::string_literal(details.stamped_sha256),
    );
    new.objects.insert(signature_id, signature.into());
    new.objects.insert(
        field_id,
        dictionary! {
            "Type" => "Annot",
            "Subtype" => "Widget",
            "FT" => "Sig",
            "T" => Object::string_literal(FIELD_NAME),
            "V" => signature_id,
            "Rect" => vec![0.into(), 0.into(), 0.into(), 0.into()],
            // Print and Locked: an invisible field nobody can move or delete.
            "F" => 132,
            "P" => first_page,
        }
        .into(),
    );
    let mut fields = existing_fields;
    fields.push(field_id.into());
    let mut form = existing_form.unwrap_or_else(Dictionary::new);
    form.set("Fields", fields);
    // SignaturesExist and AppendOnly: viewers keep later changes to incremental updates.
    form.set("SigFlags", 3);
    catalog.set("AcroForm", form);
    new.objects.insert(catalog_id, catalog.into());
    let mut annots = existing_annots;
    annots.push(field_id.into());
    page.set("Annots", annots);
    new.objects.insert(first_page, page.into());

    let mut bytes = Vec::new();
    update
        .save_to(&mut bytes)
        .map_err(|e| SealError::Pdf(e.to_string()))?;
    Ok(bytes)
}

/// `D:YYYYMMDDHHmmSS+00'00'`, the PDF date form.
fn pdf_date(time: DateTime<Utc>) -> String {
    time.format("D:%Y%m%d%H%M%S+00'00'").to_string()
}

/// The CMS SignedData over `digest`, DER-encoded in a ContentInfo.
fn cms_signature(key: &SealKey, digest: &[u8]) -> Result<Vec<u8>, SealError> {
    match &key.key {
        Key::P256(signer) => signed_data::<_, DerSignature>(signer, &key.chain, digest),
        Key::Rsa(signer) => {
            signed_data::<_, rsa::pkcs1v15::Signature>(signer.as_ref(), &key.chain, digest)
        }
    }
}

fn signed_data<S, Sig>(
    signer: &S,
    chain: &[Certificate],
    digest: &[u8],
) -> Result<Vec<u8>, SealError>
where
    S: signature::Keypair + spki::DynSignatureAlgorithmIdentifier + signature::Signer<Sig>,
    Sig: spki::SignatureBitStringEncoding,
{
    let fail = |e: &dyn std::fmt::Display| SealError::Signature(e.to_string());
    let leaf = &chain[0];
    let content = EncapsulatedContentInfo {
        econtent_type: rfc5911::ID_DATA,
        econtent: None,
    };
    let sha256 = AlgorithmIdentifierOwned {
        oid: rfc5912::ID_SHA_256,
        parameters: None,
    };
    let sid = SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
        issuer: leaf.tbs_certificate.issuer.clone(),
        serial_number: leaf.tbs_certificate.serial_number.clone(),
    });
    let mut signer_info =
        SignerInfoBuilder::new(signer, sid, sha256.clone(), &content, Some(digest))
            .map_err(|e| fail(&e))?;
    signer_info
        .add_signed_attribute(signing_certificate_v2(leaf)?)
        .map_err(|e| fail(&e))?;
    let mut signed_data = SignedDataBuilder::new(&content);
    signed_data
        .add_digest_algorithm(sha256)
        .map_err(|e| fail(&e))?;
    for cert in chain {
        signed_data
            .add_certificate(CertificateChoices::Certificate(cert.clone()))
            .map_err(|e| fail(&e))?;
    }
    signed_data
        .add_signer_info::<S, Sig>(signer_info)
        .map_err(|e| fail(&e))?;
    let info = signed_data.build().map_err(|e| fail(&e))?;
    info.to_der().map_err(|e| fail(&e))
}

/// ESS signing-certificate-v2 (RFC 5035): the seal certificate's SHA-256, so that the signature
/// names the certificate it was made with.
#[derive(Sequence)]
struct EssCertIdV2 {
    // hashAlgorithm DEFAULT sha256: left out, as DER requires for the default.
    cert_hash: OctetString,
}

#[derive(Sequence)]
struct SigningCertificateV2 {
    certs: Vec<EssCertIdV2>,
}

fn signing_certificate_v2(leaf: &Certificate) -> Result<Attribute, SealError> {
    let fail = |e: der::Error| SealError::Signature(e.to_string());
    let hash = Sha256::digest(leaf.to_der().map_err(fail)?);
    let value = SigningCertificateV2 {
        certs: vec![EssCertIdV2 {
            cert_hash: OctetString::new(hash.to_vec()).map_err(fail)?,
        }],
    };
    let mut values = SetOfVec::new();
    values
        .insert(der::Any::from_der(&value.to_der().map_err(fail)?).map_err(fail)?)
        .map_err(fail)?;
    Ok(Attribute {
        oid: rfc5911::ID_AA_SIGNING_CERTIFICATE_V_2,
        values,
    })
}

/// Finds `open`, `len` times `'0'`, `close` in `bytes`: the offsets of `open` and just past
/// `close`.
fn placeholder(bytes: &[u8], open: u8, close: u8, len: usize) -> Option<(usize, usize)> {
    let mut run = vec![b'0'; len + 2];
    run[0] = open;
    run[len + 1] = close;
    find(bytes, &run).map(|at| (at, at + len + 2))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
