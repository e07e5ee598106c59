//! One LISTEN connection per worker process for apalis's "a job was queued" notifications and
//! the outbox's "rows were queued" ones, fanned out to the job types' workers.
//!
//! apalis's own `Pubsub` opens a listener per job type and ends its stream for good when the
//! connection drops, leaving the workers to find new jobs only by polling. This listener
//! reconnects with backoff for as long as the process runs, and after every (re)connect wakes
//! every worker once, so that jobs queued while nobody was listening are fetched at once
//! rather than at the next poll. It also uses one connection where apalis used three.

use std::{
    collections::HashMap,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
    time::Duration,
};

use futures_core::Stream;
use sqlx::{PgPool, postgres::PgListener};
use tokio::sync::mpsc;

use crate::supervision::Supervisor;

/// The channel apalis's insert trigger notifies on.
const CHANNEL: &str = "apalis::job::insert";
/// The channel a commit that queued outbox rows notifies on, with the queue's name.
const OUTBOX_CHANNEL: &str = signet_common::store::outbox::CHANNEL;
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The job types' subscriptions: queue name → where its worker's wake-ups go.
#[derive(Default)]
pub struct QueueListener {
    subscribers: Mutex<HashMap<String, mpsc::Sender<()>>>,
}

/// Wake-ups for one worker: an item means "fetch now". Consecutive wake-ups coalesce.
pub struct Wakeups(mpsc::Receiver<()>);

impl Stream for Wakeups {
    type Item = ();

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<()>> {
        self.0.poll_recv(cx)
    }
}

#[derive(serde::Deserialize)]
struct Inserted {
    job_type: String,
}

impl QueueListener {
    /// A new stream of wake-ups for `queue`; it replaces the previous one (a restarted worker
    /// subscribes again).
    pub fn subscribe(&self, queue: &str) -> Wakeups {
        let (sender, receiver) = mpsc::channel(1);
        self.subscribers
            .lock()
            .expect("not poisoned")
            .insert(queue.to_owned(), sender);
        Wakeups(receiver)
    }

    fn wake(&self, queue: &str) {
        if let Some(sender) = self.subscribers.lock().expect("not poisoned").get(queue) {
            // A full channel already holds a wake-up that has not been acted on: enough.
            let _ = sender.try_send(());
        }
    }

    fn wake_all(&self) {
        for sender in self.subscribers.lock().expect("not poisoned").values() {
            let _ = sender.try_send(());
        }
    }

    /// Listens until the process ends, reconnecting after any loss of the connection.
    pub async fn run(self: Arc<Self>, pool: PgPool, supervisor: Arc<Supervisor>) {
        let mut failures: u32 = 0;
        loop {
            match connect(&pool).await {
                Ok(mut listener) => {
                    failures = 0;
                    supervisor.set_listener_connected(true);
                    tracing::info!("listening for new jobs");
                    self.wake_all();
                    let lost = loop {
                        match listener.try_recv().await {
                            Ok(Some(notification)) if notification.channel() == OUTBOX_CHANNEL => {
                                self.wake(notification.payload());
                            }
                            Ok(Some(notification)) => {
                                if let Ok(inserted) =
                                    serde_json::from_str::<Inserted>(notification.payload())
                                {
                                    self.wake(&inserted.job_type);
                                }
                            }
                            Ok(None) => break "the connection was closed".to_owned(),
                            Err(sqlx::Error::PoolClosed) => {
                                supervisor.set_listener_connected(false);
                                return;
                            }
                            Err(e) => break e.to_string(),
                        }
                    };
                    supervisor.set_listener_connected(false);
                    tracing::warn!(error = %lost, "lost the job listener; reconnecting");
                }
                Err(sqlx::Error::PoolClosed) => return,
                Err(e) => {
                    failures = failures.saturating_add(1);
                    tracing::warn!(error = %e, failures, "cannot listen for new jobs yet");
                }
            }
            let exponent = failures.saturating_sub(1).min(16);
            let delay = if failures == 0 {
                FIRST_BACKOFF
            } else {
                FIRST_BACKOFF.saturating_mul(1 << exponent).min(MAX_BACKOFF)
            };
            tokio::time::sleep(delay).await;
        }
    }
}

async fn connect(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    // Reconnection is ours to do (with backoff, and waking the workers afterwards).
    listener.eager_reconnect(false);
    listener.listen_all([CHANNEL, OUTBOX_CHANNEL]).await?;
    Ok(listener)
}
