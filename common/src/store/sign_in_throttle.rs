//! SQL of the sign-in throttle: failures counted per key (`address:<email>|<source>` and
//! `source:<source>`), each key blocked for a doubling delay once its free failures are used.

use sqlx::{PgConnection, PgPool};

use crate::{error::Result, model::AccountId};

/// Forgets keys quiet for a day, a little at a time.
pub async fn forget_quiet(conn: &mut PgConnection) -> Result<()> {
    sqlx::query(
        "DELETE FROM sign_in_throttle WHERE key IN (
             SELECT key FROM sign_in_throttle WHERE updated_at < now() - interval '1 day' LIMIT 100)",
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Makes sure both keys have rows and locks them, in key order so that concurrent attempts
/// never wait on each other in a cycle; returns the seconds each is still blocked for. The rows
/// are checked only once locked: a filter in the locking query could skip rows it does not lock.
pub async fn lock_keys(
    conn: &mut PgConnection,
    address_key: &str,
    source_key: &str,
) -> Result<Vec<Option<f64>>> {
    sqlx::query(
        "INSERT INTO sign_in_throttle (key) VALUES ($1), ($2) ON CONFLICT (key) DO NOTHING",
    )
    .bind(address_key)
    .bind(source_key)
    .execute(&mut *conn)
    .await?;
    Ok(sqlx::query_scalar(
        "SELECT extract(epoch FROM blocked_until - now())::float8 FROM sign_in_throttle
         WHERE key IN ($1, $2) ORDER BY key FOR UPDATE",
    )
    .bind(address_key)
    .bind(source_key)
    .fetch_all(conn)
    .await?)
}

/// Counts a failure under each `(key, free failures)`; a key past its free failures is blocked
/// for `first_delay_secs` doubled with each further failure, up to 15 minutes.
pub async fn count_failure(
    conn: &mut PgConnection,
    [(address_key, address_free), (source_key, source_free)]: [(&str, i32); 2],
    first_delay_secs: i32,
) -> Result<()> {
    sqlx::query(
        "UPDATE sign_in_throttle AS t SET failures = t.failures + 1, updated_at = now(),
             blocked_until = CASE WHEN t.failures + 1 >= f.free
                 THEN now() + make_interval(secs => LEAST(900, $5 * power(2, t.failures + 1 - f.free)))
                 ELSE NULL END
         FROM (VALUES ($1, $3::int), ($2, $4::int)) AS f (key, free)
         WHERE t.key = f.key",
    )
    .bind(address_key)
    .bind(source_key)
    .bind(address_free)
    .bind(source_free)
    .bind(first_delay_secs)
    .execute(conn)
    .await?;
    Ok(())
}

/// After a successful sign-in: clears the address's count and takes its attempt back from the
/// source's.
pub async fn forgive(conn: &mut PgConnection, address_key: &str, source_key: &str) -> Result<()> {
    sqlx::query("DELETE FROM sign_in_throttle WHERE key = $1")
        .bind(address_key)
        .execute(&mut *conn)
        .await?;
    sqlx::query("UPDATE sign_in_throttle SET failures = GREATEST(failures - 1, 0) WHERE key = $1")
        .bind(source_key)
        .execute(conn)
        .await?;
    Ok(())
}

/// Forgets the failed sign-ins to the account's address, from every source.
pub async fn forget_account(pool: &PgPool, account_id: AccountId) -> Result<()> {
    sqlx::query(
        "DELETE FROM sign_in_throttle WHERE starts_with(key,
             'address:' || (SELECT lower(email) FROM accounts WHERE id = $1) || '|')",
    )
    .bind(account_id)
    .execute(pool)
    .await?;
    Ok(())
}
