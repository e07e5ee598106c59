//! One registration path for the kinds of work: a job type taken from a queue says its label,
//! concurrency and handler in its `QueuedJob` impl (its queue is `Job::QUEUE`),
//! `JobKind::registration` names the job type of each kind, and `run` builds every worker from
//! that alone.

use std::{future::Future, sync::Arc};

use apalis::{
    layers::{
        prometheus::PrometheusLayer,
        tracing::{ContextualTaskSpan, TraceLayer},
    },
    prelude::*,
};
use apalis_cron::CronScheduler;
use apalis_postgres::{Config as QueueConfig, PostgresStorage};
use signet_common::infra::{config::WorkerConcurrency, jobs::Job};
use tracing::Level;

use crate::{
    job_metrics,
    jobs::{
        outbox::{self, Leases, OutboxJob, Recorder},
        sweep,
    },
    state::WorkerState,
    supervision,
};

/// The label of the cron sweep's worker.
const SWEEP_LABEL: &str = "expiry-sweep";

/// Missed heartbeats after which a worker is presumed dead and its jobs run elsewhere.
const MISSED_HEARTBEATS: usize = outbox::MISSED_HEARTBEATS as usize;

/// A job type a worker takes from its queue.
pub trait QueuedJob: Job + Unpin {
    /// The label of its worker in logs, health answers and `signet_worker_*` metrics, and the
    /// start of its apalis worker names.
    const LABEL: &'static str;

    /// How many of its jobs one process runs at once.
    fn concurrency(configured: &WorkerConcurrency) -> usize;

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static;
}

/// What a kind of work is, and how its worker is added to a process's monitor.
#[derive(Clone, Copy)]
pub struct Registration {
    pub label: &'static str,
    /// The apalis queue it takes jobs from; the sweep has none (it runs on a schedule).
    pub queue: Option<&'static str>,
    pub concurrency: fn(&WorkerConcurrency) -> usize,
    pub(crate) register: fn(Monitor, &Workers) -> Monitor,
}

impl Registration {
    pub(crate) fn queued<J: QueuedJob>() -> Self {
        Registration {
            label: J::LABEL,
            queue: Some(J::QUEUE),
            concurrency: J::concurrency,
            register: register_queued::<J>,
        }
    }

    /// A kind of outbox message, whose rows are its queue.
    pub(crate) fn outbox<J: OutboxJob>() -> Self {
        Registration {
            label: J::LABEL,
            queue: Some(J::OUTBOX.queue),
            concurrency: J::concurrency,
            register: register_outbox::<J>,
        }
    }

    /// The cron sweep, one at a time.
    pub(crate) fn sweep() -> Self {
        Registration {
            label: SWEEP_LABEL,
            queue: None,
            concurrency: |_| 1,
            register: register_sweep,
        }
    }
}

/// What every worker of a process is built from.
pub(crate) struct Workers {
    pub(crate) state: Arc<WorkerState>,
    pub(crate) instance: String,
    /// When the sweep runs (EXPIRY_SWEEP_CRON).
    pub(crate) schedule: cron::Schedule,
}

/// Adds the worker of one job type: traced (continuing the trace that queued the job),
/// measured, limited to its kind's concurrency, and restarted (after a backoff, under a new
/// name) whenever its backend loses the database. See `supervision`.
pub(crate) fn register_queued<J: QueuedJob>(monitor: Monitor, workers: &Workers) -> Monitor {
    let state = workers.state.clone();
    let instance = workers.instance.clone();
    let concurrency = J::concurrency(&state.config.worker.concurrency);
    monitor.register(move |restarts: usize| {
        let before = state.clone();
        let after = state.clone();
        let backend = storage::<J>(&state, concurrency)
            .after_start(move |_| {
                after.supervisor.mark_running(J::LABEL);
                async { Ok(()) }
            })
            .before_start(move |_| {
                let delay = before.supervisor.backoff(J::LABEL);
                async move {
                    tokio::time::sleep(delay).await;
                    Ok(())
                }
            });
        WorkerBuilder::new(supervision::Supervisor::worker_name(
            J::LABEL,
            restarts,
            &instance,
        ))
        .backend(backend)
        .layer(TraceLayer::new().make_span_with(ContextualTaskSpan::new().level(Level::INFO)))
        .layer(PrometheusLayer::default())
        .layer(job_metrics::JobMetricsLayer::new(J::QUEUE))
        .concurrency(concurrency)
        .data(state.clone())
        .build(J::handle)
    })
}

