//! The text of a PDF's pages with where each character is shown, read from the page content
//! streams (and the forms they draw), for anchors and text tags.
//!
//! The interpreter follows the text operators (`BT`/`ET`, `Tf`, `Tm`, `Td`, `TD`, `T*`, `TL`,
//! `Tc`, `Tw`, `Tz`, `Ts`, `Tj`, `TJ`, `'`, `"`) and the graphics state they depend on (`cm`,
//! `q`/`Q`, form XObjects through `Do`), and places each glyph in **displayed** space: the page
//! after its `/Rotate`, origin at the top-left corner of the visible box, y down, as fields
//! are placed. Glyphs are then gathered into lines by position, not by the order the content
//! draws them in, so that text split over several operators reads as one.
//!
//! Everything is bounded: operators, glyphs, forms drawn, decoded content and time.

mod font;
mod standard_widths;
pub(crate) mod tags;

use std::{
    collections::HashMap,
    rc::Rc,
    time::{Duration, Instant},
};

use lopdf::{Dictionary, Document, Object, ObjectId, content::Content};

use crate::inspect::{Limits, PdfError};
use crate::page_geometry::PageView;
use crate::page_tree::inherited;
use font::{Font, number};

/// The most operators one read may interpret, over all pages and forms.
pub(crate) const MAX_OPERATORS: usize = 4_000_000;
/// The most glyphs one read may place.
pub(crate) const MAX_GLYPHS: usize = 1_000_000;
/// The most form XObjects drawn, and how deep forms may nest.
const MAX_FORMS_DRAWN: usize = 10_000;
const MAX_FORM_DEPTH: usize = 8;
/// How deep `q` may nest; deeper saves are not kept (their `Q` restores the deepest kept).
const MAX_SAVED_STATES: usize = 256;

/// A box in displayed space on a page (1-based), in points, origin at the top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TextBox {
    pub page: u32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Where a glyph came from: the show operator that drew it, so that it can be taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Source {
    pub(crate) stream: ObjectId,
    pub(crate) operation: usize,
    /// The string's place in a `TJ` array (0 for the other operators).
    pub(crate) element: usize,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Glyph {
    pub(crate) text: String,
    /// The glyph's box in displayed space.
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
    /// The baseline's start and direction (a unit vector) in displayed space.
    origin: (f64, f64),
    direction: (f64, f64),
    advance: f64,
    /// The font size as displayed.
    size: f64,
    pub(crate) source: Source,
    /// The `TJ` adjustment that moves as far as the glyph does (`None` when the font size is 0).
    pub(crate) adjustment: Option<f64>,
}

/// A page's text, line by line: each character with the glyph it comes from (`None` for the
/// spaces and line breaks put in between by position).
#[derive(Debug, Default)]
pub(crate) struct PageText {
    pub(crate) glyphs: Vec<Glyph>,
    pub(crate) chars: Vec<(char, Option<usize>)>,
}

impl PageText {
    /// The union of the boxes of the glyphs of `chars[range]`.
    pub(crate) fn span_box(&self, page: u32, range: std::ops::Range<usize>) -> Option<TextBox> {
        let mut glyphs = self.chars[range].iter().filter_map(|&(_, g)| g);
        let first = &self.glyphs[glyphs.next()?];
        let (mut x0, mut y0, mut x1, mut y1) = (first.x0, first.y0, first.x1, first.y1);
        for g in glyphs {
            let g = &self.glyphs[g];
            (x0, y0, x1, y1) = (x0.min(g.x0), y0.min(g.y0), x1.max(g.x1), y1.max(g.y1));
        }
        Some(TextBox {
            page,
            x: x0,
            y: y0,
            width: x1 - x0,
            height: y1 - y0,
        })
    }
}

/// The most occurrences of one text found: one more than a document has fields, so that a caller
/// can tell "too many" from "exactly as many".
pub const MAX_OCCURRENCES: usize = 1_000;

/// Every occurrence of each of `needles` (up to [`MAX_OCCURRENCES`] + 1), page by page: white
/// space runs match one space, case counts. The box is the union of the matched glyphs' boxes.
pub fn find_text(
    bytes: &[u8],
    needles: &[String],
    limits: Limits,
) -> Result<Vec<Vec<TextBox>>, PdfError> {
    let (mut doc, _) = crate::inspect::read(bytes, limits)?;
    let pages = read_pages(&mut doc, limits)?;
    let needles: Vec<Vec<char>> = needles.iter().map(|n| normalised(n)).collect();
    let mut found = vec![Vec::new(); needles.len()];
    for (index, page) in pages.iter().enumerate() {
        let (text, positions) = normalised_page(page);
        for (needle, found) in needles.iter().zip(&mut found) {
            if needle.is_empty() {
                continue;
            }
            let mut from = 0;
            while found.len() <= MAX_OCCURRENCES
                && let Some(at) = find_from(&text, needle, from)
            {
                let span = positions[at]..positions[at + needle.len() - 1] + 1;
                if let Some(found_box) = page.span_box(index as u32 + 1, span) {
                    found.push(found_box);
                }
                from = at + needle.len();
            }
        }
    }
    Ok(found)
}

fn find_from(haystack: &[char], needle: &[char], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|i| i + from)
}

