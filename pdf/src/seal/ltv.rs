//! Long-term validation (PAdES B-LT): the revocation data of the seal's chain and of its
//! timestamp authority's, embedded in the file so that the seal can still be validated offline
//! when those certificates have expired and their authorities' servers are gone.
//!
//! [`ValidationPlan`] reads which certificates name revocation services (an OCSP responder in
//! their Authority Information Access, else CRL distribution points) and says what to ask;
//! the caller does the network; [`ValidationPlan::embed`] checks each answer (signed by the
//! certificate's issuer, about this certificate, current, and not revoked) and writes them
//! with the certificates into a Document Security Store (ISO 32000-2 §12.8.4.3, ETSI EN 319
//! 142-1 §5.4) in an incremental update after the seal, as PAdES prescribes. [`check_update`]
//! is the reading side: what [`super::verify`] accepts after the seal's own revision.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use const_oid::db::rfc5912;
use der::{Decode, Encode};
use lopdf::{Dictionary, Document, IncrementalDocument, Object, ObjectId, Stream, dictionary};
use sha1::Sha1;
use sha2::Digest;
use x509_cert::{
    Certificate,
    crl::CertificateList,
    ext::pkix::{
        AuthorityInfoAccessSyntax, CrlDistributionPoints, name::DistributionPointName,
        name::GeneralName,
    },
};
use x509_ocsp::{
    BasicOcspResponse, CertId, CertStatus, OcspResponse, OcspResponseStatus, Request,
    builder::OcspRequestBuilder,
};

use super::{
    error::SealError,
    key::SealKey,
    signed_file::{cms_certificates, last_signature, trim_padding, verify_with},
};
use crate::inspect::Limits;

/// Where one certificate's revocation status is asked.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RevocationSource {
    /// An OCSP responder (RFC 6960): `POST` of `request` as `application/ocsp-request`.
    Ocsp { url: String, request: Vec<u8> },
    /// A CRL distribution point (RFC 5280): `GET` of a DER CertificateList.
    Crl { url: String },
}

/// One certificate whose revocation status is to be embedded.
struct Check {
    certificate: Certificate,
    issuer: Certificate,
    source: RevocationSource,
}

/// What long-term validation needs for one seal: the certificates to embed and the questions
/// to ask their authorities. Empty when no certificate names a revocation service (as with a
/// development seal): then the sealed file is complete as it is.
pub struct ValidationPlan {
    certificates: Vec<Certificate>,
    checks: Vec<Check>,
}

impl ValidationPlan {
    /// The plan for a seal made with `key`, timestamped with `timestamp_token` (DER) if any.
    /// Self-signed roots are not checked (nothing can revoke them), nor certificates whose
    /// issuer is neither in the chain nor in the token.
    pub fn new(key: &SealKey, timestamp_token: Option<&[u8]>) -> Result<Self, SealError> {
        let mut certificates = key.chain.clone();
        if let Some(token) = timestamp_token {
            let info = cms::content_info::ContentInfo::from_der(token)
                .map_err(|e| SealError::Timestamp(e.to_string()))?;
            let signed = info
                .content
                .decode_as()
                .map_err(|e| SealError::Timestamp(e.to_string()))?;
            for cert in cms_certificates(&signed) {
                if !certificates.contains(&cert) {
                    certificates.push(cert);
                }
            }
        }
        let mut checks = Vec::new();
        for (certificate, issuer) in with_issuers(&certificates) {
            let source = if let Some(url) = ocsp_url(certificate) {
                RevocationSource::Ocsp {
                    request: ocsp_request(issuer, certificate)?,
                    url,
                }
            } else if let Some(url) = crl_url(certificate) {
                RevocationSource::Crl { url }
            } else {
                continue;
            };
            checks.push(Check {
                certificate: certificate.clone(),
                issuer: issuer.clone(),
                source,
            });
        }
        Ok(Self {
            certificates,
            checks,
        })
    }

    /// Whether any certificate names a revocation service.
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// What to ask, in order: [`ValidationPlan::embed`] takes the answers in the same order.
    pub fn sources(&self) -> impl Iterator<Item = &RevocationSource> {
        self.checks.iter().map(|check| &check.source)
    }

    /// The sealed file with a DSS holding the certificates and `answers` (one DER OCSPResponse
    /// or CRL per [`ValidationPlan::sources`] item), after checking each at `now`. An answer
    /// that says a certificate is revoked, or that cannot be trusted, is an error: a seal its
    /// own revocation data contradicts is never written.
    pub fn embed(
        &self,
        sealed: &[u8],
        answers: &[Vec<u8>],
        now: DateTime<Utc>,
    ) -> Result<Vec<u8>, SealError> {
        let data = self.check(answers, now)?;
        with_dss(sealed, &data, Limits::default())
    }

