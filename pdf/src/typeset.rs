//! Text in any script for the final PDF: font choice, shaping, bidi layout and embedding.
//!
//! Every piece of text that the final PDF shows (stamped values and certificate lines) goes
//! through here. A line is laid out with the Unicode bidi algorithm (`unicode-bidi`), each
//! character gets the first shipped font that has it (see [`FACES`]), each run of one font and
//! one direction is shaped with `rustybuzz` (so Arabic joins, Devanagari reorders and ligates),
//! and the glyphs are drawn from font subsets embedded as `Type0`/`CIDFontType2` fonts with a
//! `ToUnicode` map. Each drawn line is also marked with its text as `/ActualText`, in logical
//! order, so that text extraction gives back exactly the string, whatever the glyph order.
//!
//! A character that no shipped font has is drawn as the font's missing-glyph box (never `?`)
//! and still extracts as itself through `/ActualText`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};
use rustybuzz::{Direction, UnicodeBuffer, ttf_parser::GlyphId};
use sha2::{Digest, Sha256};
use subsetter::GlyphRemapper;
use unicode_bidi::ParagraphBidiInfo;

/// The shipped fonts (`pdf/fonts/`, licences there), in order of preference: a character is
/// drawn with the first that has it, and a letter goes back to an earlier font as soon as that
/// one has it. Latin, Greek and Cyrillic come from Noto Sans; Arabic, Hebrew and Devanagari from
/// their Noto Sans families; Chinese (the 20,900 unified ideographs of U+4E00–U+9FC3), Japanese
/// kana and Korean Hangul from WenQuanYi Micro Hei, a 5 MB TrueType collection derived from
/// Droid Sans Fallback, where Noto Sans CJK would be 16 MB or more per weight. Each entry is the
/// PostScript name, the file, and the face's index in the file.
const FACES: [(&str, &[u8], u32); 5] = [
    (
        "NotoSans-Regular",
        include_bytes!("../fonts/NotoSans-Regular.ttf"),
        0,
    ),
    (
        "NotoSansArabic-Regular",
        include_bytes!("../fonts/NotoSansArabic-Regular.ttf"),
        0,
    ),
    (
        "NotoSansHebrew-Regular",
        include_bytes!("../fonts/NotoSansHebrew-Regular.ttf"),
        0,
    ),
    (
        "NotoSansDevanagari-Regular",
        include_bytes!("../fonts/NotoSansDevanagari-Regular.ttf"),
        0,
    ),
    (
        "WenQuanYiMicroHei",
        include_bytes!("../fonts/wqy-microhei.ttc"),
        0,
    ),
];

/// The shipped font files, by file name, for pages that show text as the final PDF will (the
/// signing page's typed-signature preview).
pub fn font_files() -> impl Iterator<Item = (&'static str, &'static [u8])> {
    FONT_FILES.iter().copied()
}

const FONT_FILES: [(&str, &[u8]); 5] = [
    ("NotoSans-Regular.ttf", FACES[0].1),
    ("NotoSansArabic-Regular.ttf", FACES[1].1),
    ("NotoSansHebrew-Regular.ttf", FACES[2].1),
    ("NotoSansDevanagari-Regular.ttf", FACES[3].1),
    ("wqy-microhei.ttc", FACES[4].1),
];

/// The font whose missing-glyph box stands for characters that no font has.
const FALLBACK_FACE: usize = 0;

struct Face {
    shaper: rustybuzz::Face<'static>,
    /// Thousandths of the font size per font unit.
    scale: f64,
    /// The `hhea` ascender and descender, in thousandths of the font size.
    ascent: f64,
    descent: f64,
}

static LOADED: LazyLock<Vec<Face>> = LazyLock::new(|| {
    FACES
        .iter()
        .map(|(name, data, index)| {
            let shaper = rustybuzz::Face::from_slice(data, *index)
                .unwrap_or_else(|| panic!("the shipped font {name} does not parse"));
            let scale = 1000.0 / f64::from(shaper.units_per_em());
            let ascent = f64::from(shaper.ascender()) * scale;
            let descent = f64::from(shaper.descender()) * scale;
            Face {
                shaper,
                scale,
                ascent,
                descent,
            }
        })
        .collect()
});

