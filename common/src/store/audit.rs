//! The audit trail: append-only (the database refuses UPDATE and DELETE) and hash-chained per
//! document, `hash = sha256(prev_hash || canonical entry)`, so any later change is detectable.
//!
//! Format 3 (issue #37): the canonical entry holds a salted digest of the entry's personal
//! part (message, IP address, user agent) instead of the values, so an erasure on request can
//! replace the values and drop the salt (the one UPDATE the database allows, marking the entry
//! erased) and the chain still verifies; only what the erased values said can no longer be
//! checked. docs/retention.md.

use std::collections::HashMap;

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use sqlx::AssertSqlSafe;
use sqlx::{PgConnection, PgPool};

use crate::{
    error::Result,
    infra::secrets,
    model::{AccountId, Actor, AuditEntry, AuditEntryId, AuditEvent, DocumentId, RecipientId},
};

const COLUMNS: &str = "seq, id, account_id, document_id, event, message, recipient_id, ip_address, \
                       user_agent, created_at, prev_hash, hash, format, personal_salt, \
                       personal_digest, erased_at";

/// The `prev_hash` of a document's first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// What the hash of an entry written now covers: format 2 adds the recipient to format 1 (see
/// migration `audit_entries_recipient`); format 3 puts a salted digest of the message, IP
/// address and user agent in their place (migration `retention_and_erasure`).
pub const FORMAT: i16 = 3;

/// The bytes of a format 3 entry's salt.
const SALT_BYTES: usize = 16;

/// What an erasure puts in place of a personal value (docs/retention.md).
pub const TOMBSTONE: &str = "[erased]";

/// The digest a format 3 entry's hash covers in place of its personal part.
pub fn personal_digest(salt: &[u8], message: &str, ip_address: &str, user_agent: &str) -> [u8; 32] {
    let part = serde_json::to_vec(&[message, ip_address, user_agent])
        .expect("a list of strings always serialises");
    secrets::sha256(&[salt, &part].concat())
}

/// A new entry: what happened, in words, and the recipient it concerns, if any.
#[derive(Debug, Clone)]
pub struct NewEntry {
    pub event: AuditEvent,
    pub message: String,
    pub recipient_id: Option<RecipientId>,
}

/// The content of an entry that its hash covers, besides the previous hash.
struct Hashed<'a> {
    format: i16,
    /// Format 3: what the hash covers in place of the message, IP address and user agent.
    personal_digest: Option<&'a [u8]>,
    id: AuditEntryId,
    account_id: AccountId,
    document_id: DocumentId,
    event: AuditEvent,
    message: &'a str,
    recipient_id: Option<RecipientId>,
    ip_address: &'a str,
    user_agent: &'a str,
    created_at: DateTime<Utc>,
}

impl Hashed<'_> {
    fn canonical(&self) -> Vec<u8> {
        if self.format >= 3 {
            let fields = [
                self.id.to_string(),
                self.account_id.to_string(),
                self.document_id.to_string(),
                self.event.as_str().to_owned(),
                hex::encode(self.personal_digest.unwrap_or_default()),
                self.created_at.to_rfc3339_opts(SecondsFormat::Micros, true),
                self.recipient_id
                    .map(|id| id.to_string())
                    .unwrap_or_default(),
            ];
            return serde_json::to_vec(&fields).expect("a list of strings always serialises");
        }
        let mut fields = vec![
            self.id.to_string(),
            self.account_id.to_string(),
            self.document_id.to_string(),
            self.event.as_str().to_owned(),
            self.message.to_owned(),
            self.ip_address.to_owned(),
            self.user_agent.to_owned(),
            self.created_at.to_rfc3339_opts(SecondsFormat::Micros, true),
        ];
        if self.format >= 2 {
            fields.push(
                self.recipient_id
                    .map(|id| id.to_string())
                    .unwrap_or_default(),
            );
        }
        serde_json::to_vec(&fields).expect("a list of strings always serialises")
    }

    fn chain_hash(&self, prev_hash: &[u8]) -> [u8; 32] {
        secrets::sha256(&[prev_hash, &self.canonical()].concat())
    }
}

