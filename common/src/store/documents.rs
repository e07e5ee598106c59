//! SQL of the document aggregate.

use chrono::{DateTime, Utc};
use signet_pdf::PageSize;
use sqlx::AssertSqlSafe;
use sqlx::{PgConnection, PgPool, types::Json};

use crate::{
    error::{Error, Result},
    infra::secrets,
    model::{AccountId, Document, DocumentId, DocumentStatus, TemplateId},
    wire::query::{ListQuery, SortBy, SortOrder},
};

const COLUMNS: &str = "id, account_id, code, title, status, file_key, sha256, pages, page_sizes, \
                       created_at, updated_at, sent_at, expiry_date, completed_at, send_message, \
                       send_description, final_file_key, final_sha256, language, cancel_reason, \
                       reminder_first_after_days, reminder_every_days, template_id, \
                       files_removed_at, files_removed_reason";

pub struct NewDocument<'a> {
    pub id: DocumentId,
    pub account_id: AccountId,
    pub title: &'a str,
    pub file_key: &'a str,
    pub sha256: &'a str,
    pub page_sizes: &'a [PageSize],
    /// The template it is made from, if any.
    pub template_id: Option<TemplateId>,
}

/// Inserts a DRAFT document with a fresh unique 8-character code.
pub async fn insert(conn: &mut PgConnection, new: &NewDocument<'_>) -> Result<Document> {
    // 32^8 ≈ 10^12 codes: a clash is rare, and ON CONFLICT lets us draw again without
    // aborting the surrounding transaction.
    for _ in 0..8 {
        let inserted: Option<Document> = sqlx::query_as(AssertSqlSafe(format!(
            "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                                    page_sizes, template_id)
             VALUES ($1, $2, $3, $4, 'DRAFT', $5, $6, $7, $8, $9)
             ON CONFLICT (code) DO NOTHING
             RETURNING {COLUMNS}"
        )))
        .bind(new.id)
        .bind(new.account_id)
        .bind(secrets::random_crockford(8))
        .bind(new.title)
        .bind(new.file_key)
        .bind(new.sha256)
        .bind(new.page_sizes.len() as i32)
        .bind(Json(new.page_sizes))
        .bind(new.template_id)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(document) = inserted {
            return Ok(document);
        }
    }
    Err(Error::Database(sqlx::Error::Protocol(
        "could not draw a unique document code".into(),
    )))
}

pub async fn find(pool: &PgPool, account_id: AccountId, id: DocumentId) -> Result<Document> {
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents WHERE id = $1 AND account_id = $2"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(pool)
    .await?
    .ok_or(Error::DocumentNotFound)
}

/// Looks a document up by id alone. Only for signed file links, whose signature (over the
/// document id) is the authority instead of an account's key.
pub async fn find_by_signed_link(pool: &PgPool, id: DocumentId) -> Result<Document> {
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or(Error::DocumentNotFound)
}

/// A completed document as the public verification page shows it: what its sealed file says
/// on its certificate page anyway.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct IssuedDocument {
    pub code: String,
    pub title: String,
    pub completed_at: chrono::DateTime<chrono::Utc>,
    /// The signers' names, in order.
    pub signers: Vec<String>,
    /// When the account's retention policy removed the document's files: the holder's copy is
    /// then the only one, and the page says so.
    pub files_removed_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// The COMPLETED document whose final PDF has this SHA-256, for `/verify`: found only by the
/// whole file's hash, so only someone who holds the file learns anything.
pub async fn issued_with_final_sha256(
    pool: &PgPool,
    final_sha256: &str,
) -> Result<Option<IssuedDocument>> {
    Ok(sqlx::query_as(
        "SELECT d.code, d.title, d.completed_at,
                ARRAY(SELECT r.name FROM recipients r
                      WHERE r.document_id = d.id AND r.role = 'SIGNER' ORDER BY r.position) AS signers,
                d.files_removed_at
         FROM documents d
         WHERE d.final_sha256 = $1 AND d.status = 'COMPLETED' AND d.completed_at IS NOT NULL
         LIMIT 1",
    )
    .bind(final_sha256)
    .fetch_optional(pool)
    .await?)
}

