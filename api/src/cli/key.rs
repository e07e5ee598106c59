//! `key …`: an account's API key.

use clap::Subcommand;
use serde_json::{Value, json};
use signet_common::store::api_keys;
use sqlx::PgPool;

use super::{account_ref::AccountArg, error::CliError};

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Generate a key, replacing (and invalidating) any active one -> {"key", "display"}
    Generate(AccountArg),
    /// Revoke the active key -> {"revoked": bool}
    Revoke(AccountArg),
}

pub async fn run(command: KeyCommand, pool: &PgPool) -> Result<Value, CliError> {
    Ok(match command {
        KeyCommand::Generate(AccountArg { account }) => {
            let account = account.resolve(pool).await?;
            let key = api_keys::generate(pool, account).await?;
            json!({"key": key.key, "display": key.display})
        }
        KeyCommand::Revoke(AccountArg { account }) => {
            let account = account.resolve(pool).await?;
            json!({"revoked": api_keys::revoke(pool, account).await?})
        }
    })
}