    /// The part of [`ValidationPlan::embed`] that reads no PDF: checks `answers` and gathers
    /// what the DSS will hold; [`with_dss`] writes it.
    pub fn check(
        &self,
        answers: &[Vec<u8>],
        now: DateTime<Utc>,
    ) -> Result<ValidationData, SealError> {
        if answers.len() != self.checks.len() {
            return Err(SealError::Revocation(format!(
                "{} answers for {} questions",
                answers.len(),
                self.checks.len()
            )));
        }
        let mut data = ValidationData {
            certificates: self
                .certificates
                .iter()
                .map(|c| c.to_der())
                .collect::<Result<_, _>>()
                .map_err(|e| SealError::Revocation(e.to_string()))?,
            ..ValidationData::default()
        };
        for (check, answer) in self.checks.iter().zip(answers) {
            let subject = check.certificate.tbs_certificate.subject.to_string();
            let fail = |reason: String| SealError::Revocation(format!("{subject}: {reason}"));
            match check.source {
                RevocationSource::Ocsp { .. } => {
                    let basic = ocsp_basic_response(answer).map_err(fail)?;
                    let status = ocsp_status(&basic, &check.certificate, &check.issuer, Some(now))
                        .map_err(fail)?;
                    status.map_err(fail)?;
                    for responder in basic.certs.iter().flatten() {
                        let der = responder
                            .to_der()
                            .map_err(|e| SealError::Revocation(e.to_string()))?;
                        if !data.certificates.contains(&der) {
                            data.certificates.push(der);
                        }
                    }
                    data.ocsps.push(answer.clone());
                }
                RevocationSource::Crl { .. } => {
                    let crl = CertificateList::from_der(answer)
                        .map_err(|e| fail(format!("the CRL cannot be read: {e}")))?;
                    crl_status(&crl, &check.certificate, &check.issuer, Some(now))
                        .map_err(fail)?
                        .map_err(fail)?;
                    if !data.crls.contains(answer) {
                        data.crls.push(answer.clone());
                    }
                }
            }
        }
        Ok(data)
    }
}

/// The long-term validation data checked by [`ValidationPlan::check`], as DER, for
/// [`with_dss`].
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ValidationData {
    certificates: Vec<Vec<u8>>,
    ocsps: Vec<Vec<u8>>,
    crls: Vec<Vec<u8>>,
}

/// Each certificate that can be revoked (not a self-signed root) with its issuer, when the
/// issuer is among `certificates` too.
fn with_issuers(
    certificates: &[Certificate],
) -> impl Iterator<Item = (&Certificate, &Certificate)> {
    certificates.iter().filter_map(|certificate| {
        let tbs = &certificate.tbs_certificate;
        if tbs.issuer == tbs.subject {
            return None;
        }
        let issuer = certificates
            .iter()
            .find(|c| c.tbs_certificate.subject == tbs.issuer)?;
        Some((certificate, issuer))
    })
}

/// The first OCSP responder an Authority Information Access extension names over HTTP.
fn ocsp_url(certificate: &Certificate) -> Option<String> {
    let (_, access) = certificate
        .tbs_certificate
        .get::<AuthorityInfoAccessSyntax>()
        .ok()??;
    access.0.iter().find_map(|description| {
        (description.access_method == rfc5912::ID_AD_OCSP)
            .then(|| http_uri(&description.access_location))
            .flatten()
    })
}

/// The first CRL distribution point named by an HTTP URI.
fn crl_url(certificate: &Certificate) -> Option<String> {
    let (_, points) = certificate
        .tbs_certificate
        .get::<CrlDistributionPoints>()
        .ok()??;
    points
        .0
        .iter()
        .find_map(|point| match &point.distribution_point {
            Some(DistributionPointName::FullName(names)) => names.iter().find_map(http_uri),
            _ => None,
        })
}

fn http_uri(name: &GeneralName) -> Option<String> {
    match name {
        GeneralName::UniformResourceIdentifier(uri)
            if uri.as_str().starts_with("http://") || uri.as_str().starts_with("https://") =>
        {
            Some(uri.as_str().to_owned())
        }
        _ => None,
    }
}

/// The CertID a request names: SHA-1, which every responder answers for (RFC 5019).
fn cert_id(issuer: &Certificate, certificate: &Certificate) -> Result<CertId, SealError> {
    CertId::from_cert::<Sha1>(issuer, certificate)
        .map_err(|e| SealError::Revocation(format!("cannot name the certificate for OCSP: {e}")))
}

