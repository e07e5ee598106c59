//! What the side effects of a change need besides the database: the domain of e-mail
//! `Message-ID`s and the file links put into webhook payloads.

use std::time::Duration;

use crate::{Config, infra::files::FileLinks};

/// How long the `filePath` inside a webhook payload works: past the last retry of the default
/// schedule (about 28 hours), with room for the receiver to act.
pub const PAYLOAD_LINK_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Clone)]
pub struct Notifier {
    pub message_id_domain: String,
    pub payload_links: FileLinks,
}

impl Notifier {
    pub fn from_config(config: &Config) -> Self {
        Self {
            message_id_domain: config.message_id_domain(),
            payload_links: FileLinks::new(
                &config.public_url,
                &config.file_url_secret,
                PAYLOAD_LINK_TTL,
            ),
        }
    }
}
