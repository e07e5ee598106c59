//! Logging for both binaries: `RUST_LOG` filters, `LOG_FORMAT` picks text or JSON lines, and
//! everything goes to stderr so that the operator commands' stdout stays one JSON object.

use crate::config::LogFormat;

const DEFAULT_FILTER: &str = "info,sqlx=warn,lopdf=error";

pub fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}