/// One glyph of a shaped line, in visual order. Lengths are thousandths of the font size.
#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    face: usize,
    id: u16,
    advance: f64,
    x_offset: f64,
    y_offset: f64,
    /// The byte offset in the line's text of the cluster the glyph belongs to.
    cluster: usize,
    /// The characters this glyph stands for, for the `ToUnicode` map: its cluster's text on
    /// the cluster's first glyph, empty on the others.
    text: String,
}

/// A line of text shaped and laid out in visual order.
#[derive(Debug, Clone)]
pub(crate) struct Shaped {
    glyphs: Vec<Glyph>,
    /// The line's directional runs in visual order.
    runs: Vec<Run>,
    /// Thousandths of the font size.
    pub width: f64,
    /// The highest ascender and lowest descender of the fonts used, in thousandths of the font
    /// size.
    pub ascent: f64,
    pub descent: f64,
    /// Whether the line's base direction is right to left.
    pub rtl: bool,
}

/// A run of one direction, drawn inside a `/Span` whose `/ActualText` is `actual`.
#[derive(Debug, Clone)]
struct Run {
    glyphs: std::ops::Range<usize>,
    /// The run's characters in the order they are drawn: the logical order for left-to-right
    /// text, reversed for right-to-left text. Text extractors (poppler, Acrobat) apply the bidi
    /// algorithm to what they extract, as they do to glyphs drawn in visual order, and so give
    /// back the logical order.
    actual: String,
}

/// `text` with each run of white space made one plain space and other control characters
/// removed, as the signing page's preview shows a typed value.
pub(crate) fn clean(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !in_space {
                cleaned.push(' ');
            }
            in_space = true;
        } else if !c.is_control() {
            cleaned.push(c);
            in_space = false;
        }
    }
    cleaned
}

fn has_glyph(face: usize, c: char) -> bool {
    LOADED[face]
        .shaper
        .glyph_index(c)
        .is_some_and(|id| id.0 != 0)
}

/// The font for each character of `text`, by byte offset of the character.
fn faces_for(text: &str) -> Vec<(usize, usize)> {
    let mut chosen = Vec::new();
    let mut previous: Option<usize> = None;
    for (offset, c) in text.char_indices() {
        let first = (0..FACES.len()).find(|&face| has_glyph(face, c));
        let face = match first {
            // A letter goes to the first font that has it.
            Some(first) if c.is_alphabetic() => first,
            // Anything else (spaces, digits, punctuation) stays in the font of what precedes
            // it when that font has it.
            Some(first) => previous
                .filter(|&previous| has_glyph(previous, c))
                .unwrap_or(first),
            // A joiner or variation selector that no font has stays with its base.
            None => previous.filter(|_| is_joining(c)).unwrap_or(FALLBACK_FACE),
        };
        chosen.push((offset, face));
        previous = Some(face);
    }
    chosen
}

fn is_joining(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{0300}'..='\u{036F}')
}

impl Shaped {
    /// The advance of the glyphs that stand for the bytes `range` of the line's cleaned text.
    pub(crate) fn width_between(&self, range: std::ops::Range<usize>) -> f64 {
        self.glyphs
            .iter()
            .filter(|glyph| range.contains(&glyph.cluster))
            .map(|glyph| glyph.advance)
            .sum()
    }

    /// The advance of a space in the line's first font (Noto Sans for an empty line).
    pub(crate) fn space_width(&self) -> f64 {
        let face = self.glyphs.first().map_or(0, |glyph| glyph.face);
        let shaper = &LOADED[face].shaper;
        shaper
            .glyph_index(' ')
            .and_then(|id| shaper.glyph_hor_advance(id))
            .map_or(250.0, |advance| f64::from(advance) * LOADED[face].scale)
    }
}

/// First strong isolate and pop directional isolate: text between them is laid out in its own
/// direction (that of its first strong character) whatever surrounds it, as a `<bdi>` is. They
/// are not drawn.
pub(crate) const FSI: char = '\u{2068}';
pub(crate) const PDI: char = '\u{2069}';

/// Left-to-right isolate: the text up to the next [`PDI`] is laid out left to right.
const LRI: char = '\u{2066}';

