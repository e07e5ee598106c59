//! Domain code shared by `signet-api` and `signet-worker`, by layer:
//!
//! - [`model`]: the domain vocabulary and the rows the store returns; [`error`]: the domain
//!   error, which the API maps to the envelope in one place;
//! - [`wire`]: request bodies, query parameters and JSON views of the external API;
//! - [`flows`]: the use cases (drafting, signing, completion, expiry, failed deliveries,
//!   console sign-in);
//! - [`effects`]: the one path for the side effects of a change (audit entry, e-mails, webhook
//!   event) for each document event;
//! - [`store`]: all SQL, one module per aggregate;
//! - [`infra`]: configuration, database, jobs, files, telemetry, secrets and limits.
//!
//! The PDF engine is the crate `signet-pdf`. `docs/architecture.md` draws the map.

pub mod delivery;
pub mod effects;
pub mod error;
pub mod flows;
pub mod infra;
pub mod model;
pub mod store;
mod version;
pub mod wire;

pub use error::{AuthRefusal, Conflict, Error, Problem, Rule};
pub use infra::config::Config;
pub use version::VERSION;
