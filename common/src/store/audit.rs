//! The audit trail: append-only (the database refuses UPDATE and DELETE) and hash-chained per
//! document, `hash = sha256(prev_hash || canonical entry)`, so any later change is detectable.

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use sqlx::AssertSqlSafe;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::{
    error::Result,
    infra::secrets,
    model::{Actor, AuditEntry, AuditEvent},
};

const COLUMNS: &str = "seq, id, account_id, document_id, event, message, ip_address, user_agent, \
                       created_at, prev_hash, hash";

/// The `prev_hash` of a document's first entry.
pub const GENESIS: [u8; 32] = [0; 32];

/// The bytes an entry's hash covers, besides the previous hash.
pub fn canonical(
    id: Uuid,
    account_id: Uuid,
    document_id: Uuid,
    event: AuditEvent,
    message: &str,
    actor: &Actor,
    created_at: DateTime<Utc>,
) -> Vec<u8> {
    serde_json::to_vec(&[
        id.to_string().as_str(),
        &account_id.to_string(),
        &document_id.to_string(),
        event.as_str(),
        message,
        &actor.ip_address,
        &actor.user_agent,
        &created_at.to_rfc3339_opts(SecondsFormat::Micros, true),
    ])
    .expect("a list of strings always serialises")
}

pub fn chain_hash(prev_hash: &[u8], canonical: &[u8]) -> [u8; 32] {
    secrets::sha256(&[prev_hash, canonical].concat())
}

/// Appends an entry to the document's chain. Takes the document's row lock, so appends to one
/// document are serialised and each links to the one before it.
pub async fn append(
    conn: &mut PgConnection,
    account_id: Uuid,
    document_id: Uuid,
    event: AuditEvent,
    message: &str,
    actor: &Actor,
) -> Result<AuditEntry> {
    // PostgreSQL keeps microseconds; hash exactly what will be stored.
    let at = (Uuid::now_v7(), Utc::now().trunc_subsecs(6));
    append_at(conn, account_id, document_id, event, message, actor, at).await
}

/// [`append`] with the entry's id and time chosen by the caller (microsecond precision), for an
/// entry that something made earlier already shows, such as the final PDF's certificate.
pub async fn append_at(
    conn: &mut PgConnection,
    account_id: Uuid,
    document_id: Uuid,
    event: AuditEvent,
    message: &str,
    actor: &Actor,
    (id, created_at): (Uuid, DateTime<Utc>),
) -> Result<AuditEntry> {
    sqlx::query("SELECT 1 FROM documents WHERE id = $1 FOR UPDATE")
        .bind(document_id)
        .execute(&mut *conn)
        .await?;
    let prev_hash: Vec<u8> = sqlx::query_scalar(
        "SELECT hash FROM audit_entries WHERE document_id = $1 ORDER BY seq DESC LIMIT 1",
    )
    .bind(document_id)
    .fetch_optional(&mut *conn)
    .await?
    .unwrap_or_else(|| GENESIS.to_vec());
    let hash = chain_hash(
        &prev_hash,
        &canonical(
            id,
            account_id,
            document_id,
            event,
            message,
            actor,
            created_at,
        ),
    );
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "INSERT INTO audit_entries (id, account_id, document_id, event, message, ip_address,
                                    user_agent, created_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING {COLUMNS}"
    )))
    .bind(id)
    .bind(account_id)
    .bind(document_id)
    .bind(event.as_str())
    .bind(message)
    .bind(&actor.ip_address)
    .bind(&actor.user_agent)
    .bind(created_at)
    .bind(prev_hash)
    .bind(hash.as_slice())
    .fetch_one(conn)
    .await?)
}

/// The document's entries, oldest first, on a pool or inside the caller's transaction.
pub async fn list<'e>(
    conn: impl sqlx::PgExecutor<'e>,
    account_id: Uuid,
    document_id: Uuid,
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
    pub id: Uuid,
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
pub async fn verify(pool: &PgPool, document_id: Uuid) -> Result<Verification> {
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
        let actor = Actor {
            ip_address: entry.ip_address.clone(),
            user_agent: entry.user_agent.clone(),
        };
        let recomputed = chain_hash(
            &entry.prev_hash,
            &canonical(
                entry.id,
                entry.account_id,
                entry.document_id,
                entry.event,
                &entry.message,
                &actor,
                entry.created_at,
            ),
        );
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
