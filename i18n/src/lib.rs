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
    #[serde(rename = "it")]
    Italian,
    #[serde(rename = "nl")]
    Dutch,
    #[serde(rename = "pl")]
    Polish,
    #[serde(rename = "ru")]
    Russian,
    #[serde(rename = "tr")]
    Turkish,
    #[serde(rename = "ja")]
    Japanese,
    #[serde(rename = "ko")]
    Korean,
    #[serde(rename = "he")]
    Hebrew,
}

impl Language {
    pub const ALL: [Language; 15] = [
        Self::English,
        Self::German,
        Self::French,
        Self::Spanish,
        Self::Portuguese,
        Self::ChineseSimplified,
        Self::Arabic,
        Self::Italian,
        Self::Dutch,
        Self::Polish,
        Self::Russian,
        Self::Turkish,
        Self::Japanese,
        Self::Korean,
        Self::Hebrew,
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
            Self::Italian => (Locale::it_IT, "%-d %b %Y, %H:%M"),
            Self::Dutch => (Locale::nl_NL, "%-d %b %Y, %H:%M"),
            // The month's full name, which glibc gives in the genitive: "1 grudnia",
            // "1 декабря".
            Self::Polish => (Locale::pl_PL, "%-d %B %Y, %H:%M"),
            Self::Russian => (Locale::ru_RU, "%-d %B %Y, %H:%M"),
            Self::Turkish => (Locale::tr_TR, "%-d %B %Y %H:%M"),
            Self::Japanese => (Locale::ja_JP, "%Y年%-m月%-d日 %H:%M"),
            Self::Korean => (Locale::ko_KR, "%Y년 %-m월 %-d일 %H:%M"),
            // "1 בדצמבר 2026": the month takes the preposition.
            Self::Hebrew => (Locale::he_IL, "%-d ב%B %Y, %H:%M"),
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
            Self::Italian => "it",
            Self::Dutch => "nl",
            Self::Polish => "pl",
            Self::Russian => "ru",
            Self::Turkish => "tr",
            Self::Japanese => "ja",
            Self::Korean => "ko",
            Self::Hebrew => "he",
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
    /// Simplified Chinese, so they match nothing; `he-IL` and the old `iw` are Hebrew.
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
        // `iw`: Hebrew's code before 1989, still sent by some older Java and Android software.
        if primary == "iw" {
            return Some(Self::Hebrew);
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
            Self::Italian => "Italiano",
            Self::Dutch => "Nederlands",
            Self::Polish => "Polski",
            Self::Russian => "Русский",
            Self::Turkish => "Türkçe",
            Self::Japanese => "日本語",
            Self::Korean => "한국어",
            Self::Hebrew => "עברית",
        }
    }

