//! The lease every outbox table (e-mails, SMS, webhook deliveries) is worked with: the rows are
//! the queue. A worker claims due rows in one short statement (round robin by account, `SKIP
//! LOCKED`), which moves each row's `due_at` to the end of its lease and names the worker in
//! `lease_owner`; it sends with no transaction open and then records the outcome, which ends
//! the lease (SENT, FAILED, or PENDING again with the retry's `due_at`). A row whose worker died
//! is due again once the lease runs out, so a message is sent at least once and never by two
//! workers at once while a lease holds.

use std::time::Duration;

use sqlx::PgConnection;
use uuid::Uuid;

use crate::{error::Result, model::AccountId};

/// The channel a commit that queued outbox rows notifies, with the queue's name as payload.
pub const CHANNEL: &str = "signet::outbox";

/// A table whose rows are the queue of one kind of message.
#[derive(Debug, Clone, Copy)]
pub struct OutboxTable {
    /// The table's name (a constant of this crate or of a benchmark, never input).
    pub table: &'static str,
    /// The queue name its rows are notified and reported under (`Job::QUEUE`).
    pub queue: &'static str,
}

/// How one claim is made.
#[derive(Debug, Clone)]
pub struct ClaimRequest<'a> {
    /// The claiming process (`host:pid`), kept in `lease_owner`.
    pub owner: &'a str,
    pub lease: Duration,
    /// Rows in all.
    pub limit: usize,
    /// Rows of one account at most, so that each account visited gets its turn.
    pub per_account: usize,
    /// Where the previous claim's walk over the accounts stopped: this one starts after it.
    pub after: Option<AccountId>,
}

/// What a claim took.
#[derive(Debug, Default)]
pub struct Claimed {
    /// The rows, in the order to work them: each account's first row, then each one's second…
    pub ids: Vec<Uuid>,
    /// The accounts with pending rows the walk visited.
    pub accounts_visited: usize,
    /// The last account visited, where the next claim starts.
    pub last_account: Option<AccountId>,
}

/// Claims up to `limit` due rows of `table` for `request.owner`, on the caller's connection
/// (a statement of its own: the lease is committed when it returns, outside any transaction).
///
/// The accounts with pending rows are walked from the one after `request.after`, wrapping
/// round, one index probe each (a loose scan of the `(account_id, due_at) WHERE status =
/// 'PENDING'` index); each gives at most `per_account` of its due rows, oldest first, and the
/// rows are interleaved by account, so that an account with 100,000 queued messages takes one
/// turn like any other.
pub async fn claim(
    conn: &mut PgConnection,
    table: OutboxTable,
    request: &ClaimRequest<'_>,
) -> Result<Claimed> {
    let t = table.table;
    let rows: Vec<(Option<Uuid>, Option<AccountId>, i64)> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "WITH RECURSIVE after_cursor(account_id) AS (
             (SELECT account_id FROM {t} WHERE status = 'PENDING' AND account_id > $1
              ORDER BY account_id LIMIT 1)
             UNION ALL
             SELECT (SELECT o.account_id FROM {t} o
                     WHERE o.status = 'PENDING' AND o.account_id > c.account_id
                     ORDER BY o.account_id LIMIT 1)
             FROM after_cursor c WHERE c.account_id IS NOT NULL
         ),
         from_start(account_id) AS (
             (SELECT account_id FROM {t} WHERE status = 'PENDING' AND account_id <= $1
              ORDER BY account_id LIMIT 1)
             UNION ALL
             SELECT (SELECT o.account_id FROM {t} o
                     WHERE o.status = 'PENDING' AND o.account_id > c.account_id
                       AND o.account_id <= $1
                     ORDER BY o.account_id LIMIT 1)
             FROM from_start c WHERE c.account_id IS NOT NULL
         ),
         walk AS (
             (SELECT account_id FROM after_cursor WHERE account_id IS NOT NULL LIMIT $2)
             UNION ALL
             (SELECT account_id FROM from_start WHERE account_id IS NOT NULL LIMIT $2)
         ),
         accounts AS (
             SELECT account_id, row_number() OVER () AS turn
             FROM (SELECT account_id FROM walk LIMIT $2) w
         ),
         picked AS (
             SELECT p.id, a.turn, row_number() OVER (PARTITION BY a.turn ORDER BY p.due_at) AS nth
             FROM accounts a
             CROSS JOIN LATERAL (
                 SELECT o.id, o.due_at FROM {t} o
                 WHERE o.account_id = a.account_id AND o.status = 'PENDING' AND o.due_at <= now()
                 ORDER BY o.due_at LIMIT $3
                 FOR UPDATE SKIP LOCKED
             ) p
         ),
         chosen AS (
             SELECT id, nth, turn FROM picked ORDER BY nth, turn LIMIT $2
         ),
         claimed AS (
             UPDATE {t} o SET due_at = now() + make_interval(secs => $4), lease_owner = $5
             FROM chosen WHERE o.id = chosen.id
             RETURNING o.id, chosen.nth, chosen.turn
         ),
         walked AS (
             SELECT (SELECT account_id FROM accounts ORDER BY turn DESC LIMIT 1) AS last_account,
                    (SELECT count(*) FROM accounts) AS visited
         )
         SELECT c.id, w.last_account, w.visited
         FROM walked w LEFT JOIN claimed c ON true
         ORDER BY c.nth, c.turn",
        )))
        .bind(request.after.unwrap_or(AccountId(Uuid::nil())))
        .bind(i64::try_from(request.limit).unwrap_or(i64::MAX))
        .bind(i64::try_from(request.per_account.max(1)).unwrap_or(i64::MAX))
        .bind(request.lease.as_secs_f64())
        .bind(request.owner)
        .fetch_all(&mut *conn)
        .await?;
    let mut claimed = Claimed::default();
    for (id, last_account, visited) in rows {
        claimed.last_account = last_account;
        claimed.accounts_visited = usize::try_from(visited).unwrap_or(0);
        claimed.ids.extend(id);
    }
    Ok(claimed)
}

