//! The expiry sweep alone, for `scripts/bench.sh`: expires every due document in batches of
//! `EXPIRY_BATCH` (the sweep's own size when unset), `EXPIRY_BATCHES_AT_ONCE` at a time, with nothing else running, and prints one
//! JSON line: `{"batch", "expired", "seconds", "documents_per_sec"}`. With `EXPIRY_BATCH=0`,
//! the sweep as it was before issue #35 instead: batches of 50, one `effects::record` per
//! document.
//!
//!     DATABASE_URL=… EXPIRY_BATCH=1000 cargo run --release -p signet-worker --example expiry_batches

use std::time::Instant;

use signet_common::{
    Config,
    effects::{self, DocumentEvent, Subject},
    flows::expiry,
    infra::{
        db::{PoolBudget, lazy_pool},
        notify::Notifier,
    },
    model::{Actor, DocumentStatus},
    store::{documents, recipients},
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
    let expired = if batch == 0 {
        one_by_one(&pool, &notifier).await?
    } else {
        let at_once: usize = std::env::var("EXPIRY_BATCHES_AT_ONCE")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(expiry::BATCHES_AT_ONCE);
        expiry::expire_due_in_batches(&pool, &notifier, batch, at_once).await?
    };
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

/// The sweep before issue #35.
async fn one_by_one(
    pool: &sqlx::PgPool,
    notifier: &Notifier,
) -> signet_common::error::Result<usize> {
    let mut expired = 0;
    loop {
        let mut tx = pool.begin().await?;
        let due = documents::lock_due_for_expiry(&mut tx, 50).await?;
        if due.is_empty() {
            return Ok(expired);
        }
        for &(document_id, account_id) in &due {
            documents::set_status(&mut tx, document_id, DocumentStatus::Expired).await?;
            let recipients = recipients::list(&mut tx, document_id).await?;
            let subject = Subject {
                account_id,
                document_id,
            };
            let event = DocumentEvent::Expired {
                recipients: &recipients,
            };
            effects::record(&mut tx, subject, event, &Actor::Worker, notifier).await?;
        }
        tx.commit().await?;
        expired += due.len();
    }
}
