//! The seal over each final PDF (docs/signing.md, "The seal"): its key and chain, and the
//! timestamp authority.

use std::path::PathBuf;

use serde::Deserialize;

use super::{
    de,
    vars::{ConfigError, Vars},
};

#[derive(Clone)]
pub struct SealSettings {
    /// The seal's key and chain; `None`: a development seal made at start.
    pub source: Option<SealSource>,
    /// SEAL_CERT_FILE: the seal's PEM chain, whose root `/verify` trusts (with PEM keys it is
    /// also the chain the seal carries).
    pub cert_file: Option<PathBuf>,
    /// TSA_URL: an RFC 3161 timestamp authority; each seal then carries its timestamp (PAdES
    /// B-T), and a completion waits (and is retried) until the authority answers.
    pub tsa_url: Option<String>,
}

/// Where the seal's key and chain come from.
#[derive(Clone, PartialEq, Eq)]
pub enum SealSource {
    /// SEAL_KEY_FILE (PKCS#8 PEM) and SEAL_CERT_FILE (PEM chain, the seal's own first).
    Pem {
        key_file: PathBuf,
        chain_file: PathBuf,
    },
    /// SEAL_PKCS12_FILE, opened with SEAL_PKCS12_PASSWORD or the first line of
    /// SEAL_PKCS12_PASSWORD_FILE (read by the worker at start).
    Pkcs12 {
        file: PathBuf,
        password: Option<String>,
        password_file: Option<PathBuf>,
    },
}

impl std::fmt::Debug for SealSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Pem {
                key_file,
                chain_file,
            } => f
                .debug_struct("Pem")
                .field("key_file", key_file)
                .field("chain_file", chain_file)
                .finish(),
            // The password is never printed.
            Self::Pkcs12 {
                file,
                password_file,
                ..
            } => f
                .debug_struct("Pkcs12")
                .field("file", file)
                .field("password_file", password_file)
                .finish_non_exhaustive(),
        }
    }
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct SealVars {
    #[serde(rename = "SEAL_KEY_FILE", deserialize_with = "de::some")]
    key_file: Option<PathBuf>,
    #[serde(rename = "SEAL_CERT_FILE", deserialize_with = "de::some")]
    cert_file: Option<PathBuf>,
    #[serde(rename = "SEAL_PKCS12_FILE", deserialize_with = "de::some")]
    pkcs12_file: Option<PathBuf>,
    /// Taken as set even when blank: an empty password is a password.
    #[serde(rename = "SEAL_PKCS12_PASSWORD", deserialize_with = "de::some")]
    pkcs12_password: Option<String>,
    #[serde(rename = "SEAL_PKCS12_PASSWORD_FILE", deserialize_with = "de::some")]
    pkcs12_password_file: Option<PathBuf>,
    #[serde(rename = "TSA_URL", deserialize_with = "de::some")]
    tsa_url: Option<String>,
}

impl SealSettings {
    pub(super) fn load(vars: &Vars) -> Result<Self, ConfigError> {
        let v: SealVars = vars.load()?;
        let source = match (v.key_file, v.pkcs12_file) {
            (Some(_), Some(_)) => {
                return Err(ConfigError::new(
                    "SEAL_PKCS12_FILE",
                    "set either SEAL_KEY_FILE (with SEAL_CERT_FILE) or SEAL_PKCS12_FILE",
                ));
            }
            (Some(key_file), None) => Some(SealSource::Pem {
                key_file,
                chain_file: v.cert_file.clone().ok_or(ConfigError::new(
                    "SEAL_CERT_FILE",
                    "must be set with SEAL_KEY_FILE",
                ))?,
            }),
            (None, Some(file)) => {
                if v.pkcs12_password.is_none() && v.pkcs12_password_file.is_none() {
                    return Err(ConfigError::new(
                        "SEAL_PKCS12_PASSWORD",
                        "set it or SEAL_PKCS12_PASSWORD_FILE with SEAL_PKCS12_FILE",
                    ));
                }
                Some(SealSource::Pkcs12 {
                    file,
                    password: v.pkcs12_password,
                    password_file: v.pkcs12_password_file,
                })
            }
            (None, None) if v.cert_file.is_some() => {
                return Err(ConfigError::new(
                    "SEAL_KEY_FILE",
                    "must be set with SEAL_CERT_FILE (or use SEAL_PKCS12_FILE)",
                ));
            }
            (None, None) => None,
        };
        Ok(Self {
            source,
            cert_file: v.cert_file,
            tsa_url: v.tsa_url,
        })
    }
}
