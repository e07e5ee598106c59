//! The file store, where originals and final PDFs live: a local directory (`FILE_STORE=local`,
//! the default, for one machine) or an S3-compatible bucket (`FILE_STORE=s3`, for API and
//! workers on several machines), both through `object_store`, so there is one code path.
//! Every write is whole or nothing (a single PUT; a temporary file renamed into place), and
//! keys never change once written: a file is replaced only by a new key.
//!
//! Also the signed, expiring file links.

use std::{path::PathBuf, sync::Arc, time::Duration};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use futures::stream::BoxStream;
use object_store::{
    Attribute, Attributes, GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutOptions,
    PutPayload, aws::AmazonS3Builder, local::LocalFileSystem, path::Path, signer::SignedUrlOptions,
    signer::Signer,
};

use crate::{
    infra::{
        config::{FileStoreConfig, S3Config},
        secrets,
    },
    model::{AccountId, DocumentId, TemplateId},
};

pub use object_store::Error as StoreError;

/// How long one request to the store may take before it counts as unreachable.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a failing request is retried (with backoff) before the failure is answered: an
/// upload then gets its 503 within seconds rather than after object_store's default three
/// minutes, and a job fails and is retried by the queue instead.
const RETRY_FOR: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub struct FileStore {
    store: Arc<dyn ObjectStore>,
    /// Presigns download URLs; only a bucket has one.
    signer: Option<Arc<dyn Signer>>,
    /// The keys' prefix in the bucket, which a presigned URL must name.
    prefix: String,
    /// What the store is, for logs: the directory, or `s3://bucket/prefix`.
    description: String,
}

impl std::fmt::Debug for FileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description)
    }
}

/// A stored file's bytes, or a part of them, as a stream.
pub struct StoredFile {
    /// The file's whole size.
    pub size: u64,
    /// The bytes the stream yields, out of `0..size`.
    pub range: std::ops::Range<u64>,
    pub stream: BoxStream<'static, Result<Bytes, StoreError>>,
}

impl FileStore {
    /// The store the configuration names. A local directory is created if missing; a bucket is
    /// not contacted until it is used.
    pub fn from_config(config: &FileStoreConfig) -> Result<Self, String> {
        match config {
            FileStoreConfig::Local { dir } => Self::local(dir.clone()),
            FileStoreConfig::S3(s3) => Self::s3(s3),
        }
    }

    pub fn local(dir: PathBuf) -> Result<Self, String> {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let store = LocalFileSystem::new_with_prefix(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Self {
            store: Arc::new(store),
            signer: None,
            prefix: String::new(),
            description: dir.display().to_string(),
        })
    }

    fn s3(config: &S3Config) -> Result<Self, String> {
        // The standard AWS variables (credentials, session token, web identity, region,
        // AWS_ENDPOINT_URL…) first; Signet's own settings on top.
        let mut builder = AmazonS3Builder::from_env()
            .with_bucket_name(&config.bucket)
            .with_virtual_hosted_style_request(config.virtual_hosted)
            .with_retry(object_store::RetryConfig {
                max_retries: 3,
                retry_timeout: RETRY_FOR,
                ..object_store::RetryConfig::default()
            })
            .with_client_options(
                object_store::ClientOptions::new()
                    .with_timeout(REQUEST_TIMEOUT)
                    .with_connect_timeout(Duration::from_secs(5)),
            );
        if let Some(endpoint) = &config.endpoint {
            builder = builder
                .with_endpoint(endpoint)
                .with_allow_http(endpoint.starts_with("http://"));
        }
        if let Some(region) = &config.region {
            builder = builder.with_region(region);
        }
        if let (Some(id), Some(secret)) = (&config.access_key_id, &config.secret_access_key) {
            builder = builder
                .with_access_key_id(id)
                .with_secret_access_key(secret);
        }
        let bucket = Arc::new(builder.build().map_err(|e| e.to_string())?);
        let prefix = config.prefix.trim_matches('/');
        let store: Arc<dyn ObjectStore> = if prefix.is_empty() {
            bucket.clone()
        } else {
            Arc::new(object_store::prefix::PrefixStore::new(
                bucket.clone(),
                prefix,
            ))
        };
        Ok(Self {
            store,
            signer: Some(bucket),
            prefix: prefix.to_owned(),
            description: format!("s3://{}/{prefix}", config.bucket),
        })
    }

    pub fn original_key(account_id: AccountId, document_id: DocumentId) -> String {
        format!("{account_id}/{document_id}/original.pdf")
    }

    /// The key of a PDF uploaded as a template (documents made from it share it).
    pub fn template_key(account_id: AccountId, template_id: TemplateId) -> String {
        format!("{account_id}/templates/{template_id}/original.pdf")
    }

    /// Stores `bytes` under `key`, whole or not at all.
    pub async fn put(&self, key: &str, bytes: Bytes) -> Result<(), StoreError> {
        let mut options = PutOptions::default();
        if self.signer.is_some() {
            // What a presigned download serves; a local directory keeps no attributes.
            options.attributes =
                Attributes::from_iter([(Attribute::ContentType, "application/pdf")]);
        }
        self.store
            .put_opts(&Path::from(key), PutPayload::from_bytes(bytes), options)
            .await
            .map(drop)
    }

    /// The whole file.
    pub async fn get(&self, key: &str) -> Result<Bytes, StoreError> {
        self.store.get(&Path::from(key)).await?.bytes().await
    }

