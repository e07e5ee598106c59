//! What the text reader needs of a font: how its strings split into character codes, each
//! code's advance width and Unicode text, and how far it reaches above and below the baseline.

use lopdf::{Dictionary, Document, Encoding, Object, dictionary};

use super::standard_widths;

type UnicodeMap = Box<dyn Fn(u32, u8) -> Option<Vec<u16>>>;

pub(super) struct Font {
    /// Type0 (composite) fonts take two bytes a code; simple fonts one.
    two_byte: bool,
    widths: Widths,
    /// The `/ToUnicode` map, read by lopdf's CMap parser (bfchar, bfrange with arrays).
    to_unicode: Option<UnicodeMap>,
    /// A simple font's text for each byte from its encoding, when it has no usable `/ToUnicode`.
    by_encoding: Vec<Option<String>>,
    /// Thousandths of an em above and below the baseline (descent negative).
    pub(super) ascent: f64,
    pub(super) descent: f64,
    /// Glyph space to text space: 1/1000 except for Type3 fonts, which say.
    scale: f64,
}

enum Widths {
    Simple {
        first: u32,
        widths: Vec<f64>,
        missing: f64,
        standard: Option<&'static [(char, u16)]>,
    },
    Composite {
        default: f64,
        ranges: Vec<(u32, u32, f64)>,
    },
}

/// One code of a string: where it is and what it shows.
pub(super) struct Code {
    pub(super) start: usize,
    pub(super) len: usize,
    pub(super) code: u32,
}

