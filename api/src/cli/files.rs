//! `files …`: the file store.

use std::path::PathBuf;

use clap::Subcommand;
use serde_json::{Value, json};
use signet_common::{
    Config,
    infra::{config::FileStoreConfig, files::FileStore},
};
use sqlx::PgPool;

use super::error::CliError;

#[derive(Debug, Subcommand)]
pub enum FilesCommand {
    /// Copy every document's files from a local store directory into the configured
    /// FILE_STORE (a bucket), reading each copy back and checking its SHA-256 against the
    /// database -> {"documents", "verified", "verifiedAgainstSource", "failed"}; exits 1 if any
    /// file failed. Safe to run again.
    CopyFromDir {
        /// The local store's directory (what FILE_STORE_DIR was)
        #[arg(long)]
        dir: PathBuf,
    },
}

pub async fn run(command: FilesCommand, pool: &PgPool, config: &Config) -> Result<Value, CliError> {
    match command {
        FilesCommand::CopyFromDir { dir } => {
            if config.files.store == (FileStoreConfig::Local { dir: dir.clone() }) {
                return Err(CliError(
                    "--dir is the configured store itself: set FILE_STORE=s3 and its bucket".into(),
                ));
            }
            let from =
                FileStore::local(dir.clone()).map_err(|e| CliError(format!("--dir: {e}")))?;
            let to = FileStore::from_config(&config.files.store)
                .map_err(|e| CliError(format!("FILE_STORE: {e}")))?;
            let report = signet_common::flows::files::copy_all(pool, &from, &to).await?;
            let failed = report.failed.len();
            let value = json!({
                "from": from.describe(),
                "to": to.describe(),
                "documents": report.documents,
                "verified": report.verified,
                "verifiedAgainstSource": report.verified_against_source,
                "failed": report.failed.iter().map(|(key, reason)| json!({"key": key, "reason": reason})).collect::<Vec<_>>(),
            });
            if failed > 0 {
                return Err(CliError(format!(
                    "{failed} file(s) were not copied: {value}"
                )));
            }
            Ok(value)
        }
    }
}
