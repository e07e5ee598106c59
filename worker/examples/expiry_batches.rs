//! The expiry sweep alone, for `scripts/bench.sh`: expires every due document in batches of
//! `EXPIRY_BATCH` (the sweep's own size when unset), with nothing else running, and prints one
//! JSON line: `{"batch", "expired", "seconds", "documents_per_sec"}`.
//!
//!     DATABASE_URL=… EXPIRY_BATCH=1000 cargo run --release -p signet-worker --example expiry_batches

use std::time::Instant;

use signet_common::{
    Config,
    flows::expiry,
    infra::{
        db::{PoolBudget, lazy_pool},
        notify::Notifier,
    },
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Config::from_env()?;
    let batch: i64 = std::env::var("EXPIRY_BATCH")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(expiry::BATCH);
    let pool = lazy_pool(
        &config.database.url,
        "expiry-batches",
        PoolBudget::from_config(&config),
    )?;
    let notifier = Notifier::from_config(&config);
    let started = Instant::now();
    let expired = expiry::expire_due_in_batches(&pool, &notifier, batch).await?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "batch": batch,
            "expired": expired,
            "seconds": seconds,
            "documents_per_sec": expired as f64 / seconds,
        })
    );
    Ok(())
}
