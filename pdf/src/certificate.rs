//! The certificate pages: who signed what and when, with the document's hashes and its audit
//! trail, laid out on US Letter pages in the shipped fonts, labelled in the document's language
//! (`i18n/locales/<tag>/certificate.ftl`): right to left, right-aligned, for Arabic and Hebrew.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};
use signet_i18n::{FluentValue, Language};

use crate::content_stream::numbers;
use crate::stamp_error::{StampError, too_many_objects};
use crate::typeset::{self, Base, Fonts, Shaped};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Certificate {
    /// The language of the labels (the values are printed as recorded). Certificates
    /// serialised before there were languages read as English.
    #[serde(default)]
    pub language: Language,
    pub title: String,
    pub code: String,
    pub document_id: String,
    pub original_sha256: String,
    /// Preformatted, e.g. "2026-11-21T22:38:39.123Z".
    pub completed_at: String,
    pub recipients: Vec<CertificateRecipient>,
    pub audit: Vec<CertificateAuditLine>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CertificateRecipient {
    pub name: String,
    pub email: String,
    pub role: String,
    pub status: String,
    pub viewed_at: Option<String>,
    pub signed_at: Option<String>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    /// When the recipient agreed to use electronic records and signatures (preformatted like
    /// `completed_at`), from which IP address and user agent, and the words they agreed to.
    /// `None` for a recipient who gave no such consent: nothing is printed for them.
    #[serde(default)]
    pub consented_at: Option<String>,
    #[serde(default)]
    pub consent_ip: Option<String>,
    #[serde(default)]
    pub consent_user_agent: Option<String>,
    #[serde(default)]
    pub consent_text: Option<String>,
    /// Signer authentication (issue #34): the check the recipient passed (the API's method,
    /// `ACCESS_CODE`) and when they first passed it (preformatted like `completed_at`); `None`
    /// for a recipient whose link asked for none or who never passed: nothing is printed.
    #[serde(default)]
    pub auth_method: Option<String>,
    #[serde(default)]
    pub auth_passed_at: Option<String>,
    /// The fields the recipient filled in, in their order on the document.
    #[serde(default)]
    pub fields: Vec<CertificateField>,
}

/// A field a recipient filled in, as the certificate lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CertificateField {
    /// The API's kind (`CHECKBOX`), named in the certificate's language.
    pub kind: String,
    pub label: Option<String>,
    /// As stamped; a checkbox's `true` or `false` is written in words.
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CertificateAuditLine {
    pub at: String,
    pub event: String,
    pub message: String,
    pub ip_address: String,
    pub user_agent: String,
    /// How many entries of the audit trail the line stands for: more than one for a summary
    /// of repeated reminders (its message says so); the section's heading counts entries.
    #[serde(default = "one_entry")]
    pub entries: usize,
}

fn one_entry() -> usize {
    1
}

/// The certificate laid out on pages, with `stamped_sha256` the hash of the stamped document.
pub(crate) fn layout(certificate: &Certificate, stamped_sha256: &str) -> Vec<Vec<Placed>> {
    paginate(&certificate_lines(certificate, stamped_sha256))
}

/// Adds the certificate `pages` to `doc`, each a US Letter page under `parent` with its
/// heading and footer in `language`, and returns references to them in order.
pub(crate) fn add_pages(
    doc: &mut Document,
    parent: ObjectId,
    pages: &[Vec<Placed>],
    language: Language,
) -> Result<Vec<Object>, StampError> {
    let mut fonts = Fonts::new();
    let mut contents = Vec::new();
    for (index, lines) in pages.iter().enumerate() {
        contents.push(certificate_page_content(
            doc,
            &mut fonts,
            lines,
            (index + 1, pages.len()),
            language,
        )?);
    }
    // Every certificate page names every font the certificate uses.
    let mut font_names = Dictionary::new();
    for (face, id) in fonts.all() {
        font_names.set(font_name(face), id);
    }
    fonts.finish(doc).map_err(StampError::Write)?;
    let mut kids = Vec::new();
    for content in contents {
        let mut content = Stream::new(dictionary! {}, content);
        content
            .compress()
            .map_err(|error| StampError::Write(error.to_string()))?;
        let content = doc.try_add_object(content).map_err(too_many_objects)?;
        let letter = vec![0.into(), 0.into(), 612.into(), 792.into()];
        // Every inheritable attribute is set, so that none comes from the page tree.
        let page = dictionary! {
            "Type" => "Page",
            "Parent" => parent,
            "MediaBox" => letter.clone(),
            "CropBox" => letter,
            "Rotate" => 0,
            "Resources" => dictionary! { "Font" => font_names.clone() },
            "Contents" => content,
        };
        kids.push(Object::Reference(
            doc.try_add_object(page).map_err(too_many_objects)?,
        ));
    }
    Ok(kids)
}

const PAGE_WIDTH: f64 = 612.0;
const PAGE_HEIGHT: f64 = 792.0;
const MARGIN: f64 = 54.0;
const HEADING_SIZE: f64 = 18.0;
const HEADING_BASELINE: f64 = PAGE_HEIGHT - MARGIN - HEADING_SIZE;
/// The rule under the heading.
const RULE_Y: f64 = HEADING_BASELINE - 10.0;
/// The top of the first line of the body.
const BODY_TOP: f64 = RULE_Y - 8.0;
/// No line's baseline goes below this.
const BODY_BOTTOM: f64 = 64.0;
const FOOTER_BASELINE: f64 = 36.0;
const FOOTER_SIZE: f64 = 8.0;
/// How much further a wrapped line's continuation is indented.
const CONTINUATION_INDENT: f64 = 12.0;
const DETAIL_INDENT: f64 = 14.0;
/// The consent text a signer agreed to sits under its label, indented once more.
const QUOTE_INDENT: f64 = 2.0 * DETAIL_INDENT;

/// A value as recorded (a title, a name, an address, a time, a hash, a user agent, an audit
/// message), laid out in its own direction and isolated from the text around it in every
/// language, so that a time or an English sentence keeps its order among Arabic words and no
/// value reorders its label or its neighbours; bidi controls and invisible characters in it are
/// drawn as escapes (`typeset::recorded`).
fn as_written(value: &str) -> String {
    typeset::recorded(value)
}

/// The base direction of a certificate in `language`.
fn base(language: Language) -> Base {
    if language.is_right_to_left() {
        Base::Rtl
    } else {
        Base::Ltr
    }
}

/// Where a line `width` points wide starts, `indent` points in from the margin of its reading
/// direction: the left one, or the right one for right-to-left text.
fn line_x(base: Base, indent: f64, width: f64) -> f64 {
    match base {
        Base::Rtl => PAGE_WIDTH - MARGIN - indent - width,
        _ => MARGIN + indent,
    }
}

/// A line of the certificate, before or after wrapping.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    /// The line's direction: the certificate's language's.
    base: Base,
    size: f64,
    indent: f64,
    space_before: f64,
    /// Whether the line must be on the same page as the next one, as a heading must.
    keep_with_next: bool,
}