/// Tells the workers, at the commit of the caller's transaction, that `queue` has new rows.
/// PostgreSQL delivers one notification however many rows a transaction queued.
pub async fn notify(conn: &mut PgConnection, table: OutboxTable) -> Result<()> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(table.queue)
        .execute(conn)
        .await?;
    Ok(())
}

/// Extends the lease of the rows `ids` that `owner` still holds (PENDING, its name on them),
/// skipping any another transaction has locked: that is the recorder writing the row's outcome
/// (its lease no longer matters) or a withdrawal. Waiting for them instead deadlocked with the
/// recorder, which locks a batch's rows in another order (seen at 100,000 webhooks a round).
pub async fn renew(
    conn: &mut PgConnection,
    table: OutboxTable,
    owner: &str,
    ids: &[Uuid],
    lease: Duration,
) -> Result<u64> {
    let t = table.table;
    Ok(sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {t} SET due_at = now() + make_interval(secs => $3)
         WHERE id IN (SELECT id FROM {t}
                      WHERE id = ANY($1) AND lease_owner = $2 AND status = 'PENDING'
                      FOR UPDATE SKIP LOCKED)"
    )))
    .bind(ids)
    .bind(owner)
    .bind(lease.as_secs_f64())
    .execute(conn)
    .await?
    .rows_affected())
}

/// Lets the caller's transaction commit without waiting for its WAL to reach the disk
/// (`synchronous_commit = off`, for this transaction only). For the transactions that record
/// what sends came to, and only those: if PostgreSQL itself crashes in the next moments, the
/// last outcomes written may be lost, and those rows are then sent again when their lease ends
/// (at least once, as a worker's crash already allows); nothing is ever lost. A claim keeps
/// waiting for the disk: a lost claim could let a second worker send a row the first still
/// sends.
pub async fn record_without_waiting_for_disk(conn: &mut PgConnection) -> Result<()> {
    sqlx::query("SET LOCAL synchronous_commit = off")
        .execute(conn)
        .await?;
    Ok(())
}