    pub fn is_right_to_left(self) -> bool {
        matches!(self, Self::Arabic | Self::Hebrew)
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
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    /// What a catalogue gives one message: its attributes and the variables it uses (in its
    /// value, its attributes, selectors and every variant).
    #[derive(Debug, Default, PartialEq, Eq)]
    struct Shape {
        attributes: BTreeSet<String>,
        variables: BTreeSet<String>,
    }

    /// One catalogue file of one language, parsed: each message (and term) by id, and the
    /// variant keys of each of its selectors.
    struct Catalogue {
        source: String,
        messages: BTreeMap<String, Shape>,
        selectors: Vec<(String, BTreeSet<String>)>,
    }

    fn catalogue_files(language: Language) -> BTreeMap<String, Catalogue> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("locales")
            .join(language.tag());
        let mut files = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let source = std::fs::read_to_string(&path).unwrap();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let catalogue =
                parse(&source).unwrap_or_else(|errors| panic!("{}: {errors:?}", path.display()));
            files.insert(file, catalogue);
        }
        files
    }

    fn parse(source: &str) -> Result<Catalogue, Vec<fluent_syntax::parser::ParserError>> {
        use fluent_syntax::ast::Entry;
        let resource = fluent_syntax::parser::parse(source).map_err(|(_, errors)| errors)?;
        let mut messages = BTreeMap::new();
        let mut selectors = Vec::new();
        for entry in &resource.body {
            let (id, value, attributes) = match entry {
                Entry::Message(m) => (m.id.name.to_owned(), m.value.as_ref(), &m.attributes),
                Entry::Term(t) => (format!("-{}", t.id.name), Some(&t.value), &t.attributes),
                _ => continue,
            };
            let mut shape = Shape::default();
            let mut keys = Vec::new();
            for pattern in value.into_iter().chain(attributes.iter().map(|a| &a.value)) {
                walk_pattern(pattern, &mut shape.variables, &mut keys);
            }
            shape.attributes = attributes.iter().map(|a| a.id.name.to_owned()).collect();
            selectors.extend(keys.into_iter().map(|k| (id.clone(), k)));
            messages.insert(id, shape);
        }
        Ok(Catalogue {
            source: source.to_owned(),
            messages,
            selectors,
        })
    }

    fn walk_pattern(
        pattern: &fluent_syntax::ast::Pattern<&str>,
        variables: &mut BTreeSet<String>,
        keys: &mut Vec<BTreeSet<String>>,
    ) {
        for element in &pattern.elements {
            if let fluent_syntax::ast::PatternElement::Placeable { expression } = element {
                walk_expression(expression, variables, keys);
            }
        }
    }

    fn walk_expression(
        expression: &fluent_syntax::ast::Expression<&str>,
        variables: &mut BTreeSet<String>,
        keys: &mut Vec<BTreeSet<String>>,
    ) {
        use fluent_syntax::ast::{Expression, VariantKey};
        match expression {
            Expression::Select { selector, variants } => {
                walk_inline(selector, variables, keys);
                keys.push(
                    variants
                        .iter()
                        .map(|v| match &v.key {
                            VariantKey::Identifier { name } => (*name).to_owned(),
                            VariantKey::NumberLiteral { value } => (*value).to_owned(),
                        })
                        .collect(),
                );
                for variant in variants {
                    walk_pattern(&variant.value, variables, keys);
                }
            }
            Expression::Inline(inline) => walk_inline(inline, variables, keys),
        }
    }

    fn walk_inline(
        inline: &fluent_syntax::ast::InlineExpression<&str>,
        variables: &mut BTreeSet<String>,
        keys: &mut Vec<BTreeSet<String>>,
    ) {
        use fluent_syntax::ast::InlineExpression;
        match inline {
            InlineExpression::VariableReference { id } => {
                variables.insert(id.name.to_owned());
            }
            InlineExpression::Placeable { expression } => {
                walk_expression(expression, variables, keys);
            }
            InlineExpression::FunctionReference { arguments, .. }
            | InlineExpression::TermReference {
                arguments: Some(arguments),
                ..
            } => {
                let named = arguments.named.iter().map(|n| &n.value);
                for argument in arguments.positional.iter().chain(named) {
                    walk_inline(argument, variables, keys);
                }
            }
            _ => {}
        }
    }

    /// CLDR's plural categories that whole numbers up to 1000 fall in, in `language`, and
    /// `other`, which every language has (in Polish and Russian only fractions take it) and a
    /// Fluent selector needs as its default.
    fn plural_categories(language: Language) -> BTreeSet<String> {
        use intl_pluralrules::{PluralRuleType, PluralRules};
        // CLDR's rules are by language alone (`zh`, not `zh-Hans`).
        let primary: LanguageIdentifier =
            language.tag().split('-').next().unwrap().parse().unwrap();
        let rules = PluralRules::create(primary, PluralRuleType::CARDINAL)
            .unwrap_or_else(|e| panic!("{language}: {e}"));
        (0..=1000_u32)
            .map(|n| format!("{:?}", rules.select(n).unwrap()).to_ascii_lowercase())
            .chain(["other".to_owned()])
            .collect()
    }

    const PLURAL_KEYS: [&str; 6] = ["zero", "one", "two", "few", "many", "other"];

    /// Everything wrong with `language`'s catalogues, measured against the English ones: a file,
    /// message or attribute missing or unknown, a variable not used as English uses it, an
    /// isolation or bidi mark (each output isolates values itself), and a count not given every
    /// plural form its language has (CLDR's categories), unless its words do not change with
    /// the number (one variant).
    fn problems(language: Language) -> Vec<String> {
        let english = catalogue_files(Language::English);
        let files = catalogue_files(language);
        let categories = plural_categories(language);
        let mut problems = Vec::new();
        for file in english.keys().filter(|f| !files.contains_key(*f)) {
            problems.push(format!("{language}: no {file}"));
        }
        for file in files.keys().filter(|f| !english.contains_key(*f)) {
            problems.push(format!("{language}: {file} is not an English catalogue"));
        }
        for (file, catalogue) in &files {
            let Some(reference) = english.get(file) else {
                continue;
            };
            for (id, shape) in &reference.messages {
                match catalogue.messages.get(id) {
                    None => problems.push(format!("{language}/{file}: lacks {id}")),
                    Some(given) if given != shape => problems.push(format!(
                        "{language}/{file}: {id} has {given:?}, English has {shape:?}"
                    )),
                    Some(_) => {}
                }
            }
            for id in catalogue.messages.keys() {
                if !reference.messages.contains_key(id) {
                    problems.push(format!("{language}/{file}: {id} is not in English"));
                }
            }
            for (line, text) in catalogue.source.lines().enumerate() {
                if text.chars().any(|c| {
                    matches!(c, '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
                }) {
                    problems.push(format!("{language}/{file}:{}: a bidi mark", line + 1));
                }
            }
            for (id, keys) in &catalogue.selectors {
                if !keys.iter().all(|k| PLURAL_KEYS.contains(&k.as_str())) {
                    continue;
                }
                let unknown: Vec<_> = keys.difference(&categories).collect();
                let missing: Vec<_> = categories.difference(keys).collect();
                if !unknown.is_empty() {
                    problems.push(format!(
                        "{language}/{file}: {id} has plural forms {unknown:?} the language does \
                         not have ({categories:?})"
                    ));
                }
                if keys.len() > 1 && !missing.is_empty() {
                    problems.push(format!(
                        "{language}/{file}: {id} lacks plural forms {missing:?}"
                    ));
                }
            }
        }
        problems
    }

    /// A message added to the English catalogue and not yet translated fails here, naming
    /// each language and message (the build would ship it in English, the fallback).
    #[test]
    fn every_catalogue_has_every_message_of_the_english_one() {
        let english = catalogue_files(Language::English);
        assert!(english.len() >= 4, "{:?}", english.keys());
        assert!(english.values().all(|c| !c.messages.is_empty()));
        let problems: Vec<String> = Language::ALL.into_iter().flat_map(problems).collect();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_completeness_check_sees_what_a_catalogue_lacks() {
        let english = parse(
            "a = { $n ->\n    [one] x\n   *[other] { $n } y\n}\nb = { $t }\n    .title = T\n",
        )
        .unwrap();
        let same =
            parse("a = { $n ->\n   *[other] { $n } y\n}\nb = { $t }\n    .title = T\n").unwrap();
        assert_eq!(english.messages, same.messages);
        let other = parse("a = { $m }\nb = { $t }\n").unwrap();
        assert_ne!(
            english.messages["a"], other.messages["a"],
            "a variable renamed"
        );
        assert_ne!(
            english.messages["b"], other.messages["b"],
            "an attribute missing"
        );
        assert_eq!(
            english.selectors,
            [("a".to_owned(), ["one", "other"].map(String::from).into())]
        );
        assert_eq!(
            plural_categories(Language::Polish),
            ["few", "many", "one", "other"].map(String::from).into()
        );
        assert_eq!(
            plural_categories(Language::Japanese),
            ["other".to_owned()].into()
        );
    }

    #[test]
    fn counts_take_each_languages_plural_forms() {
        let waiting = |language: Language, count: u32| {
            language.format("sign-state-waiting", &[("count", count.into())])
        };
        assert!(waiting(Language::Polish, 1).contains("Jeszcze jedna osoba"));
        assert!(waiting(Language::Polish, 3).contains("Jeszcze 3 osoby nie podpisały"));
        assert!(waiting(Language::Polish, 5).contains("Jeszcze 5 osób nie podpisało"));
        assert!(waiting(Language::Polish, 22).contains("Jeszcze 22 osoby"));
        assert!(waiting(Language::Russian, 1).contains("Ещё 1 подписант пока"));
        assert!(waiting(Language::Russian, 21).contains("Ещё 21 подписант пока"));
        assert!(waiting(Language::Russian, 3).contains("Ещё 3 подписанта"));
        assert!(waiting(Language::Russian, 11).contains("Ещё 11 подписантов"));
        assert!(waiting(Language::Hebrew, 2).contains("שני חותמים"));
        assert!(waiting(Language::Hebrew, 7).contains("7 חותמים"));
        assert!(waiting(Language::Japanese, 1).contains("ほかに 1 人"));
        let audit = |language: Language, count: u32| {
            language.format("cert-section-audit", &[("count", count.into())])
        };
        assert_eq!(audit(Language::Russian, 5), "Журнал аудита (5 событий)");
        assert_eq!(audit(Language::Russian, 2), "Журнал аудита (2 события)");
        assert_eq!(audit(Language::Polish, 12), "Dziennik audytu (12 zdarzeń)");
        assert_eq!(
            audit(Language::Italian, 1),
            "Registro di controllo (1 evento)"
        );
        assert_eq!(audit(Language::English, 4), "Audit trail (4 events)");
        let progress = |language: Language, done: u32, total: u32| {
            language.format(
                "sign-progress",
                &[("done", done.into()), ("total", total.into())],
            )
        };
        assert_eq!(progress(Language::English, 1, 1), "1 of 1 field completed");
        assert_eq!(progress(Language::English, 0, 2), "0 of 2 fields completed");
        assert_eq!(progress(Language::German, 0, 1), "0 von 1 Feld ausgefüllt");
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
        assert_eq!(Language::closest("ja-JP"), Some(Language::Japanese));
        assert_eq!(Language::closest("iw"), Some(Language::Hebrew));
        assert_eq!(Language::closest("sv"), None);
        assert_eq!(
            Language::from_accept_language("sv, zh-TW;q=0.9, ar-EG;q=0.8, en;q=0.5"),
            Some(Language::Arabic)
        );
        assert_eq!(
            Language::from_accept_language("ko-KR,ko;q=0.9,en-US;q=0.8"),
            Some(Language::Korean)
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
        for (language, expected) in [
            (Language::Italian, "1 dic 2026, 20:25"),
            (Language::Dutch, "1 dec 2026, 20:25"),
            (Language::Polish, "1 grudnia 2026, 20:25"),
            (Language::Russian, "1 декабря 2026, 20:25"),
            (Language::Turkish, "1 Aralık 2026 20:25"),
            (Language::Japanese, "2026年12月1日 20:25"),
            (Language::Korean, "2026년 12월 1일 20:25"),
            (Language::Hebrew, "1 בדצמבר 2026, 20:25"),
        ] {
            assert_eq!(language.time(time), expected, "{language}");
        }
    }
}
