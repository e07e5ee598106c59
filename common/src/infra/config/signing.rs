//! What recipients read: the language of their e-mails and certificates when none was given,
//! and the disclosure shown before they sign.

use serde::Deserialize;

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
}

impl Default for SigningSettings {
    fn default() -> Self {
        Self {
            default_language: signet_i18n::Language::English,
            consent_text: None,
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
