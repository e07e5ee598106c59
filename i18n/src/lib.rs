//! The languages Signet speaks to signers: the signing page, the e-mails and the certificate of
//! completion, each a Fluent catalogue under `locales/<tag>/`, compiled into the binary.
//!
//! A message missing from a catalogue falls back to English; a test checks that no catalogue
//! misses one.

use std::{borrow::Cow, collections::HashMap};

use fluent_templates::{LanguageIdentifier, Loader, static_loader};
use serde::{Deserialize, Serialize};

pub use fluent_templates::fluent_bundle::FluentValue;

static_loader! {
    static CATALOGUES = {
        locales: "./locales",
        fallback_language: "en",
        // No Unicode isolation marks around arguments: the PDF's fonts have no glyphs for them
        // and e-mail subjects would carry them; pages isolate names with `dir="auto"` instead.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// A language with a complete catalogue. Its wire form is its BCP 47 tag.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
pub enum Language {
    #[default]
    #[serde(rename = "en")]
    English,
    #[serde(rename = "de")]
    German,
    #[serde(rename = "fr")]
    French,
    #[serde(rename = "es")]
    Spanish,
    #[serde(rename = "pt")]
    Portuguese,
    #[serde(rename = "zh-Hans")]
    ChineseSimplified,
    #[serde(rename = "ar")]
    Arabic,
}

impl Language {
    pub const ALL: [Language; 7] = [
        Self::English,
        Self::German,
        Self::French,
        Self::Spanish,
        Self::Portuguese,
        Self::ChineseSimplified,
        Self::Arabic,
    ];

    /// The BCP 47 tag, as the API, the database and `lang` attributes spell it.
    pub fn tag(self) -> &'static str {
        match self {
            Self::English => "en",
            Self::German => "de",
            Self::French => "fr",
            Self::Spanish => "es",
            Self::Portuguese => "pt",
            Self::ChineseSimplified => "zh-Hans",
            Self::Arabic => "ar",
        }
    }

    /// The language a tag names exactly (ASCII case aside), as stored or given to the API.
    pub fn from_tag(tag: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|language| language.tag().eq_ignore_ascii_case(tag.trim()))
    }

    /// The first of `tags` (stored tags, most specific first: the recipient's, then the
    /// document's) that Signet speaks, else `default`: whose language an e-mail, a certificate
    /// or a signing page is in (docs/languages.md).
    pub fn first_spoken<'a>(
        tags: impl IntoIterator<Item = Option<&'a str>>,
        default: Self,
    ) -> Self {
        tags.into_iter()
            .flatten()
            .find_map(Self::from_tag)
            .unwrap_or(default)
    }

    /// The supported language a browser's tag falls under: `de-AT` is German, `pt-BR`
    /// Portuguese, `zh-CN` and `zh-Hans-SG` Simplified Chinese; `zh-TW` and `zh-Hant` are not
    /// Simplified Chinese, so they match nothing.
    pub fn closest(tag: &str) -> Option<Self> {
        let mut subtags = tag.trim().split(['-', '_']);
        let primary = subtags.next()?.to_ascii_lowercase();
        if primary == "zh" {
            let traditional = subtags.any(|s| {
                ["hant", "tw", "hk", "mo"]
                    .iter()
                    .any(|t| s.eq_ignore_ascii_case(t))
            });
            return (!traditional).then_some(Self::ChineseSimplified);
        }
        Self::ALL.into_iter().find(|l| l.tag() == primary)
    }

    /// The first language of an `Accept-Language` header (RFC 9110: by quality, then order;
    /// `q=0` means "not this one") that Signet speaks.
    pub fn from_accept_language(header: &str) -> Option<Self> {
        let mut ranges: Vec<(&str, f32)> = header
            .split(',')
            .filter_map(|range| {
                let mut parts = range.split(';');
                let tag = parts.next()?.trim();
                let quality = parts
                    .find_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                    .map_or(Some(1.0), |q| q.trim().parse::<f32>().ok())?;
                (!tag.is_empty() && quality > 0.0).then_some((tag, quality))
            })
            .collect();
        // Stable: equal qualities keep the header's order.
        ranges.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranges.into_iter().find_map(|(tag, _)| Self::closest(tag))
    }

    /// The language's name in itself, for a menu of languages.
    pub fn name(self) -> &'static str {
        match self {
            Self::English => "English",
            Self::German => "Deutsch",
            Self::French => "Français",
            Self::Spanish => "Español",
            Self::Portuguese => "Português",
            Self::ChineseSimplified => "简体中文",
            Self::Arabic => "العربية",
        }
    }

    pub fn is_right_to_left(self) -> bool {
        self == Self::Arabic
    }

    /// `ltr` or `rtl`, for a `dir` attribute.
    pub fn direction(self) -> &'static str {
        if self.is_right_to_left() {
            "rtl"
        } else {
            "ltr"
        }
    }

    fn identifier(self) -> LanguageIdentifier {
        self.tag().parse().expect("the tags are valid BCP 47")
    }

    /// The message `id` in this language.
    pub fn text(self, id: &str) -> String {
        CATALOGUES.lookup(&self.identifier(), id)
    }

    /// The message `id` in this language, with its arguments.
    pub fn format(self, id: &str, args: &[(&'static str, FluentValue<'_>)]) -> String {
        let args: HashMap<Cow<'static, str>, FluentValue<'_>> = args
            .iter()
            .map(|(name, value)| (Cow::Borrowed(*name), value.clone()))
            .collect();
        CATALOGUES.lookup_with_args(&self.identifier(), id, &args)
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use fluent_templates::fluent_bundle::FluentResource;

    use super::*;

    /// The ids of every message of every catalogue file of `language`, by file name.
    fn message_ids(language: Language) -> BTreeSet<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("locales")
            .join(language.tag());
        let mut ids = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let source = std::fs::read_to_string(&path).unwrap();
            let resource = FluentResource::try_new(source)
                .unwrap_or_else(|(_, errors)| panic!("{}: {errors:?}", path.display()));
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            for entry in resource.entries() {
                if let fluent_syntax::ast::Entry::Message(message) = entry {
                    ids.insert((file.clone(), message.id.name.to_owned()));
                }
            }
        }
        ids
    }

    #[test]
    fn every_catalogue_has_every_message_of_the_english_one() {
        let english = message_ids(Language::English);
        assert!(!english.is_empty());
        for language in Language::ALL {
            let ids = message_ids(language);
            let missing: Vec<_> = english.difference(&ids).collect();
            let extra: Vec<_> = ids.difference(&english).collect();
            assert!(missing.is_empty(), "{language} lacks {missing:?}");
            assert!(extra.is_empty(), "{language} has unknown {extra:?}");
        }
    }

    #[test]
    fn browsers_tags_fall_under_the_supported_languages() {
        assert_eq!(Language::closest("de-AT"), Some(Language::German));
        assert_eq!(Language::closest("pt-BR"), Some(Language::Portuguese));
        assert_eq!(
            Language::closest("zh-CN"),
            Some(Language::ChineseSimplified)
        );
        assert_eq!(
            Language::closest("zh-Hans-SG"),
            Some(Language::ChineseSimplified)
        );
        assert_eq!(Language::closest("zh-TW"), None);
        assert_eq!(Language::closest("zh-Hant"), None);
        assert_eq!(Language::closest("ja"), None);
        assert_eq!(
            Language::from_accept_language("ja, zh-TW;q=0.9, ar-EG;q=0.8, en;q=0.5"),
            Some(Language::Arabic)
        );
        assert_eq!(
            Language::from_accept_language("en;q=0.2, fr-CA;q=0.9"),
            Some(Language::French)
        );
        assert_eq!(Language::from_accept_language(""), None);
        assert_eq!(
            Language::from_accept_language("de;q=0, es"),
            Some(Language::Spanish)
        );
        assert_eq!(Language::from_accept_language("*"), None);
        assert_eq!(
            Language::from_tag("ZH-hans"),
            Some(Language::ChineseSimplified)
        );
        assert_eq!(Language::from_tag("zh"), None);
    }

    #[test]
    fn arguments_are_placed_without_isolation_marks() {
        let text = Language::English.format("email-greeting", &[("name", "Zoë".into())]);
        assert_eq!(text, "Hello Zoë,");
        // Nor around a left-to-right argument in right-to-left text.
        let text = Language::Arabic.format("email-document-code", &[("code", "AB12CD34".into())]);
        assert_eq!(text, "رمز المستند: AB12CD34");
    }

    #[test]
    fn every_language_reads_its_own_catalogue() {
        for language in Language::ALL {
            let heading = language.text("cert-heading");
            assert!(
                !heading.is_empty() && !heading.contains("Unknown"),
                "{language}"
            );
            if language != Language::English {
                assert_ne!(
                    heading,
                    Language::English.text("cert-heading"),
                    "{language}"
                );
            }
        }
    }
}