impl Line {
    fn new(text: &str, size: f64) -> Line {
        Line {
            text: typeset::clean(text),
            base: Base::Ltr,
            size,
            indent: 0.0,
            space_before: 0.0,
            keep_with_next: false,
        }
    }

    fn section(text: &str) -> Line {
        Line {
            space_before: 14.0,
            keep_with_next: true,
            ..Line::new(text, 13.0)
        }
    }

    /// `label: value` as the language writes it (`label : value` in French, a full-width
    /// colon in Chinese), the value as recorded ([`as_written`]).
    fn detail(language: Language, label: &str, value: &str) -> Line {
        Line {
            indent: DETAIL_INDENT,
            ..Line::new(&detail_text(language, label, &as_written(value)), 9.5)
        }
    }

    fn leading(&self) -> f64 {
        self.size * 1.35
    }

    /// The lines this one takes at its indent within the margins, broken at spaces, and inside
    /// words too long for a line of their own. Widths are those of the line shaped once as a
    /// whole.
    fn wrap(&self) -> Vec<Line> {
        let first_width = PAGE_WIDTH - 2.0 * MARGIN - self.indent;
        let max_units = |first: bool| {
            let width = first_width - if first { 0.0 } else { CONTINUATION_INDENT };
            (width * 1000.0 / self.size).max(1.0)
        };
        let shaped = typeset::shape_as(&self.text, self.base);
        let space = shaped.space_width();
        let mut words = Vec::new();
        let mut start = None;
        for (offset, c) in self.text.char_indices() {
            match (c == ' ', start) {
                (true, Some(begin)) => {
                    words.push(begin..offset);
                    start = None;
                }
                (false, None) => start = Some(offset),
                _ => {}
            }
        }
        if let Some(begin) = start {
            words.push(begin..self.text.len());
        }
        let mut texts: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut current_width = 0.0;
        for word in words {
            let limit = max_units(texts.is_empty());
            let width = shaped.width_between(word.clone());
            if !current.is_empty() && current_width + space + width <= limit {
                current.push(' ');
                current.push_str(&self.text[word]);
                current_width += space + width;
                continue;
            }
            if !current.is_empty() {
                texts.push(std::mem::take(&mut current));
            }
            let mut rest = word;
            loop {
                let limit = max_units(texts.is_empty());
                let fits = longest_fitting_prefix(&self.text, &shaped, rest.clone(), limit);
                if fits == rest.end {
                    break;
                }
                texts.push(self.text[rest.start..fits].to_owned());
                rest = fits..rest.end;
            }
            current_width = shaped.width_between(rest.clone());
            current = self.text[rest].to_owned();
        }
        if !current.is_empty() || texts.is_empty() {
            texts.push(current);
        }
        // A value isolated from the text around it (`typeset::isolate`, and the escapes in
        // it) and broken over lines stays isolated on each of them.
        let mut open: Vec<char> = Vec::new();
        let texts: Vec<String> = texts
            .into_iter()
            .map(|text| {
                let continued: String = open.iter().collect();
                for c in text.chars() {
                    match c {
                        '\u{2066}'..='\u{2068}' => open.push(c),
                        typeset::PDI => {
                            open.pop();
                        }
                        _ => {}
                    }
                }
                continued + &text
            })
            .collect();
        let count = texts.len();
        texts
            .into_iter()
            .enumerate()
            .map(|(index, text)| Line {
                text,
                base: self.base,
                size: self.size,
                indent: self.indent + if index == 0 { 0.0 } else { CONTINUATION_INDENT },
                space_before: if index == 0 { self.space_before } else { 0.0 },
                keep_with_next: self.keep_with_next || index + 1 < count,
            })
            .collect()
    }
}

