//! The job queues as an operator sees them: what waits in each (for `/metrics` and autoscalers),
//! when a sweep last finished, and the removal of finished jobs.

use std::time::Duration;

use sqlx::PgPool;

use crate::error::Result;

/// What waits in one queue. Jobs a worker has claimed are not here: each process counts its
/// own (`signet_jobs_running`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueStats {
    pub job_type: String,
    /// Due now and waiting for a worker.
    pub ready: i64,
    /// Waiting for their time (retries with backoff).
    pub scheduled: i64,
    /// How long the oldest ready job has been due; zero when none is.
    pub oldest_ready_age: Duration,
}

/// What `/metrics` reads from the database: every queue's waiting jobs and the last sweep.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// One entry per queue of `jobs::QUEUES`, in that order.
    pub queues: Vec<QueueStats>,
    /// When an expiry sweep last finished, in any process (seconds since the epoch), if ever.
    pub last_sweep_finished: Option<f64>,
}

/// How long reading the snapshot may take before it is given up (and `/metrics` keeps the
/// previous figures).
const SNAPSHOT_TIMEOUT_MS: i64 = 2000;

/// Reads the snapshot in one short transaction. The queue figures come from the partial indexes
/// the queues are taken with (apalis's `idx_apalis_jobs_fetch_partial`, each outbox table's
/// `…_claim`), so the cost follows what waits, not the finished rows the tables also keep.
pub async fn snapshot(pool: &PgPool) -> Result<Snapshot> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT set_config('statement_timeout', $1, true)")
        .bind(SNAPSHOT_TIMEOUT_MS.to_string())
        .execute(&mut *tx)
        .await?;
    // The outbox rows a worker holds (due again when their lease ends) are neither ready nor
    // scheduled: each process counts what it runs.
    let outbox = |table: super::outbox::OutboxTable| {
        format!(
            "SELECT '{queue}'::text,
                    count(*) FILTER (WHERE due_at <= now()),
                    count(*) FILTER (WHERE due_at > now() AND lease_owner IS NULL),
                    coalesce(extract(epoch FROM now() - min(due_at) FILTER (WHERE due_at <= now())), 0)::float8
             FROM {table} WHERE status = 'PENDING'",
            queue = table.queue,
            table = table.table,
        )
    };
    let rows: Vec<(String, i64, i64, f64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT job_type,
                count(*) FILTER (WHERE run_at <= now()),
                count(*) FILTER (WHERE run_at > now()),
                coalesce(extract(epoch FROM now() - min(run_at) FILTER (WHERE run_at <= now())), 0)::float8
         FROM apalis.jobs
         WHERE status = 'Pending' OR (status = 'Failed' AND attempts < max_attempts)
         GROUP BY job_type
         UNION ALL {} UNION ALL {} UNION ALL {}",
        outbox(super::emails::OUTBOX),
        outbox(super::sms::OUTBOX),
        outbox(super::webhooks::OUTBOX),
    )))
    .fetch_all(&mut *tx)
    .await?;
    let last_sweep_finished: Option<f64> = sqlx::query_scalar(
        "SELECT extract(epoch FROM finished_at)::float8 FROM sweep_runs WHERE sweep = $1",
    )
    .bind(EXPIRY_SWEEP)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    let queues = crate::infra::jobs::QUEUES
        .iter()
        .map(|queue| {
            rows.iter()
                .find(|(job_type, ..)| job_type == queue)
                .map(|(job_type, ready, scheduled, age)| QueueStats {
                    job_type: job_type.clone(),
                    ready: *ready,
                    scheduled: *scheduled,
                    oldest_ready_age: Duration::from_secs_f64(age.max(0.0)),
                })
                .unwrap_or_else(|| QueueStats {
                    job_type: (*queue).to_owned(),
                    ..QueueStats::default()
                })
        })
        .collect();
    Ok(Snapshot {
        queues,
        last_sweep_finished,
    })
}

/// The name under which the expiry sweep records its runs.
pub const EXPIRY_SWEEP: &str = "expiry-sweep";

/// Records that a sweep finished now, in the process `by`. Every process that runs the sweep
/// writes the same row, so "the last sweep" is the latest of any of them.
pub async fn record_sweep(pool: &PgPool, sweep: &str, by: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO sweep_runs (sweep, finished_at, finished_by) VALUES ($1, now(), $2)
         ON CONFLICT (sweep) DO UPDATE SET finished_at = excluded.finished_at,
                                           finished_by = excluded.finished_by",
    )
    .bind(sweep)
    .bind(by)
    .execute(pool)
    .await?;
    Ok(())
}

/// Removes jobs that finished more than `retention` ago. Rows another sweep is removing at the
/// same moment are skipped, so sweeps running at once on several processes never wait on each
/// other.
pub async fn purge_finished(pool: &PgPool, retention: Duration) -> Result<u64> {
    let removed = sqlx::query(
        "DELETE FROM apalis.jobs WHERE id IN (
             SELECT id FROM apalis.jobs
             WHERE status = 'Done' AND done_at < now() - make_interval(secs => $1)
             FOR UPDATE SKIP LOCKED)",
    )
    .bind(retention.as_secs_f64())
    .execute(pool)
    .await?
    .rows_affected();
    Ok(removed)
}

/// Whether the schema the worker needs exists: apalis's job table and the sweep's record (the
/// API's `serve`, or `signet-api migrate`, creates both).
pub async fn schema_ready(pool: &PgPool) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT to_regclass('apalis.jobs') IS NOT NULL AND to_regclass('public.sweep_runs') IS NOT NULL",
    )
    .fetch_one(pool)
    .await?)
}
