//! End-to-end tests against a real PostgreSQL, the real router on a loopback socket, and the
//! real binaries. One test binary (modules below) keeps link time down.

mod audit_chain;
mod bring_up;
mod browser;
mod concurrency;
mod console;
mod database_restart;
mod delivery_failures;
mod draft_editing;
mod errors;
mod files;
mod idempotency;
mod isolation;
mod job_kinds;
mod keys;
mod languages;
mod lists;
mod object_storage;
mod observability;
mod openapi;
mod phone_numbers;
mod real_names;
mod scale_out;
mod schemathesis;
mod seal;
mod security;
mod sender_workflow;
mod signing_flow;
mod signing_page;
mod sms;
mod upgrades;
mod uploads;
mod webhooks;
mod workers;
