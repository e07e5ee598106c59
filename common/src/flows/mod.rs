//! The use cases: each checks its rules and makes its change, with its audit entry, e-mails,
//! webhook events and jobs, in one transaction under the document's row lock.

pub mod attachments;
pub mod bulk_sends;
pub mod completion;
pub mod delivery_failures;
pub mod drafting;
pub mod embedding;
pub mod erasure;
pub mod events;
pub mod expiry;
pub mod files;
pub mod found_fields;
pub mod invitations;
pub mod queue_metrics;
pub mod reminders;
pub mod retention;
pub mod sign_in;
pub mod signer_auth;
pub mod signer_key;
pub mod signing;
pub mod sms_delivery;
pub mod templates;
