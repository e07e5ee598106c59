//! Text tags (`{{signature:Tenant}}`) found in a PDF's text, and the PDF without them: each tag
//! glyph's show operator keeps its place but moves by the glyph's advance instead of drawing
//! it, so nothing else on the page moves.

use std::collections::BTreeMap;

use lopdf::{
    Document, Object, ObjectId,
    content::{Content, Operation},
};

use super::{PageText, Source, TextBox, read_pages};
use crate::inspect::{InspectedPdf, Limits, PdfError};
use crate::sha256_hex;

/// A tag as written: its text from `{{` to `}}` (or to the end of its line when it is not
/// closed), and its box.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FoundTag {
    pub text: String,
    pub at: TextBox,
}

/// The tags of a PDF, in page and reading order, and the PDF without them (its inspection: the
/// same pages, the cleaned file's hash).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TakenTags {
    pub tags: Vec<FoundTag>,
    pub inspected: InspectedPdf,
}

/// The most tags a PDF may have: as many as a template has fields. A PDF with more is answered
/// with the first `MAX_TAGS + 1` and no file, for the caller to refuse.
pub const MAX_TAGS: usize = 1_000;
/// The most characters of a tag's text kept (a tag runs to the end of its line when it is not
/// closed): more than any tag that parses needs.
pub const MAX_TAG_CHARS: usize = 500;

/// The tags of `bytes` and, when it has any, the file without them.
pub fn take_tags(bytes: &[u8], limits: Limits) -> Result<(TakenTags, Option<Vec<u8>>), PdfError> {
    let (mut doc, inspected) = crate::inspect::read(bytes, limits)?;
    let pages = read_pages(&mut doc, limits)?;
    let mut tags = Vec::new();
    let mut edits: BTreeMap<Source, f64> = BTreeMap::new();
    for (index, page) in pages.iter().enumerate() {
        for span in tag_spans(page) {
            if tags.len() > MAX_TAGS {
                return Ok((TakenTags { tags, inspected }, None));
            }
            let text: String = page.chars[span.clone()]
                .iter()
                .take(MAX_TAG_CHARS)
                .map(|&(c, _)| c)
                .collect();
            let Some(at) = page.span_box(index as u32 + 1, span.clone()) else {
                continue;
            };
            for glyph in page.chars[span].iter().filter_map(|&(_, g)| g) {
                let glyph = &page.glyphs[glyph];
                if let Some(adjustment) = glyph.adjustment {
                    edits.insert(glyph.source, adjustment);
                }
            }
            tags.push(FoundTag {
                text: text.trim().to_owned(),
                at,
            });
        }
    }
    if tags.is_empty() {
        return Ok((TakenTags { tags, inspected }, None));
    }
    remove_glyphs(&mut doc, &edits, limits)?;
    let mut cleaned = Vec::new();
    doc.save_to(&mut cleaned)
        .map_err(|e| PdfError::Corrupt(e.to_string()))?;
    let inspected = InspectedPdf {
        sha256: sha256_hex(&cleaned),
        ..inspected
    };
    Ok((TakenTags { tags, inspected }, Some(cleaned)))
}

/// The character ranges of a page's tags: `{{` to the next `}}` on its line, or to the line's
/// end when none closes it.
fn tag_spans(page: &PageText) -> Vec<std::ops::Range<usize>> {
    let chars = &page.chars;
    let is = |i: usize, c: char| chars.get(i).is_some_and(|&(k, _)| k == c);
    let mut spans = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        if !(is(i, '{') && is(i + 1, '{')) {
            i += 1;
            continue;
        }
        let mut end = i + 2;
        let closed = loop {
            if end >= chars.len() || is(end, '\n') {
                break false;
            }
            if is(end, '}') && is(end + 1, '}') {
                break true;
            }
            if is(end, '{') && is(end + 1, '{') {
                break false;
            }
            end += 1;
        };
        let stop = if closed { end + 2 } else { end };
        spans.push(i..stop);
        i = stop;
    }
    spans
}

/// A glyph to take out of a show operator: its string's place in the operator, its bytes, and
/// the adjustment that replaces it.
type Edit = (usize, usize, usize, f64);

/// Replaces each glyph of `edits` by the `TJ` adjustment that moves as far as it did.
fn remove_glyphs(
    doc: &mut Document,
    edits: &BTreeMap<Source, f64>,
    limits: Limits,
) -> Result<(), PdfError> {
    let mut by_stream: BTreeMap<ObjectId, BTreeMap<usize, Vec<Edit>>> = BTreeMap::new();
    for (source, &adjustment) in edits {
        by_stream
            .entry(source.stream)
            .or_default()
            .entry(source.operation)
            .or_default()
            .push((source.element, source.start, source.len, adjustment));
    }
    for (id, operations) in by_stream {
        let Ok(stream) = doc.get_object_mut(id).and_then(Object::as_stream_mut) else {
            continue;
        };
        let content = stream
            .get_plain_content_with_limit(limits.max_inflated_bytes)
            .map_err(|_| PdfError::TooMuchText)?;
        let Ok(content) = Content::decode(&content) else {
            continue;
        };
        let mut rewritten = Vec::with_capacity(content.operations.len());
        for (index, operation) in content.operations.into_iter().enumerate() {
            match operations.get(&index) {
                Some(edits) => rewritten.extend(without_glyphs(operation, edits)),
                None => rewritten.push(operation),
            }
        }
        let encoded = Content {
            operations: rewritten,
        }
        .encode()
        .map_err(|e| PdfError::Corrupt(e.to_string()))?;
        stream.set_plain_content(encoded);
        let _ = stream.compress();
    }
    Ok(())
}

/// A show operator as the operators that show the same text but for the glyphs of `edits`
/// (`(element, start, len, adjustment)`), each replaced by its adjustment.
fn without_glyphs(operation: Operation, edits: &[Edit]) -> Vec<Operation> {
    let Operation { operator, operands } = operation;
    let items: Vec<Object> = match (operator.as_str(), operands.last()) {
        ("TJ", Some(Object::Array(items))) => items.clone(),
        ("Tj" | "'" | "\"", Some(string @ Object::String(..))) => vec![string.clone()],
        _ => return vec![Operation::new(&operator, operands)],
    };
    let mut shown = Vec::with_capacity(items.len() + edits.len() * 2);
    for (element, item) in items.into_iter().enumerate() {
        let Object::String(bytes, format) = &item else {
            shown.push(item);
            continue;
        };
        let mut here: Vec<_> = edits.iter().filter(|e| e.0 == element).collect();
        if here.is_empty() {
            shown.push(item);
            continue;
        }
        here.sort_by_key(|e| e.1);
        let mut from = 0;
        for &&(_, start, len, adjustment) in &here {
            if start > from {
                shown.push(Object::String(bytes[from..start].to_vec(), *format));
            }
            shown.push(Object::Real(adjustment as f32));
            from = (start + len).min(bytes.len());
        }
        if from < bytes.len() {
            shown.push(Object::String(bytes[from..].to_vec(), *format));
        }
    }
    let show = Operation::new("TJ", vec![Object::Array(shown)]);
    match operator.as_str() {
        "'" => vec![Operation::new("T*", vec![]), show],
        "\"" => vec![
            Operation::new("Tw", operands.first().cloned().into_iter().collect()),
            Operation::new("Tc", operands.get(1).cloned().into_iter().collect()),
            Operation::new("T*", vec![]),
            show,
        ],
        _ => vec![show],
    }
}