/// `label: value` as the language writes it, `value` already placed ([`as_written`]).
fn detail_text(language: Language, label: &str, value: &str) -> String {
    language.format(
        "cert-detail",
        &[
            ("label", language.text(label).into()),
            ("value", value.into()),
        ],
    )
}

/// Where the longest start of `range` of `text` that fits in `limit` thousandths of the font
/// size ends, cut between characters: after at least one character, so that wrapping advances.
fn longest_fitting_prefix(
    text: &str,
    shaped: &Shaped,
    range: std::ops::Range<usize>,
    limit: f64,
) -> usize {
    let ends: Vec<usize> = text[range.clone()]
        .char_indices()
        .map(|(offset, c)| range.start + offset + c.len_utf8())
        .collect();
    // The widths of prefixes grow with their length: search for the longest that fits.
    let (mut low, mut high) = (0, ends.len());
    while low < high {
        let middle = (low + high).div_ceil(2);
        if shaped.width_between(range.start..ends[middle - 1]) <= limit {
            low = middle;
        } else {
            high = middle - 1;
        }
    }
    ends[low.max(1) - 1]
}

fn certificate_lines(certificate: &Certificate, stamped_sha256: &str) -> Vec<Line> {
    let language = certificate.language;
    let text = |id: &str| language.text(id);
    let count = |id: &str, n: usize| language.format(id, &[("count", FluentValue::from(n))]);
    let detail = |label: &str, value: &str| Line::detail(language, label, value);
    let note = |id: &str| Line {
        indent: DETAIL_INDENT,
        space_before: 2.0,
        ..Line::new(&text(id), 8.0)
    };
    let mut lines = vec![
        Line {
            space_before: 0.0,
            ..Line::section(&text("cert-section-document"))
        },
        detail("cert-title", &certificate.title),
        detail("cert-code", &certificate.code),
        detail("cert-document-id", &certificate.document_id),
        detail("cert-completed-at", &certificate.completed_at),
        detail("cert-original-sha256", &certificate.original_sha256),
        detail("cert-stamped-sha256", stamped_sha256),
        note("cert-stamped-note"),
        note("cert-seal-note"),
        Line::section(&count(
            "cert-section-recipients",
            certificate.recipients.len(),
        )),
    ];
    let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    for (index, recipient) in certificate.recipients.iter().enumerate() {
        lines.extend([
            Line {
                space_before: 6.0,
                keep_with_next: true,
                ..Line::new(
                    &format!("{}. {}", index + 1, as_written(&recipient.name)),
                    11.0,
                )
            },
            detail("cert-email", &recipient.email),
            detail("cert-role", &word(language, "cert-role", &recipient.role)),
            // In words for the reader of a legal record, by role: a viewer who never opened
            // the document "has not opened" it (never "PENDING").
            detail(
                "cert-status",
                &word(
                    language,
                    &format!("cert-status-{}", recipient.role.to_ascii_lowercase()),
                    &recipient.status,
                ),
            ),
            detail("cert-viewed-at", &or_none(&recipient.viewed_at)),
            detail("cert-signed-at", &or_none(&recipient.signed_at)),
            detail("cert-ip-address", &or_none(&recipient.ip_address)),
            detail("cert-user-agent", &or_none(&recipient.user_agent)),
        ]);
        if let (Some(method), Some(at)) = (&recipient.auth_method, &recipient.auth_passed_at) {
            let checked = language.format(
                "cert-identity-checked",
                &[
                    ("method", word(language, "cert-auth", method).into()),
                    ("time", at.as_str().into()),
                ],
            );
            lines.push(detail("cert-identity", &checked));
        }
        if let Some(at) = &recipient.consented_at {
            lines.extend(consent_lines(language, recipient, at));
        }
        lines.extend(field_lines(language, &recipient.fields));
    }
    lines.push(Line::section(&count(
        "cert-section-audit",
        certificate.audit.iter().map(|line| line.entries).sum(),
    )));
    for entry in &certificate.audit {
        let event = word(language, "cert-event", &entry.event);
        lines.extend([
            Line {
                space_before: 5.0,
                keep_with_next: true,
                ..Line::new(&format!("{} · {}", as_written(&entry.at), event), 9.5)
            },
            Line {
                indent: DETAIL_INDENT,
                keep_with_next: true,
                ..Line::new(&as_written(&entry.message), 9.5)
            },
            Line {
                indent: DETAIL_INDENT,
                ..Line::new(
                    &detail_text(
                        language,
                        "cert-ip-address",
                        &format!(
                            "{} · {}",
                            as_written(&entry.ip_address),
                            detail_text(
                                language,
                                "cert-user-agent",
                                &as_written(&entry.user_agent)
                            ),
                        ),
                    ),
                    8.5,
                )
            },
        ]);
    }
    let base = base(language);
    lines
        .into_iter()
        .map(|line| Line { base, ..line })
        .flat_map(|line| line.wrap())
        .collect()
}

