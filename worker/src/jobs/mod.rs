//! The jobs, one per file, each a thin adapter over `signet_common`: it loads its rows with
//! `store`, acts through the worker's transport (SMTP, HTTP) or a `flows` use case, and records
//! what `delivery` decides the outcome was. Each is idempotent: running one twice has the
//! effect of running it once.
//!
//! What they share is in `outage`: every job's work runs on a task of its own (`run_job`), so it
//! finishes even when apalis drops the worker's future to restart it after a database outage,
//! and repeats the parts that need the database while PostgreSQL cannot be reached
//! (`until_available`): a job is never failed for good, nor an e-mail or webhook sent twice,
//! because the database went away. A message that left just before the database went away is
//! recorded once it is back, and stays held by this process meanwhile (the recorder and the
//! leases, `outbox`).

pub mod check_completion;
pub mod create_bulk_send;
pub mod deliver_webhook;
pub mod dispatch_email;
pub mod dispatch_sms;
pub(crate) mod outage;
pub mod outbox;
pub mod sweep;

pub use sweep::{SWEEP_JOB_TYPE, expiry_sweep};
