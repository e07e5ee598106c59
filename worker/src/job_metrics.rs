//! Per job type, what this process does with its jobs, for dashboards and autoscalers (summed
//! over processes):
//! - `signet_jobs_running{job_type}`: jobs running now;
//! - `signet_jobs_total{job_type, outcome}`: jobs finished, `ok` or `error` (throughput and
//!   failures);
//! - `signet_job_duration_seconds{job_type}`: how long they ran.
//!
//! apalis's own `tasks_total` carries the worker's name (host, pid and incarnation) and so
//! starts a new series at every restart; these are labelled by job type (the queue) only.

use std::{
    pin::Pin,
    task::{Context, Poll},
    time::Instant,
};

use apalis::prelude::Task;
use tower::{Layer, Service};

#[derive(Debug, Clone, Copy)]
pub struct JobMetricsLayer {
    job_type: &'static str,
}

impl JobMetricsLayer {
    /// Measures the jobs of the queue `job_type` (e.g. `signet.dispatch_email`).
    pub fn new(job_type: &'static str) -> Self {
        metrics::gauge!("signet_jobs_running", "job_type" => job_type).set(0.0);
        for outcome in ["ok", "error"] {
            metrics::counter!("signet_jobs_total", "job_type" => job_type, "outcome" => outcome)
                .absolute(0);
        }
        // Registered empty, so `histogram_quantile` and dashboards see it before the first job.
        let _ = metrics::histogram!("signet_job_duration_seconds", "job_type" => job_type);
        Self { job_type }
    }
}

impl<S> Layer<S> for JobMetricsLayer {
    type Service = JobMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        JobMetrics {
            inner,
            job_type: self.job_type,
        }
    }
}

#[derive(Debug, Clone)]
pub struct JobMetrics<S> {
    inner: S,
    job_type: &'static str,
}

impl<S, Args> Service<Task<Args>> for JobMetrics<S>
where
    S: Service<Task<Args>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Measured<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, task: Task<Args>) -> Self::Future {
        Measured {
            inner: Box::pin(self.inner.call(task)),
            running: Running::start(self.job_type),
        }
    }
}

/// A job's future, measured.
pub struct Measured<F> {
    inner: Pin<Box<F>>,
    running: Running,
}

impl<F, T, E> Future for Measured<F>
where
    F: Future<Output = Result<T, E>>,
{
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let outcome = std::task::ready!(self.inner.as_mut().poll(cx));
        self.running.finish(outcome.is_ok());
        Poll::Ready(outcome)
    }
}

/// Counts a job as running from its start until it finishes or is dropped (a worker restarted
/// or stopped under it), so the gauge never drifts.
struct Running {
    job_type: &'static str,
    started: Instant,
    finished: bool,
}

impl Running {
    fn start(job_type: &'static str) -> Self {
        metrics::gauge!("signet_jobs_running", "job_type" => job_type).increment(1.0);
        Self {
            job_type,
            started: Instant::now(),
            finished: false,
        }
    }

    fn finish(&mut self, ok: bool) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let outcome = if ok { "ok" } else { "error" };
        metrics::counter!("signet_jobs_total", "job_type" => self.job_type, "outcome" => outcome)
            .increment(1);
        metrics::histogram!("signet_job_duration_seconds", "job_type" => self.job_type)
            .record(self.started.elapsed().as_secs_f64());
        metrics::gauge!("signet_jobs_running", "job_type" => self.job_type).decrement(1.0);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            metrics::gauge!("signet_jobs_running", "job_type" => self.job_type).decrement(1.0);
        }
    }
}
