use std::process::ExitCode;

use clap::Parser;
use signet_api::cli::{self, Cli};
use signet_common::Config;

fn main() -> ExitCode {
    // Started as a PDF sandbox child, it does that one task and nothing else.
    signet_common::infra::pdf_sandbox::main_unless_child(run)
}

async fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::FAILURE;
        }
    };
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let service = matches!(cli.command, cli::Command::Serve).then_some("signet-api");
    let telemetry = signet_common::infra::telemetry::init(service, config.logging.format);
    let outcome = cli::run(cli.command, config).await;
    telemetry.shutdown();
    match outcome {
        Ok(Some(output)) => match cli::print_line(&output.to_string()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("error: writing the output: {e}");
                ExitCode::FAILURE
            }
            // Written, or its reader has gone (`| head`): the command did its work.
            _ => ExitCode::SUCCESS,
        },
        Ok(None) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
