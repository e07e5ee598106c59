//! Connection pools and migrations.

use std::{sync::Arc, time::Duration};

use sqlx::{
    PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};

pub use crate::infra::replicas::Lsn;
use crate::{error::Result, infra::replicas::Replicas};

/// A process's connections to PostgreSQL: one bounded pool to the primary, and, when
/// `DATABASE_READ_URL` is set, a pool per streaming replica for [`Db::reads`].
///
/// The per-request usage counter used to have a pool of its own whose sessions ran with
/// `synchronous_commit = off`; it now sets that for its own statement (see
/// `accounts::authenticate`), so one pool serves everything and an idle API holds no more
/// connections than its budget.
#[derive(Clone)]
pub struct Db {
    /// The primary: every write, and every read that must see the latest state.
    pub pool: PgPool,
    replicas: Option<Arc<Replicas>>,
}

/// Where a read that tolerates a little lag runs: a fresh replica that has replayed `after`
/// (the reader's own last write), else the primary. Made by [`Db::reads`].
#[derive(Clone)]
pub struct Reads {
    db: Db,
    after: Lsn,
}

impl Reads {
    /// A replica that is fresh enough for this reader, if any (see [`read!`](crate::read)).
    pub fn replica(&self) -> Option<(usize, &PgPool)> {
        self.db.replicas.as_ref()?.choose(self.after)
    }

    /// The primary, for a read no replica could serve (counted when replicas are configured).
    pub fn primary(&self) -> &PgPool {
        if self.db.replicas.is_some() {
            metrics::counter!("signet_db_reads_total", "served_by" => "primary").increment(1);
        }
        &self.db.pool
    }

    /// What replica `index` answered: the answer, or `None` when the read must run again on
    /// the primary. A replica that failed the read (down, or cancelling it for recovery) is
    /// skipped until the next sample; a "not found", which may be a row the replica has not
    /// replayed, and a read that turned out to need a write (refused by the standby) run
    /// again on the primary too.
    pub fn settle<T>(&self, index: usize, answer: Result<T>) -> Option<Result<T>> {
        match answer {
            Ok(value) => {
                metrics::counter!("signet_db_reads_total", "served_by" => "replica").increment(1);
                Some(Ok(value))
            }
            Err(e) if e.is_not_found() || e.is_read_only_refusal() => None,
            // Any other failure of the database on a replica (unreachable, shutting down,
            // cancelled for recovery, …): the primary answers instead.
            Err(e) if e.is_replica_failure() || matches!(e, crate::Error::Database(_)) => {
                if let Some(replicas) = &self.db.replicas {
                    replicas.failed(index);
                }
                None
            }
            Err(e) => Some(Err(e)),
        }
    }
}

/// Runs a read that tolerates a little lag where a [`Reads`] says: on a fresh replica that has
/// the reader's writes, else (or when the replica fails it, see [`Reads::settle`]) on the
/// primary. `read!(reads, |db| documents::list(db, account_id, &query))`: the expression is a
/// future using the pool `db`, evaluated once or twice.
#[macro_export]
macro_rules! read {
    ($reads:expr, |$db:ident| $read:expr) => {{
        let reads: &$crate::infra::db::Reads = &$reads;
        let on_replica = match reads.replica() {
            Some((index, $db)) => reads.settle(index, $read.await),
            None => None,
        };
        match on_replica {
            Some(answer) => answer,
            None => {
                let $db = reads.primary();
                $read.await
            }
        }
    }};
}

/// How many connections a pool may hold and how it behaves at its limits.
#[derive(Debug, Clone, Copy)]
pub struct PoolBudget {
    pub max_connections: u32,
    /// How long a caller waits for a connection (the pool full, or the server refusing with
    /// "too many clients") before giving up with `PoolTimedOut`.
    pub acquire_timeout: Duration,
    /// An idle connection is closed after this long, so a quiet process gives its share back.
    pub idle_timeout: Duration,
}

