//! `signet-worker`: connects to the job queue and waits for work until SIGTERM or Ctrl-C.
//! The job handlers (e-mail dispatch, completion, expiry, webhooks) arrive with the next
//! milestone; until then this process only proves its configuration and connectivity.

use std::{process::ExitCode, time::Duration};

use signet_common::{Config, db::Db};

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("info,sqlx=warn,lopdf=error")
            }),
        )
        .with_writer(std::io::stderr)
        .init();
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let db = match Db::connect_lazy(&config.database_url) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Wait for the schema (signet-api migrate / serve creates it), checking now and then.
    loop {
        match sqlx::query_scalar::<_, bool>("SELECT to_regclass('apalis.jobs') IS NOT NULL")
            .fetch_one(&db.pool)
            .await
        {
            Ok(true) => break,
            Ok(false) => tracing::info!("waiting for the schema: run `signet-api migrate`"),
            Err(e) => tracing::warn!(error = %e, "waiting for the database"),
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(2)) => {},
            () = shutdown_signal() => return ExitCode::SUCCESS,
        }
    }
    tracing::info!(
        concurrency = config.worker_concurrency,
        "signet-worker connected; no job handlers in this release, waiting for shutdown"
    );
    shutdown_signal().await;
    tracing::info!("signet-worker stopped");
    ExitCode::SUCCESS
}

async fn shutdown_signal() {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = terminate.recv() => {},
    }
}