impl AuditEntry {
    fn hashed(&self) -> Hashed<'_> {
        Hashed {
            format: self.format,
            personal_digest: self.personal_digest.as_deref(),
            id: self.id,
            account_id: self.account_id,
            document_id: self.document_id,
            event: self.event,
            message: &self.message,
            recipient_id: self.recipient_id,
            ip_address: &self.ip_address,
            user_agent: &self.user_agent,
            created_at: self.created_at,
        }
    }
}

/// Appends an entry to the document's chain. Takes the document's row lock, so appends to one
/// document are serialised and each links to the one before it.
pub async fn append(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    entry: &NewEntry,
    actor: &Actor,
) -> Result<AuditEntry> {
    // PostgreSQL keeps microseconds; hash exactly what will be stored.
    let at = (AuditEntryId::new(), Utc::now().trunc_subsecs(6));
    append_at(conn, account_id, document_id, entry, actor, at).await
}

/// [`append`] with the entry's id and time chosen by the caller (microsecond precision), for an
/// entry that something made earlier already shows, such as the final PDF's certificate.
pub async fn append_at(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    entry: &NewEntry,
    actor: &Actor,
    (id, created_at): (AuditEntryId, DateTime<Utc>),
) -> Result<AuditEntry> {
    sqlx::query("SELECT 1 FROM documents WHERE id = $1 FOR UPDATE")
        .bind(document_id)
        .execute(&mut *conn)
        .await?;
    let prev_hash: Vec<u8> = last_hash(&mut *conn, document_id)
        .await?
        .unwrap_or_else(|| GENESIS.to_vec());
    let recorded = actor.record();
    let salt = secrets::random_bytes(SALT_BYTES);
    let digest = personal_digest(
        &salt,
        &entry.message,
        &recorded.ip_address,
        &recorded.user_agent,
    );
    let hash = Hashed {
        format: FORMAT,
        personal_digest: Some(&digest),
        id,
        account_id,
        document_id,
        event: entry.event,
        message: &entry.message,
        recipient_id: entry.recipient_id,
        ip_address: &recorded.ip_address,
        user_agent: &recorded.user_agent,
        created_at,
    }
    .chain_hash(&prev_hash);
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "INSERT INTO audit_entries (id, account_id, document_id, event, message, recipient_id,
                                    ip_address, user_agent, created_at, prev_hash, hash, format,
                                    personal_salt, personal_digest)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(account_id)
    .bind(document_id)
    .bind(entry.event.as_str())
    .bind(&entry.message)
    .bind(entry.recipient_id)
    .bind(&recorded.ip_address)
    .bind(&recorded.user_agent)
    .bind(created_at)
    .bind(prev_hash)
    .bind(hash.as_slice())
    .bind(FORMAT)
    .bind(salt)
    .bind(digest.as_slice())
    .fetch_one(conn)
    .await?)
}

/// An entry to append to a document's chain, with its id and time (microsecond precision).
#[derive(Debug, Clone)]
pub struct DatedEntry {
    pub account_id: AccountId,
    pub document_id: DocumentId,
    pub entry: NewEntry,
    pub at: (AuditEntryId, DateTime<Utc>),
}

