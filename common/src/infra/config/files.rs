//! The file store (a directory or a bucket), how files are served, and the secret that signs
//! file links.

use std::{path::PathBuf, time::Duration};

use serde::Deserialize;

use super::{
    de,
    vars::{ConfigError, Vars},
};

#[derive(Clone)]
pub struct FileSettings {
    /// Where PDFs are stored: FILE_STORE=local (FILE_STORE_DIR) or s3 (FILE_STORE_S3_*).
    pub store: FileStoreConfig,
    /// FILE_DOWNLOADS: how `GET /files/{id}` serves a file from a bucket.
    pub downloads: FileDownloads,
    /// FILE_ORPHAN_GRACE_SECS: how old a file written for a document that was never committed
    /// (a failed upload, a discarded rendering) must be before the sweep removes it.
    pub orphan_grace: Duration,
    pub url_secret: Vec<u8>,
    /// True when FILE_URL_SECRET was unset and a random per-process secret is used.
    pub url_secret_generated: bool,
    pub url_ttl: Duration,
}

/// Where PDFs are stored.
#[derive(Clone, PartialEq, Eq)]
pub enum FileStoreConfig {
    /// FILE_STORE=local (the default): the directory FILE_STORE_DIR, shared by the API and
    /// workers of one machine (or one volume).
    Local { dir: PathBuf },
    /// FILE_STORE=s3: an S3-compatible bucket, shared by processes on any machine.
    S3(S3Config),
}

/// An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, Cloudflare R2, GCS's XML API).
/// Credentials and region not set here come from the standard AWS variables
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, web
/// identity, the instance's role…).
#[derive(Clone, PartialEq, Eq)]
pub struct S3Config {
    /// FILE_STORE_S3_BUCKET (required).
    pub bucket: String,
    /// FILE_STORE_S3_ENDPOINT: the service's URL (MinIO, R2…); unset for AWS.
    pub endpoint: Option<String>,
    /// FILE_STORE_S3_REGION.
    pub region: Option<String>,
    /// FILE_STORE_S3_PREFIX: keys start with it (`signet/` for a bucket shared with others).
    pub prefix: String,
    /// FILE_STORE_S3_ADDRESSING: `virtual` (`bucket.host/key`) or `path` (`host/bucket/key`);
    /// the default is `path` with an endpoint (what MinIO and most self-hosted servers expect)
    /// and `virtual` without one (AWS).
    pub virtual_hosted: bool,
    /// FILE_STORE_S3_ACCESS_KEY_ID and FILE_STORE_S3_SECRET_ACCESS_KEY, both or neither.
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
}

impl std::fmt::Debug for FileStoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Local { dir } => write!(f, "local:{}", dir.display()),
            Self::S3(s3) => write!(
                f,
                "s3://{}/{} (endpoint {}, {} addressing)",
                s3.bucket,
                s3.prefix,
                s3.endpoint.as_deref().unwrap_or("AWS"),
                if s3.virtual_hosted {
                    "virtual-host"
                } else {
                    "path"
                }
            ),
        }
    }
}

/// How `GET /files/{id}` serves a file kept in a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileDownloads {
    /// The API streams it (the default): one URL that works for as long as the signed link,
    /// ranges and ETags, and the bucket never exposed.
    Stream,
    /// The API answers `307` to a presigned URL of the bucket valid for five minutes: the bytes
    /// go from the bucket to the client, not through the API.
    Redirect,
}

/// The variables as set; the S3 ones are only read (and checked) with FILE_STORE=s3.
#[derive(Deserialize)]
#[serde(default)]
struct FileVars {
    #[serde(rename = "FILE_URL_SECRET", deserialize_with = "de::some")]
    url_secret: Option<String>,
    #[serde(rename = "FILE_STORE")]
    store: String,
    #[serde(rename = "FILE_STORE_DIR")]
    dir: PathBuf,
    #[serde(rename = "FILE_STORE_S3_BUCKET", deserialize_with = "de::some")]
    bucket: Option<String>,
    #[serde(rename = "FILE_STORE_S3_ENDPOINT", deserialize_with = "de::some")]
    endpoint: Option<String>,
    #[serde(rename = "FILE_STORE_S3_REGION", deserialize_with = "de::some")]
    region: Option<String>,
    #[serde(rename = "FILE_STORE_S3_PREFIX")]
    prefix: String,
    #[serde(rename = "FILE_STORE_S3_ADDRESSING", deserialize_with = "de::some")]
    addressing: Option<String>,
    #[serde(rename = "FILE_STORE_S3_ACCESS_KEY_ID", deserialize_with = "de::some")]
    access_key_id: Option<String>,
    #[serde(
        rename = "FILE_STORE_S3_SECRET_ACCESS_KEY",
        deserialize_with = "de::some"
    )]
    secret_access_key: Option<String>,
    #[serde(rename = "FILE_DOWNLOADS", deserialize_with = "downloads")]
    downloads: FileDownloads,
    #[serde(
        rename = "FILE_ORPHAN_GRACE_SECS",
        deserialize_with = "de::positive_secs"
    )]
    orphan_grace: Duration,
    #[serde(rename = "FILE_URL_TTL_SECS", deserialize_with = "de::positive_secs")]
    url_ttl: Duration,
}

