//! The certificate pages: who signed what and when, with the document's hashes and its audit
//! trail, laid out on US Letter pages in the shipped fonts.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};

use crate::content_stream::numbers;
use crate::final_pdf::{StampError, too_many_objects};
use crate::typeset::{self, Base, Fonts, Shaped};

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Certificate {
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
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CertificateAuditLine {
    pub at: String,
    pub event: String,
    pub message: String,
    pub ip_address: String,
    pub user_agent: String,
}

/// The certificate laid out on pages, with `stamped_sha256` the hash of the stamped document.
pub(crate) fn layout(certificate: &Certificate, stamped_sha256: &str) -> Vec<Vec<Placed>> {
    paginate(&certificate_lines(certificate, stamped_sha256))
}

/// Adds the certificate `pages` to `doc`, each a US Letter page under `parent`, and returns
/// references to them in order.
pub(crate) fn add_pages(
    doc: &mut Document,
    parent: ObjectId,
    pages: &[Vec<Placed>],
) -> Result<Vec<Object>, StampError> {
    let mut fonts = Fonts::new();
    let mut contents = Vec::new();
    for (index, lines) in pages.iter().enumerate() {
        contents.push(certificate_page_content(
            doc,
            &mut fonts,
            lines,
            index + 1,
            pages.len(),
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

/// A line of the certificate, before or after wrapping.
#[derive(Debug, Clone)]
struct Line {
    text: String,
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

    fn detail(label: &str, value: &str) -> Line {
        Line {
            indent: DETAIL_INDENT,
            ..Line::new(&format!("{label}: {value}"), 9.5)
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
        let shaped = typeset::shape_as(&self.text, Base::Ltr);
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
        let count = texts.len();
        texts
            .into_iter()
            .enumerate()
            .map(|(index, text)| Line {
                text,
                size: self.size,
                indent: self.indent + if index == 0 { 0.0 } else { CONTINUATION_INDENT },
                space_before: if index == 0 { self.space_before } else { 0.0 },
                keep_with_next: self.keep_with_next || index + 1 < count,
            })
            .collect()
    }
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
    let mut lines = vec![
        Line {
            space_before: 0.0,
            ..Line::section("Document")
        },
        Line::detail("Title", &certificate.title),
        Line::detail("Code", &certificate.code),
        Line::detail("Document ID", &certificate.document_id),
        Line::detail("Completed at", &certificate.completed_at),
        Line::detail("Original SHA-256", &certificate.original_sha256),
        Line::detail("Stamped SHA-256", stamped_sha256),
        Line {
            indent: DETAIL_INDENT,
            space_before: 2.0,
            ..Line::new(
                "The stamped SHA-256 is that of the signed document before these certificate \
                 pages were added, which is this file's first revision.",
                8.0,
            )
        },
        Line {
            indent: DETAIL_INDENT,
            space_before: 2.0,
            ..Line::new(
                "A PAdES seal by the operator of this Signet service covers the whole file: a \
                 PDF validator shows if it changed. It proves who issued the file, not who each \
                 signer is beyond what is recorded here.",
                8.0,
            )
        },
        Line::section(&format!("Recipients ({})", certificate.recipients.len())),
    ];
    let or_none = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    for (index, recipient) in certificate.recipients.iter().enumerate() {
        lines.extend([
            Line {
                space_before: 6.0,
                keep_with_next: true,
                ..Line::new(&format!("{}. {}", index + 1, recipient.name), 11.0)
            },
            Line::detail("Email", &recipient.email),
            Line::detail("Role", &recipient.role),
            Line::detail("Status", &recipient.status),
            Line::detail("Viewed at", &or_none(&recipient.viewed_at)),
            Line::detail("Signed at", &or_none(&recipient.signed_at)),
            Line::detail("IP address", &or_none(&recipient.ip_address)),
            Line::detail("User agent", &or_none(&recipient.user_agent)),
        ]);
    }
    lines.push(Line::section(&format!(
        "Audit trail ({} events)",
        certificate.audit.len()
    )));
    for entry in &certificate.audit {
        lines.extend([
            Line {
                space_before: 5.0,
                keep_with_next: true,
                ..Line::new(&format!("{} · {}", entry.at, entry.event), 9.5)
            },
            Line {
                indent: DETAIL_INDENT,
                keep_with_next: true,
                ..Line::new(&entry.message, 9.5)
            },
            Line {
                size: 8.5,
                ..Line::detail(
                    "IP address",
                    &format!("{} · User agent: {}", entry.ip_address, entry.user_agent),
                )
            },
        ]);
    }
    lines.iter().flat_map(Line::wrap).collect()
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
    number: usize,
    count: usize,
) -> Result<Vec<u8>, StampError> {
    let heading = if number == 1 {
        "Certificate of completion"
    } else {
        "Certificate of completion (continued)"
    };
    let mut ops = Vec::new();
    let mut line = |text: &Shaped, size: f64, x: f64, baseline: f64| {
        fonts.objects_for(doc, text).map_err(too_many_objects)?;
        ops.extend(fonts.draw(text, font_name, size, x, baseline, None));
        Ok::<_, StampError>(())
    };
    line(
        &typeset::shape_as(heading, Base::Ltr),
        HEADING_SIZE,
        MARGIN,
        HEADING_BASELINE,
    )?;
    for placed in lines {
        let Line {
            text, size, indent, ..
        } = &placed.line;
        line(
            &typeset::shape_as(text, Base::Ltr),
            *size,
            MARGIN + indent,
            placed.baseline,
        )?;
    }
    let footer = typeset::shape_as(
        &format!("Signet certificate — page {number} of {count}"),
        Base::Ltr,
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
}
