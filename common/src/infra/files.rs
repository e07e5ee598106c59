//! The file store (a directory, shared by API and workers) and signed, expiring file links.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{
    infra::secrets,
    model::{AccountId, DocumentId},
};

#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
}

impl FileStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn original_key(account_id: AccountId, document_id: DocumentId) -> String {
        format!("{account_id}/{document_id}/original.pdf")
    }

    pub fn final_key(account_id: AccountId, document_id: DocumentId) -> String {
        format!("{account_id}/{document_id}/final.pdf")
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Writes the file completely under a temporary name, then renames it into place, so a
    /// reader never sees half a file.
    pub async fn put(&self, key: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().unwrap_or(Path::new("."));
        tokio::fs::create_dir_all(dir).await?;
        let temp = dir.join(format!(".{}.tmp", Uuid::now_v7()));
        tokio::fs::write(&temp, bytes).await?;
        tokio::fs::rename(&temp, &path).await
    }

    pub async fn remove(&self, key: &str) -> std::io::Result<()> {
        tokio::fs::remove_file(self.path(key)).await
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