/// `text` isolated from the line around it (see [`FSI`]): a time, an address or a name inside
/// right-to-left text keeps its own order (`2026-11-21T22:38:39.123Z` after Arabic words would
/// otherwise be read as Arabic numbers and separators, and reordered). `text` must hold no bidi
/// controls of its own: a recorded value goes through [`recorded`].
pub(crate) fn isolate(text: &str) -> String {
    format!("{FSI}{text}{PDI}")
}

/// A value someone wrote (a title, a name, a typed value, a reason, a user agent), as the legal
/// record draws it: every character that would reorder text or draw nothing
/// ([`signet_i18n::bidi::is_hidden`]: bidi controls and marks, zero-width and other invisible
/// format characters) drawn as a visible escape, `<U+202E>`, in stored order, each escape an
/// isolate of its own that reads left to right in any line. What remains is laid out by the
/// bidi algorithm as letters, digits and punctuation, which cannot make stored text read
/// otherwise than it is.
pub(crate) fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if signet_i18n::bidi::is_hidden(c) {
            out.push(LRI);
            out.push('<');
            out.push_str(&signet_i18n::bidi::code_point(c));
            out.push('>');
            out.push(PDI);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`escaped`], isolated from the line it is placed in ([`isolate`]): neither the value nor its
/// neighbours can reorder the other.
pub(crate) fn recorded(value: &str) -> String {
    isolate(&escaped(value))
}

/// The invisible characters that direct the bidi algorithm: they take part in laying a line
/// out but are not drawn, and are left out of its extracted text. Only Signet's own isolates
/// reach the layout: stored ones are [`escaped`] first.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The base direction of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    /// From the first strong character, as for a value someone typed.
    Auto,
    /// Left to right, as for a line of a certificate in a left-to-right language.
    Ltr,
    /// Right to left, as for a line of a certificate in Arabic.
    Rtl,
}

/// Lays `text` out as one line (after [`clean`]ing it): bidi, fonts, shaping.
pub(crate) fn shape(text: &str) -> Shaped {
    shape_as(text, Base::Auto)
}

/// [`shape`] with the given base direction.
pub(crate) fn shape_as(text: &str, base: Base) -> Shaped {
    let text = clean(text);
    let mut glyphs = Vec::new();
    let mut visual_runs = Vec::new();
    let mut rtl_line = false;
    if !text.is_empty() {
        let level = match base {
            Base::Auto => None,
            Base::Ltr => Some(unicode_bidi::Level::ltr()),
            Base::Rtl => Some(unicode_bidi::Level::rtl()),
        };
        let bidi = ParagraphBidiInfo::new(&text, level);
        rtl_line = bidi.paragraph_level.is_rtl();
        let (levels, runs) = bidi.visual_runs(0..text.len());
        let faces = faces_for(&text);
        for run in runs {
            let rtl = levels[run.start].is_rtl();
            // Split the level run where the font changes.
            let mut pieces: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
            // Bidi controls are not drawn: a piece ends before one.
            let mut after_control = false;
            for &(offset, face) in faces.iter().filter(|(offset, _)| run.contains(offset)) {
                if text[offset..].starts_with(is_bidi_control) {
                    after_control = true;
                    continue;
                }
                match pieces.last_mut() {
                    Some((last, range)) if *last == face && !after_control => {
                        range.end = next_char(&text, offset)
                    }
                    _ => pieces.push((face, offset..next_char(&text, offset))),
                }
                after_control = false;
            }
            if rtl {
                pieces.reverse();
            }
            let first = glyphs.len();
            for (face, range) in pieces {
                shape_piece(&text, face, range, rtl, &mut glyphs);
            }
            let run_text = text[run].chars().filter(|&c| !is_bidi_control(c));
            if glyphs.len() == first {
                // Only bidi controls: nothing to draw.
                continue;
            }
            visual_runs.push(Run {
                glyphs: first..glyphs.len(),
                actual: if rtl {
                    run_text.rev().collect()
                } else {
                    run_text.collect()
                },
            });
        }
    }
    let width = glyphs.iter().map(|glyph| glyph.advance).sum();
    let mut faces: Vec<usize> = glyphs.iter().map(|glyph| glyph.face).collect();
    faces.sort_unstable();
    faces.dedup();
    let metric = |pick: fn(&Face) -> f64, fold: fn(f64, f64) -> f64, default: f64| {
        faces
            .iter()
            .map(|&face| pick(&LOADED[face]))
            .reduce(fold)
            .unwrap_or(default)
    };
    Shaped {
        rtl: rtl_line,
        ascent: metric(|face| face.ascent, f64::max, 1000.0),
        descent: metric(|face| face.descent, f64::min, 0.0),
        glyphs,
        runs: visual_runs,
        width,
    }
}

