//! `webhook …`: an account's signing secret, its deliveries, and replaying one.

use clap::Subcommand;
use serde_json::{Value, json};
use signet_common::{
    model::{WebhookDeliveryId, WebhookDeliveryStatus},
    store::{accounts, webhooks},
};
use sqlx::PgPool;

use super::{
    account_ref::{AccountArg, AccountRef},
    error::CliError,
    output::print_line,
};

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Print the account's webhook signing secret -> {"secret": "whsec_..."}
    Secret(AccountArg),
    /// List the account's deliveries, oldest first, one JSON object per line
    Deliveries {
        /// The account's id or e-mail
        #[arg(long)]
        account: AccountRef,
        /// Only deliveries in this state
        #[arg(long, value_enum)]
        status: Option<DeliveryStatus>,
    },
    /// Queue a new attempt of a delivery now, with the same webhook-id
    Replay {
        #[arg(long)]
        delivery: WebhookDeliveryId,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

/// `None` when the command printed its output itself (a line per delivery).
pub async fn run(command: WebhookCommand, pool: &PgPool) -> Result<Option<Value>, CliError> {
    Ok(Some(match command {
        WebhookCommand::Secret(AccountArg { account }) => {
            let account = account.resolve(pool).await?;
            json!({"secret": accounts::find(pool, account).await?.webhook_secret})
        }
        WebhookCommand::Deliveries { account, status } => {
            let account = account.resolve(pool).await?;
            accounts::find(pool, account).await?;
            let status = status.map(|s| match s {
                DeliveryStatus::Pending => WebhookDeliveryStatus::Pending,
                DeliveryStatus::Delivered => WebhookDeliveryStatus::Delivered,
                DeliveryStatus::Failed => WebhookDeliveryStatus::Failed,
            });
            for delivery in webhooks::list(pool, account, status).await? {
                let line = serde_json::to_string(&delivery).expect("serialisable");
                match print_line(&line) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
                    Err(e) => return Err(CliError(format!("writing the output: {e}"))),
                }
            }
            return Ok(None);
        }
        WebhookCommand::Replay { delivery } => {
            let replayed = webhooks::replay(pool, delivery, None)
                .await?
                .ok_or_else(|| CliError(format!("no webhook delivery has the id {delivery}")))?;
            json!({"id": replayed.id, "eventId": replayed.event_id, "status": replayed.status, "queued": true})
        }
    }))
}
