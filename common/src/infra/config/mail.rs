//! E-mail: the SMTP server (or a directory of `.eml` files) and the sender.

use std::path::PathBuf;

use serde::Deserialize;

use super::de;

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct MailSettings {
    /// SMTP_URL; unset: each e-mail is written as a file under MAIL_DIR.
    #[serde(rename = "SMTP_URL", deserialize_with = "de::some")]
    pub smtp_url: Option<String>,
    #[serde(rename = "MAIL_DIR")]
    pub dir: PathBuf,
    #[serde(rename = "MAIL_FROM")]
    pub from: String,
}

impl Default for MailSettings {
    fn default() -> Self {
        Self {
            smtp_url: None,
            dir: PathBuf::from("./data/mail"),
            from: "Signet <no-reply@localhost>".to_owned(),
        }
    }
}

impl MailSettings {
    /// The domain of `Message-ID`s: the sender's, else the public URL's host.
    pub fn message_id_domain(&self, public_url: &str) -> String {
        let address = self
            .from
            .rsplit_once('<')
            .map_or(self.from.as_str(), |(_, a)| a.trim_end_matches('>'));
        address
            .rsplit_once('@')
            .map(|(_, domain)| domain.trim().to_owned())
            .filter(|d| !d.is_empty())
            .or_else(|| {
                url::Url::parse(public_url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
            })
            .unwrap_or_else(|| "signet.invalid".to_owned())
    }
}
