//! `audit …`: checking a document's audit trail.

use clap::Subcommand;
use serde_json::Value;
use signet_common::{model::DocumentId, store::audit};
use sqlx::PgPool;

use super::{error::CliError, output::print_line};

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check a document's audit hash chain -> {"ok", "entries", "erased"[, "firstBroken"]}
    Verify {
        #[arg(long)]
        document: DocumentId,
    },
}

pub async fn run(command: AuditCommand, pool: &PgPool) -> Result<Value, CliError> {
    match command {
        AuditCommand::Verify { document } => {
            let verification = audit::verify(pool, document).await?;
            if verification.entries == 0 {
                return Err(CliError(
                    "document not found (it has no audit entries)".into(),
                ));
            }
            let value = serde_json::to_value(&verification).expect("serialisable");
            if !verification.ok {
                // The error below says what failed; a reader gone from stdout changes nothing.
                let _ = print_line(&value.to_string());
                return Err(CliError(format!(
                    "the audit chain of document {document} is broken at entry {}",
                    verification.first_broken.map_or(0, |b| b.seq)
                )));
            }
            Ok(value)
        }
    }
}
