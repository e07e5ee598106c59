//! The shapes of the external API on the wire: request bodies and their validation, the list's
//! query parameters, and the JSON views (which webhook payloads repeat).

pub mod inputs;
pub mod query;
pub mod views;
pub mod webhook_payload;
