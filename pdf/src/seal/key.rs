//! The operator's seal key and its certificate chain, or a development seal made on first use.

use std::time::Duration;

use der::{Decode, Encode, EncodePem};
use p256::ecdsa::{DerSignature, SigningKey};
use p256::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use sha2::Sha256;
use spki::SubjectPublicKeyInfoOwned;
use x509_cert::{
    Certificate,
    builder::{Builder, CertificateBuilder, Profile},
    name::Name,
    serial_number::SerialNumber,
    time::Validity,
};

use super::error::SealError;

/// The operator's seal: its key and certificate chain, leaf first.
pub struct SealKey {
    pub(crate) key: Key,
    pub(crate) chain: Vec<Certificate>,
    development: bool,
}

/// The key kinds a seal may have: ECDSA P-256, or RSA (at least 2048 bits) with PKCS#1 v1.5
/// and SHA-256, what most certificate authorities issue document-signing certificates for.
pub(crate) enum Key {
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

pub(crate) fn rand_bytes() -> [u8; 32] {
    use p256::elliptic_curve::rand_core::RngCore;
    let mut bytes = [0u8; 32];
    p256::elliptic_curve::rand_core::OsRng.fill_bytes(&mut bytes);
    bytes
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
