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
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: DEFAULT_DATABASE_URL.to_owned(),
            max_connections: 8,
            acquire_timeout: Duration::from_millis(5000),
            idle_timeout: Duration::from_secs(60),
        }
    }
}
