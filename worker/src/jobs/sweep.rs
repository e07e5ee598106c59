//! `ExpirySweep`, on a schedule (`EXPIRY_SWEEP_CRON`) rather than a queue.

use std::{sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use apalis_cron::Tick;
use signet_common::{
    flows::{completion, expiry, files, reminders, retention},
    store::{events, idempotency, queues, sms},
};

use crate::state::WorkerState;

/// Finished jobs are kept this long for inspection, then removed by the sweep.
const FINISHED_JOB_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Expired idempotency keys deleted per sweep: at a sweep a minute, far more than any account
/// can create (one per write, within the usage limit).
const IDEMPOTENCY_KEYS_PER_SWEEP: i64 = 10_000;

/// Events past EVENT_RETENTION_DAYS deleted per sweep: at a sweep a minute, more than a day's
/// events of a busy service (a 10,000-row bulk send makes some 40,000) in minutes.
const EVENTS_PER_SWEEP: i64 = 20_000;

/// The sweep's `job_type` in `signet_jobs_*` metrics (it has no queue: it runs on a schedule).
pub const SWEEP_JOB_TYPE: &str = "signet.expiry_sweep";

/// Expires due documents, queues the reminders that are due, queues completion again for fully signed documents still SENT,
/// removes old finished jobs, forgets the SMS counts of past days, expired idempotency keys and the events the feed no longer
/// keeps (EVENT_RETENTION_DAYS), removes files that no
/// document refers to (a failed upload, a discarded rendering) and the files of documents past
/// their account's retention policy (docs/retention.md); then records that a sweep finished, for the operator's alert.
/// Every part claims its rows with `SKIP LOCKED` or is a conditional update, so any number of
/// processes may sweep at once.
#[tracing::instrument(name = "ExpirySweep", skip_all)]
pub async fn expiry_sweep(_tick: Tick, state: Data<Arc<WorkerState>>) -> Result<(), BoxDynError> {
    // One sweep at a time in a process: overlapping sweeps race each other for the same
    // batches and the same count rows, and a sweep may last longer than the schedule's period
    // (100,000 expiries, ticks a second apart in the benchmark).
    let Ok(_sweeping) = state.sweeping.try_lock() else {
        tracing::debug!("the last sweep is still running: this tick is skipped");
        return Ok(());
    };
    // A failed sweep is retried at the next tick; the operator sees why in the log (and the
    // alert on `signet_sweep_last_finished_timestamp_seconds` if it keeps failing).
    sweep(&state).await.inspect_err(|error| {
        tracing::error!(%error, "the sweep failed; it runs again at the next tick");
    })
}

async fn sweep(state: &WorkerState) -> Result<(), BoxDynError> {
    let expired = expiry::expire_due(&state.db.pool, &state.notifier).await?;
    if expired > 0 {
        tracing::info!(expired, "documents expired");
    }
    let reminded = reminders::send_due(&state.db.pool, &state.notifier).await?;
    if reminded > 0 {
        tracing::info!(reminded, "reminders queued");
    }
    let requeued = completion::requeue_stalled(&state.db.pool).await?;
    if requeued > 0 {
        tracing::warn!(
            requeued,
            "fully signed documents were still SENT; completion queued again"
        );
    }
    queues::purge_finished(&state.db.pool, FINISHED_JOB_RETENTION).await?;
    sms::forget_old_counts(&state.db.pool).await?;
    idempotency::purge_expired(&state.db.pool, IDEMPOTENCY_KEYS_PER_SWEEP).await?;
    events::purge_older_than(
        &state.db.pool,
        state.config.sweep.event_retention_days,
        EVENTS_PER_SWEEP,
    )
    .await?;
    let removed =
        files::remove_abandoned(&state.db.pool, &state.store, state.file_orphan_grace).await?;
    if removed > 0 {
        tracing::info!(
            removed,
            "files of documents that were never committed removed"
        );
    }
    let removed = retention::remove_due(&state.db.pool, &state.store, &state.notifier).await?;
    if removed > 0 {
        tracing::info!(
            documents = removed,
            "files removed under the accounts' retention policies"
        );
    }
    queues::record_sweep(&state.db.pool, queues::EXPIRY_SWEEP, &state.instance).await?;
    Ok(())
}