fn next_char(text: &str, offset: usize) -> usize {
    offset + text[offset..].chars().next().map_or(0, char::len_utf8)
}

fn shape_piece(
    text: &str,
    face: usize,
    range: std::ops::Range<usize>,
    rtl: bool,
    glyphs: &mut Vec<Glyph>,
) {
    let offset = range.start;
    let piece = &text[range];
    let loaded = &LOADED[face];
    let mut buffer = UnicodeBuffer::new();
    buffer.push_str(piece);
    buffer.guess_segment_properties();
    buffer.set_direction(if rtl {
        Direction::RightToLeft
    } else {
        Direction::LeftToRight
    });
    let shaped = rustybuzz::shape(&loaded.shaper, &[], buffer);
    let infos = shaped.glyph_infos();
    let positions = shaped.glyph_positions();
    // Cluster boundaries, to give each cluster's first glyph the cluster's text.
    let mut starts: Vec<usize> = infos.iter().map(|info| info.cluster as usize).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut seen = std::collections::HashSet::new();
    for (info, position) in infos.iter().zip(positions) {
        let start = info.cluster as usize;
        let end = starts
            .iter()
            .copied()
            .find(|&s| s > start)
            .unwrap_or(piece.len());
        let text = if seen.insert(start) {
            piece.get(start..end).unwrap_or_default().to_owned()
        } else {
            String::new()
        };
        glyphs.push(Glyph {
            face,
            id: u16::try_from(info.glyph_id).unwrap_or(0),
            advance: f64::from(position.x_advance) * loaded.scale,
            x_offset: f64::from(position.x_offset) * loaded.scale,
            y_offset: f64::from(position.y_offset) * loaded.scale,
            cluster: offset + start,
            text,
        });
    }
}

/// The subsets of the shipped fonts that one set of content streams uses, written into a
/// document by [`Fonts::finish`].
pub(crate) struct Fonts {
    used: BTreeMap<usize, Subset>,
}

struct Subset {
    id: ObjectId,
    remapper: GlyphRemapper,
    /// Original glyph id to its text, for the `ToUnicode` map.
    texts: BTreeMap<u16, String>,
}

impl Fonts {
    pub(crate) fn new() -> Fonts {
        Fonts {
            used: BTreeMap::new(),
        }
    }

    /// The font objects `line` needs, by font index; their ids are reserved in `doc` on first
    /// use.
    pub(crate) fn objects_for(
        &mut self,
        doc: &mut Document,
        line: &Shaped,
    ) -> Result<Vec<(usize, ObjectId)>, lopdf::Error> {
        let mut objects = Vec::new();
        for glyph in &line.glyphs {
            if objects.iter().any(|&(face, _)| face == glyph.face) {
                continue;
            }
            let id = match self.used.get(&glyph.face) {
                Some(subset) => subset.id,
                None => {
                    let id = doc.try_new_object_id()?;
                    self.used.insert(
                        glyph.face,
                        Subset {
                            id,
                            remapper: GlyphRemapper::new(),
                            texts: BTreeMap::new(),
                        },
                    );
                    id
                }
            };
            objects.push((glyph.face, id));
        }
        Ok(objects)
    }

    /// Every font used so far, by font index.
    pub(crate) fn all(&self) -> Vec<(usize, ObjectId)> {
        self.used
            .iter()
            .map(|(&face, subset)| (face, subset.id))
            .collect()
    }

