//! The soak (issue #36): a whole deployment of real processes on one machine — PostgreSQL, the
//! file store, two APIs, workers split by kind, an SMTP server, a Twilio-shaped SMS provider and
//! a webhook receiver — runs complete signing journeys for many accounts at a steady rate while
//! a fault injector, on a seeded schedule, kills, restarts, pauses and cuts them. When the time
//! is up every fault is healed, every journey is let finish, and the history is checked against
//! invariants: nothing accepted was lost, nothing happened twice that must not, every piece of
//! evidence verifies. `scripts/soak.sh` runs it; `docs/reliability.md` says what it checks.

mod checks;
mod deployment;
mod faults;
mod journeys;
mod mail;
mod options;
mod run;

pub use options::{Options, Report, StoreKind};
pub use run::run;
