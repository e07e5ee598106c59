//! The languages Signet speaks to signers: the signing page, the e-mails and the certificate of
//! completion, each a Fluent catalogue under `locales/<tag>/`, compiled into the binary.
//!
//! A message missing from a catalogue falls back to English; a test checks that no catalogue
//! misses one.

pub mod bidi;

use std::{borrow::Cow, collections::HashMap};

use fluent_templates::{LanguageIdentifier, Loader, static_loader};
use serde::{Deserialize, Serialize};

pub use fluent_templates::fluent_bundle::FluentValue;

static_loader! {
    static CATALOGUES = {
        locales: "./locales",
        fallback_language: "en",
        // No Fluent isolation marks around every argument: each kind of output isolates the
        // values it places its own way (`bidi`; `format_text`, `format_html`, the PDF's
        // typesetter), and only where a value could reorder the sentence.
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
    /// `time` for a person who reads this language, in UTC, to the minute: "1 Dec 2026,
    /// 20:25" in English, "1 déc. 2026, 20:25" in French, "2026年12月1日 20:25" in Chinese.
    /// Messages add "(UTC)" in their own words.
    pub fn time(self, time: chrono::DateTime<chrono::Utc>) -> String {
        use chrono::Locale;
        let (locale, format) = match self {
            Self::English => (Locale::en_GB, "%-d %b %Y, %H:%M"),
            Self::German => (Locale::de_DE, "%-d. %b %Y, %H:%M"),
            Self::French => (Locale::fr_FR, "%-d %b %Y, %H:%M"),
            Self::Spanish => (Locale::es_ES, "%-d %b %Y, %H:%M"),
            Self::Portuguese => (Locale::pt_PT, "%-d %b %Y, %H:%M"),
            Self::ChineseSimplified => (Locale::zh_CN, "%Y年%-m月%-d日 %H:%M"),
            Self::Arabic => (Locale::ar_EG, "%-d %B %Y، %H:%M"),
        };
        time.format_localized(format, locale).to_string()
    }

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

    /// The message `id` as plain text, with its arguments (text people wrote, or values such as
    /// times) placed by [`bidi::in_text`]: isolated wherever they could reorder the sentence.
    pub fn format_text(self, id: &str, args: &[(&'static str, &str)]) -> String {
        let args: Vec<(&'static str, FluentValue<'_>)> = args
            .iter()
            .map(|&(name, value)| {
                let placed = bidi::in_text(value, self.is_right_to_left()).into_owned();
                (name, FluentValue::from(placed))
            })
            .collect();
        self.format(id, &args)
    }

    /// The message `id` as HTML: its words escaped, each argument escaped inside a `<bdi>`
    /// ([`bidi::html`]).
    pub fn format_html(self, id: &str, args: &[(&'static str, &str)]) -> String {
        // Each argument goes in as a placeholder of private-use characters (which no catalogue
        // has) and is replaced once the message is escaped, so a value is escaped exactly once.
        let placeholder = |index: usize| format!("\u{E000}{index}\u{E001}");
        let placeholders: Vec<(&'static str, FluentValue<'_>)> = args
            .iter()
            .enumerate()
            .map(|(index, &(name, _))| (name, FluentValue::from(placeholder(index))))
            .collect();
        let escaped = bidi::escape_html(&self.format(id, &placeholders));
        // One pass, so that a value holding the text of a placeholder stays as it is.
        let mut html = String::with_capacity(escaped.len());
        let mut rest = escaped.as_str();
        while let Some(start) = rest.find('\u{E000}') {
            html.push_str(&rest[..start]);
            let after = &rest[start + '\u{E000}'.len_utf8()..];
            let value = after.split_once('\u{E001}').and_then(|(index, tail)| {
                let (_, value) = args.get(index.parse::<usize>().ok()?)?;
                Some((value, tail))
            });
            match value {
                Some((value, tail)) => {
                    html.push_str(&bidi::html(value));
                    rest = tail;
                }
                None => {
                    html.push('\u{E000}');
                    rest = after;
                }
            }
        }
        html.push_str(rest);
        html
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
    fn formatted_arguments_are_isolated_where_they_could_reorder_the_sentence() {
        let say = |language: Language, title: &str| {
            language.format_text("email-completed-subject", &[("title", title)])
        };
        assert_eq!(say(Language::English, "Lease"), "\"Lease\" is complete");
        assert_eq!(
            say(Language::English, "Lease \u{202E}fdp.exe"),
            "\"\u{2068}Lease \u{202E}fdp.exe\u{2069}\" is complete"
        );
        assert!(say(Language::Arabic, "Lease").contains("\u{2068}Lease\u{2069}"));
        let html = Language::English.format_html(
            "email-declined-body",
            &[("who", "<b>\u{202E}x"), ("title", "A & B")],
        );
        assert_eq!(
            html,
            "<bdi>&lt;b&gt;\u{202E}x</bdi> declined to sign &quot;<bdi>A &amp; B</bdi>&quot;, so it \
             will not be completed."
        );
        // A value that holds a placeholder's text is placed as it is.
        let html = Language::English.format_html(
            "email-declined-body",
            &[("who", "\u{E000}1\u{E001}"), ("title", "T")],
        );
        assert!(
            html.starts_with("<bdi>\u{E000}1\u{E001}</bdi> declined to sign &quot;<bdi>T</bdi>")
        );
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

#[cfg(test)]
mod time_tests {
    use super::Language;

    #[test]
    fn times_are_written_for_people_in_each_language() {
        let time = "2026-12-01T20:25:20Z".parse().unwrap();
        for language in Language::ALL {
            println!("{}: {}", language.tag(), language.time(time));
        }
        assert_eq!(Language::English.time(time), "1 Dec 2026, 20:25");
        assert_eq!(
            Language::ChineseSimplified.time(time),
            "2026年12月1日 20:25"
        );
    }
}
