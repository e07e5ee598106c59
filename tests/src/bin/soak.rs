//! The soak of issue #36 (`scripts/soak.sh` runs it; docs/reliability.md explains it): a whole
//! deployment of real processes under steady journeys and seeded faults, checked at the end.
//! Exits 1 on any violation, printing the seed that replays the schedule.

use std::{path::PathBuf, process::ExitCode, time::Duration};

use clap::Parser;
use signet_tests::soak::{Options, StoreKind, run};

#[derive(Parser)]
#[command(
    about = "Runs journeys against a deployment while injecting faults; checks nothing was lost"
)]
struct Cli {
    /// Minutes of load and faults (the settling and the checks come after).
    #[arg(long, default_value_t = 30.0)]
    minutes: f64,
    /// Seeds the journeys' scripts and the fault schedule (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Where the deployment keeps its files: `s3` (moto's S3 server, behind a proxy the faults
    /// cut) or `local` (a directory).
    #[arg(long, default_value = "s3")]
    store: StoreKind,
    /// Journeys started per minute.
    #[arg(long, default_value_t = 12)]
    rate: u32,
    #[arg(long, default_value_t = 8)]
    accounts: usize,
    /// The shortest and longest wait between two faults' starts, in seconds.
    #[arg(long, default_value_t = 4)]
    fault_min_secs: u64,
    #[arg(long, default_value_t = 20)]
    fault_max_secs: u64,
    /// Resident memory no process may pass, in MiB.
    #[arg(long, default_value_t = 512)]
    memory_limit_mib: u64,
    /// Where `signet-api` and `signet-worker` are (default: next to this binary).
    #[arg(long)]
    bin_dir: Option<PathBuf>,
    /// Where logs, final PDFs and the summary go.
    #[arg(long, default_value = "target/soak")]
    out: PathBuf,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs())
    });
    let bin_dir = cli.bin_dir.unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent().map(PathBuf::from))
            .unwrap_or_default()
    });
    let report = run(Options {
        duration: Duration::from_secs_f64(cli.minutes * 60.0),
        seed,
        store: cli.store,
        journeys_per_minute: cli.rate,
        accounts: cli.accounts,
        fault_interval: (cli.fault_min_secs, cli.fault_max_secs),
        bin_dir,
        repo: signet_tests::repo_root(),
        out_dir: cli.out,
        memory_limit_mib: cli.memory_limit_mib,
    })
    .await;
    if report.violations.is_empty() {
        println!("soak passed (seed {seed})");
        ExitCode::SUCCESS
    } else {
        println!(
            "soak FAILED with {} violation(s); replay the schedule with --seed {seed}",
            report.violations.len()
        );
        ExitCode::FAILURE
    }
}