/// [`append_at`] for many entries at once: one statement locks their documents (in account
/// order; the caller should already hold them, as a sweep does), one reads each document's last
/// hash, one inserts every entry. Entries of one document are chained in the order given.
pub async fn append_many(
    conn: &mut PgConnection,
    entries: &[DatedEntry],
    actor: &Actor,
) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut documents: Vec<DocumentId> = entries.iter().map(|e| e.document_id).collect();
    documents.sort();
    documents.dedup();
    sqlx::query("SELECT 1 FROM documents WHERE id = ANY($1) ORDER BY account_id, id FOR UPDATE")
        .bind(&documents)
        .execute(&mut *conn)
        .await?;
    let mut last: HashMap<DocumentId, Vec<u8>> = sqlx::query_as(
        "SELECT d.id, (SELECT hash FROM audit_entries
                       WHERE document_id = d.id ORDER BY seq DESC LIMIT 1)
         FROM UNNEST($1::uuid[]) AS d(id)",
    )
    .bind(&documents)
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .map(|(id, hash): (DocumentId, Option<Vec<u8>>)| (id, hash.unwrap_or_else(|| GENESIS.to_vec())))
    .collect();
    let recorded = actor.record();
    let mut prev_hashes = Vec::with_capacity(entries.len());
    let mut hashes = Vec::with_capacity(entries.len());
    let mut salts = Vec::with_capacity(entries.len());
    let mut digests = Vec::with_capacity(entries.len());
    for e in entries {
        let prev = last
            .get_mut(&e.document_id)
            .expect("every document's last hash was read");
        let salt = secrets::random_bytes(SALT_BYTES);
        let digest = personal_digest(
            &salt,
            &e.entry.message,
            &recorded.ip_address,
            &recorded.user_agent,
        );
        let hash = Hashed {
            format: FORMAT,
            personal_digest: Some(&digest),
            id: e.at.0,
            account_id: e.account_id,
            document_id: e.document_id,
            event: e.entry.event,
            message: &e.entry.message,
            recipient_id: e.entry.recipient_id,
            ip_address: &recorded.ip_address,
            user_agent: &recorded.user_agent,
            created_at: e.at.1,
        }
        .chain_hash(prev);
        prev_hashes.push(std::mem::replace(prev, hash.to_vec()));
        hashes.push(hash.to_vec());
        salts.push(salt);
        digests.push(digest.to_vec());
    }
    sqlx::query(
        "INSERT INTO audit_entries (id, account_id, document_id, event, message, recipient_id,
                                    ip_address, user_agent, created_at, prev_hash, hash, format,
                                    personal_salt, personal_digest)
         SELECT id, account_id, document_id, event, message, recipient_id, $7, $8, created_at,
                prev_hash, hash, $9, salt, digest
         FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::uuid[],
                     $10::timestamptz[], $11::bytea[], $12::bytea[], $13::bytea[], $14::bytea[])
              WITH ORDINALITY AS t(id, account_id, document_id, event, message, recipient_id,
                                   created_at, prev_hash, hash, salt, digest, n)
         ORDER BY n",
    )
    .bind(entries.iter().map(|e| e.at.0).collect::<Vec<_>>())
    .bind(entries.iter().map(|e| e.account_id).collect::<Vec<_>>())
    .bind(entries.iter().map(|e| e.document_id).collect::<Vec<_>>())
    .bind(
        entries
            .iter()
            .map(|e| e.entry.event.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        entries
            .iter()
            .map(|e| e.entry.message.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        entries
            .iter()
            .map(|e| e.entry.recipient_id)
            .collect::<Vec<_>>(),
    )
    .bind(&recorded.ip_address)
    .bind(&recorded.user_agent)
    .bind(FORMAT)
    .bind(entries.iter().map(|e| e.at.1).collect::<Vec<_>>())
    .bind(prev_hashes)
    .bind(hashes)
    .bind(salts)
    .bind(digests)
    .execute(conn)
    .await?;
    Ok(())
}

/// The id of the document's latest entry: a reader that must act on an unchanged trail reads it
/// before and after.
pub async fn last_id(
    conn: &mut PgConnection,
    document_id: DocumentId,
) -> Result<Option<AuditEntryId>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM audit_entries WHERE document_id = $1 ORDER BY seq DESC LIMIT 1",
    )
    .bind(document_id)
    .fetch_optional(conn)
    .await?)
}

async fn last_hash(conn: &mut PgConnection, document_id: DocumentId) -> Result<Option<Vec<u8>>> {
    Ok(sqlx::query_scalar(
        "SELECT hash FROM audit_entries WHERE document_id = $1 ORDER BY seq DESC LIMIT 1",
    )
    .bind(document_id)
    .fetch_optional(conn)
    .await?)
}