/// A recipient's consent to electronic records: when, from where, and the words they agreed
/// to, each paragraph of them wrapped on its own.
fn consent_lines(language: Language, recipient: &CertificateRecipient, at: &str) -> Vec<Line> {
    let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    let mut lines = vec![Line {
        indent: DETAIL_INDENT,
        space_before: 2.0,
        keep_with_next: true,
        ..Line::new(
            &language.format(
                "cert-consent",
                &[
                    ("time", as_written(at).into()),
                    ("ip", as_written(&or_none(&recipient.consent_ip)).into()),
                    (
                        "agent",
                        as_written(&or_none(&recipient.consent_user_agent)).into(),
                    ),
                ],
            ),
            9.5,
        )
    }];
    let paragraphs: Vec<&str> = recipient
        .consent_text
        .as_deref()
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|paragraph| !paragraph.is_empty())
        .collect();
    if !paragraphs.is_empty() {
        lines.push(Line {
            indent: DETAIL_INDENT,
            keep_with_next: true,
            ..Line::new(
                &language.format(
                    "cert-detail",
                    &[
                        ("label", language.text("cert-consent-text").into()),
                        ("value", "".into()),
                    ],
                ),
                8.5,
            )
        });
        lines.extend(paragraphs.iter().map(|paragraph| Line {
            indent: QUOTE_INDENT,
            ..Line::new(&as_written(paragraph), 8.0)
        }));
    }
    lines
}