/// An unsigned OCSP request for one certificate, DER. No nonce: answers are often
/// pre-produced and cached, and the answer's own time is what is checked.
fn ocsp_request(issuer: &Certificate, certificate: &Certificate) -> Result<Vec<u8>, SealError> {
    OcspRequestBuilder::default()
        .with_request(Request::new(cert_id(issuer, certificate)?))
        .build()
        .to_der()
        .map_err(|e| SealError::Revocation(e.to_string()))
}

/// The BasicOCSPResponse inside a successful OCSPResponse.
fn ocsp_basic_response(der: &[u8]) -> Result<BasicOcspResponse, String> {
    let response =
        OcspResponse::from_der(der).map_err(|e| format!("the OCSP answer cannot be read: {e}"))?;
    if response.response_status != OcspResponseStatus::Successful {
        return Err(format!(
            "the OCSP responder answered {:?}",
            response.response_status
        ));
    }
    let bytes = response.response_bytes.ok_or("the OCSP answer is empty")?;
    if bytes.response_type != const_oid::db::rfc6960::ID_PKIX_OCSP_BASIC {
        return Err("the OCSP answer is not a basic response".into());
    }
    BasicOcspResponse::from_der(bytes.response.as_bytes())
        .map_err(|e| format!("the OCSP answer cannot be read: {e}"))
}

/// What an OCSP response says of `certificate`: `Err` when it cannot be trusted (not signed by
/// the issuer or by a responder the issuer certified, not about this certificate, out of date
/// at `now` when given); `Ok(Err)` with the reason when it says the certificate is not good.
fn ocsp_status(
    basic: &BasicOcspResponse,
    certificate: &Certificate,
    issuer: &Certificate,
    now: Option<DateTime<Utc>>,
) -> Result<Result<(), String>, String> {
    let tbs = basic
        .tbs_response_data
        .to_der()
        .map_err(|e| e.to_string())?;
    let signature = basic
        .signature
        .as_bytes()
        .ok_or("the OCSP signature is not whole bytes")?;
    let signed_by_issuer = verify_with(issuer, &tbs, signature).is_ok();
    let signed_by_responder = || {
        basic.certs.iter().flatten().any(|responder| {
            responder.tbs_certificate.issuer == issuer.tbs_certificate.subject
                && responder.tbs_certificate.to_der().is_ok_and(|der| {
                    responder
                        .signature
                        .as_bytes()
                        .is_some_and(|sig| verify_with(issuer, &der, sig).is_ok())
                })
                && verify_with(responder, &tbs, signature).is_ok()
        })
    };
    if !signed_by_issuer && !signed_by_responder() {
        return Err("the OCSP answer is not signed by the certificate's issuer".into());
    }
    // Responders answer with the request's hash algorithm; files from elsewhere may use SHA-256.
    let expected = [
        cert_id(issuer, certificate).map_err(|e| e.to_string())?,
        CertId::from_cert::<sha2::Sha256>(issuer, certificate).map_err(|e| e.to_string())?,
    ];
    let single = basic
        .tbs_response_data
        .responses
        .iter()
        .find(|single| expected.contains(&single.cert_id))
        .ok_or("the OCSP answer is not about this certificate")?;
    if let (Some(now), Some(next)) = (now, &single.next_update)
        && next.0.to_unix_duration() < system_time(now)
    {
        return Err("the OCSP answer is out of date".into());
    }
    Ok(match &single.cert_status {
        CertStatus::Good(_) => Ok(()),
        CertStatus::Revoked(info) => Err(format!(
            "revoked at {} (OCSP)",
            info.revocation_time.0.to_date_time()
        )),
        CertStatus::Unknown(_) => Err("unknown to its OCSP responder".into()),
    })
}

/// What a CRL says of `certificate`, as [`ocsp_status`] does.
fn crl_status(
    crl: &CertificateList,
    certificate: &Certificate,
    issuer: &Certificate,
    now: Option<DateTime<Utc>>,
) -> Result<Result<(), String>, String> {
    if crl.tbs_cert_list.issuer != issuer.tbs_certificate.subject {
        return Err("the CRL is not the issuer's".into());
    }
    let tbs = crl.tbs_cert_list.to_der().map_err(|e| e.to_string())?;
    let signature = crl
        .signature
        .as_bytes()
        .ok_or("the CRL's signature is not whole bytes")?;
    verify_with(issuer, &tbs, signature)
        .map_err(|e| format!("the CRL is not signed by the certificate's issuer: {e}"))?;
    if let (Some(now), Some(next)) = (now, &crl.tbs_cert_list.next_update)
        && next.to_unix_duration() < system_time(now)
    {
        return Err("the CRL is out of date".into());
    }
    let serial = &certificate.tbs_certificate.serial_number;
    Ok(
        match crl
            .tbs_cert_list
            .revoked_certificates
            .iter()
            .flatten()
            .find(|revoked| revoked.serial_number == *serial)
        {
            Some(revoked) => Err(format!("revoked at {} (CRL)", revoked.revocation_date)),
            None => Ok(()),
        },
    )
}

