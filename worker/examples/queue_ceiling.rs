//! The job queue's own ceiling, for `scripts/bench.sh`: no-op jobs pushed the way the API pushes
//! them and run through apalis-postgres with the worker's pool, queue settings and concurrency.
//! Prints one JSON line: `{"jobs", "concurrency", "seconds", "jobs_per_sec"}`.
//!
//!     DATABASE_URL=… QUEUE_CEILING_JOBS=5000 cargo run --release -p signet-worker --example queue_ceiling

use std::time::{Duration, Instant};

use apalis::prelude::*;
use apalis_postgres::{Config as QueueConfig, PostgresStorage};
use serde::{Deserialize, Serialize};
use signet_common::{
    Config,
    infra::jobs::{self, Job},
};

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Noop {
    n: u32,
}

impl Job for Noop {
    const QUEUE: &'static str = "bench.noop";
    const MAX_ATTEMPTS: usize = 1;
}

async fn noop(_job: Noop) -> Result<(), BoxDynError> {
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    let count: u32 = std::env::var("QUEUE_CEILING_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5000);
    let kinds = signet_worker::kinds::JobKinds::new([signet_worker::kinds::JobKind::Email]);
    let (_jobs_pool, queue_pool) = signet_worker::pools(&config, &kinds)?;
    sqlx::query("DELETE FROM apalis.jobs WHERE job_type = $1")
        .bind(Noop::QUEUE)
        .execute(&queue_pool)
        .await?;
    let mut conn = queue_pool.acquire().await?;
    let all: Vec<Noop> = (0..count).map(|n| Noop { n }).collect();
    for batch in all.chunks(500) {
        jobs::enqueue(&mut conn, batch).await?;
    }
    drop(conn);

    // The e-mail workers' concurrency and fetch size, for comparison with e-mail dispatch.
    let concurrency = config.worker.concurrency.email;
    let storage = PostgresStorage::<Noop>::new(&queue_pool)
        .with_config(
            QueueConfig::default()
                .queue(Noop::QUEUE)
                .batch_size(concurrency)
                .heartbeat_interval(config.worker.heartbeat),
        )
        .poll_with_strategy(Strategy::new().interval(config.worker.poll_interval));
    let started = Instant::now();
    let watch = queue_pool.clone();
    Monitor::new()
        .register(move |_| {
            WorkerBuilder::new("queue-ceiling")
                .backend(storage.clone())
                .concurrency(concurrency)
                .build(noop)
        })
        .run_with_signal(async move {
            loop {
                let left: i64 = sqlx::query_scalar(
                    "SELECT count(*) FROM apalis.jobs WHERE job_type = $1 AND status <> 'Done'",
                )
                .bind(Noop::QUEUE)
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
    sqlx::query("DELETE FROM apalis.jobs WHERE job_type = $1")
        .bind(Noop::QUEUE)
        .execute(&queue_pool)
        .await?;
    println!(
        "{}",
        serde_json::json!({
            "jobs": count,
            "concurrency": concurrency,
            "seconds": seconds,
            "jobs_per_sec": f64::from(count) / seconds,
        })
    );
    Ok(())
}