/// A stored file a document refers to, with the SHA-256 recorded for it (none for final PDFs
/// completed before their hash was recorded).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredFile {
    pub document_id: DocumentId,
    pub key: String,
    pub sha256: Option<String>,
}

/// The files of up to `limit` documents after `after` in id order (keyset paging, so a copy of
/// a million documents' files reads each document once): originals and final PDFs.
pub async fn stored_files_after(
    pool: &PgPool,
    after: Option<DocumentId>,
    limit: i64,
) -> Result<Vec<StoredFile>> {
    Ok(sqlx::query_as(
        "WITH page AS (
             SELECT id, file_key, sha256, final_file_key, final_sha256 FROM documents
             WHERE ($1::uuid IS NULL OR id > $1) AND files_removed_at IS NULL
             ORDER BY id
             LIMIT $2
         )
         SELECT id AS document_id, file_key AS key, sha256 FROM page
         UNION ALL
         SELECT id, final_file_key, final_sha256 FROM page WHERE final_file_key IS NOT NULL
         ORDER BY document_id, key",
    )
    .bind(after)
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// Locks a document named by a job. Jobs carry only ids, so this is the one lookup by
/// document id alone besides signed links; the id itself came from an authorised write.
pub async fn lock_for_job(conn: &mut PgConnection, id: DocumentId) -> Result<Document> {
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents WHERE id = $1 FOR UPDATE"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::DocumentNotFound)
}

/// Locks the document row for the rest of the transaction; every change to a document and its
/// recipients, fields and audit trail happens under this lock.
pub async fn lock(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: DocumentId,
) -> Result<Document> {
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents WHERE id = $1 AND account_id = $2 FOR UPDATE"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::DocumentNotFound)
}

#[derive(sqlx::FromRow)]
struct ListedDocument {
    #[sqlx(flatten)]
    document: Document,
    #[sqlx(flatten)]
    total: Total,
}

#[derive(Clone, Copy, sqlx::FromRow)]
struct Total {
    total: i64,
    /// A search whose term's counts are kept (migration search_term_counts).
    kept_term: bool,
    /// ... and its last use is over an hour old (eviction order).
    stale_term: bool,
}

/// A search that finds at least this many matches the first time it is asked keeps its term's
/// counts (migration search_term_counts); fewer are counted on every request (~4 ms here).
const KEEP_TERM_AT: i64 = 1_000;
/// The most terms kept per account: every document write checks its title against each.
const KEPT_TERMS_PER_ACCOUNT: i64 = 32;

/// One page of the account's documents and the number of documents matching the filter.
///
/// The page is read in order from an index on (account, [status,] sort key, id), one ordered
/// read per status when several are asked for, so it costs its offset plus its length. The
/// total comes from `document_counts` (kept by triggers); for a search, from the search term's
/// kept counts, or, when it has none, from counting the matches up to [`KEEP_TERM_AT`]: a
/// term with more is kept ([`keep_search_term`]) and the statement runs again, so a common
/// term's matches are counted once, not on every request. Page and total are one statement,
/// so they agree.
#[tracing::instrument(name = "documents::list", skip_all)]
pub async fn list(
    pool: &PgPool,
    account_id: AccountId,
    query: &ListQuery,
) -> Result<(Vec<Document>, i64)> {
    let sql = ListSql::new(query);
    let statuses: Vec<&'static str> = query
        .statuses()
        .map(|s| s.iter().map(|s| s.as_str()).collect())
        .unwrap_or_default();
    let pattern = query.search.as_deref().map(like_pattern);
    let mut count_up_to = Some(KEEP_TERM_AT);
    loop {
        let rows: Vec<ListedDocument> = sqlx::query_as(AssertSqlSafe(sql.page_with_total()))
            .bind(account_id)
            .bind(&statuses)
            .bind(&pattern)
            .bind(query.limit)
            .bind(query.offset())
            .bind(count_up_to)
            .fetch_all(pool)
            .await?;
        let total = match rows.first() {
            Some(row) => row.total,
            // A page past the end has no rows to carry the total.
            None => {
                sqlx::query_as(AssertSqlSafe(sql.total()))
                    .bind(account_id)
                    .bind(&statuses)
                    .bind(&pattern)
                    .bind(query.limit)
                    .bind(query.offset())
                    .bind(count_up_to)
                    .fetch_one(pool)
                    .await?
            }
        };
        if let Some(pattern) = &pattern {
            if !total.kept_term && count_up_to.is_some_and(|cap| total.total >= cap) {
                // Counted only up to the cap: keep the term's counts, then ask again with no
                // cap (its kept counts, or, if they could not be made, every match counted).
                keep_search_term(pool, account_id, pattern).await?;
                count_up_to = None;
                continue;
            }
            if total.stale_term {
                sqlx::query(
                    "UPDATE document_search_terms SET used_at = now()
                     WHERE account_id = $1 AND pattern = $2",
                )
                .bind(account_id)
                .bind(pattern)
                .execute(pool)
                .await?;
            }
        }
        return Ok((rows.into_iter().map(|r| r.document).collect(), total.total));
    }
}

/// Keeps per-status counts of the account's documents whose titles match `pattern`, maintained
/// from now on by the documents' triggers (migration search_term_counts), dropping the account's
/// least recently searched term beyond [`KEPT_TERMS_PER_ACCOUNT`]. The count is taken under the
/// account's exclusive search lock, which every write that can change a term's count takes
/// shared, so no write is missed or counted twice; writes to the account wait for it (once per
/// term). Returns false, keeping nothing, if the lock is not had within two seconds (a long
/// transaction writing the account's documents).
pub async fn keep_search_term(pool: &PgPool, account_id: AccountId, pattern: &str) -> Result<bool> {
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL lock_timeout = '2s'")
        .execute(&mut *tx)
        .await?;
    // The key is the triggers' (count_search_terms).
    let locked = sqlx::query("SELECT pg_advisory_xact_lock(35, hashtext($1::text))")
        .bind(account_id)
        .execute(&mut *tx)
        .await;
    match locked {
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("55P03") => return Ok(false),
        locked => locked?,
    };
    sqlx::query("SET LOCAL lock_timeout = 0")
        .execute(&mut *tx)
        .await?;
    let new: Option<i32> = sqlx::query_scalar(
        "INSERT INTO document_search_terms (account_id, pattern) VALUES ($1, $2)
         ON CONFLICT DO NOTHING RETURNING 1",
    )
    .bind(account_id)
    .bind(pattern)
    .fetch_optional(&mut *tx)
    .await?;
    if new.is_none() {
        // Kept by another search while this one waited for the lock.
        tx.commit().await?;
        return Ok(true);
    }
    sqlx::query(
        "WITH dropped AS (
             DELETE FROM document_search_terms
             WHERE account_id = $1 AND pattern IN (
                 SELECT pattern FROM document_search_terms WHERE account_id = $1
                 ORDER BY used_at DESC, pattern OFFSET $2)
             RETURNING pattern)
         DELETE FROM document_search_counts
         WHERE account_id = $1 AND pattern IN (SELECT pattern FROM dropped)",
    )
    .bind(account_id)
    .bind(KEPT_TERMS_PER_ACCOUNT)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO document_search_counts (account_id, pattern, status, slot, documents)
         SELECT $1, $2, status, 0, count(*) FROM documents
         WHERE account_id = $1 AND title ILIKE $2 ESCAPE '\\'
         GROUP BY status",
    )
    .bind(account_id)
    .bind(pattern)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The list's SQL for one query's shape. Parameters: $1 account, $2 statuses (empty: all),
