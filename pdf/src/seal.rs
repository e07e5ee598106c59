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

use std::time::Duration;

use chrono::{DateTime, Utc};
use cms::{
    builder::{SignedDataBuilder, SignerInfoBuilder},
    cert::{CertificateChoices, IssuerAndSerialNumber},
    content_info::ContentInfo,
    signed_data::{EncapsulatedContentInfo, SignedData, SignerIdentifier},
};
use const_oid::db::{rfc5911, rfc5912};
use der::{
    Decode, Encode, EncodePem, Sequence,
    asn1::{OctetString, SetOfVec},
};
use lopdf::{
    Dictionary, Document, IncrementalDocument, Object, ObjectId, StringFormat, dictionary,
};
use p256::ecdsa::{DerSignature, SigningKey, VerifyingKey};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use sha2::{Digest, Sha256};
use signature::Verifier;
use spki::{AlgorithmIdentifierOwned, DecodePublicKey, SubjectPublicKeyInfoOwned};
use x509_cert::{
    Certificate,
    attr::Attribute,
    builder::{Builder, CertificateBuilder, Profile},
    name::Name,
    serial_number::SerialNumber,
    time::Validity,
};

pub use x509_cert::Certificate as X509Certificate;

mod ltv;
pub use ltv::{LongTermData, RevocationSource, ValidationData, ValidationPlan, with_dss};

use crate::inspect::{Limits, PdfError};
use crate::revisions::stamped_revision;
use crate::sha256_hex;

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

/// The operator's seal: its key and certificate chain, leaf first.
pub struct SealKey {
    key: Key,
    chain: Vec<Certificate>,
    development: bool,
}

/// The key kinds a seal may have: ECDSA P-256, or RSA (at least 2048 bits) with PKCS#1 v1.5
/// and SHA-256, what most certificate authorities issue document-signing certificates for.
enum Key {
    P256(SigningKey),
    Rsa(Box<rsa::pkcs1v15::SigningKey<Sha256>>),
}

impl Key {
    /// The public key as a SubjectPublicKeyInfo, DER.
    fn spki_der(&self) -> Result<Vec<u8>, SealError> {
        let fail = |e: &dyn std::fmt::Display| SealError::Key(e.to_string());
        match self {
            Key::P256(key) => SubjectPublicKeyInfoOwned::from_key(*key.verifying_key())
                .map_err(|e| fail(&e))?
                .to_der()
                .map_err(|e| fail(&e)),
            Key::Rsa(key) => {
                use rsa::pkcs8::EncodePublicKey as _;
                use signature::Keypair as _;
                Ok(key
                    .verifying_key()
                    .to_public_key_der()
                    .map_err(|e| fail(&e))?
                    .into_vec())
            }
        }
    }
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealKey")
            .field("subject", &self.subject())
            .field("development", &self.development)
            .finish_non_exhaustive()
    }
}

/// A development seal's files: the key, the chain to put beside it, and its root to trust.
pub struct DevelopmentSealFiles {
    pub key_pem: String,
    pub chain_pem: String,
    pub root_pem: String,
}