/// Adds the worker of one outbox kind: its rows claimed by its pump (`jobs::outbox`), its
/// outcomes written by one recorder and its leases renewed at every heartbeat, both for the
/// life of the process; traced (continuing the trace that queued each row), measured, limited
/// to its kind's concurrency, and restarted like the others when it loses the database.
pub(crate) fn register_outbox<J: OutboxJob>(monitor: Monitor, workers: &Workers) -> Monitor {
    outbox_worker::<J>(monitor, &workers.state)
}

/// The worker of one outbox kind on `state`'s pools (`register_outbox`); public for the
/// benchmark's no-op kind (`examples/queue_ceiling.rs`).
pub fn outbox_worker<J: OutboxJob>(monitor: Monitor, state: &Arc<WorkerState>) -> Monitor {
    let state = state.clone();
    let instance = state.instance.clone();
    let concurrency = J::concurrency(&state.config.worker.concurrency);
    let recorder = Recorder::<J>::start(state.clone());
    let leases = Arc::new(Leases::new(J::OUTBOX));
    tokio::spawn(leases.clone().keep_renewed(state.clone()));
    monitor.register(move |restarts: usize| {
        WorkerBuilder::new(supervision::Supervisor::worker_name(
            J::LABEL,
            restarts,
            &instance,
        ))
        .backend(outbox::backend::<J>(
            state.clone(),
            leases.clone(),
            concurrency,
        ))
        .layer(TraceLayer::new().make_span_with(ContextualTaskSpan::new().level(Level::INFO)))
        .layer(PrometheusLayer::default())
        .layer(job_metrics::JobMetricsLayer::new(J::OUTBOX.queue))
        .concurrency(concurrency)
        .data(state.clone())
        .data(recorder.clone())
        .data(leases.clone())
        .build(J::handle)
    })
}

/// Adds the sweep's worker, on its schedule.
pub(crate) fn register_sweep(monitor: Monitor, workers: &Workers) -> Monitor {
    let state = workers.state.clone();
    let schedule = workers.schedule.clone();
    let name = format!("{}@{}", SWEEP_LABEL, workers.instance);
    monitor.register(move |_| {
        WorkerBuilder::new(name.clone())
            .backend(CronScheduler::new(schedule.clone()))
            // No concurrency limit: a tick that comes while a sweep runs is skipped by the sweep
            // itself (`WorkerState::sweeping`). With `.concurrency(1)` the cron backend is not
            // polled while a sweep runs, and a sweep longer than the schedule's period finds
            // the tick apalis-cron computed before it already past: `Tick out of range` ends
            // the worker, which the monitor then restarts.
            .layer(job_metrics::JobMetricsLayer::new(sweep::SWEEP_JOB_TYPE))
            .data(state.clone())
            .build(sweep::expiry_sweep)
    })
}

/// The queue of one job type: new jobs arrive by NOTIFY (through the process's one listener)
/// at once; delayed ones (retries) are found by polling, since PostgreSQL does not notify when
/// a `run_at` comes due. A fetch claims at most `concurrency` jobs, so a process holds no more
/// jobs than it can soon run: the rest stay ready for other processes (and visible to an
/// autoscaler as `signet_queue_ready_jobs`).
fn storage<J: Job>(
    state: &WorkerState,
    concurrency: usize,
) -> PollWith<PostgresStorage<J>, Strategy> {
    let pool = &state.queue_pool;
    let queue = QueueConfig::default()
        .queue(J::QUEUE)
        .batch_size(concurrency.max(1))
        .heartbeat_interval(state.config.worker.heartbeat)
        .missed_heartbeats(MISSED_HEARTBEATS);
    PostgresStorage::<J>::new(pool)
        .with_config(queue)
        .poll_with_strategy(
            Strategy::new()
                .stream(state.listener.subscribe(J::QUEUE))
                .interval(state.config.worker.poll_interval),
        )
}
