//! Telemetry: how log lines are written.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct LoggingSettings {
    #[serde(rename = "LOG_FORMAT", deserialize_with = "log_format")]
    pub format: LogFormat,
}

impl Default for LoggingSettings {
    fn default() -> Self {
        Self {
            format: LogFormat::Text,
        }
    }
}

fn log_format<'de, D: serde::Deserializer<'de>>(d: D) -> Result<LogFormat, D::Error> {
    use serde::de::Error as _;
    let value = String::deserialize(d)?;
    match value.to_ascii_lowercase().as_str() {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => Err(D::Error::custom(format!(
            "expected text or json, got {other:?}"
        ))),
    }
}