impl PoolBudget {
    /// The budget of the process as configured (`DATABASE_MAX_CONNECTIONS`, …).
    pub fn from_config(config: &crate::Config) -> Self {
        Self {
            max_connections: config.database.max_connections,
            acquire_timeout: config.database.acquire_timeout,
            idle_timeout: config.database.idle_timeout,
        }
    }

    /// The same budget with `max_connections` replaced.
    pub fn with_max(self, max_connections: u32) -> Self {
        Self {
            max_connections,
            ..self
        }
    }
}

impl Db {
    /// Creates the pool lazily: nothing is dialled until the first query, so a process can
    /// start (and report itself unready) while the database is down.
    pub fn connect_lazy(
        database_url: &str,
        application_name: &str,
        budget: PoolBudget,
    ) -> Result<Self> {
        Ok(Self {
            pool: lazy_pool(database_url, application_name, budget)?,
            replicas: None,
        })
    }

    /// Adds the streaming replicas of `DATABASE_READ_URL` (each with the same budget) and
    /// starts sampling their lag. Needs a Tokio runtime.
    pub fn with_read_replicas(
        mut self,
        settings: &crate::infra::config::DatabaseSettings,
        application_name: &str,
        budget: PoolBudget,
    ) -> Result<Self> {
        self.replicas = Replicas::connect_lazy(
            settings,
            application_name,
            budget.max_connections,
            budget.idle_timeout,
        )?;
        if let Some(replicas) = &self.replicas {
            replicas.spawn_sampler(self.pool.clone());
        }
        Ok(self)
    }

    /// True when reads may go to replicas, so that writers must note their position.
    pub fn has_replicas(&self) -> bool {
        self.replicas.is_some()
    }

    /// The reads of a caller whose own last write is at `after` (`Lsn::default()`: none).
    pub fn reads(&self, after: Lsn) -> Reads {
        Reads {
            db: self.clone(),
            after,
        }
    }

    /// The primary's WAL insert position now: at or after the commit of every transaction
    /// this process has finished, the position a reader must wait for to see them.
    pub async fn write_position(&self) -> Result<Lsn> {
        Ok(Lsn(sqlx::query_scalar(
            "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint",
        )
        .fetch_one(&self.pool)
        .await?))
    }
}

/// A lazily connecting pool within `budget`. Its sessions carry `application_name`, so that
/// `pg_stat_activity` shows which process holds which connections.
pub fn lazy_pool(database_url: &str, application_name: &str, budget: PoolBudget) -> Result<PgPool> {
    let options: PgConnectOptions = database_url.parse()?;
    let options = options.application_name(application_name);
    Ok(PgPoolOptions::new()
        .max_connections(budget.max_connections)
        .min_connections(0)
        .acquire_timeout(budget.acquire_timeout)
        .idle_timeout(budget.idle_timeout)
        .connect_lazy_with(options))
}

/// Applies the business migrations and creates apalis's queue tables.
pub async fn migrate(pool: &PgPool) -> Result<()> {
    sqlx::migrate!("../migrations").run(pool).await?;
    apalis_postgres::PostgresStorage::<()>::setup(pool).await?;
    Ok(())
}

/// Migrates through `DATABASE_DIRECT_URL` when it is set (sqlx's migrator holds a session
/// advisory lock, which a transaction-pooling PgBouncer would not keep), else on `pool`.
pub async fn migrate_with(
    settings: &crate::infra::config::DatabaseSettings,
    pool: &PgPool,
) -> Result<()> {
    let Some(url) = &settings.direct_url else {
        return migrate(pool).await;
    };
    let options: PgConnectOptions = url.parse()?;
    let direct = PgPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(settings.acquire_timeout)
        .connect_lazy_with(options.application_name("signet-migrate"));
    let migrated = migrate(&direct).await;
    direct.close().await;
    migrated
}

/// True when the statement failed on the named unique constraint or index.
pub fn is_unique_violation(error: &sqlx::Error, constraint: &str) -> bool {
    matches!(error, sqlx::Error::Database(db)
        if db.code().as_deref() == Some("23505") && db.constraint() == Some(constraint))
}

/// One trivial statement: whether the database answers on `pool` (the readiness checks).
pub async fn ping(pool: &PgPool) -> Result<()> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}
