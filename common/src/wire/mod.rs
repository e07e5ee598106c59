//! The shapes on the wire: request bodies and their validation (the external API's, the
//! signing page's and the console's), the list's query parameters, the JSON views and the
//! webhook payload. The only place `utoipa` appears, besides the status enums of `model`,
//! which travel on the wire as they are.

pub mod body;
pub mod bulk_rows;
pub mod bulk_sends;
pub mod embedding;
pub mod events;
pub mod inputs;
pub mod query;
pub mod retention;
pub mod spreadsheet;
pub mod tags;
pub mod templates;
pub mod views;
pub mod webhook_payload;