/// $3 search pattern, $4 limit, $5 offset, $6 the most matches a search without kept counts
/// counts (NULL: all). Each shape is its own statement (and prepared plan), so no plan has to
/// serve both "filtered" and "not filtered".
struct ListSql {
    /// `ORDER BY` keys, e.g. `created_at DESC, id DESC`.
    order: String,
    statuses: usize,
    search: bool,
}

impl ListSql {
    fn new(query: &ListQuery) -> Self {
        let column = match query.sort_by {
            SortBy::DateCreated => "created_at",
            SortBy::DateModified => "updated_at",
            SortBy::DocumentName => "title",
        };
        let direction = match query.sort_order {
            SortOrder::Asc => "ASC",
            SortOrder::Desc => "DESC",
        };
        Self {
            order: format!("{column} {direction}, id {direction}"),
            statuses: query.statuses().map_or(0, |s| s.len()),
            search: query.search.is_some(),
        }
    }

    fn search_filter(&self) -> &'static str {
        if self.search {
            "AND title ILIKE $3 ESCAPE '\\'"
        } else {
            ""
        }
    }

    /// The page's rows, in order. (Parameters a shape does not use are still bound; PostgreSQL
    /// takes their types from the bind.)
    fn page(&self) -> String {
        let order = &self.order;
        let search = self.search_filter();
        if self.statuses == 0 || self.search {
            let status = if self.statuses == 0 {
                ""
            } else {
                "AND status = ANY($2)"
            };
            return format!(
                "SELECT {COLUMNS} FROM documents WHERE account_id = $1 {status} {search}
                 ORDER BY {order} LIMIT $4 OFFSET $5"
            );
        }
        // One ordered index read per status, each no longer than the page's end, merged.
        let per_status: Vec<String> = (1..=self.statuses)
            .map(|i| {
                format!(
                    "(SELECT {COLUMNS} FROM documents
                      WHERE account_id = $1 AND status = ($2::text[])[{i}] {search}
                      ORDER BY {order} LIMIT $4 + $5)"
                )
            })
            .collect();
        format!(
            "SELECT {COLUMNS} FROM ({}) d ORDER BY {order} LIMIT $4 OFFSET $5",
            per_status.join(" UNION ALL ")
        )
    }

    /// The number of documents matching the filter, as `total`, with `kept_term` and
    /// `stale_term` (see [`Total`]).
    fn total(&self) -> String {
        let statuses = "(cardinality($2::text[]) = 0 OR status = ANY($2))";
        if self.search {
            // CASE runs only the branch it takes.
            format!(
                "SELECT CASE WHEN t.pattern IS NOT NULL
                        THEN (SELECT COALESCE(sum(documents), 0) FROM document_search_counts
                              WHERE account_id = $1 AND pattern = $3 AND {statuses})
                        ELSE (SELECT count(*) FROM (
                                  SELECT FROM documents
                                  WHERE account_id = $1 AND {statuses} {}
                                  LIMIT $6::bigint) m)
                        END::bigint AS total,
                        t.pattern IS NOT NULL AS kept_term,
                        COALESCE(t.used_at < now() - interval '1 hour', false) AS stale_term
                 FROM (SELECT) one
                 LEFT JOIN document_search_terms t ON t.account_id = $1 AND t.pattern = $3",
                self.search_filter()
            )
        } else {
            format!(
                "SELECT COALESCE(sum(documents), 0)::bigint AS total,
                        false AS kept_term, false AS stale_term
                 FROM document_counts WHERE account_id = $1 AND {statuses}"
            )
        }
    }

    fn page_with_total(&self) -> String {
        format!(
            "SELECT d.*, t.total, t.kept_term, t.stale_term FROM ({}) d CROSS JOIN ({}) t
             ORDER BY {}",
            self.page(),
            self.total(),
            self.order
        )
    }
}

