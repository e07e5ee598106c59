//! What a soak is asked to do, what it reports, and the latencies it measures.

use std::{path::PathBuf, sync::Mutex, time::Duration};

/// Where the deployment keeps its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Local,
    S3,
}

impl std::str::FromStr for StoreKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "local" => Ok(Self::Local),
            "s3" => Ok(Self::S3),
            other => Err(format!("{other}: the file store is `local` or `s3`")),
        }
    }
}

/// What a soak runs: for how long, on which schedule, at what rate.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long journeys start and faults are injected; the settling after it is extra.
    pub duration: Duration,
    /// Seeds the journeys' scripts and the fault schedule: the same seed, the same schedule.
    pub seed: u64,
    pub store: StoreKind,
    /// Journeys started per minute, spread evenly.
    pub journeys_per_minute: u32,
    pub accounts: usize,
    /// Faults start at random intervals between these bounds (seconds).
    pub fault_interval: (u64, u64),
    /// Where `signet-api` and `signet-worker` are.
    pub bin_dir: PathBuf,
    /// The repository (fixtures, the checks' helper scripts).
    pub repo: PathBuf,
    /// Where the processes' logs, the final PDFs and the summary go.
    pub out_dir: PathBuf,
    /// A process whose resident memory ever passes this is a violation.
    pub memory_limit_mib: u64,
}

/// What a soak found: the violations (none: it passed) and the summary it printed.
#[derive(Debug)]
pub struct Report {
    pub violations: Vec<String>,
    pub summary: String,
}

/// The latency of every API call the load made, and whether a fault was active at the time.
#[derive(Default)]
pub(crate) struct Latencies {
    samples: Mutex<Vec<(Duration, bool)>>,
}

impl Latencies {
    pub(crate) fn record(&self, took: Duration, during_fault: bool) {
        self.samples.lock().unwrap().push((took, during_fault));
    }

    /// `(p50, p95, p99, max, count)` in milliseconds of the calls made during faults or not.
    pub(crate) fn percentiles(&self, during_fault: bool) -> (f64, f64, f64, f64, usize) {
        let mut ms: Vec<f64> = self
            .samples
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, d)| *d == during_fault)
            .map(|(t, _)| t.as_secs_f64() * 1000.0)
            .collect();
        if ms.is_empty() {
            return (0.0, 0.0, 0.0, 0.0, 0);
        }
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
        (at(0.5), at(0.95), at(0.99), ms[ms.len() - 1], ms.len())
    }
}
