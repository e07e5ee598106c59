//! Keeps every job type's worker polling through database outages.
//!
//! apalis ends a worker's future when its backend fails (a fetch, heartbeat or acknowledgement
//! that cannot reach PostgreSQL) and leaves it dead unless the monitor's `should_restart`
//! callback says otherwise. We always say yes (except during shutdown), and make each restarted
//! worker wait out a growing backoff before it registers again, so a database that is down is
//! dialled a few times a second at most, not in a tight loop. Each incarnation registers under
//! a new name (`dispatch-email#2@host:pid`), so the jobs the failed one had claimed but not
//! finished are taken back by apalis's orphan recovery instead of staying locked by a name that
//! is still alive.
//!
//! The state kept here answers `/readyz` (every job type polling), `/healthz` (no job type stuck
//! while the database answers) and the `signet_worker_running` / `signet_worker_restarts_total`
//! metrics.

use std::{
    collections::BTreeMap,
    sync::{
        Mutex,
        atomic::{AtomicBool, AtomicU32, Ordering},
    },
    time::{Duration, Instant},
};

use rand::Rng;

/// The first wait before a failed worker registers again; doubled per consecutive failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between two attempts: how late at most a worker notices the database is back.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// One job type's worker, across its restarts.
struct JobWorker {
    running: AtomicBool,
    consecutive_failures: AtomicU32,
    restarts: AtomicU32,
    /// Since when it has not been polling (None while it polls).
    down_since: Mutex<Option<Instant>>,
}

/// Health of the process's job workers and of its queue listener.
pub struct Supervisor {
    jobs: BTreeMap<&'static str, JobWorker>,
    listener_connected: AtomicBool,
}

/// What `/readyz` and `/healthz` report.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Job type → whether its worker is polling; only the job types this process runs.
    pub workers: BTreeMap<&'static str, bool>,
    /// Whether new jobs are heard of at once; absent when the process runs no queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_connected: Option<bool>,
    /// The job types that have not been polling for longer than the stuck threshold.
    pub stuck: Vec<&'static str>,
}