fn system_time(time: DateTime<Utc>) -> std::time::Duration {
    std::time::Duration::from_secs(u64::try_from(time.timestamp()).unwrap_or_default())
}

/// The sealed file with a DSS (and a VRI entry for the seal's signature, which Adobe's
/// validator reads) in an incremental update.
/// It parses a file that holds the original upload: Signet runs it in the PDF sandbox.
pub fn with_dss(
    sealed: &[u8],
    data: &ValidationData,
    limits: Limits,
) -> Result<Vec<u8>, SealError> {
    let read = |e: lopdf::Error| SealError::Pdf(e.to_string());
    let doc = crate::inspect::load(sealed, limits).map_err(|e| SealError::Pdf(e.to_string()))?;
    let catalog_id = doc
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(read)?;
    let mut catalog = doc.get_dictionary(catalog_id).map_err(read)?.clone();
    let signature = last_signature(&doc).map_err(SealError::Pdf)?;
    let contents = signature
        .get(b"Contents")
        .and_then(Object::as_str)
        .map_err(read)?;
    let vri_key = hex::encode_upper(Sha1::digest(trim_padding(contents)));

    let mut update = IncrementalDocument::create_from(sealed.to_vec(), doc);
    let new = &mut update.new_document;
    let mut streams = |items: &[Vec<u8>]| -> Vec<Object> {
        items
            .iter()
            .map(|der| {
                Object::Reference(new.add_object(Stream::new(Dictionary::new(), der.clone())))
            })
            .collect()
    };
    let certs = streams(&data.certificates);
    let ocsps = streams(&data.ocsps);
    let crls = streams(&data.crls);
    let mut vri_entry = dictionary! { "Cert" => certs.clone() };
    let mut dss = dictionary! { "Type" => "DSS", "Certs" => certs };
    if !ocsps.is_empty() {
        vri_entry.set("OCSP", ocsps.clone());
        dss.set("OCSPs", ocsps);
    }
    if !crls.is_empty() {
        vri_entry.set("CRL", crls.clone());
        dss.set("CRLs", crls);
    }
    let mut vri = Dictionary::new();
    vri.set(vri_key.into_bytes(), vri_entry);
    dss.set("VRI", vri);
    let dss_id = new.add_object(dss);
    catalog.set("DSS", dss_id);
    new.objects.insert(catalog_id, catalog.into());
    let mut bytes = Vec::new();
    update
        .save_to(&mut bytes)
        .map_err(|e| SealError::Pdf(e.to_string()))?;
    Ok(bytes)
}

/// The long-term validation data a sealed file carries, as [`super::verify`] reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LongTermData {
    /// For each certificate of the seal's chain and its timestamp authority's that has
    /// revocation data in the file: its subject and what the data says ("good (OCSP)").
    pub statuses: Vec<(String, String)>,
}

/// Checks what follows the seal's own revision (the first `signed_len` bytes of `pdf`): only
/// updates that add a DSS and change nothing else are allowed. `Ok(None)` when nothing
/// follows.
pub(super) fn check_update(
    pdf: &[u8],
    signed_len: usize,
    full: &Document,
    limits: Limits,
) -> Result<Option<Dictionary>, String> {
    if signed_len == pdf.len() {
        return Ok(None);
    }
    let changed = || {
        "the seal does not cover the whole file: bytes were added after it that are not \
         long-term validation data"
            .to_owned()
    };
    let signed = crate::inspect::load(&pdf[..signed_len], limits).map_err(|_| changed())?;
    let catalog_id = full
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(|_| changed())?;
    let signed_catalog_id = signed
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(|_| changed())?;
    if catalog_id != signed_catalog_id {
        return Err(changed());
    }
    let catalog = full.get_dictionary(catalog_id).map_err(|_| changed())?;
    let dss_ref = catalog.get(b"DSS").map_err(|_| changed())?;
    let mut dss_objects = BTreeSet::new();
    collect_references(full, dss_ref, &mut dss_objects);
    let without_dss = |dict: &Dictionary| {
        let mut dict = dict.clone();
        dict.remove(b"DSS");
        dict
    };
    let signed_catalog = signed.get_dictionary(catalog_id).map_err(|_| changed())?;
    if without_dss(catalog) != without_dss(signed_catalog) {
        return Err(changed());
    }
    for (id, object) in &full.objects {
        if *id == catalog_id || dss_objects.contains(id) {
            continue;
        }
        if signed.objects.get(id) != Some(object) {
            return Err(changed());
        }
    }
    let dss = full
        .dereference(dss_ref)
        .ok()
        .and_then(|(_, object)| object.as_dict().ok())
        .ok_or_else(changed)?;
    Ok(Some(dss.clone()))
}

