//! `document …`: upload, cancel, remind, and verify a final PDF offline.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::{Value, json};
use signet_common::{
    Config,
    flows::{drafting, reminders},
    infra::{files::FileStore, notify::Notifier, pdf_sandbox::PdfSandbox},
    model::{Actor, DocumentId},
    wire::inputs::{CancelInput, upload_title},
};
use sqlx::PgPool;

use super::{account_ref::AccountRef, error::CliError};

#[derive(Debug, Subcommand)]
pub enum DocumentCommand {
    /// Upload a PDF as a new DRAFT document -> {"id", "code", "pages"}
    Upload {
        /// The account's id or e-mail
        #[arg(long)]
        account: AccountRef,
        #[arg(long)]
        file: PathBuf,
        /// Default (also when blank): the file name without its extension
        #[arg(long)]
        title: Option<String>,
    },
    /// Cancel a DRAFT or SENT document, telling its recipients why -> {"id", "status"}
    Cancel {
        /// The account's id or e-mail
        #[arg(long)]
        account: AccountRef,
        #[arg(long)]
        id: DocumentId,
        /// Told to the recipients invited so far, in the audit trail and the webhook
        #[arg(long)]
        reason: Option<String>,
    },
    /// Remind every invited signer of a SENT document who has not signed, but those reminded
    /// less than REMINDER_MIN_INTERVAL_HOURS ago -> {"reminded", "skipped"}
    Remind {
        /// The account's id or e-mail
        #[arg(long)]
        account: AccountRef,
        #[arg(long)]
        id: DocumentId,
    },
    /// Check a final PDF's seal offline (its coverage, signature, chain and stamped document)
    /// -> {"valid", "trusted", "signer", ...}; exits 1 with the reason when it does not hold
    Verify {
        #[arg(long)]
        file: PathBuf,
        /// PEM certificates whose holders are trusted as roots (e.g. the seal's root); the
        /// seal is reported untrusted otherwise
        #[arg(long)]
        trust: Vec<PathBuf>,
    },
}

pub async fn run(
    command: DocumentCommand,
    pool: &PgPool,
    config: &Config,
) -> Result<Value, CliError> {
    Ok(match command {
        DocumentCommand::Upload {
            account,
            file,
            title,
        } => {
            let account = account.resolve(pool).await?;
            let bytes = tokio::fs::read(&file)
                .await
                .map_err(|e| CliError(format!("cannot read {}: {e}", file.display())))?;
            let title = upload_title(title.as_deref(), &file.to_string_lossy());
            let store = FileStore::from_config(&config.files.store)
                .map_err(|e| CliError(format!("FILE_STORE: {e}")))?;
            let document = drafting::upload_document(
                pool,
                &store,
                account,
                &title,
                bytes,
                &PdfSandbox::new(&config.limits.pdf_sandbox, config.limits.pdf)
                    .map_err(|e| CliError(format!("PDF_SANDBOX_PROGRAM: {e}")))?,
                &Actor::Operator,
            )
            .await?;
            json!({"id": document.id, "code": document.code, "pages": document.pages})
        }
        DocumentCommand::Cancel {
            account,
            id,
            reason,
        } => {
            let account = account.resolve(pool).await?;
            let input = CancelInput { reason };
            let notifier = Notifier::from_config(config);
            let document =
                drafting::cancel_document(pool, account, id, input, &Actor::Operator, &notifier)
                    .await?;
            json!({"id": document.id, "status": document.status})
        }
        DocumentCommand::Remind { account, id } => {
            let account = account.resolve(pool).await?;
            let notifier = Notifier::from_config(config);
            let reminded =
                reminders::remind_now(pool, account, id, &Actor::Operator, &notifier).await?;
            serde_json::to_value(reminded).expect("serialisable")
        }
        // Never uses the (lazy) pool: no database is needed.
        DocumentCommand::Verify { file, trust } => verify_file(&file, &trust)?,
    })
}

/// `document verify`: the seal's verdict on a file, offline.
fn verify_file(file: &Path, trust: &[PathBuf]) -> Result<Value, CliError> {
    let pdf = std::fs::read(file).map_err(|e| CliError(format!("{}: {e}", file.display())))?;
    let mut anchors = Vec::new();
    for path in trust {
        let pem = std::fs::read_to_string(path)
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
        anchors.extend(
            signet_pdf::seal::certificates_from_pem(&pem)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?,
        );
    }
    let report = signet_pdf::seal::verify(&pdf, &anchors).map_err(|reason| {
        CliError(format!(
            "{}: the seal does not hold: {reason}",
            file.display()
        ))
    })?;
    Ok(json!({
        "valid": true,
        "trusted": report.trusted,
        "signer": report.signer,
        "chain": report.chain,
        "signingTime": report.signing_time,
        "reason": report.reason,
        "stampedSha256": report.stamped_sha256,
        "timestamp": report.timestamp.map(|(time, authority)| json!({"time": time, "authority": authority})),
        "longTermValidation": report.long_term.map(|data| {
            data.statuses
                .into_iter()
                .map(|(certificate, status)| json!({"certificate": certificate, "status": status}))
                .collect::<Vec<_>>()
        }),
        "sha256": signet_pdf::sha256_hex(&pdf),
    }))
}
