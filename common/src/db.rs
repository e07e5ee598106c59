//! Connection pools and migrations.

use std::time::Duration;

use sqlx::{
    Executor, PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};

use crate::error::Result;

/// The business pool, and a small pool for the per-request usage counter whose connections run
/// with `synchronous_commit = off`: a crash may forget the last instant of counts, never a
/// business write (DESIGN §3).
#[derive(Clone)]
pub struct Db {
    pub pool: PgPool,
    pub usage_pool: PgPool,
}

const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

impl Db {
    /// Creates both pools lazily: nothing is dialled until the first query, so a process can
    /// start (and report itself unready) while the database is down.
    pub fn connect_lazy(database_url: &str) -> Result<Self> {
        let options: PgConnectOptions = database_url.parse()?;
        let pool = PgPoolOptions::new()
            .max_connections(20)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_lazy_with(options.clone());
        let usage_pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    conn.execute("SET synchronous_commit = off").await?;
                    Ok(())
                })
            })
            .connect_lazy_with(options);
        Ok(Self { pool, usage_pool })
    }
}

/// Applies the business migrations and creates apalis's queue tables.
pub async fn migrate(pool: &PgPool) -> Result<()> {
    sqlx::migrate!("../migrations").run(pool).await?;
    apalis_postgres::PostgresStorage::<()>::setup(pool).await?;
    Ok(())
}

/// True for errors that mean "the database could not be reached", not "it refused the statement".
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection exceptions
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|c| c.starts_with("57P") || c.starts_with("08")),
        _ => false,
    }
}

/// True when the statement failed on the named unique constraint or index.
pub fn is_unique_violation(error: &sqlx::Error, constraint: &str) -> bool {
    matches!(error, sqlx::Error::Database(db)
        if db.code().as_deref() == Some("23505") && db.constraint() == Some(constraint))
}