/// `%term%` with the LIKE metacharacters of the term taken literally.
pub(crate) fn like_pattern(term: &str) -> String {
    let escaped = term
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

pub async fn touch(conn: &mut PgConnection, id: DocumentId) -> Result<()> {
    sqlx::query("UPDATE documents SET updated_at = now() WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

/// What a send fixes on the document.
pub struct Sending<'a> {
    pub expiry_date: DateTime<Utc>,
    pub message: &'a str,
    pub description: &'a str,
    pub language: Option<&'a str>,
    /// Days to the first reminder and between reminders; `None`: no automatic reminders.
    pub reminders: Option<(i32, i32)>,
}

pub async fn mark_sent(
    conn: &mut PgConnection,
    id: DocumentId,
    sending: &Sending<'_>,
) -> Result<()> {
    sqlx::query(
        "UPDATE documents SET status = 'SENT', sent_at = now(), updated_at = now(),
             expiry_date = $2, send_message = $3, send_description = $4, language = $5,
             reminder_first_after_days = $6, reminder_every_days = $7
         WHERE id = $1",
    )
    .bind(id)
    .bind(sending.expiry_date)
    .bind(sending.message)
    .bind(sending.description)
    .bind(sending.language)
    .bind(sending.reminders.map(|(first, _)| first))
    .bind(sending.reminders.map(|(_, every)| every))
    .execute(conn)
    .await?;
    Ok(())
}

/// Cancels the document, keeping the owner's reason.
pub async fn mark_cancelled(
    conn: &mut PgConnection,
    id: DocumentId,
    reason: Option<&str>,
) -> Result<()> {
    sqlx::query(
        "UPDATE documents SET status = 'CANCELLED', updated_at = now(), ended_at = now(),
             cancel_reason = $2
         WHERE id = $1",
    )
    .bind(id)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Locks up to `limit` documents with a signer whose reminder is due, skipping any another
/// transaction holds (the sweep on another worker, or a change being made to it).
pub async fn lock_with_reminders_due(conn: &mut PgConnection, limit: i64) -> Result<Vec<Document>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents
         WHERE id IN (SELECT document_id FROM recipients
                      WHERE next_reminder_at <= now() ORDER BY next_reminder_at LIMIT $1)
         ORDER BY account_id FOR UPDATE SKIP LOCKED"
    )))
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

