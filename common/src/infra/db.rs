//! Connection pools and migrations.

use std::time::Duration;

use sqlx::{
    PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};

use crate::error::Result;

/// A process's connections to PostgreSQL: one bounded pool.
///
/// The per-request usage counter used to have a pool of its own whose sessions ran with
/// `synchronous_commit = off`; it now sets that for its own statement (see
/// `accounts::authenticate`), so one pool serves everything and an idle API holds no more
/// connections than its budget.
#[derive(Clone)]
pub struct Db {
    pub pool: PgPool,
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
        })
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
