//! Settings: environment variables read once at start, each part by its owner (the database,
//! the API, mail, the file store, SMS, the seal, the worker, each kind of job, limits,
//! logging). Every part is deserialized with serde from the same map of variables, under the
//! variables' own names, and checks its own values; a failure is always `NAME: reason`.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, value::MapDeserializer};

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
pub use worker::{WORKER_QUEUE_CONNECTIONS, WorkerConcurrency, WorkerSettings};

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {name}: {reason}")]
pub struct ConfigError {
    /// The variable at fault.
    pub name: String,
    pub reason: String,
}

impl ConfigError {
    fn new(name: &str, reason: impl Into<String>) -> Self {
        Self {
            name: name.to_owned(),
            reason: reason.into(),
        }
    }
}

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
        let database: DatabaseSettings = vars.load()?;
        Ok(Self {
            files: FileSettings::load(&vars)?,
            worker: WorkerSettings::load(&vars, database.max_connections)?,
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

/// The variables settings are read from. Blank ones are left out, so that they take their
/// part's default as unset ones do; but an empty password is a password.
struct Vars(BTreeMap<String, String>);

const KEPT_WHEN_BLANK: &[&str] = &["SEAL_PKCS12_PASSWORD"];

impl Vars {
    fn new<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        Self(
            vars.into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .filter(|(name, value)| {
                    !value.trim().is_empty() || KEPT_WHEN_BLANK.contains(&name.as_str())
                })
                .collect(),
        )
    }

    /// One part, deserialized from every variable (each takes the ones it names); a value that
    /// does not deserialize is reported under its variable's name.
    fn load<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        let vars = MapDeserializer::<_, serde::de::value::Error>::new(
            self.0
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        );
        serde_path_to_error::deserialize(vars).map_err(|e| ConfigError {
            name: e.path().to_string(),
            reason: e.into_inner().to_string(),
        })
    }
}

#[cfg(test)]
mod tests;