/// The most bytes the revocation data in one file's DSS may take, all streams together.
const MAX_DSS_BYTES: usize = 4 * 1024 * 1024;
/// The most OCSP answers, and the most CRLs, read from one file's DSS.
const MAX_DSS_ITEMS: usize = 64;

fn too_much_dss() -> String {
    format!(
        "its long-term validation data is larger than the {} MiB a seal's may be",
        MAX_DSS_BYTES / (1024 * 1024)
    )
}

/// Every object `object` refers to, directly or through others. Walked with a stack of its
/// own: the chain of references is the file's, of any length.
fn collect_references(doc: &Document, object: &Object, seen: &mut BTreeSet<ObjectId>) {
    let mut pending = vec![object];
    while let Some(object) = pending.pop() {
        match object {
            Object::Reference(id) if seen.insert(*id) => {
                if let Ok(target) = doc.get_object(*id) {
                    pending.push(target);
                }
            }
            Object::Array(items) => pending.extend(items),
            Object::Dictionary(dict) => pending.extend(dict.iter().map(|(_, value)| value)),
            Object::Stream(stream) => pending.extend(stream.dict.iter().map(|(_, value)| value)),
            _ => {}
        }
    }
}

/// What the DSS says of each certificate in `chain` (leaf first; the issuer of each is the
/// next, or found in `others`): revocation data that says one was revoked makes the seal
/// fail.
pub(super) fn statuses(
    doc: &Document,
    dss: &Dictionary,
    certificates: &[Certificate],
) -> Result<LongTermData, String> {
    // The file's DSS is read within a budget of its own, all its streams together: Signet
    // writes a few answers of a few kilobytes each.
    let mut budget = MAX_DSS_BYTES;
    let mut streams = |key: &[u8]| -> Result<Vec<Vec<u8>>, String> {
        let Ok(items) = dss.get_deref(key, doc).and_then(Object::as_array) else {
            return Ok(Vec::new());
        };
        let mut ders = Vec::new();
        for item in items.iter().take(MAX_DSS_ITEMS) {
            let Some(stream) = doc
                .dereference(item)
                .ok()
                .and_then(|(_, object)| object.as_stream().ok())
            else {
                continue;
            };
            let der = if stream.filters().is_ok_and(|filters| !filters.is_empty()) {
                stream
                    .decompressed_content_with_limit(budget)
                    .map_err(|_| too_much_dss())?
            } else {
                stream.content.clone()
            };
            budget = budget.checked_sub(der.len()).ok_or_else(too_much_dss)?;
            ders.push(der);
        }
        Ok(ders)
    };
    let ocsps: Vec<BasicOcspResponse> = streams(b"OCSPs")?
        .iter()
        .filter_map(|der| ocsp_basic_response(der).ok())
        .collect();
    let crls: Vec<CertificateList> = streams(b"CRLs")?
        .iter()
        .filter_map(|der| CertificateList::from_der(der).ok())
        .collect();
    let mut statuses = Vec::new();
    for (certificate, issuer) in with_issuers(certificates) {
        let subject = certificate.tbs_certificate.subject.to_string();
        let from_ocsp = ocsps
            .iter()
            .find_map(|basic| ocsp_status(basic, certificate, issuer, None).ok());
        let from_crl = || {
            crls.iter()
                .find_map(|crl| crl_status(crl, certificate, issuer, None).ok())
        };
        let (status, source) = match from_ocsp {
            Some(status) => (status, "OCSP"),
            None => match from_crl() {
                Some(status) => (status, "CRL"),
                None => continue,
            },
        };
        match status {
            Ok(()) => statuses.push((subject, format!("good ({source})"))),
            Err(reason) => return Err(format!("{subject} is {reason}")),
        }
    }
    Ok(LongTermData { statuses })
}