/// `text` with white space runs as one space, trimmed.
fn normalised(text: &str) -> Vec<char> {
    let mut chars = Vec::new();
    for c in text.trim().chars() {
        if c.is_whitespace() {
            if chars.last() != Some(&' ') {
                chars.push(' ');
            }
        } else {
            chars.push(c);
        }
    }
    chars
}

/// A page's characters with white space runs (line breaks included) as one space, and each
/// one's index in `page.chars`.
fn normalised_page(page: &PageText) -> (Vec<char>, Vec<usize>) {
    let mut text = Vec::with_capacity(page.chars.len());
    let mut positions = Vec::with_capacity(page.chars.len());
    for (i, &(c, _)) in page.chars.iter().enumerate() {
        if c.is_whitespace() {
            if text.last().is_some_and(|&last| last != ' ') {
                text.push(' ');
                positions.push(i);
            }
        } else {
            text.push(c);
            positions.push(i);
        }
    }
    (text, positions)
}

/// The text of every page of `doc`, in page order.
pub(crate) fn read_pages(doc: &mut Document, limits: Limits) -> Result<Vec<PageText>, PdfError> {
    let pages = crate::page_tree::leaf_pages(doc).map_err(|e| PdfError::Corrupt(e.to_string()))?;
    let mut reader = Reader {
        doc,
        budget: Budget {
            operators: MAX_OPERATORS,
            glyphs: MAX_GLYPHS,
            forms: MAX_FORMS_DRAWN,
            inflated: limits.max_inflated_bytes,
            deadline: Instant::now() + limits.max_time,
            max_time: limits.max_time,
        },
        fonts: HashMap::new(),
        decoded: HashMap::new(),
    };
    let mut texts = Vec::with_capacity(pages.len());
    for page in pages {
        let glyphs = reader.page(page)?;
        texts.push(lines(glyphs));
    }
    Ok(texts)
}

struct Budget {
    operators: usize,
    glyphs: usize,
    forms: usize,
    inflated: usize,
    deadline: Instant,
    max_time: Duration,
}

impl Budget {
    fn spend_operator(&mut self) -> Result<(), PdfError> {
        self.operators = self.operators.checked_sub(1).ok_or(PdfError::TooMuchText)?;
        if self.operators.is_multiple_of(4096) && Instant::now() > self.deadline {
            return Err(PdfError::TooSlow(self.max_time.as_secs()));
        }
        Ok(())
    }
}

