//! `seal …`: the seal of final PDFs.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};

use super::error::CliError;

#[derive(Debug, Subcommand)]
pub enum SealCommand {
    /// Make a development seal (a self-signed root and a seal certificate it issued) in DIR:
    /// seal-key.pem (mode 600), seal-chain.pem, seal-root.pem. Never for production.
    CreateDevelopment {
        #[arg(long)]
        dir: PathBuf,
    },
}

/// Needs no database.
pub fn run(command: SealCommand) -> Result<Value, CliError> {
    match command {
        SealCommand::CreateDevelopment { dir } => create_development_seal(&dir),
    }
}

/// `seal create-development`: a development seal's three files in `dir`.
fn create_development_seal(dir: &Path) -> Result<Value, CliError> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let files =
        signet_pdf::seal::SealKey::development_files().map_err(|e| CliError(e.to_string()))?;
    std::fs::create_dir_all(dir)?;
    let key = dir.join("seal-key.pem");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&key)
        .and_then(|mut f| f.write_all(files.key_pem.as_bytes()))
        .map_err(|e| CliError(format!("{}: {e}", key.display())))?;
    let chain = dir.join("seal-chain.pem");
    let root = dir.join("seal-root.pem");
    std::fs::write(&chain, &files.chain_pem)?;
    std::fs::write(&root, &files.root_pem)?;
    Ok(json!({
        "keyFile": key,
        "certFile": chain,
        "rootFile": root,
        "development": true,
    }))
}