    /// The file's size, without its bytes.
    pub async fn size(&self, key: &str) -> Result<u64, StoreError> {
        Ok(self.store.head(&Path::from(key)).await?.size)
    }

    /// The file, or the bytes `range` of it (end exclusive), as a stream.
    pub async fn open(
        &self,
        key: &str,
        range: Option<std::ops::Range<u64>>,
    ) -> Result<StoredFile, StoreError> {
        let options = GetOptions {
            range: range.map(GetRange::Bounded),
            ..GetOptions::default()
        };
        let result = self.store.get_opts(&Path::from(key), options).await?;
        Ok(StoredFile {
            size: result.meta.size,
            range: result.range.clone(),
            stream: result.into_stream(),
        })
    }

    /// Every key in the store, sorted. It lists the whole store: for tests and an operator's
    /// checks, never on a request's path.
    pub async fn keys(&self) -> Result<Vec<String>, StoreError> {
        use futures::TryStreamExt as _;
        let mut keys: Vec<String> = self
            .store
            .list(None)
            .map_ok(|meta| meta.location.to_string())
            .try_collect()
            .await?;
        keys.sort();
        Ok(keys)
    }

    /// Removes the file; one that is not there is already removed.
    pub async fn remove(&self, key: &str) -> Result<(), StoreError> {
        match self.store.delete(&Path::from(key)).await {
            Err(StoreError::NotFound { .. }) => Ok(()),
            other => other,
        }
    }

    /// A URL the bucket serves the file at for `ttl` without credentials, named `filename`
    /// when saved; `None` for a local directory.
    pub async fn presigned_url(
        &self,
        key: &str,
        ttl: Duration,
        filename: &str,
    ) -> Option<Result<url::Url, StoreError>> {
        let signer = self.signer.as_ref()?;
        let options = SignedUrlOptions::new().with_query([
            (
                "response-content-disposition",
                format!("inline; filename=\"{filename}\""),
            ),
            ("response-content-type", "application/pdf".to_owned()),
            ("response-cache-control", "private, no-store".to_owned()),
        ]);
        Some(
            signer
                .signed_url_opts(http::Method::GET, &self.full_path(key), ttl, &options)
                .await,
        )
    }

    /// The key as the bucket knows it (with the prefix), which a presigned URL names.
    fn full_path(&self, key: &str) -> Path {
        if self.prefix.is_empty() {
            Path::from(key)
        } else {
            Path::from(format!("{}/{key}", self.prefix))
        }
    }

    /// What the store is, for logs and the CLI.
    pub fn describe(&self) -> &str {
        &self.description
    }
}

/// Makes and checks `{PUBLIC_URL}/files/{id}?expires=…&sig=…` links: HMAC-SHA256 over
/// `{id}.{expires}`, so a link opens one document's file until it expires, without an API key.
#[derive(Clone)]
pub struct FileLinks {
    public_url: String,
    secret: Vec<u8>,
    ttl: chrono::Duration,
}

impl FileLinks {
    pub fn new(public_url: &str, secret: &[u8], ttl: std::time::Duration) -> Self {
        Self {
            public_url: public_url.trim_end_matches('/').to_owned(),
            secret: secret.to_vec(),
            ttl: chrono::Duration::from_std(ttl).unwrap_or(chrono::Duration::hours(1)),
        }
    }

    pub fn url(&self, document_id: DocumentId, now: DateTime<Utc>) -> String {
        let expires = (now + self.ttl).timestamp();
        let sig = hex::encode(secrets::hmac_sha256(
            &self.secret,
            Self::message(document_id, expires).as_bytes(),
        ));
        format!(
            "{}/files/{document_id}?expires={expires}&sig={sig}",
            self.public_url
        )
    }

    pub fn verify(
        &self,
        document_id: DocumentId,
        expires: i64,
        sig: &str,
        now: DateTime<Utc>,
    ) -> bool {
        let Ok(tag) = hex::decode(sig) else {
            return false;
        };
        expires >= now.timestamp()
            && secrets::hmac_sha256_verify(
                &self.secret,
                Self::message(document_id, expires).as_bytes(),
                &tag,
            )
    }

    fn message(document_id: DocumentId, expires: i64) -> String {
        format!("{document_id}.{expires}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (i64, String) {
        let query = url.split_once('?').unwrap().1;
        let mut expires = 0;
        let mut sig = String::new();
        for pair in query.split('&') {
            match pair.split_once('=').unwrap() {
                ("expires", v) => expires = v.parse().unwrap(),
                ("sig", v) => sig = v.to_owned(),
                _ => {}
            }
        }
        (expires, sig)
    }

    #[test]
    fn links_verify_until_they_expire_and_only_for_their_document() {
        let links = FileLinks::new("http://x/", b"secret", std::time::Duration::from_secs(60));
        let now = Utc::now();
        let doc = DocumentId::new();
        let url = links.url(doc, now);
        assert!(url.starts_with(&format!("http://x/files/{doc}?expires=")));
        let (expires, sig) = parts(&url);
        assert!(links.verify(doc, expires, &sig, now));
        assert!(!links.verify(doc, expires, &sig, now + chrono::Duration::seconds(61)));
        assert!(!links.verify(DocumentId::new(), expires, &sig, now));
        assert!(!links.verify(doc, expires + 1, &sig, now));
        assert!(!links.verify(doc, expires, "zz", now));
        let other = FileLinks::new("http://x", b"other", std::time::Duration::from_secs(60));
        assert!(!other.verify(doc, expires, &sig, now));
    }
}
