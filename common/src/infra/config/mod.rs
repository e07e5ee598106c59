//! Settings: environment variables read once at start, each part by its owner (the database,
//! the API, mail, the file store, SMS, the seal, the worker, each kind of job, limits,
//! logging). Every part is deserialized with serde from the same map of variables, under the
//! variables' own names, and checks its own values; a failure is always `NAME: reason`.

mod api;
mod database;
mod de;
mod files;
mod jobs;
mod limits;
mod logging;
mod mail;
mod seal;
mod signing;
mod sms;
mod vars;
mod worker;

pub use api::ApiSettings;
pub use database::{DEFAULT_DATABASE_URL, DatabaseSettings};
pub use files::{FileDownloads, FileSettings, FileStoreConfig, S3Config};
pub use jobs::{EmailJobSettings, ReminderSettings, SweepSettings, WebhookSettings};
pub use limits::{Limits, SandboxSettings, VerifyLimits};
pub use logging::{LogFormat, LoggingSettings};
pub use mail::MailSettings;
pub use seal::{SealSettings, SealSource};
pub use signing::SigningSettings;
pub use sms::{SmsConfig, SmsProvider, TwilioConfig};
pub use vars::ConfigError;
pub use worker::{WORKER_QUEUE_CONNECTIONS, WorkerConcurrency, WorkerSettings};

use vars::Vars;

#[derive(Clone)]
pub struct Config {
    pub database: DatabaseSettings,
    pub api: ApiSettings,
    pub mail: MailSettings,
    pub files: FileSettings,
    /// Text messages to recipients with a phone number (docs/sms.md).
    pub sms: SmsConfig,
    pub seal: SealSettings,
    pub worker: WorkerSettings,
    pub email: EmailJobSettings,
    pub webhook: WebhookSettings,
    pub sweep: SweepSettings,
    pub reminders: ReminderSettings,
    pub signing: SigningSettings,
    /// Bounds on untrusted input (docs/security.md).
    pub limits: Limits,
    pub logging: LoggingSettings,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("bind_addr", &self.api.bind_addr)
            .field("public_url", &self.api.public_url)
            .field("file_store", &self.files.store)
            .field("api_usage_window_secs", &self.api.usage_window_secs)
            .field("api_usage_default_limit", &self.api.usage_default_limit)
            .finish_non_exhaustive()
    }
}

impl Config {
    pub fn from_env() -> Result<Self, ConfigError> {
        // A variable that is not Unicode is taken as unset, as `std::env::var` does.
        Self::from_vars(std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }))
    }

    /// Builds the configuration from any set of variables (tests pass a map instead of the
    /// process environment); unset and blank values take defaults.
    pub fn from_vars<K: Into<String>, V: Into<String>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, ConfigError> {
        let vars = Vars::new(vars);
        let database = vars.load::<DatabaseSettings>()?.check()?;
        Ok(Self {
            files: FileSettings::load(&vars)?,
            worker: WorkerSettings::load(&vars)?,
            database,
            api: vars.load()?,
            mail: vars.load()?,
            sms: SmsConfig::load(&vars)?,
            seal: SealSettings::load(&vars)?,
            email: vars.load()?,
            webhook: vars.load()?,
            sweep: vars.load()?,
            reminders: vars.load()?,
            signing: vars.load()?,
            limits: Limits::load(&vars)?,
            logging: vars.load()?,
        })
    }

    /// The domain of `Message-ID`s: the sender's, else the public URL's host.
    pub fn message_id_domain(&self) -> String {
        self.mail.message_id_domain(&self.api.public_url)
    }

    /// What the API and every worker say at start when FILE_URL_SECRET is unset.
    pub fn generated_secret_warning(&self) -> Option<&'static str> {
        self.files.generated_secret_warning()
    }
}

#[cfg(test)]
mod tests;
