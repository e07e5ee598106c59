//! The skeleton every outbox job shares (e-mail, SMS, webhook): claim the row, decide, send
//! through the job's transport, record the outcome on the transaction that claimed it, and
//! either queue the retry or give up. Each job only says what is particular to it
//! (`OutboxJob`); `run` does the rest, including what happens when the database goes away
//! (`until_available`, the unrecorded set, `record_late`).

use std::{future::Future, sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use signet_common::{
    Error,
    infra::jobs::{self, Job},
};
use sqlx::PgConnection;

use super::outage::{Sent, record_late, record_or_remember, run_job, until_available};
use crate::state::{OutboxId, WorkerState};

/// What to do with a claimed row.
pub enum Step<M> {
    /// Nothing: its outcome is written already, or it needs no sending.
    Skip,
    /// Withdraw it unsent (its document left SENT).
    Withdraw,
    /// Send it, with what `decide` prepared.
    Send(M),
}

/// What a send came to, as far as the skeleton is concerned.
pub enum Verdict {
    Delivered,
    /// Failed; tried again after the delay, or given up when there is none.
    Failed {
        retry_in: Option<Duration>,
    },
}

/// What the skeleton tells a job's log, so that each keeps its own fields and words.
pub enum Event<'a, J: OutboxJob> {
    /// The row is missing or locked by another worker.
    Missing(&'a J),
    /// This process sent it already and has not written the outcome yet.
    BeingRecorded(&'a J::Row),
    Withdrawn(&'a J::Row),
    Delivered(&'a J::Row, &'a J::Outcome),
    Retrying(&'a J::Row, &'a J::Outcome, Duration),
    GaveUp(&'a J::Row, &'a J::Outcome, i32),
}

/// One kind of outbox job: its row, what it sends, and how its outcome is written.
pub trait OutboxJob: Job + Sized {
    type Row: Send + Sync + 'static;
    /// What `decide` prepares for `send` (a link, a text).
    type Message: Send;
    /// What one send came to, to be written.
    type Outcome: Send + Sync + 'static;

    fn id(row: &Self::Row) -> OutboxId;

    /// The job that tries the row again.
    fn retry(row: &Self::Row) -> Self;

    /// Whether this process can take the job at all (checked before the row is claimed).
    fn check(_state: &WorkerState) -> Result<(), Error> {
        Ok(())
    }

    /// Locks the job's row for sending: `None` when it is missing, locked by another worker or
    /// needs no attempt.
    fn claim(
        &self,
        conn: &mut PgConnection,
    ) -> impl Future<Output = Result<Option<Self::Row>, Error>> + Send;

    fn decide(state: &WorkerState, row: &Self::Row) -> Step<Self::Message>;

    fn withdraw(
        conn: &mut PgConnection,
        row: &Self::Row,
    ) -> impl Future<Output = Result<(), Error>> + Send;

    /// Sends the row through the job's transport and says what came of it (on the claiming
    /// transaction, which it may read with).
    fn send(
        state: &WorkerState,
        conn: &mut PgConnection,
        row: &Self::Row,
        message: Self::Message,
    ) -> impl Future<Output = Result<Self::Outcome, Error>> + Send;

    fn verdict(outcome: &Self::Outcome) -> Verdict;

    /// Writes a delivery; false when an outcome was written already.
    fn record_delivered(
        conn: &mut PgConnection,
        row: &Self::Row,
        outcome: &Self::Outcome,
    ) -> impl Future<Output = Result<bool, Error>> + Send;

    /// Writes a failure (FAILED for good with `give_up`): the attempts so far, or `None` when
    /// an outcome was written already.
    fn record_failure(
        conn: &mut PgConnection,
        row: &Self::Row,
        outcome: &Self::Outcome,
        give_up: bool,
    ) -> impl Future<Output = Result<Option<i32>, Error>> + Send;

    /// What a failure for good sets off (audit entry, notice), on the same transaction.
    fn give_up(
        conn: &mut PgConnection,
        state: &WorkerState,
        row: &Self::Row,
        outcome: &Self::Outcome,
    ) -> impl Future<Output = Result<(), Error>> + Send;

    /// Counts an outcome once it is written.
    fn count(_row: &Self::Row, _outcome: &Self::Outcome) {}

    fn log(event: Event<'_, Self>);
}

/// Runs one outbox job to the end: claim, send, record, retry or give up.
pub async fn run<J: OutboxJob>(job: J, state: Data<Arc<WorkerState>>) -> Result<(), BoxDynError> {
    let state = Arc::clone(&state);
    run_job(async move {
        let unrecorded = until_available(|| attempt(&state, &job)).await?;
        record_late(&state, unrecorded).await
    })
    .await
}

/// Claims, sends and records the job's row; returns what was sent but could not be recorded.
async fn attempt<J: OutboxJob>(
    state: &WorkerState,
    job: &J,
) -> Result<Option<Attempted<J>>, Error> {
    J::check(state)?;
    let mut tx = state.db.pool.begin().await?;
    let Some(row) = job.claim(&mut tx).await? else {
        J::log(Event::Missing(job));
        return Ok(None);
    };
    if state.is_unrecorded(J::id(&row)) {
        J::log(Event::BeingRecorded(&row));
        return Ok(None);
    }
    let message = match J::decide(state, &row) {
        Step::Skip => return Ok(None),
        Step::Withdraw => {
            J::withdraw(&mut tx, &row).await?;
            tx.commit().await?;
            J::log(Event::Withdrawn(&row));
            return Ok(None);
        }
        Step::Send(message) => message,
    };
    let outcome = J::send(state, &mut tx, &row, message).await?;
    record_or_remember(state, tx, Attempted { row, outcome }).await
}

/// A row that was sent (or failed to be), with what came of it.
struct Attempted<J: OutboxJob> {
    row: J::Row,
    outcome: J::Outcome,
}

impl<J: OutboxJob> Sent for Attempted<J> {
    fn id(&self) -> OutboxId {
        J::id(&self.row)
    }

    /// Writes the outcome, and queues the retry or records that the row failed for good.
    async fn record(&self, conn: &mut PgConnection, state: &WorkerState) -> Result<bool, Error> {
        let (row, outcome) = (&self.row, &self.outcome);
        match J::verdict(outcome) {
            Verdict::Delivered => {
                if !J::record_delivered(conn, row, outcome).await? {
                    return Ok(false);
                }
                J::count(row, outcome);
                J::log(Event::Delivered(row, outcome));
            }
            Verdict::Failed { retry_in } => {
                let give_up = retry_in.is_none();
                let Some(attempts) = J::record_failure(conn, row, outcome, give_up).await? else {
                    return Ok(false);
                };
                J::count(row, outcome);
                match retry_in {
                    Some(delay) => {
                        jobs::enqueue_after(conn, &[J::retry(row)], delay).await?;
                        J::log(Event::Retrying(row, outcome, delay));
                    }
                    None => {
                        J::give_up(conn, state, row, outcome).await?;
                        J::log(Event::GaveUp(row, outcome, attempts));
                    }
                }
            }
        }
        Ok(true)
    }
}
