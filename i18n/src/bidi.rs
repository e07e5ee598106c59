//! Text that people wrote (titles, names, typed values, reasons, user agents) placed among
//! Signet's own words without reordering them (docs/security.md, "Text drawn from user input").
//!
//! Values are stored exactly as given; what changes is how each kind of output draws them:
//!
//! - plain text (e-mail text parts and subjects): [`in_text`] wraps a value in Unicode isolates
//!   (FSI … PDI), line by line, so that nothing in it reaches past its end;
//! - HTML (e-mail HTML parts, the console): [`html`] puts a value, escaped, in a `<bdi>`;
//! - the legal record (the final PDF) draws every [`is_hidden`] character as a visible escape
//!   (`pdf/src/typeset.rs`).
//!
//! Both isolations also balance the value's own isolates ([`balanced`]): a PDI in the value that
//! would close the isolate around it early is left out, and isolates it leaves open are closed,
//! because browsers and mail clients implement `<bdi>` by inserting the same FSI … PDI that a
//! stray PDI in the content would match.

use std::borrow::Cow;

use unicode_bidi::BidiClass;

/// First strong isolate and pop directional isolate (U+2068, U+2069): the text between them is
/// laid out in its own direction, whatever surrounds it, and cannot reorder what surrounds it.
pub const FSI: char = '\u{2068}';
pub const PDI: char = '\u{2069}';

/// The explicit directional formatting characters: embeddings and overrides (LRE, RLE, PDF,
/// LRO, RLO: U+202A–U+202E) and isolates (LRI, RLI, FSI, PDI: U+2066–U+2069).
pub fn is_explicit_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The implicit directional marks: left-to-right mark, right-to-left mark, Arabic letter mark.
/// Invisible, yet they change how the neutral characters and numbers around them are ordered.
pub fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Format characters (Unicode category Cf) that draw nothing and join nothing: zero-width
/// space, word joiner, invisible operators, the byte order mark, the soft hyphen, the
/// deprecated format characters, interlinear annotation marks and the tag characters. Not the
/// zero-width joiner and non-joiner (U+200C, U+200D), which Persian, Indic scripts and emoji
/// sequences need.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{180E}'
            | '\u{200B}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// A character that changes the order of text or draws nothing: what the legal record shows
/// as an escape, and what addresses, codes, numbers and URLs may not contain.
pub fn is_hidden(c: char) -> bool {
    is_explicit_bidi(c) || is_bidi_mark(c) || is_invisible_format(c)
}

/// The first [`is_hidden`] character of `value`, if any.
pub fn first_hidden(value: &str) -> Option<char> {
    value.chars().find(|&c| is_hidden(c))
}

/// `U+202E`: how a character is named in messages and escapes.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// Whether `value` could reorder left-to-right text around it: it holds a right-to-left
/// letter, an Arabic digit, a directional mark or an explicit directional character. Anything
/// else (Latin, CJK, digits, punctuation…) is laid out in place in left-to-right text.
pub fn can_reorder(value: &str) -> bool {
    value.chars().any(|c| {
        matches!(
            unicode_bidi::bidi_class(c),
            BidiClass::R
                | BidiClass::AL
                | BidiClass::AN
                | BidiClass::LRE
                | BidiClass::RLE
                | BidiClass::LRO
                | BidiClass::RLO
                | BidiClass::PDF
                | BidiClass::LRI
                | BidiClass::RLI
                | BidiClass::FSI
                | BidiClass::PDI
        )
    })
}

/// A paragraph separator of the bidi algorithm: text after one is a new paragraph, outside any
/// isolate opened before it.
fn is_paragraph_separator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{1C}'..='\u{1E}' | '\u{85}' | '\u{2029}')
}

/// `value` split into lines, each with the separator that ends it (empty for the last).
fn lines(value: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = value;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let Some(at) = rest.find(is_paragraph_separator) else {
            return Some((std::mem::take(&mut rest), ""));
        };
        let separator_len = if rest[at..].starts_with("\r\n") {
            2
        } else {
            rest[at..].chars().next().map_or(1, char::len_utf8)
        };
        let (line, separator) = (&rest[..at], &rest[at..at + separator_len]);
        rest = &rest[at + separator_len..];
        Some((line, separator))
    })
}

/// `value` with its isolates balanced on each line: a PDI that closes no isolate opened earlier
/// on its line is left out, and isolates still open at the end of a line are closed there.
/// Everything else is kept as it is, embeddings and overrides included (the isolate around
/// the value ends them).
pub fn balanced(value: &str) -> Cow<'_, str> {
    if !value.chars().any(|c| matches!(c, '\u{2066}'..='\u{2069}')) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 4);
    for (line, separator) in lines(value) {
        let mut open = 0usize;
        for c in line.chars() {
            match c {
                '\u{2066}'..='\u{2068}' => open += 1,
                PDI if open == 0 => continue,
                PDI => open -= 1,
                _ => {}
            }
            out.push(c);
        }
        out.extend(std::iter::repeat_n(PDI, open));
        out.push_str(separator);
    }
    Cow::Owned(out)
}