/// The document's entries, oldest first, on a pool or inside the caller's transaction.
pub async fn list<'e>(
    conn: impl sqlx::PgExecutor<'e>,
    account_id: AccountId,
    document_id: DocumentId,
) -> Result<Vec<AuditEntry>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM audit_entries WHERE document_id = $1 AND account_id = $2 ORDER BY seq"
    )))
    .bind(document_id)
    .bind(account_id)
    .fetch_all(conn)
    .await?)
}

/// The entries of the account's `documents`, oldest first per document, on the caller's
/// transaction.
pub async fn list_many(
    conn: &mut PgConnection,
    account_id: AccountId,
    documents: &[DocumentId],
) -> Result<Vec<AuditEntry>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM audit_entries
         WHERE document_id = ANY($1) AND account_id = $2 ORDER BY document_id, seq"
    )))
    .bind(documents)
    .bind(account_id)
    .fetch_all(conn)
    .await?)
}

/// An entry's personal part as an erasure leaves it.
#[derive(Debug, Clone)]
pub struct Erased {
    pub id: AuditEntryId,
    pub message: String,
    pub ip_address: String,
    pub user_agent: String,
}

/// Replaces the personal part of `entries`, drops their salts and marks them erased: the one
/// change the database lets anyone make to an entry (migration `retention_and_erasure`).
pub async fn erase(conn: &mut PgConnection, entries: &[Erased]) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE audit_entries a
         SET message = t.message, ip_address = t.ip_address, user_agent = t.user_agent,
             personal_salt = NULL, erased_at = coalesce(a.erased_at, now())
         FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[])
              AS t(id, message, ip_address, user_agent)
         WHERE a.id = t.id",
    )
    .bind(entries.iter().map(|e| e.id).collect::<Vec<_>>())
    .bind(
        entries
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        entries
            .iter()
            .map(|e| e.ip_address.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        entries
            .iter()
            .map(|e| e.user_agent.as_str())
            .collect::<Vec<_>>(),
    )
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct BrokenEntry {
    pub seq: i64,
    pub id: AuditEntryId,
    pub reason: &'static str,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Verification {
    pub ok: bool,
    pub entries: usize,
    /// Entries whose personal data was erased on request: their place in the chain is
    /// checked; what their erased values said cannot be (docs/retention.md).
    pub erased: usize,
    #[serde(rename = "firstBroken", skip_serializing_if = "Option::is_none")]
    pub first_broken: Option<BrokenEntry>,
}

/// Recomputes the document's chain and reports the first entry that does not match.
pub async fn verify(pool: &PgPool, document_id: DocumentId) -> Result<Verification> {
    let entries: Vec<AuditEntry> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM audit_entries WHERE document_id = $1 ORDER BY seq"
    )))
    .bind(document_id)
    .fetch_all(pool)
    .await?;
    Ok(verify_chain(&entries))
}

