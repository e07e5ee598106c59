//! Streaming replicas for the reads that tolerate a little lag (issue #37).
//!
//! A sampler asks the primary for its WAL position and every replica for the position it has
//! replayed, every `DATABASE_READ_SAMPLE_MS`. A replica that has replayed at least what the
//! primary had written at instant `t` holds every transaction committed before `t`: it is
//! *fresh as of* `t`. A read goes to a replica only while `now − t ≤ DATABASE_READ_MAX_LAG_MS`
//! and the replica has replayed the reader's own last write (`Lsn`); otherwise to the primary.
//! A replica that does not answer, answers as a primary (promoted) or falls behind is skipped
//! until a sample shows it fresh again; it is never trusted beyond the bound, because the
//! freshness instant only ages between samples.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use sqlx::{
    PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};

use crate::{error::Result, infra::config::DatabaseSettings};

/// A position in the primary's WAL, as bytes since `0/0` (`pg_lsn - '0/0'`); 0 is "anything".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lsn(pub i64);

impl Lsn {
    /// Past any replica: reads after it run on the primary (a handler that has just written).
    pub const LATEST: Lsn = Lsn(i64::MAX);
}

/// The replicas of one process and what the last samples showed of them.
pub struct Replicas {
    members: Vec<Replica>,
    max_lag: Duration,
    sample_interval: Duration,
    /// The primary's write position at recent instants, oldest first.
    marks: Mutex<VecDeque<(Instant, i64)>>,
    next: AtomicUsize,
}

struct Replica {
    /// `host:port`, for logs and metric labels (never the URL: it may hold a password).
    name: String,
    pool: PgPool,
    seen: Mutex<Seen>,
}

#[derive(Clone, Copy, Default)]
struct Seen {
    replayed: i64,
    /// `None`: down, promoted, or behind every recent mark of the primary.
    fresh_as_of: Option<Instant>,
}

/// How long a read waits for a replica's connection before the primary answers it instead.
const REPLICA_ACQUIRE_TIMEOUT: Duration = Duration::from_millis(500);

impl Replicas {
    /// Lazily connecting pools to each of `settings.read_urls`, of `max_connections` each
    /// (the process's budget: `db::PoolBudget`, which `db` hands over rather than this module
    /// importing it, as `db` imports this one); `None` when there are none.
    pub fn connect_lazy(
        settings: &DatabaseSettings,
        application_name: &str,
        max_connections: u32,
        idle_timeout: Duration,
    ) -> Result<Option<Arc<Self>>> {
        if settings.read_urls.is_empty() {
            return Ok(None);
        }
        let mut members = Vec::with_capacity(settings.read_urls.len());
        for url in &settings.read_urls {
            let options: PgConnectOptions = url.parse()?;
            let name = format!("{}:{}", options.get_host(), options.get_port());
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                .min_connections(0)
                // A replica that does not give a connection within half a second (stopped
                // since the last sample: sqlx retries a refused connection until this
                // deadline) is skipped for the primary, rather than making the request wait.
                .acquire_timeout(REPLICA_ACQUIRE_TIMEOUT)
                .idle_timeout(idle_timeout)
                .connect_lazy_with(options.application_name(application_name));
            members.push(Replica {
                name,
                pool,
                seen: Mutex::new(Seen::default()),
            });
        }
        Ok(Some(Arc::new(Self {
            members,
            max_lag: settings.read_max_lag,
            sample_interval: settings.read_sample_interval,
            marks: Mutex::new(VecDeque::new()),
            next: AtomicUsize::new(0),
        })))
    }

    /// Samples the primary and the replicas until the process ends.
    pub fn spawn_sampler(self: &Arc<Self>, primary: PgPool) {
        let replicas = Arc::clone(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(replicas.sample_interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                replicas.sample(&primary).await;
            }
        });
    }

    /// One round: the primary's position, then each replica's, at most one interval each.
    pub async fn sample(&self, primary: &PgPool) {
        let limit = self.sample_interval;
        let at = Instant::now();
        if let Ok(Ok(lsn)) = tokio::time::timeout(limit, primary_position(primary)).await {
            let mut marks = self.marks.lock().expect("marks");
            marks.push_back((at, lsn));
            let keep = self.max_lag + 2 * self.sample_interval;
            while marks
                .front()
                .is_some_and(|(t, _)| at.duration_since(*t) > keep)
                || marks.len() > 4096
            {
                marks.pop_front();
            }
        }
        let rounds = self.members.iter().map(|replica| async move {
            let answer = tokio::time::timeout(limit, replay_position(&replica.pool)).await;
            (replica, answer)
        });
        for (replica, answer) in futures::future::join_all(rounds).await {
            let seen = match answer {
                Ok(Ok(Some(replayed))) => Seen {
                    replayed,
                    fresh_as_of: self.fresh_as_of(replayed),
                },
                Ok(Ok(None)) => {
                    tracing::warn!(replica = %replica.name, "read replica is not in recovery (promoted?): skipped");
                    Seen::default()
                }
                Ok(Err(e)) => {
                    tracing::debug!(replica = %replica.name, error = %e, "read replica unreachable: skipped");
                    Seen::default()
                }
                Err(_) => {
                    tracing::debug!(replica = %replica.name, "read replica did not answer in time: skipped");
                    Seen::default()
                }
            };
            *replica.seen.lock().expect("seen") = seen;
            let labels = [("replica", replica.name.clone())];
            metrics::gauge!("signet_db_replica_usable", &labels)
                .set(f64::from(u8::from(self.usable(&seen, Instant::now()))));
            if let Some(t) = seen.fresh_as_of {
                metrics::gauge!("signet_db_replica_lag_seconds", &labels)
                    .set(t.elapsed().as_secs_f64());
            }
        }
    }

    /// The latest instant whose primary position `replayed` has reached.
    fn fresh_as_of(&self, replayed: i64) -> Option<Instant> {
        let marks = self.marks.lock().expect("marks");
        marks
            .iter()
            .rev()
            .find(|(_, lsn)| *lsn <= replayed)
            .map(|(t, _)| *t)
    }

    fn usable(&self, seen: &Seen, now: Instant) -> bool {
        seen.fresh_as_of
            .is_some_and(|t| now.saturating_duration_since(t) <= self.max_lag)
    }

    /// A replica that is fresh within the bound and has replayed `after`, taking turns.
    pub(crate) fn choose(&self, after: Lsn) -> Option<(usize, &PgPool)> {
        let now = Instant::now();
        let n = self.members.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..n).map(|k| (start + k) % n).find_map(|i| {
            let replica = &self.members[i];
            let seen = *replica.seen.lock().expect("seen");
            (self.usable(&seen, now) && seen.replayed >= after.0).then_some((i, &replica.pool))
        })
    }

    /// A read on replica `index` could not be served: skip it until the next sample.
    pub(crate) fn failed(&self, index: usize) {
        let replica = &self.members[index];
        *replica.seen.lock().expect("seen") = Seen::default();
        tracing::warn!(replica = %replica.name, "read replica failed a read: skipped until it answers a sample");
    }

    /// Closes every replica's pool.
    pub async fn close(&self) {
        for replica in &self.members {
            replica.pool.close().await;
        }
    }
}

/// What the primary has written (acknowledged commits are at or before it).
async fn primary_position(pool: &PgPool) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
            .fetch_one(pool)
            .await?,
    )
}

/// What a replica has replayed, or `None` when it is not a replica (any more).
async fn replay_position(pool: &PgPool) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "SELECT CASE WHEN pg_is_in_recovery()
                     THEN COALESCE((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0) END",
    )
    .fetch_one(pool)
    .await?)
}
