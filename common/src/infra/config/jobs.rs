//! Each kind of job's own settings: how e-mails and webhooks are retried, when the sweep runs,
//! and the reminder schedule. (SMS retries are with the SMS settings.)

use std::time::Duration;

use serde::Deserialize;

use super::de;
use crate::model::{MAX_REMINDER_DAYS, ReminderDefaults};

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct EmailJobSettings {
    /// EMAIL_RETRY_SCHEDULE: seconds to wait after each failed attempt.
    #[serde(
        rename = "EMAIL_RETRY_SCHEDULE",
        deserialize_with = "de::retry_schedule"
    )]
    pub retry_schedule: Vec<Duration>,
}

impl Default for EmailJobSettings {
    fn default() -> Self {
        Self {
            retry_schedule: secs(&[10, 60, 300, 1800]),
        }
    }
}

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct WebhookSettings {
    /// WEBHOOK_RETRY_SCHEDULE: seconds to wait after each failed delivery.
    #[serde(
        rename = "WEBHOOK_RETRY_SCHEDULE",
        deserialize_with = "de::retry_schedule"
    )]
    pub retry_schedule: Vec<Duration>,
    /// WEBHOOK_ALLOW_PRIVATE: let webhook URLs resolve to internal addresses.
    #[serde(rename = "WEBHOOK_ALLOW_PRIVATE", deserialize_with = "de::boolean")]
    pub allow_private: bool,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            retry_schedule: secs(&[5, 300, 1800, 7200, 18000, 36000, 36000]),
            allow_private: false,
        }
    }
}

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct SweepSettings {
    /// EXPIRY_SWEEP_CRON: when the sweep runs (checked by the worker at start).
    #[serde(rename = "EXPIRY_SWEEP_CRON")]
    pub expiry_cron: String,
    /// EVENT_RETENTION_DAYS: how long the event feed (`GET /events`) keeps an event; the
    /// sweep removes older ones. 1 to 3650, default 30.
    #[serde(rename = "EVENT_RETENTION_DAYS", deserialize_with = "retention_days")]
    pub event_retention_days: u32,
}

impl Default for SweepSettings {
    fn default() -> Self {
        Self {
            expiry_cron: "0 * * * * *".to_owned(),
            event_retention_days: 30,
        }
    }
}

const MAX_EVENT_RETENTION_DAYS: u32 = 3650;

fn retention_days<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    use serde::de::Error as _;
    match de::parsed::<D, u32>(d)? {
        days if (1..=MAX_EVENT_RETENTION_DAYS).contains(&days) => Ok(days),
        _ => Err(D::Error::custom(format!(
            "from 1 to {MAX_EVENT_RETENTION_DAYS} days"
        ))),
    }
}

/// The reminder schedule of documents sent without one of their own, and the throttle.
#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct ReminderSettings {
    /// REMINDER_FIRST_AFTER_DAYS: 0 for none.
    #[serde(rename = "REMINDER_FIRST_AFTER_DAYS", deserialize_with = "days")]
    pub first_after_days: u32,
    /// REMINDER_EVERY_DAYS: 0 for just one.
    #[serde(rename = "REMINDER_EVERY_DAYS", deserialize_with = "days")]
    pub every_days: u32,
    /// REMINDER_MIN_INTERVAL_HOURS: at most one reminder per recipient in this many hours,
    /// whoever asks (0: no throttle; docs/security.md, "Reminders").
    #[serde(
        rename = "REMINDER_MIN_INTERVAL_HOURS",
        deserialize_with = "interval_hours"
    )]
    pub min_interval_hours: u32,
}

impl Default for ReminderSettings {
    fn default() -> Self {
        Self {
            first_after_days: 3,
            every_days: 3,
            min_interval_hours: 24,
        }
    }
}

impl ReminderSettings {
    pub fn defaults(&self) -> ReminderDefaults {
        ReminderDefaults {
            first_after_days: self.first_after_days,
            every_days: self.every_days,
        }
    }
}

/// A number of days for a reminder setting: 0 to 365, as the API accepts.
fn days<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    use serde::de::Error as _;
    match de::parsed::<D, u32>(d)? {
        days if i64::from(days) <= MAX_REMINDER_DAYS => Ok(days),
        _ => Err(D::Error::custom(format!(
            "at most {MAX_REMINDER_DAYS} days"
        ))),
    }
}

const MAX_REMINDER_INTERVAL_HOURS: u32 = 366 * 24;

/// 0 (no throttle) to a year.
fn interval_hours<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    use serde::de::Error as _;
    match de::parsed::<D, u32>(d)? {
        hours if hours <= MAX_REMINDER_INTERVAL_HOURS => Ok(hours),
        _ => Err(D::Error::custom(format!(
            "at most {MAX_REMINDER_INTERVAL_HOURS} hours"
        ))),
    }
}

fn secs(schedule: &[u64]) -> Vec<Duration> {
    schedule.iter().copied().map(Duration::from_secs).collect()
}
