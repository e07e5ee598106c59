//! What the side effects of a change need besides the database: the domain of e-mail
//! `Message-ID`s, the file links put into webhook payloads, whether (and within which daily
//! caps) SMS are queued, the default reminder schedule, the reminders' throttle and the key of
//! their links.

use std::time::Duration;

use crate::{
    Config,
    infra::{files::FileLinks, secrets::ReminderLinkKey},
    model::{DailyCaps, ReminderDefaults},
};

/// How long the `filePath` inside a webhook payload works: past the last retry of the default
/// schedule (about 28 hours), with room for the receiver to act.
pub const PAYLOAD_LINK_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Clone)]
pub struct Notifier {
    pub message_id_domain: String,
    pub payload_links: FileLinks,
    /// `None` when SMS are off (`SMS_PROVIDER=none`).
    pub sms_caps: Option<DailyCaps>,
    /// The reminder schedule of documents sent without one of their own.
    pub reminders: ReminderDefaults,
    /// At most one reminder per recipient in this many hours (0: no throttle).
    pub reminder_min_interval_hours: u32,
    /// Derives the clear token of each recipient's reminder link.
    pub reminder_link_key: ReminderLinkKey,
}

impl Notifier {
    pub fn from_config(config: &Config) -> Self {
        Self {
            message_id_domain: config.message_id_domain(),
            payload_links: FileLinks::new(
                &config.api.public_url,
                &config.files.url_secret,
                PAYLOAD_LINK_TTL,
            ),
            sms_caps: config.sms.enabled().then_some(DailyCaps {
                per_number: config.sms.daily_cap_per_number,
                per_account: config.sms.daily_cap_per_account,
            }),
            reminders: config.reminders.defaults(),
            reminder_min_interval_hours: config.reminders.min_interval_hours,
            reminder_link_key: ReminderLinkKey::from_file_url_secret(&config.files.url_secret),
        }
    }
}