/// The fields a recipient filled in: a line each, its kind in words, its label if it has one
/// and its value as stamped (a checkbox's in words), the person's words isolated as every
/// recorded value is.
fn field_lines(language: Language, fields: &[CertificateField]) -> Vec<Line> {
    if fields.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![Line {
        indent: DETAIL_INDENT,
        space_before: 2.0,
        keep_with_next: true,
        ..Line::new(&language.text("cert-fields"), 9.5)
    }];
    lines.extend(fields.iter().map(|field| {
        let kind = word(language, "cert-kind", &field.kind);
        let value = match (field.kind.as_str(), field.value.as_str()) {
            ("CHECKBOX", "true") => language.text("cert-field-checked"),
            ("CHECKBOX", _) => language.text("cert-field-unchecked"),
            (_, value) => as_written(value),
        };
        let text = match &field.label {
            Some(label) => language.format(
                "cert-field-labelled",
                &[
                    ("kind", kind.into()),
                    ("label", as_written(label).into()),
                    ("value", value.into()),
                ],
            ),
            None => language.format(
                "cert-field-unlabelled",
                &[("kind", kind.into()), ("value", value.into())],
            ),
        };
        Line {
            indent: QUOTE_INDENT,
            ..Line::new(&text, 9.0)
        }
    }));
    lines
}

/// The language's word for one of the API's values (`SIGNER`, `SIGNED`…), the message
/// `<prefix>-<value in lower case>`; a value without a message is printed as it is.
fn word(language: Language, prefix: &str, value: &str) -> String {
    let id = format!("{prefix}-{}", value.to_ascii_lowercase());
    let known: &[&str] = match prefix {
        "cert-role" => &["signer", "viewer"],
        "cert-status-signer" => &["pending", "viewed", "signed", "declined"],
        "cert-status-viewer" => &["pending", "viewed"],
        "cert-auth" => &["access_code", "email_otp", "sms_otp"],
        "cert-kind" => &[
            "text",
            "checkbox",
            "radio",
            "dropdown",
            "number",
            "email",
            "name",
            "company",
            "attachment",
        ],
        "cert-event" => &[
            "created",
            "sent",
            "viewed",
            "signed",
            "declined",
            "completed",
            "expired",
            "updated",
        ],
        _ => &[],
    };
    if known.contains(&value.to_ascii_lowercase().as_str()) {
        language.text(&id)
    } else {
        value.to_owned()
    }
}

