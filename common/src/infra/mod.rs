//! What both binaries run on: configuration, database pools, job queues, the file store,
//! telemetry, secrets, the SSRF guard, bounds on costly work, and shutdown.

pub mod config;
pub mod db;
pub mod files;
pub mod jobs;
pub mod limits;
pub mod notify;
pub mod pdf_sandbox;
pub mod replicas;
pub mod secrets;
pub mod shutdown;
pub mod ssrf;
pub mod telemetry;
