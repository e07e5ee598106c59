//! All SQL, one module per aggregate: each function is one statement or one short sequence on
//! the caller's connection or transaction. Nothing here decides what a change means; that is
//! `flows`.

pub mod accounts;
pub mod api_keys;
pub mod attachments;
pub mod audit;
pub mod bulk_sends;
pub mod console_sessions;
pub mod documents;
pub mod emails;
pub mod embedded_sessions;
pub mod erasure;
pub mod events;
pub mod fields;
pub mod idempotency;
pub mod outbox;
pub mod pending_files;
pub mod placeholders;
pub mod queues;
pub mod recipients;
pub mod retention;
pub mod sign_in_throttle;
pub mod signer_auth;
pub mod sms;
pub mod templates;
pub mod webhooks;
