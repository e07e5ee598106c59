//! The operator commands (DESIGN §7): one JSON object on stdout on success; a message on
//! stderr and exit status 1 on failure. One file per command group; this one only names the
//! groups and hands each command to its group.

mod account;
mod account_ref;
mod audit;
mod document;
mod error;
mod files;
mod key;
mod output;
mod seal;
mod webhook;

use clap::{Parser, Subcommand};
use serde_json::{Value, json};
use signet_common::{
    Config,
    infra::db::{self, Db, PoolBudget},
};

pub use self::{
    account::AccountCommand, account_ref::AccountRef, audit::AuditCommand,
    document::DocumentCommand, error::CliError, files::FilesCommand, key::KeyCommand,
    output::print_line, seal::SealCommand, webhook::WebhookCommand,
};
use crate::{AppState, Server};

#[derive(Debug, Parser)]
#[command(
    name = "signet-api",
    version,
    about = "Signet API server and operator commands"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (applies migrations first)
    Serve,
    /// Apply the database migrations (business schema and job queue)
    Migrate,
    /// Manage accounts
    #[command(subcommand)]
    Account(AccountCommand),
    /// Manage an account's API key
    #[command(subcommand)]
    Key(KeyCommand),
    /// Upload, cancel and verify documents
    #[command(subcommand)]
    Document(DocumentCommand),
    /// The seal of final PDFs
    #[command(subcommand)]
    Seal(SealCommand),
    /// Webhook settings
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Audit trail tools
    #[command(subcommand)]
    Audit(AuditCommand),
    /// The file store
    #[command(subcommand)]
    Files(FilesCommand),
}

/// Runs a command; `Ok(Some(json))` is printed on stdout.
pub async fn run(command: Command, config: Config) -> Result<Option<Value>, CliError> {
    let application_name = match command {
        Command::Serve => "signet-api",
        _ => "signet-api-cli",
    };
    // Lazy: the commands that need no database (`seal`, `document verify`) never connect.
    let db = Db::connect_lazy(
        &config.database.url,
        application_name,
        PoolBudget::from_config(&config),
    )?;
    let pool = &db.pool;
    Ok(Some(match command {
        Command::Serve => {
            serve(config, db).await?;
            return Ok(None);
        }
        Command::Migrate => {
            db::migrate_with(&config.database, pool).await?;
            json!({"migrated": true})
        }
        Command::Account(command) => account::run(command, pool, &config).await?,
        Command::Key(command) => key::run(command, pool).await?,
        Command::Document(command) => document::run(command, pool, &config).await?,
        Command::Seal(command) => seal::run(command)?,
        Command::Webhook(command) => return webhook::run(command, pool).await,
        Command::Audit(command) => audit::run(command, pool).await?,
        Command::Files(command) => files::run(command, pool, &config).await?,
    }))
}

async fn serve(config: Config, db: Db) -> Result<(), CliError> {
    // A replica started while PostgreSQL restarts or fails over waits for it, as the workers
    // do, rather than exiting and needing someone to start it again (found by the soak).
    loop {
        match db::migrate_with(&config.database, &db.pool).await {
            Ok(()) => break,
            Err(e) if e.is_unavailable() => {
                tracing::warn!(error = %e, "waiting for the database");
            }
            Err(e) => return Err(e.into()),
        }
        tokio::select! {
            () = tokio::time::sleep(std::time::Duration::from_secs(2)) => {}
            () = signet_common::infra::shutdown::signal() => return Ok(()),
        }
    }
    if let Some(warning) = config.generated_secret_warning() {
        tracing::warn!("{warning}");
    }
    tracing::info!(store = ?config.files.store, "file store");
    let db = db.with_read_replicas(
        &config.database,
        "signet-api",
        PoolBudget::from_config(&config),
    )?;
    let state = AppState::new(config, db).map_err(CliError)?;
    let server = Server::bind(state.config.api.bind_addr, state).await?;
    tracing::info!(addr = %server.local_addr()?, "signet-api listening");
    server
        .run_until(signet_common::infra::shutdown::signal())
        .await?;
    tracing::info!("signet-api stopped");
    Ok(())
}
