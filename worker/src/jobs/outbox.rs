//! The skeleton every outbox job shares (e-mail, SMS, webhook). The rows are the queue
//! (`store::outbox`): the kind's pump (`crate::outbox_queue`) claims due rows with a lease and
//! hands each to `run`, which decides, sends through the job's transport with no database
//! connection held, and gives the outcome to the kind's recorder, which writes the outcomes of
//! many sends in one transaction (the retry's time, or the failure for good). Each job only
//! says what is particular to it (`OutboxJob`).

use std::{future::Future, sync::Arc, time::Duration};

use apalis::prelude::{BoxDynError, Data};
use signet_common::{Error, infra::config::WorkerConcurrency, store::outbox::OutboxTable};
use sqlx::PgConnection;
use uuid::Uuid;

use super::outage::run_job;
use crate::{
    outbox_queue::{Leases, Recorder},
    state::{OutboxId, WorkerState},
};

/// What to do with a claimed row.
pub enum Step<M> {
    /// Nothing: its outcome is written already (it changed after it was claimed).
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
    /// This process sent it already and has not written the outcome yet.
    BeingRecorded(&'a J::Row),
    Withdrawn(&'a J::Row),
    Delivered(&'a J::Row, &'a J::Outcome),
    Retrying(&'a J::Row, &'a J::Outcome, Duration),
    GaveUp(&'a J::Row, &'a J::Outcome, i32),
}

/// One kind of outbox message: its table, its row, what it sends, and how its outcome is
/// written.
pub trait OutboxJob: Sized + Send + Sync + 'static {
    /// The label of its worker in logs, health answers and `signet_worker_*` metrics.
    const LABEL: &'static str;
    const OUTBOX: OutboxTable;
    type Row: Clone + Send + Sync + Unpin + 'static;
    /// What `decide` prepares for `send` (a link, a text).
    type Message: Send;
    /// What one send came to, to be written.
    type Outcome: Send + Sync + 'static;

    /// How many of its messages one process sends at once.
    fn concurrency(configured: &WorkerConcurrency) -> usize;

    /// The apalis handler of its worker: `run` in the kind's own span.
    fn handle(
        row: Self::Row,
        state: Data<Arc<WorkerState>>,
        recorder: Data<Arc<Recorder<Self>>>,
        leases: Data<Arc<Leases>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static;

    fn id(row: &Self::Row) -> Uuid;

    /// The row as the process's set of sent-but-unrecorded rows knows it.
    fn outbox_id(row: &Self::Row) -> OutboxId {
        OutboxId {
            queue: Self::OUTBOX.queue,
            id: Self::id(row),
        }
    }

    /// The trace of the request that queued the row, which its dispatch continues.
    fn trace_context(row: &Self::Row) -> Option<&str>;

    /// Whether this process can take the kind at all.
    fn check(_state: &WorkerState) -> Result<(), Error> {
        Ok(())
    }

    /// The claimed rows, with what sending them needs.
    fn load(
        conn: &mut PgConnection,
        ids: &[Uuid],
    ) -> impl Future<Output = Result<Vec<Self::Row>, Error>> + Send;

    fn decide(state: &WorkerState, row: &Self::Row) -> Step<Self::Message>;

    fn withdraw(
        conn: &mut PgConnection,
        row: &Self::Row,
    ) -> impl Future<Output = Result<(), Error>> + Send;

    /// Sends the row through the job's transport and says what came of it. No database
    /// connection is held meanwhile.
    fn send(
        state: &WorkerState,
        row: &Self::Row,
        message: Self::Message,
    ) -> impl Future<Output = Result<Self::Outcome, Error>> + Send;

    fn verdict(outcome: &Self::Outcome) -> Verdict;

    /// Writes deliveries; returns the rows written now (one whose outcome was written already
    /// is left out).
    fn record_delivered(
        conn: &mut PgConnection,
        delivered: &[(&Self::Row, &Self::Outcome)],
    ) -> impl Future<Output = Result<Vec<Uuid>, Error>> + Send;

    /// Writes a failure: due again after `retry_in`, FAILED for good without it. Returns the
    /// attempts so far, or `None` when an outcome was written already.
    fn record_failure(
        conn: &mut PgConnection,
        row: &Self::Row,
        outcome: &Self::Outcome,
        retry_in: Option<Duration>,
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

/// Runs one claimed row to the end: decide, send, and wait until the recorder has written the
/// outcome. The work runs on a task of its own, so it finishes even when apalis drops the
/// worker's future to restart it.
pub async fn run<J: OutboxJob>(
    row: J::Row,
    state: Arc<WorkerState>,
    recorder: Arc<Recorder<J>>,
    leases: Arc<Leases>,
) -> Result<(), BoxDynError> {
    let id = J::id(&row);
    let outcome = run_job(async move {
        J::check(&state)?;
        if state.is_unrecorded(J::outbox_id(&row)) {
            J::log(Event::BeingRecorded(&row));
            return Ok(());
        }
        match J::decide(&state, &row) {
            Step::Skip => Ok(()),
            Step::Withdraw => {
                super::outage::until_available(|| async {
                    let mut conn = state.db.pool.acquire().await?;
                    J::withdraw(&mut conn, &row).await
                })
                .await?;
                J::log(Event::Withdrawn(&row));
                Ok(())
            }
            Step::Send(message) => {
                let outcome = J::send(&state, &row, message).await?;
                recorder.record(row, outcome).await
            }
        }
    })
    .await;
    leases.release(id);
    outcome
}

/// A row that was sent (or failed to be), with what came of it.
pub struct Attempted<J: OutboxJob> {
    pub row: J::Row,
    pub outcome: J::Outcome,
}

/// Writes the outcomes of a batch of sends on one transaction: the deliveries in one
/// statement, each failure with its retry or its failure for good. An outcome written already
/// (by another worker, after a lease ran out) is left as it is. Returns what was written, by
/// the index of its row in `batch`, to be counted and logged once committed.
pub async fn record_batch<J: OutboxJob>(
    conn: &mut PgConnection,
    state: &WorkerState,
    batch: &[Attempted<J>],
) -> Result<Vec<(usize, Written)>, Error> {
    let mut written = Vec::with_capacity(batch.len());
    let delivered: Vec<usize> = (0..batch.len())
        .filter(|&i| matches!(J::verdict(&batch[i].outcome), Verdict::Delivered))
        .collect();
    if !delivered.is_empty() {
        let rows: Vec<(&J::Row, &J::Outcome)> = delivered
            .iter()
            .map(|&i| (&batch[i].row, &batch[i].outcome))
            .collect();
        let now = J::record_delivered(conn, &rows).await?;
        written.extend(
            delivered
                .into_iter()
                .filter(|&i| now.contains(&J::id(&batch[i].row)))
                .map(|i| (i, Written::Delivered)),
        );
    }
    for (i, sent) in batch.iter().enumerate() {
        let Verdict::Failed { retry_in } = J::verdict(&sent.outcome) else {
            continue;
        };
        let Some(attempts) = J::record_failure(conn, &sent.row, &sent.outcome, retry_in).await?
        else {
            continue;
        };
        match retry_in {
            Some(delay) => written.push((i, Written::Retrying(delay))),
            None => {
                J::give_up(conn, state, &sent.row, &sent.outcome).await?;
                written.push((i, Written::GaveUp(attempts)));
            }
        }
    }
    Ok(written)
}

/// What was written for one row of a batch.
#[derive(Debug, Clone, Copy)]
pub enum Written {
    Delivered,
    Retrying(Duration),
    GaveUp(i32),
}

/// Counts and logs what a committed batch wrote.
pub fn report<J: OutboxJob>(batch: &[Attempted<J>], written: &[(usize, Written)]) {
    for &(i, what) in written {
        let sent = &batch[i];
        J::count(&sent.row, &sent.outcome);
        match what {
            Written::Delivered => J::log(Event::Delivered(&sent.row, &sent.outcome)),
            Written::Retrying(delay) => J::log(Event::Retrying(&sent.row, &sent.outcome, delay)),
            Written::GaveUp(attempts) => {
                J::log(Event::GaveUp(&sent.row, &sent.outcome, attempts));
            }
        }
    }
}
