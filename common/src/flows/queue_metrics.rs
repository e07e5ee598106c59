//! The queue figures `/metrics` shows, read from the database at each scrape (a use case of
//! its own: it reads the store and publishes to the process's metrics recorder, which
//! `infra::telemetry` installs and describes).

use crate::store::queues;

/// Records what waits in each queue and when the expiry sweep last finished, read from the
/// database when `/metrics` is scraped (so the figure is current, and the same from every
/// process):
/// - `signet_queue_ready_jobs{job_type}`: due now, waiting for a worker;
/// - `signet_queue_scheduled_jobs{job_type}`: waiting for their time (retries);
/// - `signet_queue_depth{job_type}`: both together;
/// - `signet_queue_oldest_ready_age_seconds{job_type}`: how long the oldest ready job has been
///   due (0 when none is);
/// - `signet_sweep_last_finished_timestamp_seconds`: 0 until a sweep first finishes;
/// - `signet_database_up`: 1 when this read answered, 0 when it failed (the figures above then
///   keep their last values).
///
/// Scrapes that arrive while another is reading wait for it and use its figures, so scrapes
/// never pile up on the database.
pub async fn record_queue_metrics(pool: &sqlx::PgPool) -> Result<(), crate::Error> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static READING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    static READINGS: AtomicU64 = AtomicU64::new(0);
    let readings_before = READINGS.load(Ordering::SeqCst);
    let _reading = READING.lock().await;
    if READINGS.load(Ordering::SeqCst) != readings_before {
        return Ok(());
    }
    let snapshot = match queues::snapshot(pool).await {
        Ok(snapshot) => snapshot,
        Err(e) => {
            metrics::gauge!("signet_database_up").set(0.0);
            return Err(e);
        }
    };
    metrics::gauge!("signet_database_up").set(1.0);
    for queue in &snapshot.queues {
        let job_type = queue.job_type.clone();
        metrics::gauge!("signet_queue_ready_jobs", "job_type" => job_type.clone())
            .set(queue.ready as f64);
        metrics::gauge!("signet_queue_scheduled_jobs", "job_type" => job_type.clone())
            .set(queue.scheduled as f64);
        metrics::gauge!("signet_queue_depth", "job_type" => job_type.clone())
            .set((queue.ready + queue.scheduled) as f64);
        metrics::gauge!("signet_queue_oldest_ready_age_seconds", "job_type" => job_type)
            .set(queue.oldest_ready_age.as_secs_f64());
    }
    metrics::gauge!("signet_sweep_last_finished_timestamp_seconds")
        .set(snapshot.last_sweep_finished.unwrap_or(0.0));
    READINGS.fetch_add(1, Ordering::SeqCst);
    Ok(())
}