impl Font {
    /// Reads a font dictionary. `inflate_limit` bounds the `/ToUnicode` stream's decoding.
    pub(super) fn read(doc: &Document, font: &Dictionary, inflate_limit: usize) -> Font {
        let subtype = name(doc, font, b"Subtype").unwrap_or_default();
        let base_font = name(doc, font, b"BaseFont").unwrap_or_default();
        let to_unicode = unicode_map(doc, font, inflate_limit);
        if subtype == b"Type0" {
            let descendant = font
                .get_deref(b"DescendantFonts", doc)
                .and_then(Object::as_array)
                .ok()
                .and_then(|fonts| fonts.first())
                .and_then(|f| doc.dereference(f).ok())
                .and_then(|(_, f)| f.as_dict().ok());
            let (ascent, descent) = descendant
                .and_then(|d| metrics_of(doc, d))
                .unwrap_or((950.0, -350.0));
            return Font {
                two_byte: true,
                widths: descendant.map_or(
                    Widths::Composite {
                        default: 1000.0,
                        ranges: Vec::new(),
                    },
                    |d| composite_widths(doc, d),
                ),
                to_unicode,
                by_encoding: Vec::new(),
                ascent,
                descent,
                scale: 0.001,
            };
        }
        let by_encoding = if to_unicode.is_some() {
            Vec::new()
        } else {
            encoding_table(doc, font, inflate_limit)
        };
        let standard = standard_metrics(&base_font);
        let (ascent, descent) = metrics_of(doc, font)
            .or(standard.map(|s| (s.1, s.2)))
            .unwrap_or((950.0, -350.0));
        let first = font
            .get_deref(b"FirstChar", doc)
            .ok()
            .and_then(number)
            .unwrap_or(0.0) as u32;
        let widths: Vec<f64> = font
            .get_deref(b"Widths", doc)
            .and_then(Object::as_array)
            .map(|widths| {
                widths
                    .iter()
                    .take(256)
                    .map(|w| {
                        doc.dereference(w)
                            .ok()
                            .and_then(|(_, w)| number(w))
                            .unwrap_or(0.0)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let missing = font
            .get_deref(b"FontDescriptor", doc)
            .and_then(Object::as_dict)
            .ok()
            .and_then(|d| d.get_deref(b"MissingWidth", doc).ok())
            .and_then(number)
            .unwrap_or(if standard.is_some() { 0.0 } else { 500.0 });
        let scale = if subtype == b"Type3" {
            font.get_deref(b"FontMatrix", doc)
                .and_then(Object::as_array)
                .ok()
                .and_then(|m| m.first())
                .and_then(number)
                .unwrap_or(0.001)
        } else {
            0.001
        };
        Font {
            two_byte: false,
            widths: Widths::Simple {
                first,
                widths,
                missing,
                standard: if standard.is_some() && font.get(b"Widths").is_err() {
                    standard.map(|s| s.0)
                } else {
                    None
                },
            },
            to_unicode,
            by_encoding,
            ascent,
            descent,
            scale,
        }
    }

    /// A font that could not be read: one byte a code, half an em wide.
    pub(super) fn unknown() -> Font {
        Font {
            two_byte: false,
            widths: Widths::Simple {
                first: 0,
                widths: Vec::new(),
                missing: 500.0,
                standard: None,
            },
            to_unicode: None,
            by_encoding: Vec::new(),
            ascent: 950.0,
            descent: -350.0,
            scale: 0.001,
        }
    }

    pub(super) fn codes(&self, bytes: &[u8]) -> Vec<Code> {
        if self.two_byte {
            bytes
                .chunks(2)
                .enumerate()
                .map(|(i, pair)| Code {
                    start: i * 2,
                    len: pair.len(),
                    code: pair.iter().fold(0, |code, &b| code * 256 + u32::from(b)),
                })
                .collect()
        } else {
            bytes
                .iter()
                .enumerate()
                .map(|(i, &b)| Code {
                    start: i,
                    len: 1,
                    code: u32::from(b),
                })
                .collect()
        }
    }

    /// Whether word spacing applies to the code: a one-byte code 32.
    pub(super) fn is_word_space(&self, code: &Code) -> bool {
        code.len == 1 && code.code == 32
    }

    /// The advance of `code` in text space units per unit of font size.
    pub(super) fn width(&self, code: &Code) -> f64 {
        let glyph_units = match &self.widths {
            Widths::Simple {
                first,
                widths,
                missing,
                standard,
            } => match standard {
                Some([]) => 600.0,
                Some(table) => self
                    .text(code)
                    .and_then(|text| text.chars().next())
                    .and_then(|c| table.binary_search_by_key(&c, |&(k, _)| k).ok())
                    .map_or(*missing, |i| f64::from(table[i].1)),
                None => code
                    .code
                    .checked_sub(*first)
                    .and_then(|i| widths.get(i as usize))
                    .copied()
                    .unwrap_or(*missing),
            },
            Widths::Composite { default, ranges } => {
                let after = ranges.partition_point(|&(low, _, _)| low <= code.code);
                after
                    .checked_sub(1)
                    .map(|i| ranges[i])
                    .filter(|&(_, high, _)| code.code <= high)
                    .map_or(*default, |r| r.2)
            }
        };
        glyph_units * self.scale
    }

    pub(super) fn text(&self, code: &Code) -> Option<String> {
        if let Some(map) = &self.to_unicode
            && let Some(units) = map(code.code, code.len as u8)
        {
            return Some(String::from_utf16_lossy(&units));
        }
        self.by_encoding.get(code.code as usize).cloned().flatten()
    }

    pub(super) fn glyph_scale(&self) -> f64 {
        self.scale
    }
}

fn name(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<Vec<u8>> {
    dict.get_deref(key, doc)
        .and_then(Object::as_name)
        .ok()
        .map(<[u8]>::to_vec)
}

pub(super) fn number(object: &Object) -> Option<f64> {
    match *object {
        Object::Integer(value) => Some(value as f64),
        Object::Real(value) => Some(f64::from(value)),
        _ => None,
    }
    .filter(|v| v.is_finite())
}

fn unicode_map(doc: &Document, font: &Dictionary, inflate_limit: usize) -> Option<UnicodeMap> {
    let to_unicode = font.get(b"ToUnicode").ok()?;
    // lopdf reads `/ToUnicode` only when the font has no `/Encoding`: ask it about a font that
    // has nothing else.
    let bare = dictionary! { "Type" => "Font", "ToUnicode" => to_unicode.clone() };
    match bare.get_font_encoding_with_limit(doc, inflate_limit).ok()? {
        Encoding::UnicodeMapEncoding(map) => Some(Box::new(move |code, len| map.get(code, len))),
        _ => None,
    }
}

/// A simple font's text for each byte: its `/Encoding` (a base encoding and `/Differences` by
/// glyph name), as lopdf decodes it.
fn encoding_table(doc: &Document, font: &Dictionary, inflate_limit: usize) -> Vec<Option<String>> {
    let mut bare = dictionary! { "Type" => "Font" };
    if let Ok(encoding) = font.get(b"Encoding") {
        bare.set("Encoding", encoding.clone());
    }
    let Ok(encoding) = bare.get_font_encoding_with_limit(doc, inflate_limit) else {
        return Vec::new();
    };
    (0..=255u8)
        .map(|b| {
            encoding
                .bytes_to_string(&[b])
                .ok()
                .filter(|text| !text.is_empty() && !text.contains('\u{fffd}'))
        })
        .collect()
}

/// Ascent and descent from the font's descriptor, when it gives them.
fn metrics_of(doc: &Document, font: &Dictionary) -> Option<(f64, f64)> {
    let descriptor = font
        .get_deref(b"FontDescriptor", doc)
        .and_then(Object::as_dict)
        .ok()?;
    let ascent = descriptor.get_deref(b"Ascent", doc).ok().and_then(number)?;
    let descent = descriptor
        .get_deref(b"Descent", doc)
        .ok()
        .and_then(number)
        .unwrap_or(-0.3 * ascent);
    (ascent > 0.0).then_some((ascent, descent.min(0.0)))
}

/// The standard 14 fonts a PDF may name without widths: their widths, ascent and descent.
/// Widths by character, ascent, descent.
type StandardMetrics = (&'static [(char, u16)], f64, f64);

fn standard_metrics(base_font: &[u8]) -> Option<StandardMetrics> {
    // A subset prefix (`ABCDEF+`) is not part of the name.
    let name = match base_font.iter().position(|&b| b == b'+') {
        Some(6) => &base_font[7..],
        _ => base_font,
    };
    let name = std::str::from_utf8(name).ok()?;
    Some(match name {
        "Helvetica" | "Helvetica-Oblique" | "Arial" | "Arial-Italic" | "ArialMT" => {
            (standard_widths::HELVETICA, 718.0, -207.0)
        }
        "Helvetica-Bold" | "Helvetica-BoldOblique" | "Arial-Bold" | "Arial-BoldMT" => {
            (standard_widths::HELVETICA_BOLD, 718.0, -207.0)
        }
        "Times-Roman" | "TimesNewRoman" | "TimesNewRomanPSMT" => {
            (standard_widths::TIMES_ROMAN, 683.0, -217.0)
        }
        "Times-Bold" => (standard_widths::TIMES_BOLD, 683.0, -217.0),
        "Times-Italic" => (standard_widths::TIMES_ITALIC, 683.0, -217.0),
        "Times-BoldItalic" => (standard_widths::TIMES_BOLDITALIC, 683.0, -217.0),
        "Courier" | "Courier-Bold" | "Courier-Oblique" | "Courier-BoldOblique" => {
            (COURIER, 629.0, -157.0)
        }
        _ => return None,
    })
}

/// Courier: every character 600.
const COURIER: &[(char, u16)] = &[];

fn composite_widths(doc: &Document, descendant: &Dictionary) -> Widths {
    let default = descendant
        .get_deref(b"DW", doc)
        .ok()
        .and_then(number)
        .unwrap_or(1000.0);
    let mut ranges = Vec::new();
    if let Ok(w) = descendant.get_deref(b"W", doc).and_then(Object::as_array) {
        let value = |o: &Object| doc.dereference(o).ok().and_then(|(_, o)| number(o));
        let mut i = 0;
        // `c [w1 w2 …]` or `c_first c_last w`; bounded by the array, which the load bounds.
        while i + 1 < w.len() && ranges.len() < 65_536 {
            let Some(first) = value(&w[i]) else { break };
            let first = first as u32;
            match doc.dereference(&w[i + 1]).map(|(_, o)| o) {
                Ok(Object::Array(widths)) => {
                    for (k, width) in widths.iter().enumerate() {
                        if let Some(width) = value(width) {
                            let code = first.saturating_add(k as u32);
                            ranges.push((code, code, width));
                        }
                    }
                    i += 2;
                }
                _ => {
                    let (Some(last), Some(width)) =
                        (value(&w[i + 1]), w.get(i + 2).and_then(value))
                    else {
                        break;
                    };
                    ranges.push((first, last as u32, width));
                    i += 3;
                }
            }
        }
    }
    ranges.sort_by_key(|&(low, _, _)| low);
    Widths::Composite { default, ranges }
}
