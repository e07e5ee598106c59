//! Domain code shared by `signet-api` and `signet-worker`: configuration, the data model, the SQL
//! of each aggregate, the document workflow, job payloads and the file store. The PDF engine is `signet-pdf`.

pub mod accounts;
pub mod api_keys;
pub mod audit;
pub mod completion;
pub mod config;
pub mod console;
pub mod db;
pub mod delivery;
pub mod documents;
pub mod emails;
pub mod error;
pub mod expiry;
pub mod fields;
pub mod files;
pub mod inputs;
pub mod jobs;
pub mod limits;
pub mod model;
pub mod notify;
pub mod query;
pub mod queues;
pub mod recipients;
pub mod secrets;
pub mod shutdown;
pub mod signing;
pub mod ssrf;
pub mod telemetry;
pub mod views;
pub mod webhooks;
pub mod workflow;

pub use config::Config;
pub use error::{Conflict, Error, Problem, Rule};

/// The version of the service, as reported in user agents and telemetry.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