pub fn verify_chain(entries: &[AuditEntry]) -> Verification {
    let mut expected_prev = GENESIS.to_vec();
    let mut erased = 0;
    for entry in entries {
        let broken = |reason| Verification {
            ok: false,
            entries: entries.len(),
            erased,
            first_broken: Some(BrokenEntry {
                seq: entry.seq,
                id: entry.id,
                reason,
            }),
        };
        if entry.prev_hash != expected_prev {
            return broken("prev_hash does not match the hash of the entry before it");
        }
        if entry.format >= 3 {
            let Some(digest) = &entry.personal_digest else {
                return broken("a format 3 entry without its personal digest");
            };
            if entry.hashed().chain_hash(&entry.prev_hash) != entry.hash[..] {
                return broken("content does not match its hash");
            }
            match (&entry.erased_at, &entry.personal_salt) {
                (Some(_), _) => erased += 1,
                (None, Some(salt)) => {
                    let recomputed =
                        personal_digest(salt, &entry.message, &entry.ip_address, &entry.user_agent);
                    if recomputed != digest[..] {
                        return broken("personal data does not match its digest");
                    }
                }
                (None, None) => return broken("personal data without its salt"),
            }
        } else if entry.erased_at.is_some() {
            // Its hash covered the values an erasure replaced: the chain's links are checked,
            // its content cannot be.
            erased += 1;
        } else if entry.hashed().chain_hash(&entry.prev_hash) != entry.hash[..] {
            return broken("content does not match its hash");
        }
        expected_prev = entry.hash.clone();
    }
    Verification {
        ok: true,
        entries: entries.len(),
        erased,
        first_broken: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(format: i16, recipient_id: Option<RecipientId>) -> AuditEntry {
        let mut entry = AuditEntry {
            seq: 1,
            id: AuditEntryId::new(),
            account_id: AccountId::new(),
            document_id: DocumentId::new(),
            event: AuditEvent::Signed,
            message: "Document signed by ann@example.com".into(),
            recipient_id,
            ip_address: "203.0.113.9".into(),
            user_agent: "test".into(),
            created_at: Utc::now().trunc_subsecs(6),
            prev_hash: GENESIS.to_vec(),
            hash: Vec::new(),
            format,
            personal_salt: None,
            personal_digest: None,
            erased_at: None,
        };
        if format >= 3 {
            let salt = secrets::random_bytes(SALT_BYTES);
            entry.personal_digest = Some(
                personal_digest(&salt, &entry.message, &entry.ip_address, &entry.user_agent)
                    .to_vec(),
            );
            entry.personal_salt = Some(salt);
        }
        entry.hash = entry.hashed().chain_hash(&entry.prev_hash).to_vec();
        entry
    }

    #[test]
    fn the_recipient_is_covered_by_format_2_hashes_only() {
        let mut current = entry(FORMAT, Some(RecipientId::new()));
        assert!(verify_chain(std::slice::from_ref(&current)).ok);
        current.recipient_id = Some(RecipientId::new());
        assert!(
            !verify_chain(&[current]).ok,
            "a changed recipient breaks a format 2 hash"
        );

        // An entry written before the recipient was recorded keeps its hash when the migration
        // fills the recipient in.
        let mut older = entry(1, None);
        older.recipient_id = Some(RecipientId::new());
        assert!(verify_chain(&[older]).ok);
    }

    #[test]
    fn a_format_3_entry_verifies_after_erasure_and_breaks_when_changed_otherwise() {
        let current = entry(3, Some(RecipientId::new()));
        assert!(verify_chain(std::slice::from_ref(&current)).ok);

        let mut tampered = current.clone();
        tampered.message = "Document signed by eve@example.com".into();
        let verification = verify_chain(&[tampered]);
        assert!(!verification.ok, "a changed message breaks the digest");

        let mut erased = current.clone();
        erased.message = format!("Document signed by {TOMBSTONE}");
        erased.ip_address = TOMBSTONE.into();
        erased.user_agent = TOMBSTONE.into();
        erased.personal_salt = None;
        erased.erased_at = Some(Utc::now());
        let verification = verify_chain(std::slice::from_ref(&erased));
        assert!(verification.ok);
        assert_eq!(verification.erased, 1);

        // What the hash covers directly still counts after an erasure.
        erased.event = AuditEvent::Declined;
        assert!(!verify_chain(&[erased]).ok);
    }

    #[test]
    fn an_erased_entry_of_an_older_format_keeps_its_place_in_the_chain() {
        let first = entry(2, None);
        let mut second = entry(2, None);
        second.prev_hash = first.hash.clone();
        second.hash = second.hashed().chain_hash(&second.prev_hash).to_vec();
        let mut erased = first.clone();
        erased.message = TOMBSTONE.into();
        erased.erased_at = Some(Utc::now());
        let verification = verify_chain(&[erased.clone(), second.clone()]);
        assert!(verification.ok);
        assert_eq!(verification.erased, 1);
        // Unmarked, the same change is a break.
        erased.erased_at = None;
        assert!(!verify_chain(&[erased, second]).ok);
    }
}
