//! An account named on the command line.

use clap::Args;
use signet_common::{model::AccountId, store::accounts};

use super::error::CliError;

/// `--account`, for commands that act on one account.
#[derive(Debug, Args)]
pub struct AccountArg {
    /// The account's id or e-mail
    #[arg(long)]
    pub account: AccountRef,
}

/// An account named on the command line by its id or, as `account show --email` takes it, by
/// its e-mail.
#[derive(Debug, Clone)]
pub enum AccountRef {
    Id(AccountId),
    Email(String),
}

impl std::str::FromStr for AccountRef {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        let value = value.trim();
        if let Ok(id) = value.parse() {
            return Ok(Self::Id(id));
        }
        if value.contains('@') {
            return Ok(Self::Email(value.to_owned()));
        }
        Err(format!(
            "{value:?} is neither an account id nor an e-mail address"
        ))
    }
}

impl AccountRef {
    pub async fn resolve(&self, pool: &sqlx::PgPool) -> Result<AccountId, CliError> {
        match self {
            Self::Id(id) => Ok(*id),
            Self::Email(email) => accounts::find_by_email(pool, email)
                .await?
                .map(|account| account.id)
                .ok_or_else(|| CliError(format!("no account has the e-mail {email:?}"))),
        }
    }
}
