//! What recipients read: the language of their e-mails and certificates when none was given,
//! and the disclosure shown before they sign.

use std::time::Duration;

use serde::Deserialize;

use super::de;

#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct SigningSettings {
    /// DEFAULT_LANGUAGE: the language of e-mails and certificates for recipients and documents
    /// that were given none (docs/languages.md).
    #[serde(rename = "DEFAULT_LANGUAGE", deserialize_with = "language")]
    pub default_language: signet_i18n::Language,
    /// SIGNING_CONSENT_TEXT: the operator's own electronic-records disclosure, shown (in every
    /// language) instead of the catalogues' default before a signer's first field.
    #[serde(rename = "SIGNING_CONSENT_TEXT", deserialize_with = "trimmed")]
    pub consent_text: Option<String>,
    /// EMBED_TICKET_TTL_SECS: how long an embedded signing session's URL may be opened (once).
    #[serde(
        rename = "EMBED_TICKET_TTL_SECS",
        deserialize_with = "de::positive_secs"
    )]
    pub embed_ticket_ttl: Duration,
    /// EMBED_SESSION_TTL_SECS: how long the browser that opened it may sign through it.
    #[serde(
        rename = "EMBED_SESSION_TTL_SECS",
        deserialize_with = "de::positive_secs"
    )]
    pub embed_session_ttl: Duration,
}

impl Default for SigningSettings {
    fn default() -> Self {
        Self {
            default_language: signet_i18n::Language::English,
            consent_text: None,
            embed_ticket_ttl: Duration::from_secs(300),
            embed_session_ttl: Duration::from_secs(3600),
        }
    }
}

/// A tag of a language Signet speaks (ASCII case aside): one of `signet_i18n::Language::ALL`
/// (`en`, `de`, `fr`, `es`, `pt`, `zh-Hans`, `ar`, `it`, `nl`, `pl`, `ru`, `tr`, `ja`, `ko`,
/// `he`).
fn language<'de, D: serde::Deserializer<'de>>(d: D) -> Result<signet_i18n::Language, D::Error> {
    use serde::de::Error as _;
    let value = String::deserialize(d)?;
    signet_i18n::Language::from_tag(&value).ok_or_else(|| {
        D::Error::custom(format!(
            "{value:?} is not a language Signet speaks; expected one of {}",
            signet_i18n::Language::ALL.map(|l| l.tag()).join(", ")
        ))
    })
}

fn trimmed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(|text| Some(text.trim().to_owned()))
}
