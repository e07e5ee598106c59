use std::{process::ExitCode, time::Duration};

use clap::Parser;
use signet_common::{Config, infra::shutdown, store::queues};
use signet_worker::kinds::{JobKind, JobKinds};

/// Runs Signet's background work: e-mail, completion, webhooks and the sweep.
#[derive(Parser)]
#[command(
    name = "signet-worker",
    version,
    after_help = "\
Each kind can run on processes of its own and be scaled on its own; the sweep is safe on any
number of processes (alert when none runs it: signet_sweep_last_finished_timestamp_seconds).
Jobs of each kind run at once per process: WORKER_EMAIL_CONCURRENCY, WORKER_SMS_CONCURRENCY,
WORKER_WEBHOOK_CONCURRENCY (default: 32; a message in flight holds no database connection) and
WORKER_COMPLETION_CONCURRENCY (default: the CPU count); WORKER_CONCURRENCY sets them all. Every other setting is an
environment variable too: see .env.example and docs/operations.md."
)]
struct Cli {
    /// The kinds of work this process takes, comma-separated (default: all of them)
    #[arg(
        long,
        env = "WORKER_JOBS",
        value_name = "KIND,...",
        value_enum,
        value_delimiter = ',',
        default_values_t = JobKind::ALL,
        hide_default_value = true
    )]
    jobs: Vec<JobKind>,
}

fn main() -> ExitCode {
    // Started as a PDF sandbox child, it does that one task and nothing else.
    signet_common::infra::pdf_sandbox::main_unless_child(run)
}

async fn run() -> ExitCode {
    let cli = Cli::parse();
    let kinds = JobKinds::new(cli.jobs);
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let telemetry =
        signet_common::infra::telemetry::init(Some("signet-worker"), config.logging.format);
    signet_common::infra::telemetry::metrics();
    let pools = match signet_worker::pools(&config, &kinds) {
        Ok(pools) => pools,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // The API's `serve` (or `signet-api migrate`) creates the schema; wait for it.
    loop {
        match queues::schema_ready(&pools.1).await {
            Ok(true) => break,
            Ok(false) => tracing::info!("waiting for the schema: run `signet-api migrate`"),
            Err(e) => tracing::warn!(error = %e, "waiting for the database"),
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(2)) => {},
            () = shutdown::signal() => return ExitCode::SUCCESS,
        }
    }
    let outcome = signet_worker::run(config, kinds, pools, shutdown::signal()).await;
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
