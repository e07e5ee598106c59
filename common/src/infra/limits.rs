//! Bounds on how much costly work (password hashing, PDF inspection) runs at once, so that no
//! number of requests can take all the memory or all the threads. A request over a bound is
//! refused at once rather than queued without end.

use std::{
    collections::HashMap,
    hash::Hash,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crate::{infra::pdf_sandbox::PdfSandbox, model::AccountId};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// At most `concurrency` holders run at once and at most `queue` more wait for their turn;
/// anyone beyond that is turned away by [`Gate::admit`].
#[derive(Debug, Clone)]
pub struct Gate {
    admitted: Arc<Semaphore>,
    running: Arc<Semaphore>,
}

/// A place in the gate: in the queue until [`Ticket::run`] returns.
#[derive(Debug)]
pub struct Ticket {
    _admitted: OwnedSemaphorePermit,
    running: Arc<Semaphore>,
}

/// The right to run, held for as long as the work runs.
#[derive(Debug)]
pub struct Running {
    _admitted: OwnedSemaphorePermit,
    _running: OwnedSemaphorePermit,
}

impl Gate {
    pub fn new(concurrency: usize, queue: usize) -> Self {
        Self {
            admitted: Arc::new(Semaphore::new(concurrency + queue)),
            running: Arc::new(Semaphore::new(concurrency)),
        }
    }

    /// A place in the queue, or `None` when the gate is full.
    pub fn admit(&self) -> Option<Ticket> {
        let admitted = self.admitted.clone().try_acquire_owned().ok()?;
        Some(Ticket {
            _admitted: admitted,
            running: self.running.clone(),
        })
    }

    /// How many more could be admitted now.
    pub fn available(&self) -> usize {
        self.admitted.available_permits()
    }
}

impl Ticket {
    /// Waits for a free slot.
    pub async fn run(self) -> Running {
        let running = self
            .running
            .acquire_owned()
            .await
            .expect("the gate's semaphore is never closed");
        Running {
            _admitted: self._admitted,
            _running: running,
        }
    }
}

/// At most `per_key` holders per key (such as an account) at once.
#[derive(Debug, Clone)]
pub struct PerKey<K: Eq + Hash + Clone> {
    per_key: usize,
    counts: Arc<Mutex<HashMap<K, usize>>>,
}

/// One of a key's places, given back when dropped.
#[derive(Debug)]
pub struct KeyPermit<K: Eq + Hash + Clone> {
    key: K,
    counts: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: Eq + Hash + Clone> PerKey<K> {
    pub fn new(per_key: usize) -> Self {
        Self {
            per_key,
            counts: Arc::default(),
        }
    }

    /// One of `key`'s places, or `None` when it holds them all.
    pub fn try_acquire(&self, key: K) -> Option<KeyPermit<K>> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(key.clone()).or_default();
        if *count >= self.per_key {
            return None;
        }
        *count += 1;
        Some(KeyPermit {
            key,
            counts: self.counts.clone(),
        })
    }
}

impl<K: Eq + Hash + Clone> Drop for KeyPermit<K> {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads for CPU- and memory-heavy work (password hashing, PDF parsing).
///
/// Not tokio's blocking pool: that pool grows to hundreds of threads, and the C allocator keeps
/// a heap per thread, so 19 MiB argon2 buffers or 64 MiB of inflated PDF streams freed on one
/// thread stay resident there. With a fixed set the memory held is bounded by its size.
#[derive(Clone)]
pub struct Workers {
    jobs: std::sync::mpsc::Sender<Job>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers").finish_non_exhaustive()
    }
}

impl Workers {
    /// Starts `threads` threads named `name`; they end when the last handle is dropped.
    pub fn new(name: &str, threads: usize) -> Self {
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..threads.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn(move || {
                    loop {
                        let job = queue.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                })
                .expect("start a worker thread");
        }
        Self { jobs }
    }

    /// Runs `work` on one of the threads and waits for it without blocking the async runtime;
    /// `None` if it panicked.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = done.send(outcome.ok());
        });
        self.jobs.send(job).ok()?;
        result.await.ok().flatten()
    }
}

/// Work on a large request body, admitted before the body is read: at most so many at once
/// over all accounts and per account; none wait.
#[derive(Debug, Clone)]
pub struct BodyGate {
    overall: Gate,
    per_account: PerKey<AccountId>,
}

/// A place in a [`BodyGate`], held while the body is read and worked on.
#[derive(Debug)]
pub struct Admitted {
    _account: Option<KeyPermit<AccountId>>,
    _running: Running,
}

impl BodyGate {
    pub fn new(overall: usize, per_account: usize) -> Self {
        Self {
            overall: Gate::new(overall, 0),
            per_account: PerKey::new(per_account),
        }
    }

    /// A place for `account`, or `None` when the account or everyone holds them all.
    pub async fn admit(&self, account: AccountId) -> Option<Admitted> {
        let account = self.per_account.try_acquire(account)?;
        let running = self.overall.admit()?.run().await;
        Some(Admitted {
            _account: Some(account),
            _running: running,
        })
    }

    /// A place over all accounts, for work no account asked for (a signer's upload).
    pub async fn admit_unkeyed(&self) -> Option<Admitted> {
        let running = self.overall.admit()?.run().await;
        Some(Admitted {
            _account: None,
            _running: running,
        })
    }
}