impl Default for FileVars {
    fn default() -> Self {
        Self {
            url_secret: None,
            store: "local".to_owned(),
            dir: PathBuf::from("./data/files"),
            bucket: None,
            endpoint: None,
            region: None,
            prefix: String::new(),
            addressing: None,
            access_key_id: None,
            secret_access_key: None,
            downloads: FileDownloads::Stream,
            orphan_grace: Duration::from_secs(3600),
            url_ttl: Duration::from_secs(3600),
        }
    }
}

fn downloads<'de, D: serde::Deserializer<'de>>(d: D) -> Result<FileDownloads, D::Error> {
    use serde::de::Error as _;
    match String::deserialize(d)?.as_str() {
        "stream" => Ok(FileDownloads::Stream),
        "redirect" => Ok(FileDownloads::Redirect),
        other => Err(D::Error::custom(format!(
            "{other:?} is not stream or redirect"
        ))),
    }
}

impl FileSettings {
    pub(super) fn load(vars: &Vars) -> Result<Self, ConfigError> {
        let v: FileVars = vars.load()?;
        let (url_secret, url_secret_generated) = match v.url_secret {
            Some(secret) => (file_url_secret(secret)?, false),
            None => (crate::infra::secrets::random_bytes(32), true),
        };
        let store = match v.store.as_str() {
            "local" => FileStoreConfig::Local { dir: v.dir },
            "s3" => FileStoreConfig::S3(S3Config {
                bucket: v.bucket.ok_or(ConfigError::new(
                    "FILE_STORE_S3_BUCKET",
                    "must be set with FILE_STORE=s3",
                ))?,
                virtual_hosted: match v.addressing.as_deref() {
                    None => v.endpoint.is_none(),
                    Some("virtual") => true,
                    Some("path") => false,
                    Some(other) => {
                        return Err(ConfigError::new(
                            "FILE_STORE_S3_ADDRESSING",
                            format!("{other:?} is not path or virtual"),
                        ));
                    }
                },
                endpoint: v.endpoint,
                region: v.region,
                prefix: v.prefix.trim_matches('/').to_owned(),
                access_key_id: match (v.access_key_id, &v.secret_access_key) {
                    (id, secret) if id.is_some() == secret.is_some() => id,
                    _ => {
                        return Err(ConfigError::new(
                            "FILE_STORE_S3_SECRET_ACCESS_KEY",
                            "set both FILE_STORE_S3_ACCESS_KEY_ID and \
                             FILE_STORE_S3_SECRET_ACCESS_KEY, or neither",
                        ));
                    }
                },
                secret_access_key: v.secret_access_key,
            }),
            other => {
                return Err(ConfigError::new(
                    "FILE_STORE",
                    format!("{other:?} is not local or s3"),
                ));
            }
        };
        Ok(Self {
            store,
            downloads: v.downloads,
            orphan_grace: v.orphan_grace,
            url_secret,
            url_secret_generated,
            url_ttl: v.url_ttl,
        })
    }

    /// What the API and every worker say at start when FILE_URL_SECRET is unset: each process
    /// then signs with a secret of its own, which no other process accepts.
    pub fn generated_secret_warning(&self) -> Option<&'static str> {
        self.url_secret_generated.then_some(
            "FILE_URL_SECRET is unset: file links are signed with a random per-process secret; \
             they stop working on restart, and links one process signs (a worker's completion \
             e-mails, say) are refused by every other. Set the same FILE_URL_SECRET on every API \
             and worker",
        )
    }
}

/// Values that appear in examples and must never sign real links.
const PLACEHOLDER_SECRETS: &[&str] = &[
    "change-me",
    "changeme",
    "change-me-to-a-long-random-string",
    "secret",
    "password",
];

/// FILE_URL_SECRET signs file links: anyone who knows it can make them. A short value or a
/// known placeholder is refused.
fn file_url_secret(secret: String) -> Result<Vec<u8>, ConfigError> {
    let normalised = secret.trim().to_ascii_lowercase();
    let reason = if PLACEHOLDER_SECRETS.contains(&normalised.as_str())
        || normalised.starts_with("change-me")
        || normalised.starts_with("changeme")
    {
        "is a placeholder; set a random value, e.g. `openssl rand -hex 32`"
    } else if secret.len() < 32 {
        "must be at least 32 bytes; set a random value, e.g. `openssl rand -hex 32`"
    } else {
        return Ok(secret.into_bytes());
    };
    Err(ConfigError::new("FILE_URL_SECRET", reason))
}
