//! Waiting for something the system does on its own time (a worker's job, a process's log
//! line), without a fixed sleep: a sleep is either too short on a busy machine or wasted on an
//! idle one, and a test that asserts after one asserts on scheduling luck.
//!
//! Every wait of the suite and the harness goes through here: [`eventually`] when the time
//! running out is a failure, [`poll_until`] when the caller asserts on the last answer itself,
//! and their `_blocking` twins for code that runs outside the runtime.

use std::{fmt, future::Future, time::Duration};

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(50);

/// Asks `probe` until it answers `Some`, every 50 ms for at most `timeout`, and gives that
/// answer; panics saying what was awaited (`what`) when the time is up.
///
/// `what` is only formatted on failure, so [`described_by`] can put the state at that moment
/// (a process's log, the last answer) into the message.
pub async fn eventually<T, F, Fut>(what: impl fmt::Display, timeout: Duration, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    poll_until(timeout, probe, Option::is_some)
        .await
        .unwrap_or_else(|| panic!("waited {timeout:?} for {what}"))
}

/// Asks `probe` every 50 ms until `done` holds for its answer or `timeout` passes, and gives
/// the last answer either way: for a caller that asserts on what it last saw.
pub async fn poll_until<T, F, Fut>(timeout: Duration, mut probe: F, done: impl Fn(&T) -> bool) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = T>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let answer = probe().await;
        if done(&answer) || tokio::time::Instant::now() >= deadline {
            return answer;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// [`eventually`] for code that is not async (it blocks the thread between looks).
pub fn eventually_blocking<T>(
    what: impl fmt::Display,
    timeout: Duration,
    probe: impl FnMut() -> Option<T>,
) -> T {
    poll_until_blocking(timeout, probe, Option::is_some)
        .unwrap_or_else(|| panic!("waited {timeout:?} for {what}"))
}

/// [`poll_until`] for code that is not async (it blocks the thread between looks).
pub fn poll_until_blocking<T>(
    timeout: Duration,
    mut probe: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let answer = probe();
        if done(&answer) || std::time::Instant::now() >= deadline {
            return answer;
        }
        std::thread::sleep(POLL);
    }
}

/// A description written only when shown: `described_by(|| format!("…\n{}", worker.log()))`
/// gives the log as it is when the wait fails, not as it was when the wait began.
pub fn described_by<F: Fn() -> String>(describe: F) -> impl fmt::Display {
    struct Described<F>(F);
    impl<F: Fn() -> String> fmt::Display for Described<F> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&(self.0)())
        }
    }
    Described(describe)
}

/// Polls `items` until at least `count` of them match `filter`, or `timeout` passes; returns
/// the matching ones (fewer on timeout: the caller asserts).
pub(crate) async fn wait_for_matching<T>(
    items: impl Fn() -> Vec<T>,
    count: usize,
    timeout: Duration,
    filter: impl Fn(&T) -> bool,
) -> Vec<T> {
    poll_until(
        timeout,
        || async { items().into_iter().filter(|item| filter(item)).collect() },
        |found: &Vec<T>| found.len() >= count,
    )
    .await
}
