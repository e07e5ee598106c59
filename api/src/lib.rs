//! `signet-api`: the external API v1, signed file links, health, and the operator CLI.

pub mod app;
pub mod cli;
mod envelope;
mod error;
mod extract;
mod html;
mod idempotency;
mod routes;
mod state;

pub use app::{Server, router};
pub use error::ApiError;
pub use routes::openapi::document as openapi_document;
pub use state::AppState;
