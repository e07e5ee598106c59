//! The skeleton every outbox job shares (e-mail, SMS, webhook). The rows are the queue
//! (`store::outbox`): the kind's pump (below) claims due rows with a lease and
//! hands each to `run`, which decides, sends through the job's transport with no database
//! connection held, and gives the outcome to the kind's recorder, which writes the outcomes of
//! many sends in one transaction (the retry's time, or the failure for good). Each job only
//! says what is particular to it (`OutboxJob`).
//!
//! How the outbox rows reach the jobs: an apalis backend of our own (apalis's
//! `CustomBackend`) whose fetcher is a pump that claims due rows with a lease, round robin by
//! account (`store::outbox::claim`); the leases a process holds, renewed at every heartbeat so
//! that a live worker keeps its rows however long a send takes, while a dead one's run out
//! after `MISSED_HEARTBEATS`; and the recorder, which writes the outcomes of the sends that
//! finish together in one transaction.
//!
//! No database connection is held while a message is sent: a claim, a recording and a renewal
//! are each one short transaction.

use std::{
    collections::{HashSet, VecDeque},
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    time::Duration,
};

use apalis::{
    layers::tracing::TracingContext,
    prelude::{BackendBuilder, BoxDynError, CustomBackend, Data, Task, TaskBuilder, TaskId},
};
use futures_util::{Sink, SinkExt, StreamExt, stream::BoxStream};
use signet_common::{
    Error,
    infra::config::WorkerConcurrency,
    model::AccountId,
    store::outbox::{self, ClaimRequest, OutboxTable},
};
use sqlx::PgConnection;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use super::outage::{run_job, until_available};
use crate::{listener::Wakeups, state::WorkerState};

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
/// worker's future to restart it; the row stays held (`Leases`) until it has, so that this
/// process does not take it again meanwhile.
pub async fn run<J: OutboxJob>(
    row: J::Row,
    state: Arc<WorkerState>,
    recorder: Arc<Recorder<J>>,
    leases: Arc<Leases>,
) -> Result<(), BoxDynError> {
    run_job(async move {
        let _held = Held {
            leases,
            id: J::id(&row),
        };
        J::check(&state)?;
        match J::decide(&state, &row) {
            Step::Skip => Ok(()),
            Step::Withdraw => {
                until_available(|| async {
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
    .await
}

/// A row handed to `run`, released when its run ends however it ends.
struct Held {
    leases: Arc<Leases>,
    id: Uuid,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.leases.release(self.id);
    }
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
        let now: HashSet<Uuid> = J::record_delivered(conn, &rows)
            .await?
            .into_iter()
            .collect();
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

/// Heartbeats a lease outlives: a worker silent for this many is presumed dead and its rows
/// are due again.
pub const MISSED_HEARTBEATS: u32 = 3;

/// Outcomes written in one transaction at most.
const RECORD_BATCH: usize = 256;

/// The lease of a claim: `MISSED_HEARTBEATS` heartbeats.
pub fn lease(state: &WorkerState) -> Duration {
    state.config.worker.heartbeat * MISSED_HEARTBEATS
}

/// The rows of one kind this process holds a lease on: claimed and not yet recorded.
pub struct Leases {
    table: outbox::OutboxTable,
    held: Mutex<HashSet<Uuid>>,
}

impl Leases {
    pub fn new(table: outbox::OutboxTable) -> Self {
        Self {
            table,
            held: Mutex::new(HashSet::new()),
        }
    }

    /// Holds the rows of a claim and returns those this process was not holding already. A
    /// row still held is one this process sent before the database went away and whose
    /// outcome its recorder is still writing: its lease ran out meanwhile, so the claim took it
    /// again, possibly before the outcome was committed. It must not be sent twice. Once the
    /// outcome is committed the row is released, so a row claimed and found not held can only
    /// have been written before the claim's rows are loaded, and the load leaves it out.
    fn hold_new(&self, ids: &[Uuid]) -> Vec<Uuid> {
        let mut held = self.held.lock().expect("not poisoned");
        ids.iter().copied().filter(|id| held.insert(*id)).collect()
    }

    pub fn release(&self, id: Uuid) {
        self.held.lock().expect("not poisoned").remove(&id);
    }

    fn held(&self) -> Vec<Uuid> {
        self.held
            .lock()
            .expect("not poisoned")
            .iter()
            .copied()
            .collect()
    }

    /// Extends the lease of every row held, at every heartbeat, for as long as the process
    /// runs. A renewal that fails (the database away) is tried at the next heartbeat.
    pub async fn keep_renewed(self: Arc<Self>, state: Arc<WorkerState>) {
        let mut heartbeat = tokio::time::interval(state.config.worker.heartbeat);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            heartbeat.tick().await;
            let held = self.held();
            if held.is_empty() {
                continue;
            }
            let renewed = async {
                let mut conn = state.queue_pool.acquire().await?;
                outbox::renew(&mut conn, self.table, &state.instance, &held, lease(&state)).await
            }
            .await;
            if let Err(error) = renewed {
                tracing::warn!(queue = self.table.queue, %error, "could not renew the leases held; trying again at the next heartbeat");
            }
        }
    }
}

/// Writes the outcomes of one kind's sends: each sender waits for its outcome to be written,
/// and the outcomes that arrive while a transaction is being written go in the next one.
pub struct Recorder<J: OutboxJob> {
    queue: mpsc::UnboundedSender<ToRecord<J>>,
}

/// An outcome to write, and where to say it was written (or why not).
type ToRecord<J> = (Attempted<J>, oneshot::Sender<Result<(), String>>);

impl<J: OutboxJob> Recorder<J> {
    /// Starts the recorder's task, which runs as long as the process.
    pub fn start(state: Arc<WorkerState>) -> Arc<Self> {
        let (queue, pending) = mpsc::unbounded_channel();
        tokio::spawn(write_outcomes::<J>(state, pending));
        Arc::new(Self { queue })
    }

    /// Waits until the outcome of `row` is written (or was written already).
    pub async fn record(&self, row: J::Row, outcome: J::Outcome) -> Result<(), Error> {
        let (written, done) = oneshot::channel();
        self.queue
            .send((Attempted { row, outcome }, written))
            .map_err(|_| Error::Io(std::io::Error::other("the recorder has stopped")))?;
        match done.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(message)) => Err(Error::Io(std::io::Error::other(message))),
            Err(_) => Err(Error::Io(std::io::Error::other("the recorder has stopped"))),
        }
    }
}

async fn write_outcomes<J: OutboxJob>(
    state: Arc<WorkerState>,
    mut pending: mpsc::UnboundedReceiver<ToRecord<J>>,
) {
    let mut batch = Vec::with_capacity(RECORD_BATCH);
    while pending.recv_many(&mut batch, RECORD_BATCH).await > 0 {
        let (sent, senders): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
        let outcome = write_batch(&state, &sent).await;
        for sender in senders {
            let _ = sender.send(outcome.clone());
        }
    }
}

/// Writes a batch of outcomes; if the batch is refused for any reason but the database being
/// away, writes each outcome on its own, so that one that cannot be written does not hold back
/// the others.
async fn write_batch<J: OutboxJob>(
    state: &WorkerState,
    batch: &[Attempted<J>],
) -> Result<(), String> {
    let refused = |error: &str| {
        tracing::error!(queue = J::OUTBOX.queue, %error, "an outcome could not be written; the row is tried again when its lease ends");
    };
    let Err(error) = write_together(state, batch).await else {
        return Ok(());
    };
    if batch.len() == 1 {
        refused(&error);
        return Err(error);
    }
    tracing::warn!(queue = J::OUTBOX.queue, %error, "a batch of outcomes could not be written; writing them one at a time");
    let mut outcome = Ok(());
    for one in batch.chunks(1) {
        if let Err(error) = write_together(state, one).await {
            refused(&error);
            outcome = Err(error);
        }
    }
    outcome
}

/// Writes outcomes in one transaction, for as long as the database is away. Meanwhile the rows
/// stay held by their runs, so that this process does not send them again should their lease
/// run out and a claim take them back (`Leases::hold_new`).
async fn write_together<J: OutboxJob>(
    state: &WorkerState,
    sent: &[Attempted<J>],
) -> Result<(), String> {
    let said = std::sync::atomic::AtomicBool::new(false);
    let written = until_available(|| async {
        let outcome = async {
            let mut tx = state.db.pool.begin().await?;
            outbox::record_without_waiting_for_disk(&mut tx).await?;
            let written = record_batch(&mut tx, state, sent).await?;
            tx.commit().await?;
            Ok::<_, Error>(written)
        }
        .await;
        if outcome.as_ref().is_err_and(Error::is_unavailable)
            && !said.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            tracing::warn!(
                worker = J::LABEL,
                rows = sent.len(),
                "sent, but the database went away; the outcomes are written once it is back"
            );
        }
        outcome
    })
    .await;
    written
        .map(|written| report(sent, &written))
        .map_err(|e| e.to_string())
}

/// The fetcher of one kind's worker: hands out claimed rows one at a time, claiming the next
/// batch when the last is handed out, and waits for a notification (or the poll interval, or a
/// heartbeat) when nothing is due.
pub struct Pump<J: OutboxJob> {
    state: Arc<WorkerState>,
    leases: Arc<Leases>,
    wakeups: Wakeups,
    claimed: VecDeque<J::Row>,
    /// Where the last walk over the accounts stopped.
    cursor: Option<AccountId>,
    /// How many accounts the last walk found with pending rows.
    accounts: usize,
    batch: usize,
    started: bool,
}

impl<J: OutboxJob> Pump<J> {
    async fn next(&mut self) -> Result<Task<J::Row>, Error> {
        loop {
            if let Some(row) = self.claimed.pop_front() {
                return Ok(task::<J>(row));
            }
            if !self.started {
                // A worker restarted after losing the database waits its backoff first.
                tokio::time::sleep(self.state.supervisor.backoff(J::LABEL)).await;
            }
            let claimed = self.claim().await?;
            if !self.started {
                self.started = true;
                self.state.supervisor.mark_running(J::LABEL);
            }
            if claimed == 0 {
                // Looked at again at least every heartbeat, as apalis's workers heartbeat: an
                // idle worker notices a lost database (and says so) as soon as a busy one.
                let worker = &self.state.config.worker;
                tokio::select! {
                    _ = self.wakeups.next() => {}
                    () = tokio::time::sleep(worker.poll_interval.min(worker.heartbeat)) => {}
                }
            }
        }
    }

    async fn claim(&mut self) -> Result<usize, Error> {
        let state = &self.state;
        let mut conn = state.queue_pool.acquire().await?;
        let claimed = outbox::claim(
            &mut conn,
            J::OUTBOX,
            &ClaimRequest {
                owner: &state.instance,
                lease: lease(state),
                limit: self.batch,
                per_account: self.batch.div_ceil(self.accounts.max(1)),
                after: self.cursor,
            },
        )
        .await?;
        self.cursor = claimed.last_account;
        self.accounts = claimed.accounts_visited;
        if claimed.ids.is_empty() {
            return Ok(0);
        }
        let new = self.leases.hold_new(&claimed.ids);
        if new.is_empty() {
            return Ok(0);
        }
        let mut rows = match J::load(&mut conn, &new).await {
            Ok(rows) => rows,
            Err(e) => {
                // Not sent: due again when the lease ends.
                for id in &new {
                    self.leases.release(*id);
                }
                return Err(e);
            }
        };
        // In the claim's order: round robin by account.
        let position: std::collections::HashMap<Uuid, usize> =
            new.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        rows.sort_by_key(|row| position.get(&J::id(row)).copied());
        let count = rows.len();
        self.claimed.extend(rows);
        Ok(count)
    }
}

impl<J: OutboxJob> Drop for Pump<J> {
    /// Rows claimed but never handed out (the worker is restarting or stopping) are left to
    /// their lease, which is no longer renewed.
    fn drop(&mut self) {
        for row in &self.claimed {
            self.leases.release(J::id(row));
        }
    }
}

/// A claimed row as an apalis task, carrying the trace of the request that queued it.
fn task<J: OutboxJob>(row: J::Row) -> Task<J::Row> {
    let id = TaskId::from_string(J::id(&row).to_string());
    let trace = J::trace_context(&row).and_then(|text| text.parse::<TracingContext>().ok());
    let builder = TaskBuilder::new(row).task_id(id);
    match trace {
        Some(trace) => builder.metadata(&trace).build(),
        None => builder.build(),
    }
}

type Fetch<R> = BoxStream<'static, Result<Option<Task<R>>, BoxDynError>>;
type Discard<R> = Pin<Box<dyn Sink<Task<R>, Error = BoxDynError> + Send>>;

/// The apalis backend of one outbox kind: its pump as the task stream. Nothing is pushed
/// through it (rows are queued by inserting them), so its sink takes nothing.
pub type OutboxBackend<J> = CustomBackend<
    <J as OutboxJob>::Row,
    Arc<tokio::sync::Mutex<Pump<J>>>,
    Fetch<<J as OutboxJob>::Row>,
    Discard<<J as OutboxJob>::Row>,
>;

pub fn backend<J: OutboxJob>(
    state: Arc<WorkerState>,
    leases: Arc<Leases>,
    batch: usize,
) -> OutboxBackend<J> {
    let wakeups = state.listener.subscribe(J::OUTBOX.queue);
    let pump = Arc::new(tokio::sync::Mutex::new(Pump::<J> {
        state,
        leases,
        wakeups,
        claimed: VecDeque::new(),
        cursor: None,
        accounts: 0,
        batch: batch.max(1),
        started: false,
    }));
    BackendBuilder::new()
        .database(pump)
        .fetcher(|pump, _, _| {
            futures_util::stream::unfold(pump.clone(), |pump| async move {
                let item = pump.lock().await.next().await;
                Some((item.map(Some).map_err(BoxDynError::from), pump))
            })
            .boxed()
        })
        .sink(|_, _| -> Discard<J::Row> {
            Box::pin(futures_util::sink::drain().sink_map_err(|never| match never {}))
        })
        .build()
        .expect("database, fetcher and sink are all given")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_leaves_out_the_rows_this_process_still_holds() {
        let leases = Arc::new(Leases::new(signet_common::store::emails::OUTBOX));
        let (sent, other) = (Uuid::now_v7(), Uuid::now_v7());
        assert_eq!(leases.hold_new(&[sent]), vec![sent]);
        let run = Held {
            leases: leases.clone(),
            id: sent,
        };
        // The lease ran out while the outcome was being written; a claim takes the row back.
        assert_eq!(leases.hold_new(&[sent, other]), vec![other]);
        drop(run);
        assert_eq!(leases.hold_new(&[sent]), vec![sent]);
    }
}