/// A line placed on a certificate page.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    line: Line,
    baseline: f64,
}

/// Splits `lines` into pages, keeping each line marked `keep_with_next` with the next one as
/// long as the group fits on a page.
fn paginate(lines: &[Line]) -> Vec<Vec<Placed>> {
    let mut pages: Vec<Vec<Placed>> = vec![Vec::new()];
    let mut top = BODY_TOP;
    for (index, line) in lines.iter().enumerate() {
        let group_height: f64 = lines[index..]
            .iter()
            .scan(true, |more, line| {
                let keep = std::mem::replace(more, line.keep_with_next);
                keep.then_some(line.space_before + line.leading())
            })
            .sum();
        let fits_on_empty_page = group_height <= BODY_TOP - BODY_BOTTOM;
        let height = if fits_on_empty_page {
            group_height
        } else {
            line.space_before + line.leading()
        };
        let page_is_empty = pages.last().is_none_or(Vec::is_empty);
        if top - height < BODY_BOTTOM && !page_is_empty {
            pages.push(Vec::new());
            top = BODY_TOP;
        }
        let space_before = if pages.last().is_none_or(Vec::is_empty) {
            0.0
        } else {
            line.space_before
        };
        let baseline = top - space_before - line.size;
        top -= space_before + line.leading();
        if let Some(page) = pages.last_mut() {
            page.push(Placed {
                line: line.clone(),
                baseline,
            });
        }
    }
    pages
}

/// The resource name of a font on certificate pages.
fn font_name(face: usize) -> String {
    format!("F{face}")
}

