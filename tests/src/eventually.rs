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
