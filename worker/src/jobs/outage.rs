//! Surviving a database outage: a job's work on a task of its own, the parts that need the
//! database repeated until it answers, and a message that left just before it went away
//! remembered and recorded once it is back.

use std::{future::Future, time::Duration};

use apalis::prelude::BoxDynError;
use signet_common::{Error, delivery::retry::jitter};
use sqlx::PgConnection;
use tracing::Instrument;

use crate::state::{OutboxId, WorkerState};

/// The first wait before work that found the database unreachable tries again.
const FIRST_RETRY: Duration = Duration::from_millis(200);
/// The longest wait between two tries while the database is unreachable.
const MAX_RETRY: Duration = Duration::from_secs(2);

/// Runs a job's work to completion on a task of its own, in the job's span.
pub(super) async fn run_job<T: Send + 'static>(
    work: impl Future<Output = Result<T, Error>> + Send + 'static,
) -> Result<T, BoxDynError> {
    let span = tracing::Span::current();
    Ok(tokio::spawn(work.instrument(span)).await??)
}

/// Repeats `work` for as long as it fails because the database (or the file store) cannot be
/// reached; any other
/// outcome is returned. `work` must be safe to repeat (a transaction that rolled back).
pub(super) async fn until_available<T, F, Fut>(mut work: F) -> Result<T, Error>
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

/// A message that left (an e-mail, a webhook post) with the outcome to write for it.
pub(super) trait Sent: Send + Sync {
    /// The outbox row or delivery that was sent.
    fn id(&self) -> OutboxId;

    /// Writes the outcome unless it was written already; false when it was.
    fn record(
        &self,
        conn: &mut PgConnection,
        state: &WorkerState,
    ) -> impl Future<Output = Result<bool, Error>> + Send;
}

/// Writes what was sent on the transaction that locked it. If the database went away in the
/// meantime, remembers the message (so that this process does not send it again) and returns
/// it, to be written by `record_late` once the database is back.
pub(super) async fn record_or_remember<S: Sent>(
    state: &WorkerState,
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    sent: S,
) -> Result<Option<S>, Error> {
    let recorded = async {
        sent.record(&mut tx, state).await?;
        tx.commit().await?;
        Ok::<_, Error>(())
    }
    .await;
    match recorded {
        Ok(()) => Ok(None),
        Err(e) if e.is_unavailable() => {
            tracing::warn!(id = %sent.id(), error = %e, "sent, but the database went away; recording it when it is back");
            state.remember_unrecorded(sent.id());
            Ok(Some(sent))
        }
        Err(e) => Err(e),
    }
}

/// Writes the outcome of a message sent while the database was away, once it is back.
pub(super) async fn record_late<S: Sent>(
    state: &WorkerState,
    sent: Option<S>,
) -> Result<(), Error> {
    let Some(sent) = sent else { return Ok(()) };
    until_available(|| async {
        let mut tx = state.db.pool.begin().await?;
        let recorded = sent.record(&mut tx, state).await?;
        tx.commit().await?;
        Ok(recorded)
    })
    .await?;
    state.forget_unrecorded(sent.id());
    Ok(())
}