/// The gates of one API process, sized from [`crate::infra::config::Limits`].
#[derive(Debug, Clone)]
pub struct Gates {
    /// PDF uploads being read and inspected.
    pub uploads: BodyGate,
    /// Bulk sends' rows being read and checked.
    pub row_checks: BodyGate,
    /// The threads bulk sends' rows are read and checked on, as many as may be at once.
    pub checking: Workers,
    /// Password hashes.
    pub sign_in: Gate,
    /// The threads that hash passwords, as many as may hash at once.
    pub hashing: Workers,
    /// Where uploads and files to verify are parsed.
    pub pdf: PdfSandbox,
    /// Files being checked by `/verify`, over all clients; none wait.
    pub verify: Gate,
    /// One check at a time per client (source: see `flows::sign_in::source_of`).
    pub verify_per_client: PerKey<String>,
    /// Checks started per client per minute.
    pub verify_rate: PerMinute<String>,
}

impl Gates {
    /// The gates, or why the PDF sandbox's program cannot be found.
    pub fn new(limits: &crate::infra::config::Limits) -> std::io::Result<Self> {
        Ok(Self {
            uploads: BodyGate::new(
                limits.upload_concurrency,
                limits.upload_concurrency_per_account,
            ),
            row_checks: BodyGate::new(limits.row_check_concurrency, 1),
            checking: Workers::new("checking", limits.row_check_concurrency),
            sign_in: Gate::new(limits.sign_in_hash_concurrency, limits.sign_in_hash_queue),
            hashing: Workers::new("hashing", limits.sign_in_hash_concurrency),
            pdf: PdfSandbox::new(&limits.pdf_sandbox, limits.pdf)?,
            verify: Gate::new(limits.verify.concurrency, 0),
            verify_per_client: PerKey::new(1),
            verify_rate: PerMinute::new(limits.verify.per_client_per_minute),
        })
    }
}

/// At most `per_minute` events per key in any minute that starts with one of them (a window
/// per key, opened by its first event). Keys whose window has closed are dropped as the map
/// grows, so it holds at most the keys seen in the last minute.
#[derive(Debug, Clone)]
pub struct PerMinute<K: Eq + Hash + Clone> {
    per_minute: u32,
    windows: Arc<Mutex<HashMap<K, (Instant, u32)>>>,
}

impl<K: Eq + Hash + Clone> PerMinute<K> {
    pub fn new(per_minute: u32) -> Self {
        Self {
            per_minute,
            windows: Arc::default(),
        }
    }

    /// Counts one event for `key`: `Ok` if it is within the rate, else `Err` with the time
    /// until the key's window closes.
    pub fn try_count(&self, key: K) -> Result<(), Duration> {
        self.try_count_at(key, Instant::now())
    }

    fn try_count_at(&self, key: K, now: Instant) -> Result<(), Duration> {
        const WINDOW: Duration = Duration::from_secs(60);
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= 10_000 {
            windows.retain(|_, (opened, _)| now.duration_since(*opened) < WINDOW);
        }
        let (opened, count) = windows.entry(key).or_insert((now, 0));
        if now.duration_since(*opened) >= WINDOW {
            *opened = now;
            *count = 0;
        }
        if *count >= self.per_minute {
            return Err(WINDOW - now.duration_since(*opened));
        }
        *count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_gate_admits_its_runners_and_queue_and_no_more() {
        let gate = Gate::new(2, 1);
        let tickets: Vec<_> = (0..3).map(|_| gate.admit().expect("admitted")).collect();
        assert!(
            gate.admit().is_none(),
            "two running and one waiting fill it"
        );
        let mut tickets = tickets.into_iter();
        let first = tickets.next().unwrap().run().await;
        let _second = tickets.next().unwrap().run().await;
        let third = tickets.next().unwrap();
        drop(first);
        let _third = third.run().await;
        assert!(
            gate.admit().is_some(),
            "the first one's place is free again"
        );
    }

    #[tokio::test]
    async fn workers_run_the_work_and_survive_a_panic() {
        let workers = Workers::new("test", 1);
        assert_eq!(workers.run(|| 6 * 7).await, Some(42));
        assert_eq!(workers.run(|| -> i32 { panic!("boom") }).await, None);
        let name = workers
            .run(|| std::thread::current().name().map(str::to_owned))
            .await;
        assert_eq!(name, Some(Some("test-0".to_owned())));
    }

    #[test]
    fn a_key_gets_its_rate_per_minute_and_a_new_window_after_it() {
        let rate = PerMinute::new(2);
        let start = Instant::now();
        assert!(rate.try_count_at("a", start).is_ok());
        assert!(
            rate.try_count_at("a", start + Duration::from_secs(1))
                .is_ok()
        );
        let wait = rate
            .try_count_at("a", start + Duration::from_secs(20))
            .expect_err("the third in a minute");
        assert_eq!(wait, Duration::from_secs(40));
        assert!(rate.try_count_at("b", start).is_ok(), "b has its own");
        assert!(
            rate.try_count_at("a", start + Duration::from_secs(60))
                .is_ok()
        );
    }

    #[test]
    fn per_key_places_are_counted_per_key_and_given_back() {
        let limit = PerKey::new(1);
        let a = limit.try_acquire("a").expect("a's place");
        assert!(limit.try_acquire("a").is_none());
        let _b = limit.try_acquire("b").expect("b has its own");
        drop(a);
        assert!(limit.try_acquire("a").is_some());
    }
}
