//! The API's HTTP side: where it listens, the URL it is reached at, the proxies it trusts, and
//! each account's usage limit.

use std::net::SocketAddr;

use ipnet::IpNet;
use serde::Deserialize;

use super::de;

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct ApiSettings {
    #[serde(rename = "BIND_ADDR", deserialize_with = "de::parsed")]
    pub bind_addr: SocketAddr,
    /// Base URL that links in e-mails and `filePath` start with; no trailing slash.
    #[serde(rename = "PUBLIC_URL", deserialize_with = "de::base_url")]
    pub public_url: String,
    #[serde(rename = "TRUSTED_PROXIES", deserialize_with = "de::networks")]
    pub trusted_proxies: Vec<IpNet>,
    #[serde(rename = "API_USAGE_WINDOW_SECS", deserialize_with = "usage_window")]
    pub usage_window_secs: i64,
    #[serde(rename = "API_USAGE_DEFAULT_LIMIT", deserialize_with = "de::parsed")]
    pub usage_default_limit: i32,
    /// The most rows one bulk send takes (`POST /templates/{id}/bulk-sends`); at most 100,000
    /// (`wire::bulk_rows::MAX_ROWS_READ`), whatever is set.
    #[serde(rename = "BULK_SEND_MAX_ROWS", deserialize_with = "de::positive_usize")]
    pub bulk_send_max_rows: usize,
}

fn usage_window<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    de::positive(d).map(|secs| secs as i64)
}

impl Default for ApiSettings {
    fn default() -> Self {
        Self {
            bind_addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            public_url: "http://localhost:8080".to_owned(),
            trusted_proxies: Vec::new(),
            usage_window_secs: 3600,
            usage_default_limit: 1000,
            bulk_send_max_rows: 10_000,
        }
    }
}