impl Supervisor {
    /// `jobs` are the labels of the queue job types this process runs (e.g. `dispatch-email`);
    /// each starts as not yet polling.
    pub fn new(jobs: &[&'static str]) -> Self {
        let now = Instant::now();
        let jobs: BTreeMap<_, _> = jobs
            .iter()
            .map(|label| {
                metrics::gauge!("signet_worker_running", "job" => *label).set(0.0);
                metrics::counter!("signet_worker_restarts_total", "job" => *label).absolute(0);
                (
                    *label,
                    JobWorker {
                        running: AtomicBool::new(false),
                        consecutive_failures: AtomicU32::new(0),
                        restarts: AtomicU32::new(0),
                        down_since: Mutex::new(Some(now)),
                    },
                )
            })
            .collect();
        if !jobs.is_empty() {
            metrics::gauge!("signet_worker_listener_connected").set(0.0);
        }
        Self {
            jobs,
            listener_connected: AtomicBool::new(false),
        }
    }

    /// The name of a job type's worker for its `restarts`-th incarnation.
    pub fn worker_name(label: &str, restarts: usize, instance: &str) -> String {
        if restarts == 0 {
            format!("{label}@{instance}")
        } else {
            format!("{label}#{restarts}@{instance}")
        }
    }

    /// The job type label of a worker name made by `worker_name`.
    pub fn label_of(worker_name: &str) -> &str {
        let label = worker_name.split('@').next().unwrap_or(worker_name);
        label.split('#').next().unwrap_or(label)
    }

    fn job(&self, label: &str) -> Option<&JobWorker> {
        self.jobs.get(label)
    }

    /// The worker registered with the queue and polls.
    pub fn mark_running(&self, label: &str) {
        let Some(job) = self.job(label) else { return };
        job.running.store(true, Ordering::SeqCst);
        job.consecutive_failures.store(0, Ordering::SeqCst);
        *job.down_since.lock().expect("not poisoned") = None;
        metrics::gauge!("signet_worker_running", "job" => label.to_owned()).set(1.0);
        tracing::info!(job = label, "worker polling");
    }

    /// The worker's backend failed; it will be restarted after `backoff(label)`.
    pub fn mark_failed(&self, label: &str, error: &dyn std::fmt::Display) {
        let Some(job) = self.job(label) else { return };
        job.running.store(false, Ordering::SeqCst);
        let failures = job.consecutive_failures.fetch_add(1, Ordering::SeqCst) + 1;
        let restarts = job.restarts.fetch_add(1, Ordering::SeqCst) + 1;
        job.down_since
            .lock()
            .expect("not poisoned")
            .get_or_insert_with(Instant::now);
        metrics::gauge!("signet_worker_running", "job" => label.to_owned()).set(0.0);
        metrics::counter!("signet_worker_restarts_total", "job" => label.to_owned()).increment(1);
        tracing::warn!(job = label, %error, failures, restarts, "worker lost its queue; restarting it");
    }

    /// How long a restarted worker waits before it registers again: nothing after a success,
    /// then 250 ms doubling per consecutive failure up to `MAX_BACKOFF`, ±20 % jitter so that
    /// many workers do not reconnect in step.
    pub fn backoff(&self, label: &str) -> Duration {
        let failures = self
            .job(label)
            .map_or(0, |job| job.consecutive_failures.load(Ordering::SeqCst));
        if failures == 0 {
            return Duration::ZERO;
        }
        let exponent = (failures - 1).min(16);
        let delay = FIRST_BACKOFF.saturating_mul(1 << exponent).min(MAX_BACKOFF);
        delay.mul_f64(rand::rng().random_range(0.8..=1.2))
    }

    pub fn set_listener_connected(&self, connected: bool) {
        self.listener_connected.store(connected, Ordering::SeqCst);
        metrics::gauge!("signet_worker_listener_connected").set(if connected { 1.0 } else { 0.0 });
    }

    /// The current state; job types down for longer than `stuck_after` are listed as stuck.
    pub fn report(&self, stuck_after: Duration) -> Report {
        let workers = self
            .jobs
            .iter()
            .map(|(label, job)| (*label, job.running.load(Ordering::SeqCst)))
            .collect();
        let stuck = self
            .jobs
            .iter()
            .filter(|(_, job)| {
                job.down_since
                    .lock()
                    .expect("not poisoned")
                    .is_some_and(|since| since.elapsed() >= stuck_after)
            })
            .map(|(label, _)| *label)
            .collect();
        Report {
            listener_connected: (!self.jobs.is_empty())
                .then(|| self.listener_connected.load(Ordering::SeqCst)),
            workers,
            stuck,
        }
    }
}

impl Report {
    /// Every job type of this process polls and new jobs are heard of at once.
    pub fn ready(&self) -> bool {
        self.listener_connected != Some(false) && self.workers.values().all(|running| *running)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_incarnation_and_give_back_the_label() {
        let first = Supervisor::worker_name("dispatch-email", 0, "host:42");
        let third = Supervisor::worker_name("dispatch-email", 2, "host:42");
        assert_eq!(first, "dispatch-email@host:42");
        assert_eq!(third, "dispatch-email#2@host:42");
        assert_eq!(Supervisor::label_of(&first), "dispatch-email");
        assert_eq!(Supervisor::label_of(&third), "dispatch-email");
    }

    #[test]
    fn backoff_grows_to_its_cap_and_resets_on_success() {
        let supervisor = Supervisor::new(&["dispatch-email"]);
        assert_eq!(supervisor.backoff("dispatch-email"), Duration::ZERO);
        supervisor.mark_failed("dispatch-email", &"down");
        let first = supervisor.backoff("dispatch-email");
        assert!(first >= FIRST_BACKOFF.mul_f64(0.8) && first <= FIRST_BACKOFF.mul_f64(1.2));
        for _ in 0..20 {
            supervisor.mark_failed("dispatch-email", &"down");
        }
        assert!(supervisor.backoff("dispatch-email") <= MAX_BACKOFF.mul_f64(1.2));
        supervisor.mark_running("dispatch-email");
        assert_eq!(supervisor.backoff("dispatch-email"), Duration::ZERO);
    }

    #[test]
    fn ready_only_when_every_worker_polls_and_the_listener_hears() {
        let supervisor = Supervisor::new(&["a", "b"]);
        assert!(!supervisor.report(Duration::from_secs(60)).ready());
        supervisor.mark_running("a");
        supervisor.mark_running("b");
        assert!(!supervisor.report(Duration::from_secs(60)).ready());
        supervisor.set_listener_connected(true);
        assert!(supervisor.report(Duration::from_secs(60)).ready());
        supervisor.mark_failed("b", &"down");
        let report = supervisor.report(Duration::ZERO);
        assert!(!report.ready());
        assert_eq!(report.stuck, vec!["b"]);
    }

    #[test]
    fn a_process_without_queues_needs_no_listener() {
        let supervisor = Supervisor::new(&[]);
        let report = supervisor.report(Duration::from_secs(60));
        assert_eq!(report.listener_connected, None);
        assert!(report.ready());
    }
}
