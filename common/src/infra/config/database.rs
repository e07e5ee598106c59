//! PostgreSQL: where it is and this process's connection budget.

use std::time::Duration;

use serde::Deserialize;

use super::de;

pub const DEFAULT_DATABASE_URL: &str = "postgres://signet:signet@127.0.0.1:5432/signet";

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct DatabaseSettings {
    #[serde(rename = "DATABASE_URL")]
    pub url: String,
    /// The most connections this process opens to PostgreSQL (`DATABASE_MAX_CONNECTIONS`).
    #[serde(
        rename = "DATABASE_MAX_CONNECTIONS",
        deserialize_with = "de::positive_u32"
    )]
    pub max_connections: u32,
    /// How long a request or job waits for a connection before giving up (503 / retry).
    #[serde(
        rename = "DATABASE_ACQUIRE_TIMEOUT_MS",
        deserialize_with = "de::positive_millis"
    )]
    pub acquire_timeout: Duration,
    /// Idle connections are closed after this long.
    #[serde(rename = "DATABASE_IDLE_SECS", deserialize_with = "de::positive_secs")]
    pub idle_timeout: Duration,
    /// Streaming replicas of `url` for the reads that tolerate a little lag
    /// (`DATABASE_READ_URL`, comma-separated); empty: every read goes to `url`.
    #[serde(rename = "DATABASE_READ_URL", deserialize_with = "de::database_urls")]
    pub read_urls: Vec<String>,
    /// A replica further behind the primary than this is skipped (`DATABASE_READ_MAX_LAG_MS`).
    #[serde(
        rename = "DATABASE_READ_MAX_LAG_MS",
        deserialize_with = "de::positive_millis"
    )]
    pub read_max_lag: Duration,
    /// How often the replicas' replay positions are sampled (`DATABASE_READ_SAMPLE_MS`).
    #[serde(
        rename = "DATABASE_READ_SAMPLE_MS",
        deserialize_with = "de::positive_millis"
    )]
    pub read_sample_interval: Duration,
    /// Where the sessions that a transaction-pooling PgBouncer would break go when
    /// `DATABASE_URL` points at one (`DATABASE_DIRECT_URL`): the worker's `LISTEN` connection
    /// and migrations (which hold a session advisory lock). Unset: `DATABASE_URL`.
    #[serde(rename = "DATABASE_DIRECT_URL", deserialize_with = "de::some")]
    pub direct_url: Option<String>,
}

impl DatabaseSettings {
    /// The URL of the sessions that must reach PostgreSQL itself (see `direct_url`).
    pub fn direct_url(&self) -> &str {
        self.direct_url.as_deref().unwrap_or(&self.url)
    }

    /// Refuses a sample interval that could not show a replica within the lag bound.
    pub(super) fn check(self) -> Result<Self, super::ConfigError> {
        if !self.read_urls.is_empty() && self.read_sample_interval * 2 > self.read_max_lag {
            return Err(super::ConfigError::new(
                "DATABASE_READ_SAMPLE_MS",
                format!(
                    "must be at most half of DATABASE_READ_MAX_LAG_MS ({} ms)",
                    self.read_max_lag.as_millis()
                ),
            ));
        }
        Ok(self)
    }
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: DEFAULT_DATABASE_URL.to_owned(),
            max_connections: 8,
            acquire_timeout: Duration::from_millis(5000),
            idle_timeout: Duration::from_secs(60),
            read_urls: Vec::new(),
            read_max_lag: Duration::from_millis(2000),
            read_sample_interval: Duration::from_millis(200),
            direct_url: None,
        }
    }
}