/// `value` isolated for plain text: each of its lines (balanced) between FSI and PDI, so that
/// it is laid out in its own direction and nothing in it reorders the text around it.
pub fn isolate(value: &str) -> String {
    let balanced = balanced(value);
    let mut out = String::with_capacity(balanced.len() + 8);
    for (line, separator) in lines(&balanced) {
        out.push(FSI);
        out.push_str(line);
        out.push(PDI);
        out.push_str(separator);
    }
    out
}

/// `value` as it is placed in a sentence of plain text whose direction is right to left
/// (`right_to_left`) or left to right: isolated ([`isolate`]) in right-to-left text, where even
/// a time or an address would be reordered, and in left-to-right text when it [`can_reorder`];
/// as it is otherwise, since isolating it would change nothing (and e-mail subjects keep no
/// invisible marks they do not need).
pub fn in_text(value: &str, right_to_left: bool) -> Cow<'_, str> {
    if right_to_left || can_reorder(value) {
        Cow::Owned(isolate(value))
    } else {
        Cow::Borrowed(value)
    }
}

/// `value` for HTML: escaped and balanced ([`balanced`]) inside a `<bdi>`, which lays it out in
/// its own direction and keeps it from reordering the text around it.
pub fn html(value: &str) -> String {
    format!("<bdi>{}</bdi>", escape_html(&balanced(value)))
}

/// `text` with the characters that mean something in HTML escaped (for text and attributes).
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_the_bidi_controls_and_invisible_formats_only() {
        for c in [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{200B}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{E0041}',
        ] {
            assert!(is_hidden(c), "{}", code_point(c));
        }
        // Letters of right-to-left scripts, joiners, spaces and punctuation are text.
        for c in "محمد דוד प्रिया 王芳 Zoë $1.00 \u{200C}\u{200D}\u{FE0F}\t\n".chars()
        {
            assert!(!is_hidden(c), "{}", code_point(c));
        }
        assert_eq!(first_hidden("Lease \u{202E}fdp.exe"), Some('\u{202E}'));
        assert_eq!(code_point('\u{202E}'), "U+202E");
        assert_eq!(code_point('\u{E0041}'), "U+E0041");
    }

    #[test]
    fn only_values_that_can_reorder_left_to_right_text_need_isolating() {
        for plain in [
            "Ann",
            "Zoë O'Brien, \"Bob\"",
            "王芳",
            "2099-01-01T00:00:00Z",
        ] {
            assert!(!can_reorder(plain), "{plain}");
            assert_eq!(in_text(plain, false), plain);
            assert_eq!(in_text(plain, true), format!("{FSI}{plain}{PDI}"));
        }
        // Nothing to isolate.
        assert_eq!(in_text("", true), "");
        for reorders in [
            "דוד",
            "محمد",
            "١٢٣",
            "a\u{200F}b",
            "$\u{202E}00.00001\u{202C}",
        ] {
            assert!(can_reorder(reorders), "{reorders}");
            assert_eq!(in_text(reorders, false), format!("{FSI}{reorders}{PDI}"));
        }
    }

    #[test]
    fn an_isolated_value_cannot_close_its_isolate_early_or_leave_one_open() {
        // A PDI with no isolate of the value's own would close the isolate around it, and the
        // override after it would then reverse the rest of the sentence.
        assert_eq!(
            isolate("x\u{2069}\u{202E}evil"),
            format!("{FSI}x\u{202E}evil{PDI}")
        );
        // The value's own isolates are kept, and closed at the end of their line.
        assert_eq!(
            isolate("a\u{2067}b\u{2069}c\u{2066}d"),
            format!("{FSI}a\u{2067}b\u{2069}c\u{2066}d{PDI}{PDI}")
        );
        // Each line is a paragraph of its own: isolated on its own.
        assert_eq!(
            isolate("one\u{202E}\r\ntwo\u{2068}\nthree"),
            format!("{FSI}one\u{202E}{PDI}\r\n{FSI}two\u{2068}{PDI}{PDI}\n{FSI}three{PDI}")
        );
        assert_eq!(balanced("plain"), Cow::Borrowed("plain"));
    }

    #[test]
    fn html_values_are_escaped_and_isolated() {
        assert_eq!(
            html("Mallory <a href=\"x\">&'\u{2069}\u{202E}"),
            "<bdi>Mallory &lt;a href=&quot;x&quot;&gt;&amp;&#39;\u{202E}</bdi>"
        );
    }
}
