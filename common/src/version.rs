/// The version of the service, as reported in user agents and telemetry.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
