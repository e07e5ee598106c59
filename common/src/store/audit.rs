//! The audit trail: append-only (the database refuses UPDATE and DELETE) and hash-chained per
//! document, `hash = sha256(prev_hash || canonical entry)`, so any later change is detectable.

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
                       user_agent, created_at, prev_hash, hash, format";

/// The `prev_hash` of a document's first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// What the hash of an entry written now covers: format 2 adds the recipient to format 1 (see
/// migration `audit_entries_recipient`).
pub const FORMAT: i16 = 2;

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
    let hash = Hashed {
        format: FORMAT,
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
                                    ip_address, user_agent, created_at, prev_hash, hash, format)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING {COLUMNS}"
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
    for e in entries {
        let prev = last
            .get_mut(&e.document_id)
            .expect("every document's last hash was read");
        let hash = Hashed {
            format: FORMAT,
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
    }
    sqlx::query(
        "INSERT INTO audit_entries (id, account_id, document_id, event, message, recipient_id,
                                    ip_address, user_agent, created_at, prev_hash, hash, format)
         SELECT id, account_id, document_id, event, message, recipient_id, $7, $8, created_at,
                prev_hash, hash, $9
         FROM UNNEST($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::uuid[],
                     $10::timestamptz[], $11::bytea[], $12::bytea[])
              WITH ORDINALITY AS t(id, account_id, document_id, event, message, recipient_id,
                                   created_at, prev_hash, hash, n)
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
    for entry in entries {
        let broken = |reason| Verification {
            ok: false,
            entries: entries.len(),
            first_broken: Some(BrokenEntry {
                seq: entry.seq,
                id: entry.id,
                reason,
            }),
        };
        if entry.prev_hash != expected_prev {
            return broken("prev_hash does not match the hash of the entry before it");
        }
        let recomputed = entry.hashed().chain_hash(&entry.prev_hash);
        if entry.hash != recomputed {
            return broken("content does not match its hash");
        }
        expected_prev = entry.hash.clone();
    }
    Verification {
        ok: true,
        entries: entries.len(),
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
        };
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
}
