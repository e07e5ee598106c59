use std::{process::ExitCode, time::Duration};

use signet_common::{Config, shutdown};

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
    let pools = match signet_worker::pools(&config) {
        Ok(pools) => pools,
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
        .fetch_one(&pools.1)
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
    let outcome = signet_worker::run(config, pools, shutdown::signal()).await;
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