fn certificate_page_content(
    doc: &mut Document,
    fonts: &mut Fonts,
    lines: &[Placed],
    (number, count): (usize, usize),
    language: Language,
) -> Result<Vec<u8>, StampError> {
    let base = base(language);
    let heading = language.text(if number == 1 {
        "cert-heading"
    } else {
        "cert-heading-continued"
    });
    let mut ops = Vec::new();
    let mut line = |text: &Shaped, size: f64, x: f64, baseline: f64| {
        fonts.objects_for(doc, text).map_err(too_many_objects)?;
        ops.extend(fonts.draw(text, font_name, size, x, baseline, None));
        Ok::<_, StampError>(())
    };
    let heading = typeset::shape_as(&heading, base);
    line(
        &heading,
        HEADING_SIZE,
        line_x(base, 0.0, heading.width * HEADING_SIZE / 1000.0),
        HEADING_BASELINE,
    )?;
    for placed in lines {
        let Line {
            text,
            size,
            indent,
            base,
            ..
        } = &placed.line;
        let shaped = typeset::shape_as(text, *base);
        let x = line_x(*base, *indent, shaped.width * size / 1000.0);
        line(&shaped, *size, x, placed.baseline)?;
    }
    let footer = typeset::shape_as(
        &language.format(
            "cert-footer",
            &[
                ("page", FluentValue::from(number)),
                ("pages", FluentValue::from(count)),
            ],
        ),
        base,
    );
    let footer_width = footer.width * FOOTER_SIZE / 1000.0;
    line(
        &footer,
        FOOTER_SIZE,
        (PAGE_WIDTH - footer_width) / 2.0,
        FOOTER_BASELINE,
    )?;
    ops.extend(
        format!(
            "0.6 G 0.5 w {} m {} l S\n",
            numbers(&[MARGIN, RULE_Y]),
            numbers(&[PAGE_WIDTH - MARGIN, RULE_Y]),
        )
        .into_bytes(),
    );
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_tokens_are_broken_to_fit_the_line() {
        let line = Line::new(&format!("Hash: {}", "f".repeat(400)), 10.0);
        let lines = line.wrap();
        assert!(lines.len() > 1);
        let width = PAGE_WIDTH - 2.0 * MARGIN;
        for line in &lines {
            assert!(
                typeset::shape_as(&line.text, Base::Ltr).width * 10.0 / 1000.0 + line.indent
                    <= width + 0.01
            );
        }
        let joined: String = lines.iter().map(|line| line.text.as_str()).collect();
        assert_eq!(joined, format!("Hash:{}", "f".repeat(400)));
    }

    /// A summary line of five reminders counts as five events in the section's heading.
    #[test]
    fn the_audit_heading_counts_the_entries_summary_lines_stand_for() {
        let line = |message: &str, entries| CertificateAuditLine {
            at: "2026-11-21T22:38:39.123Z".into(),
            event: "UPDATED".into(),
            message: message.into(),
            ip_address: "192.0.2.1".into(),
            user_agent: "agent".into(),
            entries,
        };
        let certificate = Certificate {
            language: Language::English,
            title: "Lease".into(),
            code: "ABC".into(),
            document_id: "id".into(),
            original_sha256: "0".repeat(64),
            completed_at: "2026-11-21T22:38:39.123Z".into(),
            recipients: Vec::new(),
            audit: vec![
                line("Document sent to 1 recipient", 1),
                line("Reminders sent to a@x (5 times, from … to …)", 5),
            ],
        };
        let texts: Vec<String> = certificate_lines(&certificate, "0")
            .into_iter()
            .map(|line| line.text)
            .collect();
        assert!(
            texts.iter().any(|t| t.contains("Audit trail (6 events)")),
            "{texts:#?}"
        );
    }

    /// Each field a recipient filled in, in the certificate's language, a ticked box in words
    /// and the person's words isolated (a right-to-left value cannot reorder the line).
    #[test]
    fn the_fields_a_recipient_filled_in_are_listed_in_words() {
        let field = |kind: &str, label: Option<&str>, value: &str| CertificateField {
            kind: kind.into(),
            label: label.map(Into::into),
            value: value.into(),
        };
        let recipient = CertificateRecipient {
            name: "Ann".into(),
            email: "ann@example.com".into(),
            role: "SIGNER".into(),
            status: "SIGNED".into(),
            viewed_at: None,
            signed_at: None,
            ip_address: None,
            user_agent: None,
            consented_at: None,
            consent_ip: None,
            consent_user_agent: None,
            consent_text: None,
            auth_method: None,
            auth_passed_at: None,
            fields: vec![
                field("CHECKBOX", Some("Agree"), "true"),
                field("CHECKBOX", None, "false"),
                field("RADIO", Some("Plan"), "שנתי"),
                field("NUMBER", Some("Seats"), "12.50"),
            ],
        };
        let texts = |language| -> Vec<String> {
            let certificate = Certificate {
                language,
                title: "Lease".into(),
                code: "ABC".into(),
                document_id: "id".into(),
                original_sha256: "0".repeat(64),
                completed_at: "2026-11-21T22:38:39.123Z".into(),
                recipients: vec![recipient.clone()],
                audit: Vec::new(),
            };
            certificate_lines(&certificate, "0")
                .into_iter()
                .map(|line| line.text)
                .collect()
        };
        let english = texts(Language::English);
        for expected in [
            "Fields filled in".to_owned(),
            format!("Checkbox ({}): Checked", typeset::recorded("Agree")),
            "Checkbox: Not checked".to_owned(),
            format!(
                "Choice ({}): {}",
                typeset::recorded("Plan"),
                typeset::recorded("שנתי")
            ),
            format!(
                "Number ({}): {}",
                typeset::recorded("Seats"),
                typeset::recorded("12.50")
            ),
        ] {
            assert!(english.contains(&expected), "{expected:?} in {english:#?}");
        }
        let german = texts(Language::German);
        assert!(
            german
                .iter()
                .any(|t| t.starts_with("Kontrollkästchen") && t.ends_with("Angekreuzt")),
            "{german:#?}"
        );
    }
}