impl SealKey {
    /// The key (PKCS#8 PEM, `BEGIN PRIVATE KEY`: ECDSA P-256, or RSA of at least 2048 bits) and
    /// its chain (PEM certificates, the seal's own first). The first certificate must be the
    /// key's.
    pub fn from_pem(key_pem: &str, chain_pem: &str) -> Result<Self, SealError> {
        let key = if let Ok(key) = SigningKey::from_pkcs8_pem(key_pem) {
            Key::P256(key)
        } else if let Ok(key) = rsa::RsaPrivateKey::from_pkcs8_pem(key_pem) {
            if rsa::traits::PublicKeyParts::size(&key) * 8 < 2048 {
                return Err(SealError::Key("an RSA key needs at least 2048 bits".into()));
            }
            Key::Rsa(Box::new(rsa::pkcs1v15::SigningKey::<Sha256>::new(key)))
        } else {
            return Err(SealError::Key(
                "not an unencrypted PKCS#8 PEM private key (ECDSA P-256 or RSA)".into(),
            ));
        };
        let chain = Certificate::load_pem_chain(chain_pem.as_bytes())
            .map_err(|e| SealError::Chain(format!("not PEM certificates: {e}")))?;
        let leaf = chain
            .first()
            .ok_or_else(|| SealError::Chain("no certificate".into()))?;
        let leaf_key = leaf
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|e| SealError::Chain(e.to_string()))?;
        if leaf_key != key.spki_der()? {
            return Err(SealError::Chain(
                "the first certificate is not the key's".into(),
            ));
        }
        Ok(Self {
            key,
            chain,
            development: false,
        })
    }

    /// The key and chain of a PKCS#12 file (`.p12`/`.pfx`, as certificate authorities and
    /// HSM exports hand them out), opened with `password`. The chain is the file's, the
    /// seal's certificate first.
    pub fn from_pkcs12(p12: &[u8], password: &str) -> Result<Self, SealError> {
        let store = p12_keystore::KeyStore::from_pkcs12(
            p12,
            password,
            p12_keystore::Pkcs12ImportPolicy::Strict,
        )
        .map_err(|e| SealError::Key(format!("cannot open the PKCS#12 file: {e}")))?;
        let (_, entry) = store.private_key_chain().ok_or_else(|| {
            SealError::Key("the PKCS#12 file holds no key with its certificate".into())
        })?;
        let key_pem = der::Document::try_from(entry.key().as_der())
            .and_then(|doc| doc.to_pem("PRIVATE KEY", LineEnding::LF))
            .map_err(|e| SealError::Key(e.to_string()))?;
        let chain_pem = entry
            .certs()
            .iter()
            .map(|cert| {
                Certificate::from_der(cert.as_der())
                    .and_then(|cert| cert.to_pem(LineEnding::LF))
                    .map_err(|e| SealError::Chain(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        Self::from_pem(&key_pem, &chain_pem)
    }

    /// A development seal made now: a self-signed root and a seal certificate it issued, valid
    /// for ten years. Its signatures are real, but nobody trusts its root: it is for local
    /// runs and tests, never for production.
    pub fn development() -> Result<Self, SealError> {
        Ok(Self::development_with_root()?.0)
    }

    /// [`SealKey::development`], with the files to keep it in (key, chain, root).
    pub fn development_files() -> Result<DevelopmentSealFiles, SealError> {
        let (seal, root) = Self::development_with_root()?;
        Ok(DevelopmentSealFiles {
            key_pem: seal.key_pem()?,
            chain_pem: seal.chain_pem()?,
            root_pem: root
                .to_pem(LineEnding::LF)
                .map_err(|e| SealError::Chain(e.to_string()))?,
        })
    }

    fn development_with_root() -> Result<(Self, Certificate), SealError> {
        let fail = |e: &dyn std::fmt::Display| SealError::Key(e.to_string());
        let validity =
            Validity::from_now(Duration::from_secs(10 * 365 * 24 * 3600)).map_err(|e| fail(&e))?;
        let serial = |n: u8| {
            let mut bytes = [0u8; 16];
            bytes[..15].copy_from_slice(&rand_bytes()[..15]);
            bytes[0] &= 0x7f;
            bytes[15] = n;
            SerialNumber::new(&bytes).map_err(|e| fail(&e))
        };
        let root_key = SigningKey::random(&mut p256::elliptic_curve::rand_core::OsRng);
        let root_name: Name = "CN=Signet development root (not trusted),O=Signet"
            .parse()
            .map_err(|e| fail(&e))?;
        let root_spki =
            SubjectPublicKeyInfoOwned::from_key(*root_key.verifying_key()).map_err(|e| fail(&e))?;
        let root = CertificateBuilder::new(
            Profile::Root,
            serial(1)?,
            validity,
            root_name.clone(),
            root_spki,
            &root_key,
        )
        .map_err(|e| fail(&e))?
        .build::<DerSignature>()
        .map_err(|e| fail(&e))?;

        let key = SigningKey::random(&mut p256::elliptic_curve::rand_core::OsRng);
        let name: Name = "CN=Signet development seal (not for production),O=Signet"
            .parse()
            .map_err(|e| fail(&e))?;
        let spki =
            SubjectPublicKeyInfoOwned::from_key(*key.verifying_key()).map_err(|e| fail(&e))?;
        let leaf = CertificateBuilder::new(
            Profile::Leaf {
                issuer: root_name,
                enable_key_agreement: false,
                enable_key_encipherment: false,
            },
            serial(2)?,
            validity,
            name,
            spki,
            &root_key,
        )
        .map_err(|e| fail(&e))?
        .build::<DerSignature>()
        .map_err(|e| fail(&e))?;
        Ok((
            Self {
                key: Key::P256(key),
                chain: vec![leaf, root.clone()],
                development: true,
            },
            root,
        ))
    }

    /// True for a seal made by [`SealKey::development`].
    pub fn is_development(&self) -> bool {
        self.development
    }

    /// The seal certificate's subject, as RFC 4514 writes it (last part first), e.g.
    /// `O=Acme,CN=Acme seal`.
    pub fn subject(&self) -> String {
        self.chain[0].tbs_certificate.subject.to_string()
    }

    /// The key as PKCS#8 PEM, to be written to a file only its owner reads.
    pub fn key_pem(&self) -> Result<String, SealError> {
        let pem = match &self.key {
            Key::P256(key) => key.to_pkcs8_pem(LineEnding::LF),
            Key::Rsa(key) => key.to_pkcs8_pem(LineEnding::LF),
        };
        Ok(pem.map_err(|e| SealError::Key(e.to_string()))?.to_string())
    }

    /// The chain as PEM certificates, the seal's own first.
    pub fn chain_pem(&self) -> Result<String, SealError> {
        self.chain
            .iter()
            .map(|cert| cert.to_pem(LineEnding::LF))
            .collect::<Result<Vec<_>, _>>()
            .map(|pems| pems.concat())
            .map_err(|e| SealError::Chain(e.to_string()))
    }
}

fn rand_bytes() -> [u8; 32] {
    use p256::elliptic_curve::rand_core::RngCore;
    let mut bytes = [0u8; 32];
    p256::elliptic_curve::rand_core::OsRng.fill_bytes(&mut bytes);
    bytes
}

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
fn timestamp_info(token: &ContentInfo) -> Result<x509_tsp::TstInfo, String> {
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

/// The signature dictionary of the last signature field that has one.
fn last_signature(doc: &Document) -> Result<&Dictionary, String> {
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
fn trim_padding(contents: &[u8]) -> &[u8] {
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
fn verify_with(cert: &Certificate, message: &[u8], signature: &[u8]) -> Result<(), String> {
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
fn order_chain<'a>(
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

/// Reads PEM certificates (trust anchors, a chain).
pub fn certificates_from_pem(pem: &str) -> Result<Vec<Certificate>, String> {
    Certificate::load_pem_chain(pem.as_bytes()).map_err(|e| e.to_string())
}

/// `certificates` as PEM, one after another, as [`certificates_from_pem`] reads them.
pub fn certificates_to_pem<'a>(
    certificates: impl IntoIterator<Item = &'a Certificate>,
) -> Result<String, String> {
    use der::EncodePem;
    certificates
        .into_iter()
        .map(|cert| cert.to_pem(der::pem::LineEnding::LF))
        .collect::<Result<String, _>>()
        .map_err(|e| e.to_string())
}

/// The certificates a CMS SignedData carries.
fn cms_certificates(signed: &SignedData) -> Vec<Certificate> {
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

#[cfg(test)]
mod tests;
