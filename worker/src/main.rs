use std::{process::ExitCode, time::Duration};

use signet_common::{Config, db::Db, shutdown};

#[tokio::main]
async fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let telemetry = signet_common::telemetry::init(Some("signet-worker"), config.log_format);
    signet_common::telemetry::metrics();
    let db = match Db::connect_lazy(&config.database_url) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The API's `serve` (or `signet-api migrate`) creates the schema; wait for it.
    loop {
        match sqlx::query_scalar::<_, bool>(
            "SELECT to_regclass('apalis.jobs') IS NOT NULL AND to_regclass('public.outbound_emails') IS NOT NULL",
        )
        .fetch_one(&db.pool)
        .await
        {
            Ok(true) => break,
            Ok(false) => tracing::info!("waiting for the schema: run `signet-api migrate`"),
            Err(e) => tracing::warn!(error = %e, "waiting for the database"),
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(2)) => {},
            () = shutdown::signal() => return ExitCode::SUCCESS,
        }
    }
    let outcome = signet_worker::run(config, db, shutdown::signal()).await;
    telemetry.shutdown();
    match outcome {
        Ok(()) => {
            tracing::info!("signet-worker stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
