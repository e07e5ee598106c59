//! The job queue's own ceiling, for `scripts/bench.sh`: no-op messages in an outbox table of
//! their own, claimed, "sent" (nothing is sent) and recorded by the same machinery as e-mails,
//! SMS and webhooks (`jobs::outbox`: the fair claim with leases, the apalis worker, the batched
//! recorder), with the worker's pools and the e-mail kind's concurrency.
//! Prints one JSON line: `{"jobs", "accounts", "concurrency", "seconds", "jobs_per_sec"}`.
//!
//!     DATABASE_URL=… QUEUE_CEILING_JOBS=20000 QUEUE_CEILING_ACCOUNTS=1 \
//!         cargo run --release -p signet-worker --example queue_ceiling

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use apalis::prelude::*;
use signet_common::{Config, Error, infra::config::WorkerConcurrency, store::outbox::OutboxTable};
use signet_worker::{
    jobs::outbox::{self, Event, Leases, OutboxJob, Recorder, Step, Verdict},
    kinds::{JobKind, JobKinds},
    registration::outbox_worker,
    state::WorkerState,
};
use sqlx::PgConnection;
use uuid::Uuid;

const TABLE: &str = "bench_noop_outbox";

struct Noop;

#[derive(Debug, Clone, sqlx::FromRow)]
struct NoopRow {
    id: Uuid,
    trace_context: Option<String>,
}

async fn handle(
    row: NoopRow,
    state: Data<Arc<WorkerState>>,
    recorder: Data<Arc<Recorder<Noop>>>,
    leases: Data<Arc<Leases>>,
) -> Result<(), BoxDynError> {
    outbox::run::<Noop>(
        row,
        (*state).clone(),
        (*recorder).clone(),
        (*leases).clone(),
    )
    .await
}

impl OutboxJob for Noop {
    const LABEL: &'static str = "bench-noop";
    const OUTBOX: OutboxTable = OutboxTable {
        table: TABLE,
        queue: "bench.noop",
    };
    type Row = NoopRow;
    type Message = ();
    type Outcome = ();

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.email
    }

    fn handle(
        row: NoopRow,
        state: Data<Arc<WorkerState>>,
        recorder: Data<Arc<Recorder<Self>>>,
        leases: Data<Arc<Leases>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        handle(row, state, recorder, leases)
    }

    fn id(row: &NoopRow) -> Uuid {
        row.id
    }

    fn trace_context(row: &NoopRow) -> Option<&str> {
        row.trace_context.as_deref()
    }

    async fn load(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<NoopRow>, Error> {
        Ok(
            sqlx::query_as("SELECT id, trace_context FROM bench_noop_outbox WHERE id = ANY($1)")
                .bind(ids)
                .fetch_all(conn)
                .await?,
        )
    }

    fn decide(_: &WorkerState, _: &NoopRow) -> Step<()> {
        Step::Send(())
    }

    async fn withdraw(_: &mut PgConnection, _: &NoopRow) -> Result<(), Error> {
        Ok(())
    }

    async fn send(_: &WorkerState, _: &NoopRow, (): ()) -> Result<(), Error> {
        Ok(())
    }

    fn verdict((): &()) -> Verdict {
        Verdict::Delivered
    }

    async fn record_delivered(
        conn: &mut PgConnection,
        delivered: &[(&NoopRow, &())],
    ) -> Result<Vec<Uuid>, Error> {
        let ids: Vec<Uuid> = delivered.iter().map(|(row, _)| row.id).collect();
        Ok(sqlx::query_scalar(
            "UPDATE bench_noop_outbox SET status = 'SENT'
             WHERE id = ANY($1) AND status = 'PENDING' RETURNING id",
        )
        .bind(&ids)
        .fetch_all(conn)
        .await?)
    }

    async fn record_failure(
        _: &mut PgConnection,
        _: &NoopRow,
        (): &(),
        _: Option<Duration>,
    ) -> Result<Option<i32>, Error> {
        Ok(None)
    }

    async fn give_up(
        _: &mut PgConnection,
        _: &WorkerState,
        _: &NoopRow,
        (): &(),
    ) -> Result<(), Error> {
        Ok(())
    }

    fn log(_: Event<'_, Self>) {}
}

fn setting(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    let count = setting("QUEUE_CEILING_JOBS", 20_000);
    let accounts = setting("QUEUE_CEILING_ACCOUNTS", 1).max(1);
    let kinds = JobKinds::new([JobKind::Email]);
    let pools = signet_worker::pools(&config, &kinds)?;
    let pool = pools.0.pool.clone();
    // The same columns and claim index as the real outbox tables.
    sqlx::raw_sql(
        "DROP TABLE IF EXISTS bench_noop_outbox;
         CREATE TABLE bench_noop_outbox (
             id uuid PRIMARY KEY, account_id uuid NOT NULL, status text NOT NULL DEFAULT 'PENDING',
             due_at timestamptz NOT NULL DEFAULT now(), lease_owner text, trace_context text);
         CREATE INDEX bench_noop_outbox_claim ON bench_noop_outbox (account_id, due_at)
             WHERE status = 'PENDING';",
    )
    .execute(&pool)
    .await?;
    let account_ids: Vec<Uuid> = (0..accounts).map(|_| Uuid::now_v7()).collect();
    sqlx::query(
        "INSERT INTO bench_noop_outbox (id, account_id)
         SELECT gen_random_uuid(), ($2::uuid[])[1 + n % array_length($2::uuid[], 1)]
         FROM generate_series(1, $1) AS n",
    )
    .bind(i64::from(count))
    .bind(&account_ids)
    .execute(&pool)
    .await?;
    sqlx::query("VACUUM ANALYZE bench_noop_outbox")
        .execute(&pool)
        .await?;

    let concurrency = config.worker.concurrency.email;
    let (state, _) = signet_worker::prepare(config, kinds, pools).await?;
    let started = Instant::now();
    let watch = pool.clone();
    outbox_worker::<Noop>(Monitor::new(), &state)
        .run_with_signal(async move {
            loop {
                let left: i64 = sqlx::query_scalar(
                    "SELECT count(*) FROM bench_noop_outbox WHERE status = 'PENDING'",
                )
                .fetch_one(&watch)
                .await
                .map_err(std::io::Error::other)?;
                if left == 0 {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await?;
    let seconds = started.elapsed().as_secs_f64();
    sqlx::query("DROP TABLE bench_noop_outbox")
        .execute(&pool)
        .await?;
    println!(
        "{}",
        serde_json::json!({
            "jobs": count,
            "accounts": accounts,
            "concurrency": concurrency,
            "seconds": seconds,
            "jobs_per_sec": f64::from(count) / seconds,
        })
    );
    Ok(())
}