type Matrix = [f64; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `a` then `b`: the PDF's `a × b` for row vectors.
fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn apply(m: &Matrix, (x, y): (f64, f64)) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

fn invert(m: &Matrix) -> Option<Matrix> {
    let det = m[0] * m[3] - m[1] * m[2];
    if det.abs() < 1e-12 || !det.is_finite() {
        return None;
    }
    let (a, b, c, d) = (m[3] / det, -m[1] / det, -m[2] / det, m[0] / det);
    Some([a, b, c, d, -(m[4] * a + m[5] * c), -(m[4] * b + m[5] * d)])
}

fn translate(x: f64, y: f64) -> Matrix {
    [1.0, 0.0, 0.0, 1.0, x, y]
}

#[derive(Clone)]
struct State {
    ctm: Matrix,
    char_spacing: f64,
    word_spacing: f64,
    horizontal_scale: f64,
    leading: f64,
    rise: f64,
    font: Option<Rc<Font>>,
    font_size: f64,
}

struct Reader<'d> {
    doc: &'d Document,
    budget: Budget,
    fonts: HashMap<ObjectId, Rc<Font>>,
    decoded: HashMap<ObjectId, Rc<Vec<lopdf::content::Operation>>>,
}

/// What a content stream is interpreted in.
struct Scope<'a> {
    resources: Option<&'a Dictionary>,
    /// User space to displayed space.
    displayed: Matrix,
    depth: usize,
}

struct TextPosition {
    matrix: Matrix,
    line: Matrix,
}

impl<'d> Reader<'d> {
    fn page(&mut self, id: ObjectId) -> Result<Vec<Glyph>, PdfError> {
        let doc = self.doc;
        let Ok(page) = doc.get_dictionary(id) else {
            return Ok(Vec::new());
        };
        let view = PageView::of(doc, page);
        let to_user = view.displayed_to_user();
        let height = view.displayed_height();
        let displayed = invert(&to_user)
            .map(|from_user| multiply(&from_user, &[1.0, 0.0, 0.0, -1.0, 0.0, height]))
            .unwrap_or(IDENTITY);
        let resources = inherited(doc, page, b"Resources", |o| o.as_dict().ok().cloned());
        let streams: Vec<ObjectId> = match page.get(b"Contents") {
            Ok(Object::Reference(id)) => match doc.get_object(*id) {
                Ok(Object::Array(items)) => {
                    items.iter().filter_map(|o| o.as_reference().ok()).collect()
                }
                _ => vec![*id],
            },
            Ok(Object::Array(items)) => {
                items.iter().filter_map(|o| o.as_reference().ok()).collect()
            }
            _ => Vec::new(),
        };
        let mut state = State {
            ctm: IDENTITY,
            char_spacing: 0.0,
            word_spacing: 0.0,
            horizontal_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
            font: None,
            font_size: 0.0,
        };
        let scope = Scope {
            resources: resources.as_ref(),
            displayed,
            depth: 0,
        };
        let mut glyphs = Vec::new();
        let mut saved = Vec::new();
        let mut position = TextPosition {
            matrix: IDENTITY,
            line: IDENTITY,
        };
        // A page's streams are one content stream cut in pieces: the state runs on.
        for stream in streams {
            self.run(
                stream,
                &scope,
                &mut state,
                &mut saved,
                &mut position,
                &mut glyphs,
            )?;
        }
        Ok(glyphs)
    }

    fn operations(&mut self, id: ObjectId) -> Result<Rc<Vec<lopdf::content::Operation>>, PdfError> {
        if let Some(ops) = self.decoded.get(&id) {
            return Ok(ops.clone());
        }
        let Ok(stream) = self.doc.get_object(id).and_then(Object::as_stream) else {
            return Ok(Rc::new(Vec::new()));
        };
        let content = match stream.get_plain_content_with_limit(self.budget.inflated) {
            Ok(content) => content,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => {
                return Err(PdfError::TooMuchText);
            }
            Err(_) => Vec::new(),
        };
        self.budget.inflated = self.budget.inflated.saturating_sub(content.len());
        let ops = std::panic::catch_unwind(|| Content::decode(&content))
            .ok()
            .and_then(Result::ok)
            .map(|c| c.operations)
            .unwrap_or_default();
        let ops = Rc::new(ops);
        self.decoded.insert(id, ops.clone());
        Ok(ops)
    }