    /// The operators that draw `line` at `size` points with its left end at `(x, baseline)`,
    /// each directional run inside a `/Span` with its `/ActualText`. `name` gives the resource
    /// name of each font index; [`Fonts::objects_for`] must have been called for the line.
    pub(crate) fn draw(
        &mut self,
        line: &Shaped,
        name: impl Fn(usize) -> String,
        size: f64,
        x: f64,
        baseline: f64,
        color: Option<[f64; 3]>,
    ) -> Vec<u8> {
        if line.glyphs.is_empty() {
            return Vec::new();
        }
        let mut ops = String::from("BT\n");
        if let Some(color) = color {
            ops.push_str(&format!("{} rg\n", crate::content_stream::numbers(&color)));
        }
        let mut pen = 0.0;
        let mut face = None;
        let scale = size / 1000.0;
        for run in &line.runs {
            ops.push_str(&format!(
                "/Span <</ActualText {}>> BDC\n",
                utf16_hex(&run.actual, true)
            ));
            // The PDF's own pen position within the open TJ, if one is open.
            let mut open: Option<f64> = None;
            for glyph in &line.glyphs[run.glyphs.clone()] {
                let Some(subset) = self.used.get_mut(&glyph.face) else {
                    continue;
                };
                let cid = subset.remapper.remap(glyph.id);
                if !glyph.text.is_empty() {
                    subset
                        .texts
                        .entry(glyph.id)
                        .or_insert_with(|| glyph.text.clone());
                }
                let width = glyph_width(glyph.face, glyph.id);
                let offset = glyph.x_offset != 0.0 || glyph.y_offset != 0.0;
                let same_font = face == Some(glyph.face);
                match open {
                    Some(pdf_pen) if same_font && !offset => {
                        // A positive number moves the next glyph left.
                        let adjust = pdf_pen - pen;
                        if adjust.abs() > 0.01 {
                            ops.push_str(&format!(
                                "{} ",
                                crate::content_stream::number_text(adjust)
                            ));
                        }
                    }
                    _ => {
                        if open.is_some() {
                            ops.push_str("] TJ\n");
                        }
                        if !same_font {
                            ops.push_str(&format!(
                                "/{} {} Tf\n",
                                name(glyph.face),
                                crate::content_stream::number_text(size)
                            ));
                            face = Some(glyph.face);
                        }
                        ops.push_str(&format!(
                            "1 0 0 1 {} Tm\n[",
                            crate::content_stream::numbers(&[
                                x + (pen + glyph.x_offset) * scale,
                                baseline + glyph.y_offset * scale,
                            ])
                        ));
                    }
                }
                ops.push_str(&format!("<{cid:04X}>"));
                // After an offset glyph, the next one starts afresh at its own position.
                open = (!offset).then_some(pen + width);
                if offset {
                    ops.push_str("] TJ\n");
                }
                pen += glyph.advance;
            }
            if open.is_some() {
                ops.push_str("] TJ\n");
            }
            ops.push_str("EMC\n");
        }
        ops.push_str("ET\n");
        ops.into_bytes()
    }

    /// Writes each used font, subset, under the id reserved for it.
    pub(crate) fn finish(self, doc: &mut Document) -> Result<(), String> {
        for (face, subset) in self.used {
            let font = font_objects(doc, face, &subset)?;
            doc.objects.insert(subset.id, font.into());
        }
        Ok(())
    }
}

/// A glyph's advance width as the font's `hmtx` has it, in thousandths of the font size.
fn glyph_width(face: usize, id: u16) -> f64 {
    let loaded = &LOADED[face];
    f64::from(loaded.shaper.glyph_hor_advance(GlyphId(id)).unwrap_or(0)) * loaded.scale
}

/// `text` as a PDF hex string in UTF-16BE, with a byte order mark if `bom`.
fn utf16_hex(text: &str, bom: bool) -> String {
    let mut hex = String::from("<");
    if bom {
        hex.push_str("FEFF");
    }
    for unit in text.encode_utf16() {
        hex.push_str(&format!("{unit:04X}"));
    }
    hex.push('>');
    hex
}

