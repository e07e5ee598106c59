//! Surviving a database outage: a job's work on a task of its own, and the parts that need the
//! database repeated until it answers. (An outbox message that left just before the database
//! went away is remembered and recorded by the recorder, `jobs::outbox`.)

use std::{future::Future, time::Duration};

use apalis::prelude::BoxDynError;
use signet_common::{Error, delivery::retry::jitter};
use tracing::Instrument;

/// The first wait before work that found the database unreachable tries again.
const FIRST_RETRY: Duration = Duration::from_millis(200);
/// The longest wait between two tries while the database is unreachable.
const MAX_RETRY: Duration = Duration::from_secs(2);

/// Runs a job's work to completion on a task of its own, in the job's span.
pub(crate) async fn run_job<T: Send + 'static>(
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<T, BoxDynError> {
    let span = tracing::Span::current();
    Ok(tokio::spawn(work.instrument(span)).await??)
}

/// Repeats `work` for as long as it fails because the database (or the file store) cannot be
/// reached; any other
/// outcome is returned. `work` must be safe to repeat (a transaction that rolled back).
pub(crate) async fn until_available<T, F, Fut>(mut work: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Error>>,
{
    let mut delay = FIRST_RETRY;
    loop {
        match work().await {
            Err(e) if e.is_unavailable() => {
                if matches!(e, Error::Database(sqlx::Error::PoolTimedOut)) {
                    // Every connection of the budget busy, or none to be had: back-pressure.
                    tracing::info!(retry_in = ?delay, "no database connection free; will try again");
                } else if matches!(e, Error::Storage(_)) {
                    tracing::warn!(error = %e, retry_in = ?delay, "file store unreachable; will try again");
                } else {
                    tracing::warn!(error = %e, retry_in = ?delay, "database unreachable; will try again");
                }
                tokio::time::sleep(jitter(delay)).await;
                delay = (delay * 2).min(MAX_RETRY);
            }
            outcome => return outcome,
        }
    }
}
