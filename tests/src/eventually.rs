//! Waiting for something the system does on its own time (a worker's job, a process's log
//! line), without a fixed sleep: a sleep is either too short on a busy machine or wasted on an
//! idle one, and a test that asserts after one asserts on scheduling luck.

use std::{future::Future, time::Duration};

/// How often [`eventually`] looks again.
const POLL: Duration = Duration::from_millis(50);

/// Asks `probe` until it answers `Some`, every 50 ms for at most `timeout`, and gives that
/// answer; panics saying what was awaited (`what`) when the time is up.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {timeout:?} for {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Polls `items` every 100 ms until at least `count` of them match `filter`, or `timeout`
/// passes; returns the matching ones (fewer on timeout: the caller asserts).
pub(crate) async fn wait_for_matching<T>(
    items: impl Fn() -> Vec<T>,
    count: usize,
    timeout: std::time::Duration,
    filter: impl Fn(&T) -> bool,
) -> Vec<T> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let found: Vec<T> = items().into_iter().filter(|item| filter(item)).collect();
        if found.len() >= count || std::time::Instant::now() >= deadline {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