/// The `Type0` font dictionary of a subset, after adding its descendant, descriptor, font
/// file and `ToUnicode` map to `doc`.
fn font_objects(doc: &mut Document, face: usize, subset: &Subset) -> Result<Dictionary, String> {
    let (base_name, data, index) = FACES[face];
    let loaded = &LOADED[face];
    let bytes = subsetter::subset(data, index, &subset.remapper)
        .map_err(|error| format!("cannot subset {base_name}: {error}"))?;
    let add = |doc: &mut Document, object: Object| {
        doc.try_add_object(object)
            .map_err(|error| error.to_string())
    };
    let compressed = |dict: Dictionary, content: Vec<u8>| {
        let mut stream = Stream::new(dict, content);
        stream
            .compress()
            .map(|()| stream)
            .map_err(|error| error.to_string())
    };

    // A subset's name starts with a tag of six capitals that tells it from other subsets.
    let mut glyphs: Vec<u16> = subset.remapper.remapped_gids().collect();
    glyphs.sort_unstable();
    let digest = Sha256::digest(
        glyphs
            .iter()
            .flat_map(|id| id.to_be_bytes())
            .collect::<Vec<u8>>(),
    );
    let tag: String = digest[..6]
        .iter()
        .map(|byte| char::from(b'A' + byte % 26))
        .collect();
    let font_name = format!("{tag}+{base_name}");

    let file_length = bytes.len() as i64;
    let file = add(
        doc,
        compressed(dictionary! { "Length1" => file_length }, bytes)?.into(),
    )?;
    let shaper = &loaded.shaper;
    let scaled = |value: i16| (f64::from(value) * loaded.scale).round() as i64;
    let bbox = shaper.global_bounding_box();
    let descriptor = add(
        doc,
        dictionary! {
            "Type" => "FontDescriptor",
            "FontName" => Object::Name(font_name.clone().into_bytes()),
            "Flags" => 4,
            "FontBBox" => vec![
                scaled(bbox.x_min).into(), scaled(bbox.y_min).into(),
                scaled(bbox.x_max).into(), scaled(bbox.y_max).into(),
            ],
            "ItalicAngle" => 0,
            "Ascent" => scaled(shaper.ascender()),
            "Descent" => scaled(shaper.descender()),
            "CapHeight" => scaled(shaper.capital_height().unwrap_or(shaper.ascender())),
            "StemV" => 80,
            "FontFile2" => file,
        }
        .into(),
    )?;

    // Widths of the new glyph ids, which run from 0 without gaps.
    let mut old_by_new: Vec<(u16, u16)> = subset
        .remapper
        .remapped_gids()
        .enumerate()
        .map(|(new, old)| (new as u16, old))
        .collect();
    old_by_new.sort_unstable();
    let widths: Vec<Object> = old_by_new
        .iter()
        .map(|&(_, old)| (glyph_width(face, old).round() as i64).into())
        .collect();
    let descendant = add(
        doc,
        dictionary! {
            "Type" => "Font",
            "Subtype" => "CIDFontType2",
            "BaseFont" => Object::Name(font_name.clone().into_bytes()),
            "CIDSystemInfo" => dictionary! {
                "Registry" => Object::string_literal("Adobe"),
                "Ordering" => Object::string_literal("Identity"),
                "Supplement" => 0,
            },
            "FontDescriptor" => descriptor,
            "W" => vec![0.into(), Object::Array(widths)],
            "CIDToGIDMap" => "Identity",
        }
        .into(),
    )?;

    let mappings: Vec<String> = old_by_new
        .iter()
        .filter_map(|(new, old)| {
            let text = subset.texts.get(old)?;
            Some(format!("<{new:04X}> {}", utf16_hex(text, false)))
        })
        .collect();
    let mut cmap = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
         /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
         /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
         1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    for chunk in mappings.chunks(100) {
        cmap.push_str(&format!("{} beginbfchar\n", chunk.len()));
        for line in chunk {
            cmap.push_str(line);
            cmap.push('\n');
        }
        cmap.push_str("endbfchar\n");
    }
    cmap.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    let to_unicode = add(doc, compressed(dictionary! {}, cmap.into_bytes())?.into())?;

    Ok(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type0",
        "BaseFont" => Object::Name(font_name.into_bytes()),
        "Encoding" => "Identity-H",
        "DescendantFonts" => vec![descendant.into()],
        "ToUnicode" => to_unicode,
    })
}

#[cfg(test)]
mod tests;