pub async fn mark_completed(
    conn: &mut PgConnection,
    id: DocumentId,
    final_file_key: &str,
    final_sha256: &str,
) -> Result<()> {
    sqlx::query(
        "UPDATE documents SET status = 'COMPLETED', completed_at = now(), updated_at = now(),
             ended_at = now(), final_file_key = $2, final_sha256 = $3
         WHERE id = $1",
    )
    .bind(id)
    .bind(final_file_key)
    .bind(final_sha256)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn set_status(
    conn: &mut PgConnection,
    id: DocumentId,
    status: DocumentStatus,
) -> Result<()> {
    set_statuses(conn, &[id], status).await
}

/// [`set_status`] for many documents in one statement (the document counts' trigger then runs
/// once for all of them).
pub async fn set_statuses(
    conn: &mut PgConnection,
    ids: &[DocumentId],
    status: DocumentStatus,
) -> Result<()> {
    sqlx::query(
        "UPDATE documents SET status = $2, updated_at = now(),
             ended_at = CASE WHEN $2 IN ('COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED')
                             THEN now() END
         WHERE id = ANY($1)",
    )
    .bind(ids)
    .bind(status.as_str())
    .execute(conn)
    .await?;
    Ok(())
}

/// The documents with these ids, their rows locked in account order (the order
/// [`lock_due_for_expiry`] returns them in), on the caller's transaction.
pub async fn lock_many(conn: &mut PgConnection, ids: &[DocumentId]) -> Result<Vec<Document>> {
    Ok(sqlx::query_as(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM documents WHERE id = ANY($1) ORDER BY account_id, id FOR UPDATE"
    )))
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// Locks up to `limit` SENT documents whose signers have all signed but which are still SENT a
/// minute after their last change (their completion job gave up), skipping any another
/// transaction holds.
pub async fn lock_stalled_completions(
    conn: &mut PgConnection,
    limit: i64,
) -> Result<Vec<DocumentId>> {
    Ok(sqlx::query_scalar(
        "SELECT d.id FROM documents d
         WHERE d.status = 'SENT'
           AND d.updated_at < now() - interval '1 minute'
           AND EXISTS (SELECT 1 FROM recipients r WHERE r.document_id = d.id AND r.role = 'SIGNER')
           AND NOT EXISTS (SELECT 1 FROM recipients r WHERE r.document_id = d.id
                           AND r.role = 'SIGNER' AND r.status <> 'SIGNED')
         LIMIT $1
         FOR UPDATE OF d SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// Locks up to `limit` SENT documents past their expiry date, skipping any another transaction
/// holds; `(id, account_id)` in account order, so that sweeps on several workers take the
/// accounts' document counts (migration document_counts) in the same order and never deadlock.
/// Served by the partial index documents_expiring (expiry_date) WHERE status = 'SENT'.
pub async fn lock_due_for_expiry(
    conn: &mut PgConnection,
    limit: i64,
) -> Result<Vec<(DocumentId, AccountId)>> {
    let mut due: Vec<(DocumentId, AccountId)> = sqlx::query_as(
        "SELECT id, account_id FROM documents
         WHERE status = 'SENT' AND expiry_date <= now()
         ORDER BY expiry_date LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(conn)
    .await?;
    due.sort_by_key(|(_, account_id)| *account_id);
    Ok(due)
}

/// Up to `limit` due documents, in expiry order, locking none: the candidates of a sweep's next
/// batches. Each scan of `documents_expiring` also passes over the entries of the documents
/// expired since it was last vacuumed, so a sweep that claimed every batch with
/// [`lock_due_for_expiry`] read the whole expired prefix again per batch (100,000 documents in
/// batches of 1,000 took twice as long as in batches of 10,000); reading candidates for many
/// batches at once reads it once for all of them.
pub async fn due_for_expiry(pool: &PgPool, limit: i64) -> Result<Vec<DocumentId>> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM documents WHERE status = 'SENT' AND expiry_date <= now()
         ORDER BY expiry_date LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// Locks those of `candidates` that are still due, skipping any another transaction holds (a
/// sweep on another worker); `(id, account_id)` in account order, then in the order given, as
/// [`lock_due_for_expiry`] returns them.
pub async fn lock_due_among(
    conn: &mut PgConnection,
    candidates: &[DocumentId],
) -> Result<Vec<(DocumentId, AccountId)>> {
    let locked: Vec<(DocumentId, AccountId)> = sqlx::query_as(
        "SELECT id, account_id FROM documents
         WHERE id = ANY($1) AND status = 'SENT' AND expiry_date <= now()
         FOR UPDATE SKIP LOCKED",
    )
    .bind(candidates)
    .fetch_all(conn)
    .await?;
    let accounts: std::collections::HashMap<DocumentId, AccountId> = locked.into_iter().collect();
    let mut due: Vec<(DocumentId, AccountId)> = candidates
        .iter()
        .filter_map(|id| accounts.get(id).map(|account_id| (*id, *account_id)))
        .collect();
    due.sort_by_key(|(_, account_id)| *account_id);
    Ok(due)
}

#[cfg(test)]
mod tests {
    #[test]
    fn like_pattern_escapes_metacharacters() {
        assert_eq!(super::like_pattern(r"50%_a\b"), r"%50\%\_a\\b%");
    }
}
