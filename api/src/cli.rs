//! The operator commands (DESIGN §7): one JSON object on stdout on success; a message on
//! stderr and exit status 1 on failure.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use serde_json::{Value, json};
use signet_common::infra::pdf_sandbox::PdfSandbox;
use signet_common::{
    Config, Error,
    flows::{drafting, reminders, sign_in},
    infra::{
        config::FileStoreConfig,
        db::{self, Db, PoolBudget},
        files::FileStore,
        notify::Notifier,
        ssrf,
    },
    model::{AccountId, Actor, DocumentId, WebhookDeliveryStatus},
    store::{accounts, api_keys, audit, webhooks},
    wire::inputs::{CancelInput, upload_title},
};
use uuid::Uuid;

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

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Generate a key, replacing (and invalidating) any active one -> {"key", "display"}
    Generate(AccountArg),
    /// Revoke the active key -> {"revoked": bool}
    Revoke(AccountArg),
}

#[derive(Debug, Args)]
pub struct AccountArg {
    /// The account's id or e-mail
    #[arg(long)]
    account: AccountRef,
}

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

#[derive(Debug, Subcommand)]
pub enum SealCommand {
    /// Make a development seal (a self-signed root and a seal certificate it issued) in DIR:
    /// seal-key.pem (mode 600), seal-chain.pem, seal-root.pem. Never for production.
    CreateDevelopment {
        #[arg(long)]
        dir: PathBuf,
    },
}

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
        delivery: Uuid,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check a document's audit hash chain -> {"ok", "entries"[, "firstBroken"]}
    Verify {
        #[arg(long)]
        document: DocumentId,
    },
}

/// A failed command: what to tell the operator.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CliError(pub String);

impl From<Error> for CliError {
    fn from(error: Error) -> Self {
        Self(match error {
            Error::DocumentNotFound => "document not found".into(),
            Error::Pdf(e) => format!("cannot upload: {e}"),
            Error::Invalid(problems) if problems.len() == 1 => {
                format!("{}: {}", problems[0].field, problems[0].reason)
            }
            e @ Error::Storage(_) if e.is_unavailable() => {
                format!("cannot reach the file store; nothing was saved: {e}")
            }
            e if e.is_unavailable() => format!("cannot reach the database: {e}"),
            e => e.to_string(),
        })
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> Self {
        Self(error.to_string())
    }
}

/// Runs a command; `Ok(Some(json))` is printed on stdout.
pub async fn run(command: Command, config: Config) -> Result<Option<Value>, CliError> {
    let application_name = match command {
        Command::Serve => "signet-api",
        _ => "signet-api-cli",
    };
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
            db::migrate(pool).await?;
            json!({"migrated": true})
        }
        Command::Account(AccountCommand::Create {
            name,
            email,
            usage_limit,
            password_stdin,
        }) => {
            let (name, email) = (name.trim(), email.trim());
            if name.is_empty() {
                return Err(CliError("--name must not be empty".into()));
            }
            let Ok(email) = signet_common::model::EmailAddress::parse(email) else {
                return Err(CliError(format!(
                    "--email {email:?} is not a valid e-mail address"
                )));
            };
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
        Command::Account(AccountCommand::SetPassword { id }) => {
            sign_in::set_password(pool, id, &read_password()?).await?;
            json!({"id": id, "passwordSet": true})
        }
        Command::Account(AccountCommand::Update {
            id,
            usage_limit,
            webhook_url,
        }) => {
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
        Command::Account(AccountCommand::Show { id, email }) => {
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
        Command::Key(KeyCommand::Generate(AccountArg { account })) => {
            let account = account.resolve(pool).await?;
            let key = api_keys::generate(pool, account).await?;
            json!({"key": key.key, "display": key.display})
        }
        Command::Key(KeyCommand::Revoke(AccountArg { account })) => {
            let account = account.resolve(pool).await?;
            json!({"revoked": api_keys::revoke(pool, account).await?})
        }
        Command::Document(DocumentCommand::Upload {
            account,
            file,
            title,
        }) => {
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
        Command::Document(DocumentCommand::Cancel {
            account,
            id,
            reason,
        }) => {
            let account = account.resolve(pool).await?;
            let input = CancelInput { reason };
            let notifier = Notifier::from_config(&config);
            let document =
                drafting::cancel_document(pool, account, id, input, &Actor::Operator, &notifier)
                    .await?;
            json!({"id": document.id, "status": document.status})
        }
        Command::Document(DocumentCommand::Remind { account, id }) => {
            let account = account.resolve(pool).await?;
            let notifier = Notifier::from_config(&config);
            let reminded =
                reminders::remind_now(pool, account, id, &Actor::Operator, &notifier).await?;
            serde_json::to_value(reminded).expect("serialisable")
        }
        Command::Webhook(WebhookCommand::Secret(AccountArg { account })) => {
            let account = account.resolve(pool).await?;
            json!({"secret": accounts::find(pool, account).await?.webhook_secret})
        }
        Command::Webhook(WebhookCommand::Deliveries { account, status }) => {
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
        Command::Webhook(WebhookCommand::Replay { delivery }) => {
            let replayed = webhooks::replay(pool, delivery.into(), None)
                .await?
                .ok_or_else(|| CliError(format!("no webhook delivery has the id {delivery}")))?;
            json!({"id": replayed.id, "eventId": replayed.event_id, "status": replayed.status, "queued": true})
        }
        // These two never use the (lazy) pool: no database is needed.
        Command::Document(DocumentCommand::Verify { file, trust }) => verify_file(&file, &trust)?,
        Command::Seal(SealCommand::CreateDevelopment { dir }) => create_development_seal(&dir)?,
        Command::Files(FilesCommand::CopyFromDir { dir }) => {
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
            value
        }
        Command::Audit(AuditCommand::Verify { document }) => {
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
            value
        }
    }))
}

/// `document verify`: the seal's verdict on a file, offline.
fn verify_file(file: &std::path::Path, trust: &[PathBuf]) -> Result<Value, CliError> {
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

/// `seal create-development`: a development seal's three files in `dir`.
fn create_development_seal(dir: &std::path::Path) -> Result<Value, CliError> {
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
        if let Ok(id) = value.parse::<Uuid>() {
            return Ok(Self::Id(AccountId(id)));
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
    async fn resolve(&self, pool: &sqlx::PgPool) -> Result<AccountId, CliError> {
        match self {
            Self::Id(id) => Ok(*id),
            Self::Email(email) => accounts::find_by_email(pool, email)
                .await?
                .map(|account| account.id)
                .ok_or_else(|| CliError(format!("no account has the e-mail {email:?}"))),
        }
    }
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

async fn serve(config: Config, db: Db) -> Result<(), CliError> {
    db::migrate(&db.pool).await?;
    if let Some(warning) = config.generated_secret_warning() {
        tracing::warn!("{warning}");
    }
    tracing::info!(store = ?config.files.store, "file store");
    let state = AppState::new(config, db).map_err(CliError)?;
    let server = Server::bind(state.config.api.bind_addr, state).await?;
    tracing::info!(addr = %server.local_addr()?, "signet-api listening");
    server
        .run_until(signet_common::infra::shutdown::signal())
        .await?;
    tracing::info!("signet-api stopped");
    Ok(())
}

/// Writes one line to stdout. Unlike `println!` it does not panic when the reader has gone
/// (`signet-api … | head`): the caller decides, and stops quietly as Unix tools do.
pub fn print_line(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    stdout.flush()
}