    fn font(&mut self, resources: Option<&Dictionary>, name: &[u8]) -> Option<Rc<Font>> {
        let doc = self.doc;
        let fonts = resources?
            .get_deref(b"Font", doc)
            .and_then(Object::as_dict)
            .ok()?;
        let entry = fonts.get(name).ok()?;
        let id = entry.as_reference().ok();
        if let Some(font) = id.and_then(|id| self.fonts.get(&id)) {
            return Some(font.clone());
        }
        let dict = doc.dereference(entry).ok()?.1.as_dict().ok()?;
        let font = Rc::new(Font::read(doc, dict, self.budget.inflated));
        if let Some(id) = id {
            self.fonts.insert(id, font.clone());
        }
        Some(font)
    }

    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        stream: ObjectId,
        scope: &Scope,
        state: &mut State,
        saved: &mut Vec<State>,
        position: &mut TextPosition,
        glyphs: &mut Vec<Glyph>,
    ) -> Result<(), PdfError> {
        let ops = self.operations(stream)?;
        let floor = saved.len();
        for (index, op) in ops.iter().enumerate() {
            self.budget.spend_operator()?;
            let n = |i: usize| op.operands.get(i).and_then(number);
            match op.operator.as_str() {
                "q" if saved.len() < MAX_SAVED_STATES => saved.push(state.clone()),
                "Q" => {
                    // A form's `Q` cannot restore what was saved outside it.
                    if saved.len() > floor
                        && let Some(restored) = saved.pop()
                    {
                        *state = restored;
                    }
                }
                "cm" => {
                    if let (Some(a), Some(b), Some(c), Some(d), Some(e), Some(f)) =
                        (n(0), n(1), n(2), n(3), n(4), n(5))
                    {
                        state.ctm = multiply(&[a, b, c, d, e, f], &state.ctm);
                    }
                }
                "BT" => {
                    position.matrix = IDENTITY;
                    position.line = IDENTITY;
                }
                "Tc" => state.char_spacing = n(0).unwrap_or(state.char_spacing),
                "Tw" => state.word_spacing = n(0).unwrap_or(state.word_spacing),
                "Tz" => state.horizontal_scale = n(0).map_or(state.horizontal_scale, |v| v / 100.0),
                "TL" => state.leading = n(0).unwrap_or(state.leading),
                "Ts" => state.rise = n(0).unwrap_or(state.rise),
                "Tf" => {
                    let name = op.operands.first().and_then(|o| o.as_name().ok());
                    state.font = Some(
                        name.and_then(|name| self.font(scope.resources, name))
                            .unwrap_or_else(|| Rc::new(Font::unknown())),
                    );
                    state.font_size = n(1).unwrap_or(state.font_size);
                }
                "Td" | "TD" => {
                    if let (Some(x), Some(y)) = (n(0), n(1)) {
                        if op.operator == "TD" {
                            state.leading = -y;
                        }
                        next_line(position, x, y);
                    }
                }
                "T*" => next_line(position, 0.0, -state.leading),
                "Tm" => {
                    if let (Some(a), Some(b), Some(c), Some(d), Some(e), Some(f)) =
                        (n(0), n(1), n(2), n(3), n(4), n(5))
                    {
                        position.matrix = [a, b, c, d, e, f];
                        position.line = position.matrix;
                    }
                }
                "Tj" | "'" | "\"" => {
                    if op.operator == "\"" {
                        state.word_spacing = n(0).unwrap_or(state.word_spacing);
                        state.char_spacing = n(1).unwrap_or(state.char_spacing);
                    }
                    if op.operator != "Tj" {
                        next_line(position, 0.0, -state.leading);
                    }
                    if let Some(Object::String(bytes, _)) = op.operands.last() {
                        let at = (stream, index, 0);
                        self.show(bytes, at, scope, state, position, glyphs)?;
                    }
                }
                "TJ" => {
                    let Some(Object::Array(items)) = op.operands.first() else {
                        continue;
                    };
                    for (element, item) in items.iter().enumerate() {
                        match item {
                            Object::String(bytes, _) => {
                                let at = (stream, index, element);
                                self.show(bytes, at, scope, state, position, glyphs)?;
                            }
                            item => {
                                if let Some(adjustment) = number(item) {
                                    self.budget.spend_operator()?;
                                    let tx = -adjustment / 1000.0
                                        * state.font_size
                                        * state.horizontal_scale;
                                    position.matrix =
                                        multiply(&translate(tx, 0.0), &position.matrix);
                                }
                            }
                        }
                    }
                }
                "Do" => {
                    let name = op.operands.first().and_then(|o| o.as_name().ok());
                    if let Some(name) = name {
                        self.form(name, scope, state, saved, glyphs)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn form(
        &mut self,
        name: &[u8],
        scope: &Scope,
        state: &State,
        saved: &mut Vec<State>,
        glyphs: &mut Vec<Glyph>,
    ) -> Result<(), PdfError> {
        if scope.depth >= MAX_FORM_DEPTH {
            return Ok(());
        }
        let doc = self.doc;
        let Some(id) = scope
            .resources
            .and_then(|r| r.get_deref(b"XObject", doc).and_then(Object::as_dict).ok())
            .and_then(|x| x.get(name).ok())
            .and_then(|o| o.as_reference().ok())
        else {
            return Ok(());
        };
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            return Ok(());
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form") {
            return Ok(());
        }
        self.budget.forms = self
            .budget
            .forms
            .checked_sub(1)
            .ok_or(PdfError::TooMuchText)?;
        let matrix = stream
            .dict
            .get(b"Matrix")
            .and_then(Object::as_array)
            .ok()
            .and_then(|m| {
                let v: Vec<f64> = m.iter().filter_map(number).collect();
                <[f64; 6]>::try_from(v).ok()
            })
            .unwrap_or(IDENTITY);
        let own = stream
            .dict
            .get_deref(b"Resources", doc)
            .and_then(Object::as_dict)
            .ok();
        let inner = Scope {
            resources: own.or(scope.resources),
            displayed: scope.displayed,
            depth: scope.depth + 1,
        };
        let mut inner_state = state.clone();
        inner_state.ctm = multiply(&matrix, &state.ctm);
        let mut position = TextPosition {
            matrix: IDENTITY,
            line: IDENTITY,
        };
        let floor = saved.len();
        let result = self.run(id, &inner, &mut inner_state, saved, &mut position, glyphs);
        saved.truncate(floor);
        result
    }

    fn show(
        &mut self,
        bytes: &[u8],
        (stream, operation, element): (ObjectId, usize, usize),
        scope: &Scope,
        state: &State,
        position: &mut TextPosition,
        glyphs: &mut Vec<Glyph>,
    ) -> Result<(), PdfError> {
        let font = state
            .font
            .clone()
            .unwrap_or_else(|| Rc::new(Font::unknown()));
        let size = state.font_size;
        let scale = state.horizontal_scale;
        for code in font.codes(bytes) {
            self.budget.glyphs = self
                .budget
                .glyphs
                .checked_sub(1)
                .ok_or(PdfError::TooMuchText)?;
            let width = font.width(&code);
            let spacing = state.char_spacing
                + if font.is_word_space(&code) {
                    state.word_spacing
                } else {
                    0.0
                };
            let advance = (width * size + spacing) * scale;
            let render = [size * scale, 0.0, 0.0, size, 0.0, state.rise];
            let to_displayed = multiply(
                &multiply(&multiply(&render, &position.matrix), &state.ctm),
                &scope.displayed,
            );
            let glyph_scale = font.glyph_scale();
            let (ascent, descent) = (font.ascent * glyph_scale, font.descent * glyph_scale);
            let corners = [
                apply(&to_displayed, (0.0, descent)),
                apply(&to_displayed, (width, descent)),
                apply(&to_displayed, (0.0, ascent)),
                apply(&to_displayed, (width, ascent)),
            ];
            let origin = apply(&to_displayed, (0.0, 0.0));
            let along = apply(&to_displayed, (1.0, 0.0));
            let up = apply(&to_displayed, (0.0, 1.0));
            let (dx, dy) = (along.0 - origin.0, along.1 - origin.1);
            let run = dx.hypot(dy);
            let displayed_size = (up.0 - origin.0).hypot(up.1 - origin.1);
            let text = font.text(&code).unwrap_or_else(|| "\u{fffd}".to_owned());
            if run.is_finite()
                && run > 0.0
                && corners.iter().all(|c| c.0.is_finite() && c.1.is_finite())
            {
                glyphs.push(Glyph {
                    text,
                    x0: corners.iter().map(|c| c.0).fold(f64::INFINITY, f64::min),
                    y0: corners.iter().map(|c| c.1).fold(f64::INFINITY, f64::min),
                    x1: corners
                        .iter()
                        .map(|c| c.0)
                        .fold(f64::NEG_INFINITY, f64::max),
                    y1: corners
                        .iter()
                        .map(|c| c.1)
                        .fold(f64::NEG_INFINITY, f64::max),
                    origin,
                    direction: (dx / run, dy / run),
                    advance: width * run,
                    size: displayed_size,
                    source: Source {
                        stream,
                        operation,
                        element,
                        start: code.start,
                        len: code.len,
                    },
                    adjustment: (size != 0.0 && scale != 0.0)
                        .then(|| -(advance / scale / size) * 1000.0),
                });
            }
            position.matrix = multiply(&translate(advance, 0.0), &position.matrix);
        }
        Ok(())
    }
}

fn next_line(position: &mut TextPosition, x: f64, y: f64) {
    position.line = multiply(&translate(x, y), &position.line);
    position.matrix = position.line;
}

/// Gathers glyphs into lines: same direction (to the nearest quarter turn) and baseline, in
/// order along it; lines top to bottom (for upright text). A space goes between glyphs further
/// apart than a fifth of the font size, a line break between lines.
fn lines(glyphs: Vec<Glyph>) -> PageText {
    let quarter = |g: &Glyph| {
        let angle = g.direction.1.atan2(g.direction.0).to_degrees();
        ((angle / 90.0).round() as i64).rem_euclid(4)
    };
    let axes = |turn: i64| match turn {
        0 => ((1.0, 0.0), (0.0, 1.0)),
        1 => ((0.0, 1.0), (-1.0, 0.0)),
        2 => ((-1.0, 0.0), (0.0, -1.0)),
        _ => ((0.0, -1.0), (1.0, 0.0)),
    };
    let dot = |a: (f64, f64), b: (f64, f64)| a.0 * b.0 + a.1 * b.1;
    struct Placed {
        index: usize,
        turn: i64,
        across: f64,
        along: f64,
    }
    let mut placed: Vec<Placed> = glyphs
        .iter()
        .enumerate()
        .map(|(index, g)| {
            let turn = quarter(g);
            let (along, across) = axes(turn);
            Placed {
                index,
                turn,
                across: dot(g.origin, across),
                along: dot(g.origin, along),
            }
        })
        .collect();
    placed.sort_by(|a, b| a.turn.cmp(&b.turn).then(a.across.total_cmp(&b.across)));
    let mut rows: Vec<Vec<Placed>> = Vec::new();
    for p in placed {
        let tolerance = glyphs[p.index].size * 0.4;
        match rows.last_mut() {
            Some(row) if row[0].turn == p.turn && (p.across - row[0].across).abs() <= tolerance => {
                row.push(p)
            }
            _ => rows.push(vec![p]),
        }
    }
    let mut chars = Vec::new();
    for (r, row) in rows.iter_mut().enumerate() {
        if r > 0 {
            chars.push(('\n', None));
        }
        row.sort_by(|a, b| a.along.total_cmp(&b.along));
        let mut end: Option<f64> = None;
        let mut last_blank = true;
        for p in row.iter() {
            let g = &glyphs[p.index];
            let blank = g.text.chars().all(char::is_whitespace);
            if let Some(end) = end
                && p.along - end > g.size * 0.2
                && !blank
                && !last_blank
            {
                chars.push((' ', None));
            }
            chars.extend(g.text.chars().map(|c| (c, Some(p.index))));
            end = Some(p.along + g.advance);
            last_blank = blank;
        }
    }
    PageText { glyphs, chars }
}

#[cfg(test)]
mod tests;
