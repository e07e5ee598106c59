//! `account …`: create accounts and change their settings.

use clap::Subcommand;
use serde_json::{Value, json};
use signet_common::{
    Config,
    flows::sign_in,
    infra::ssrf,
    model::{AccountId, EmailAddress},
    store::{accounts, api_keys},
};
use sqlx::PgPool;

use super::error::CliError;

#[derive(Debug, Subcommand)]
pub enum AccountCommand {
    /// Create an account -> {"id": ...}
    Create {
        #[arg(long)]
        name: String,
        #[arg(long)]
        email: String,
        /// Requests per usage window (default API_USAGE_DEFAULT_LIMIT)
        #[arg(long)]
        usage_limit: Option<u32>,
        /// Read a console password from standard input (first line)
        #[arg(long)]
        password_stdin: bool,
    },
    /// Set the console password, read from standard input (first line); signs out every session
    SetPassword {
        #[arg(long)]
        id: AccountId,
    },
    /// Change an account's usage limit or webhook URL ("" removes the URL)
    Update {
        #[arg(long)]
        id: AccountId,
        #[arg(long)]
        usage_limit: Option<u32>,
        #[arg(long)]
        webhook_url: Option<String>,
    },
    /// Show an account's API settings: usage, limit, webhook URL and masked key
    Show {
        #[arg(long, required_unless_present = "email", conflicts_with = "email")]
        id: Option<AccountId>,
        /// Look the account up by its e-mail instead
        #[arg(long)]
        email: Option<String>,
    },
}

pub async fn run(
    command: AccountCommand,
    pool: &PgPool,
    config: &Config,
) -> Result<Value, CliError> {
    Ok(match command {
        AccountCommand::Create {
            name,
            email,
            usage_limit,
            password_stdin,
        } => {
            let (name, email) = (name.trim(), email.trim());
            if name.is_empty() {
                return Err(CliError("--name must not be empty".into()));
            }
            let email = EmailAddress::parse(email)
                .map_err(|reason| CliError(format!("--email {email:?}: {reason}")))?;
            let limit = limit_arg(usage_limit)?.unwrap_or(config.api.usage_default_limit);
            let password = password_stdin.then(read_password).transpose()?;
            if let Some(password) = &password {
                sign_in::hash_password(password)?;
            }
            let account = accounts::create(pool, name, &email, limit).await?;
            if let Some(password) = password {
                sign_in::set_password(pool, account.id, &password).await?;
            }
            json!({"id": account.id})
        }
        AccountCommand::SetPassword { id } => {
            sign_in::set_password(pool, id, &read_password()?).await?;
            json!({"id": id, "passwordSet": true})
        }
        AccountCommand::Update {
            id,
            usage_limit,
            webhook_url,
        } => {
            let webhook_url = match webhook_url {
                Some(url) => Some(webhook_url_arg(&url, config.webhook.allow_private).await?),
                None => None,
            };
            let update = accounts::AccountUpdate {
                usage_limit: limit_arg(usage_limit)?,
                webhook_url,
            };
            if update.usage_limit.is_none() && update.webhook_url.is_none() {
                return Err(CliError(
                    "nothing to change: give --usage-limit and/or --webhook-url".into(),
                ));
            }
            account_json(&accounts::update(pool, id, &update).await?)
        }
        AccountCommand::Show { id, email } => {
            let account = match (id, email) {
                (Some(id), _) => accounts::find(pool, id).await?,
                (None, Some(email)) => accounts::find_by_email(pool, email.trim())
                    .await?
                    .ok_or_else(|| CliError(format!("no account has the e-mail {email:?}")))?,
                (None, None) => unreachable!("clap requires --id or --email"),
            };
            let key = api_keys::active(pool, account.id).await?;
            let mut value = account_json(&account);
            value["usageCount"] = json!(account.api_usage_count);
            value["usageWindowStart"] = json!(account.usage_window_start);
            value["apiKey"] = json!(key.map(|k| k.display));
            value
        }
    })
}

/// The first line of standard input, without its line ending.
fn read_password() -> Result<String, CliError> {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| CliError(format!("cannot read the password from standard input: {e}")))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

fn limit_arg(limit: Option<u32>) -> Result<Option<i32>, CliError> {
    limit
        .map(|l| i32::try_from(l).map_err(|_| CliError(format!("--usage-limit {l} is too large"))))
        .transpose()
}

/// `""` removes the URL; anything else must be an absolute http(s) URL whose host resolves
/// only to public addresses (unless WEBHOOK_ALLOW_PRIVATE), as in the console.
async fn webhook_url_arg(url: &str, allow_private: bool) -> Result<Option<String>, CliError> {
    ssrf::webhook_url_setting(url, allow_private)
        .await
        .map_err(|refusal| CliError(format!("--webhook-url {:?} {refusal}", url.trim())))
}

fn account_json(account: &accounts::Account) -> Value {
    json!({
        "id": account.id,
        "name": account.name,
        "email": account.email,
        "usageLimit": account.api_usage_limit,
        "webhookUrl": account.webhook_url,
    })
}
