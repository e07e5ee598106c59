//! Produces the final PDF of a completed document: the original with every filled field stamped
//! into its box, followed by certificate pages that record who signed what and when.
//!
//! The final file is built in two revisions. The first is the stamped document, saved whole; the
//! second is an incremental update that appends the certificate pages. The first revision is
//! therefore a byte-for-byte prefix of the final file, so the `stamped_sha256` that the
//! certificate shows can be checked against the final file alone (see [`stamped_revision`]).

use std::collections::{BTreeMap, HashMap};
use std::io::Cursor;

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use lopdf::xref::XrefType;
use lopdf::{Dictionary, Document, IncrementalDocument, Object, ObjectId, Stream, dictionary};
use sha2::{Digest, Sha256};

use crate::inspect::{PageView, Rect};
use crate::page_tree::{self, PageTreeError, inherited};
use crate::typeset::{self, Base, Fonts, Shaped};

/// A filled field to stamp. Coordinates are PDF points with the origin at the top-left corner
/// of the page as displayed: after its `/Rotate`, relative to its visible box (the CropBox
/// clipped to the MediaBox, else the MediaBox). x grows right, y grows down.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StampField {
    /// 1-based page number, counted as [`crate::inspect::inspect`] counts pages.
    pub page: u32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub kind: StampKind,
    /// Plain text, or for a signature or initials either a typed name or a PNG data URL
    /// (`data:image/png;base64,...`).
    pub value: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StampKind {
    Text,
    Date,
    Signature,
    Initials,
}

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

#[derive(Debug, Clone)]
pub struct FinalPdf {
    pub bytes: Vec<u8>,
    /// Lowercase hex SHA-256 of `bytes`.
    pub sha256: String,
    /// Lowercase hex SHA-256 of the stamped document: the original with the fields stamped,
    /// before the certificate pages were appended, as saved by lopdf with a cross-reference
    /// table. Those exact bytes are the first revision of `bytes`: a prefix of it, ending with
    /// `%%EOF` and a line feed, which the incremental update adding the certificate pages
    /// follows. [`stamped_revision`] extracts them from the final file.
    pub stamped_sha256: String,
    pub certificate_pages: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum StampError {
    #[error("cannot read the original PDF: {0}")]
    Read(String),
    #[error("field on page {0}, which the document does not have")]
    NoSuchPage(u32),
    #[error("cannot write the final PDF: {0}")]
    Write(String),
}

/// Stamps `fields` into `original` and appends the certificate pages.
///
/// The output is deterministic: the same inputs give the same bytes. Text in any script is
/// shaped, laid out and drawn with subsets of the shipped fonts (see [`crate::typeset`]). A
/// signature
/// whose PNG data URL cannot be decoded is stamped as the text "[signature]". Fields whose box
/// has no area, or whose coordinates are not finite, are skipped.
///
/// Encrypted originals are refused, as [`crate::inspect::inspect`] refuses them at upload. Parsing
/// and rendering are CPU-bound: from async code, call this inside `spawn_blocking`.
pub fn render_final(
    original: &[u8],
    fields: &[StampField],
    certificate: &Certificate,
) -> Result<FinalPdf, StampError> {
    // lopdf is a large parser and the original is untrusted: a bug in it must not bring down
    // the caller.
    std::panic::catch_unwind(|| render(original, fields, certificate))
        .unwrap_or_else(|_| Err(StampError::Read("the PDF parser failed on it".into())))
}

/// The stamped document inside a final PDF made by [`render_final`]: its first revision, whose
/// SHA-256 is [`FinalPdf::stamped_sha256`]. It ends at the first `%%EOF` line after the
/// cross-reference table that the last trailer's `/Prev` points at.
pub fn stamped_revision(final_pdf: &[u8]) -> Option<&[u8]> {
    let trailer = rfind(final_pdf, b"trailer")?;
    let prev_key = trailer + find(&final_pdf[trailer..], b"/Prev")? + b"/Prev".len();
    let previous_xref = leading_number(&final_pdf[prev_key..])?;
    let eof = previous_xref + find(final_pdf.get(previous_xref..)?, b"%%EOF\n")?;
    Some(&final_pdf[..eof + b"%%EOF\n".len()])
}

fn render(
    original: &[u8],
    fields: &[StampField],
    certificate: &Certificate,
) -> Result<FinalPdf, StampError> {
    let mut doc = load(original)?;
    // The pages that inspection counted at upload: see `page_tree`.
    let pages = page_tree::leaf_pages(&mut doc).map_err(|error| match error {
        PageTreeError::NoCatalog(_) => StampError::Read(error.to_string()),
        PageTreeError::TooManyObjects(error) => too_many_objects(error),
    })?;
    if pages.is_empty() {
        return Err(StampError::Read("the PDF has no pages".into()));
    }
    stamp_fields(&mut doc, &pages, fields)?;

    let stamped = save_stamped(&mut doc)?;
    let stamped_sha256 = sha256_hex(&stamped);
    let lines = certificate_lines(certificate, &stamped_sha256);
    let certificate_pages = paginate(&lines);
    let bytes = append_certificate(stamped, doc, pages.len(), &certificate_pages)?;
    Ok(FinalPdf {
        sha256: sha256_hex(&bytes),
        bytes,
        stamped_sha256,
        certificate_pages: certificate_pages.len(),
    })
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn load(bytes: &[u8]) -> Result<Document, StampError> {
    let doc = Document::load_mem(bytes).map_err(|error| StampError::Read(error.to_string()))?;
    // lopdf decrypts a file that the empty password opens; writing it back would either drop
    // its protection or leave an /Encrypt that no longer matches.
    if doc.trailer.has(b"Encrypt") || doc.was_encrypted() {
        return Err(StampError::Read("the PDF is encrypted".into()));
    }
    Ok(doc)
}

fn too_many_objects(error: lopdf::Error) -> StampError {
    StampError::Write(error.to_string())
}

impl PageView {
    fn displayed_height(&self) -> f64 {
        match self.rotate {
            90 | 270 => self.visible.width(),
            _ => self.visible.height(),
        }
    }

    /// The `cm` matrix from "displayed" space, whose origin is the bottom-left corner of the
    /// page as displayed and whose y axis points up, to default user space. Text drawn in
    /// displayed space is upright on screen whatever the page's rotation.
    fn displayed_to_user(&self) -> [f64; 6] {
        let Rect { x0, y0, x1, y1 } = self.visible;
        match self.rotate {
            // Turned a quarter clockwise: the displayed bottom-left corner is the box's
            // bottom-right corner, displayed x runs up the page and displayed y runs left.
            90 => [0.0, 1.0, -1.0, 0.0, x1, y0],
            180 => [-1.0, 0.0, 0.0, -1.0, x1, y1],
            270 => [0.0, -1.0, 1.0, 0.0, x0, y1],
            _ => [1.0, 0.0, 0.0, 1.0, x0, y0],
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Stamping

/// Objects created once and shared by every stamped page.
struct Shared {
    fonts: Fonts,
    /// The stream "q" put before a page's original content.
    save_state: Option<ObjectId>,
    /// Each distinct PNG data URL, decoded and added as an image, or `None` if it could not be
    /// decoded.
    images: HashMap<String, Option<ImageXObject>>,
}

impl Shared {
    fn save_state(&mut self, doc: &mut Document) -> Result<ObjectId, StampError> {
        if let Some(id) = self.save_state {
            return Ok(id);
        }
        let stream = Stream::new(dictionary! {}, b"q\n".to_vec());
        let id = doc.try_add_object(stream).map_err(too_many_objects)?;
        self.save_state = Some(id);
        Ok(id)
    }

    fn image(
        &mut self,
        doc: &mut Document,
        data_url: &str,
    ) -> Result<Option<ImageXObject>, StampError> {
        if let Some(image) = self.images.get(data_url) {
            return Ok(*image);
        }
        let image = match decode_png_data_url(data_url) {
            Some(png) => Some(add_image(doc, &png)?),
            None => None,
        };
        self.images.insert(data_url.to_owned(), image);
        Ok(image)
    }
}

fn stamp_fields(
    doc: &mut Document,
    pages: &[ObjectId],
    fields: &[StampField],
) -> Result<(), StampError> {
    let mut by_page: BTreeMap<u32, Vec<&StampField>> = BTreeMap::new();
    for field in fields {
        if field.page == 0 || field.page as usize > pages.len() {
            return Err(StampError::NoSuchPage(field.page));
        }
        by_page.entry(field.page).or_default().push(field);
    }
    let mut shared = Shared {
        fonts: Fonts::new(),
        save_state: None,
        images: HashMap::new(),
    };
    for (number, fields) in by_page {
        stamp_page(doc, pages[number as usize - 1], &fields, &mut shared)?;
    }
    shared.fonts.finish(doc).map_err(StampError::Write)
}

/// What to draw in a field's box.
enum Mark {
    Text { text: Shaped, color: [f64; 3] },
    Image(ImageXObject),
}

const BLACK: [f64; 3] = [0.0, 0.0, 0.0];
/// Typed signatures and initials are drawn in ink blue.
const INK: [f64; 3] = [0.05, 0.15, 0.45];

fn mark(doc: &mut Document, shared: &mut Shared, field: &StampField) -> Result<Mark, StampError> {
    let text = |value: &str, color| Mark::Text {
        text: typeset::shape(value.trim()),
        color,
    };
    Ok(match field.kind {
        StampKind::Text | StampKind::Date => text(&field.value, BLACK),
        StampKind::Signature | StampKind::Initials if is_data_url(&field.value) => {
            match shared.image(doc, &field.value)? {
                Some(image) => Mark::Image(image),
                None => text("[signature]", INK),
            }
        }
        StampKind::Signature | StampKind::Initials => text(&field.value, INK),
    })
}

fn stamp_page(
    doc: &mut Document,
    page_id: ObjectId,
    fields: &[&StampField],
    shared: &mut Shared,
) -> Result<(), StampError> {
    let page = doc
        .get_dictionary(page_id)
        .map_err(|error| StampError::Read(error.to_string()))?;
    let view = PageView::of(doc, page);
    let mut resources = effective_resources(doc, page);

    // Closes the "q" put before the original content, so that whatever state that content
    // leaves behind does not move or recolour the stamps.
    let mut ops = format!("Q\nq\n{} cm\n", numbers(&view.displayed_to_user())).into_bytes();
    for field in fields {
        let Some(area) = field_area(field, view.displayed_height()) else {
            continue;
        };
        match mark(doc, shared, field)? {
            Mark::Text { text, color } => {
                let mut names = HashMap::new();
                for (face, font) in shared
                    .fonts
                    .objects_for(doc, &text)
                    .map_err(too_many_objects)?
                {
                    let name = add_resource(doc, &mut resources, b"Font", "SgFont", font);
                    names.insert(face, String::from_utf8_lossy(&name).into_owned());
                }
                ops.extend(text_ops(&mut shared.fonts, &names, &text, color, area));
            }
            Mark::Image(image) => {
                let name = add_resource(doc, &mut resources, b"XObject", "SgImg", image.id);
                ops.extend(image_ops(&name, image, area));
            }
        }
    }
    ops.extend(b"Q\n");

    let mut stream = Stream::new(dictionary! {}, ops);
    stream
        .compress()
        .map_err(|error| StampError::Write(error.to_string()))?;
    let stamp = doc.try_add_object(stream).map_err(too_many_objects)?;
    let save_state = shared.save_state(doc)?;
    let mut contents = vec![Object::Reference(save_state)];
    contents.extend(existing_contents(doc, page_id));
    contents.push(Object::Reference(stamp));

    let page = doc
        .get_dictionary_mut(page_id)
        .map_err(|error| StampError::Read(error.to_string()))?;
    page.set("Contents", contents);
    page.set("Resources", resources);
    Ok(())
}

/// A field's box in displayed space (origin bottom-left, y up), if it has an area.
fn field_area(field: &StampField, page_height: f64) -> Option<Rect> {
    let StampField {
        x,
        y,
        width,
        height,
        ..
    } = *field;
    let usable =
        [x, y, width, height].iter().all(|value| value.is_finite()) && width > 0.0 && height > 0.0;
    usable.then_some(Rect {
        x0: x,
        y0: page_height - y - height,
        x1: x + width,
        y1: page_height - y,
    })
}

/// The page's content streams, whether `/Contents` is one stream, an array, or a reference to
/// an array. The streams themselves are left as they are.
fn existing_contents(doc: &Document, page_id: ObjectId) -> Vec<Object> {
    let Ok(page) = doc.get_dictionary(page_id) else {
        return Vec::new();
    };
    match page.get(b"Contents") {
        Ok(Object::Reference(id)) => match doc.get_object(*id) {
            Ok(Object::Array(items)) => items.clone(),
            _ => vec![Object::Reference(*id)],
        },
        Ok(Object::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

/// A copy of the resources the page uses, its own or inherited, for the page to own: resource
/// dictionaries shared with other pages are left untouched.
fn effective_resources(doc: &Document, page: &Dictionary) -> Dictionary {
    inherited(doc, page, b"Resources", |object| {
        object.as_dict().ok().cloned()
    })
    .unwrap_or_default()
}

/// Adds `id` to the `category` sub-dictionary of `resources` under a name not already used
/// there, and returns the name.
fn add_resource(
    doc: &Document,
    resources: &mut Dictionary,
    category: &[u8],
    prefix: &str,
    id: ObjectId,
) -> Vec<u8> {
    let mut entries = resources
        .get_deref(category, doc)
        .and_then(Object::as_dict)
        .cloned()
        .unwrap_or_default();
    let existing = entries
        .iter()
        .find(|(_, value)| matches!(value, Object::Reference(target) if *target == id));
    if let Some((name, _)) = existing {
        return name.clone();
    }
    let name = (1..)
        .map(|n| format!("{prefix}{n}").into_bytes())
        .find(|name| !entries.has(name))
        .unwrap_or_default();
    entries.set(name.clone(), id);
    resources.set(category, entries);
    name
}

/// Space between a text value and the left edge of its box.
const TEXT_PADDING: f64 = 2.0;
/// The largest font size, as a share of the box height.
const MAX_SIZE_TO_HEIGHT: f64 = 0.7;

/// Draws `text` vertically centred in `area`, as large as fits, aligned to the left, or to the
/// right if its base direction is right to left. `names` are
/// the page's resource names of the fonts it uses.
fn text_ops(
    fonts: &mut Fonts,
    names: &HashMap<usize, String>,
    text: &Shaped,
    color: [f64; 3],
    area: Rect,
) -> Vec<u8> {
    let padding = TEXT_PADDING.min(area.width() / 4.0);
    let fitting = (area.width() - 2.0 * padding) * 1000.0 / text.width;
    // The fonts' whole extent, from the descender to the ascender, fits the height.
    let extent_units = text.ascent - text.descent;
    let size = (area.height() * MAX_SIZE_TO_HEIGHT)
        .min(area.height() * 1000.0 / extent_units)
        .min(fitting);
    if text.width <= 0.0 || size.is_nan() || size <= 0.0 {
        return Vec::new();
    }
    // Centre the glyphs' extent.
    let extent = size * extent_units / 1000.0;
    let baseline = area.y0 + (area.height() - extent) / 2.0 - size * text.descent / 1000.0;
    fonts.draw(
        text,
        |face| names.get(&face).cloned().unwrap_or_default(),
        size,
        if text.rtl {
            area.x1 - padding - text.width * size / 1000.0
        } else {
            area.x0 + padding
        },
        baseline,
        Some(color),
    )
}

/// Draws `image` as large as fits in `area`, keeping its aspect ratio, centred.
fn image_ops(name: &[u8], image: ImageXObject, area: Rect) -> Vec<u8> {
    let (width, height) = (f64::from(image.width), f64::from(image.height));
    let scale = (area.width() / width).min(area.height() / height);
    let (drawn_width, drawn_height) = (width * scale, height * scale);
    let x = area.x0 + (area.width() - drawn_width) / 2.0;
    let y = area.y0 + (area.height() - drawn_height) / 2.0;
    format!(
        "q\n{} cm\n/{} Do\nQ\n",
        numbers(&[drawn_width, 0.0, 0.0, drawn_height, x, y]),
        String::from_utf8_lossy(name),
    )
    .into_bytes()
}

/// A number as written in a content stream: at most three decimals, no exponent.
pub(crate) fn number_text(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_owned(),
        text => text.to_owned(),
    }
}

pub(crate) fn numbers(values: &[f64]) -> String {
    values
        .iter()
        .map(|&value| number_text(value))
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------------
// PNG signatures

/// The most pixels a signature image may have; a signature pad makes far smaller ones.
const MAX_IMAGE_PIXELS: u64 = 16_000_000;

#[derive(Debug, Clone, Copy)]
struct ImageXObject {
    id: ObjectId,
    width: u32,
    height: u32,
}

struct DecodedPng {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
    /// One byte per pixel, or `None` if the image is opaque.
    alpha: Option<Vec<u8>>,
}

fn is_data_url(value: &str) -> bool {
    value
        .trim_start()
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

fn decode_png_data_url(value: &str) -> Option<DecodedPng> {
    let (header, payload) = value.trim().split_once(',')?;
    if !header.eq_ignore_ascii_case("data:image/png;base64") {
        return None;
    }
    let payload: Vec<u8> = payload
        .bytes()
        .filter(|byte| !byte.is_ascii_whitespace())
        .collect();
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    decode_png(&engine.decode(payload).ok()?)
}

fn decode_png(bytes: &[u8]) -> Option<DecodedPng> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().ok()?;
    let (width, height) = reader.info().size();
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return None;
    }
    let mut buffer = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut buffer).ok()?;
    let pixels = buffer.get(..frame.buffer_size())?;
    let (rgb, alpha) = split_channels(pixels, frame.color_type)?;
    Some(DecodedPng {
        width,
        height,
        rgb,
        alpha: alpha.filter(|alpha| alpha.iter().any(|&value| value != u8::MAX)),
    })
}

/// 8-bit samples as RGB and, if the colour type has one, the alpha channel.
fn split_channels(pixels: &[u8], color: png::ColorType) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    use png::ColorType;
    let (channels, gray, has_alpha) = match color {
        ColorType::Grayscale => (1, true, false),
        ColorType::GrayscaleAlpha => (2, true, true),
        ColorType::Rgb => (3, false, false),
        ColorType::Rgba => (4, false, true),
        // Palettes are expanded by the decoder's transformations.
        ColorType::Indexed => return None,
    };
    let mut rgb = Vec::with_capacity(pixels.len() / channels * 3);
    let mut alpha = Vec::with_capacity(if has_alpha {
        pixels.len() / channels
    } else {
        0
    });
    for pixel in pixels.chunks_exact(channels) {
        if gray {
            rgb.extend([pixel[0]; 3]);
        } else {
            rgb.extend(&pixel[..3]);
        }
        if has_alpha {
            alpha.push(pixel[channels - 1]);
        }
    }
    Some((rgb, has_alpha.then_some(alpha)))
}

fn add_image(doc: &mut Document, png: &DecodedPng) -> Result<ImageXObject, StampError> {
    let image_stream = |color_space: &str, samples: &[u8]| {
        let mut stream = Stream::new(
            dictionary! {
                "Type" => "XObject",
                "Subtype" => "Image",
                "Width" => png.width,
                "Height" => png.height,
                "ColorSpace" => color_space,
                "BitsPerComponent" => 8,
            },
            samples.to_vec(),
        );
        stream
            .compress()
            .map_err(|error| StampError::Write(error.to_string()))?;
        Ok::<_, StampError>(stream)
    };
    let mut image = image_stream("DeviceRGB", &png.rgb)?;
    if let Some(alpha) = &png.alpha {
        let mask = image_stream("DeviceGray", alpha)?;
        let mask = doc.try_add_object(mask).map_err(too_many_objects)?;
        image.dict.set("SMask", mask);
    }
    Ok(ImageXObject {
        id: doc.try_add_object(image).map_err(too_many_objects)?,
        width: png.width,
        height: png.height,
    })
}

// ---------------------------------------------------------------------------------------------
// Saving

/// Saves the stamped document with a classic cross-reference table, ending with "%%EOF\n".
fn save_stamped(doc: &mut Document) -> Result<Vec<u8>, StampError> {
    // Keep only what the trailer of a file without encryption or earlier revisions has; an
    // original written with a cross-reference stream leaves that stream's keys in it.
    let mut trailer = Dictionary::new();
    for key in [&b"Root"[..], b"Info", b"ID"] {
        if let Ok(value) = doc.trailer.get(key) {
            trailer.set(key, value.clone());
        }
    }
    doc.trailer = trailer;
    doc.reference_table.cross_reference_type = XrefType::CrossReferenceTable;
    // Soft masks arrived in PDF 1.4.
    if doc.version.as_str() < "1.4" {
        doc.version = "1.4".into();
    }

    let mut bytes = Vec::new();
    doc.save_to(&mut bytes)
        .map_err(|error| StampError::Write(error.to_string()))?;
    bytes.push(b'\n');
    // The incremental update's /Prev must point at this revision's cross-reference table.
    doc.xref_start =
        xref_offset(&bytes).ok_or_else(|| StampError::Write("lopdf wrote no startxref".into()))?;
    Ok(bytes)
}

fn xref_offset(pdf: &[u8]) -> Option<usize> {
    let startxref = rfind(pdf, b"startxref")?;
    leading_number(&pdf[startxref + b"startxref".len()..])
}

/// The unsigned integer at the start of `bytes`, after white space.
fn leading_number(bytes: &[u8]) -> Option<usize> {
    let start = bytes.iter().position(|byte| !byte.is_ascii_whitespace())?;
    let digits: Vec<u8> = bytes[start..]
        .iter()
        .copied()
        .take_while(u8::is_ascii_digit)
        .take(20)
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .rposition(|window| window == needle)
}

/// Appends the certificate pages to the saved stamped document as an incremental update.
fn append_certificate(
    stamped: Vec<u8>,
    doc: Document,
    page_count: usize,
    pages: &[Vec<Placed>],
) -> Result<Vec<u8>, StampError> {
    let root = doc
        .catalog()
        .and_then(|catalog| catalog.get(b"Pages"))
        .and_then(Object::as_reference)
        .map_err(|error| StampError::Read(error.to_string()))?;
    let mut update = IncrementalDocument::create_from(stamped, doc);
    let root = pages_root_for_appending(&mut update, root)?;

    let new = &mut update.new_document;
    let mut fonts = Fonts::new();
    let mut contents = Vec::new();
    for (index, lines) in pages.iter().enumerate() {
        contents.push(certificate_page_content(
            new,
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
    fonts.finish(new).map_err(StampError::Write)?;
    let mut kids = Vec::new();
    for content in contents {
        let mut content = Stream::new(dictionary! {}, content);
        content
            .compress()
            .map_err(|error| StampError::Write(error.to_string()))?;
        let content = new.try_add_object(content).map_err(too_many_objects)?;
        let letter = vec![0.into(), 0.into(), 612.into(), 792.into()];
        // Every inheritable attribute is set, so that none comes from the page tree.
        let page = dictionary! {
            "Type" => "Page",
            "Parent" => root,
            "MediaBox" => letter.clone(),
            "CropBox" => letter,
            "Rotate" => 0,
            "Resources" => dictionary! { "Font" => font_names.clone() },
            "Contents" => content,
        };
        kids.push(Object::Reference(
            new.try_add_object(page).map_err(too_many_objects)?,
        ));
    }

    let root_node = new
        .get_dictionary_mut(root)
        .map_err(|error| StampError::Write(error.to_string()))?;
    let mut all_kids = root_node
        .get(b"Kids")
        .and_then(Object::as_array)
        .cloned()
        .unwrap_or_default();
    all_kids.extend(kids);
    root_node.set("Kids", all_kids);
    root_node.set("Count", (page_count + pages.len()) as i64);

    let mut bytes = Vec::new();
    update
        .save_to(&mut bytes)
        .map_err(|error| StampError::Write(error.to_string()))?;
    Ok(bytes)
}

/// The id of a page tree root, copied into the update, to which pages can be appended: the
/// existing root if it is an intermediate node, else a new root above it.
fn pages_root_for_appending(
    update: &mut IncrementalDocument,
    root: ObjectId,
) -> Result<ObjectId, StampError> {
    let prev = update.get_prev_documents();
    let node = prev
        .get_dictionary(root)
        .map_err(|error| StampError::Read(error.to_string()))?;
    if let Ok(kids) = node.get_deref(b"Kids", prev).and_then(Object::as_array)
        && !node.has_type(b"Page")
    {
        let mut node = node.clone();
        // The kids may sit in an array object of their own; the copy holds them directly.
        node.set("Kids", kids.clone());
        update.new_document.objects.insert(root, node.into());
        return Ok(root);
    }

    // The catalog points straight at a page (or at something unusable): put a new root above
    // it. Neither had a parent, so nothing it inherited changes.
    let catalog_id = prev
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(|error| StampError::Read(error.to_string()))?;
    let mut page = node.clone();
    let mut catalog = prev
        .get_dictionary(catalog_id)
        .map_err(|error| StampError::Read(error.to_string()))?
        .clone();
    let new = &mut update.new_document;
    let new_root = new.try_new_object_id().map_err(too_many_objects)?;
    let kids = if page.has_type(b"Page") {
        page.set("Parent", new_root);
        new.objects.insert(root, page.into());
        vec![Object::Reference(root)]
    } else {
        Vec::new()
    };
    new.objects.insert(
        new_root,
        dictionary! { "Type" => "Pages", "Kids" => kids }.into(),
    );
    catalog.set("Pages", new_root);
    new.objects.insert(catalog_id, catalog.into());
    Ok(new_root)
}

// ---------------------------------------------------------------------------------------------
// Certificate pages

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
struct Placed {
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
    use crate::inspect::{self as pdf, PageSize};
    use std::process::Command;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/pdf/");

    // -- Building originals --------------------------------------------------------------------

    fn numbers(values: &[f64]) -> Vec<Object> {
        values.iter().map(|&value| (value as f32).into()).collect()
    }

    fn content(doc: &mut Document, ops: &str) -> ObjectId {
        doc.add_object(Stream::new(dictionary! {}, ops.as_bytes().to_vec()))
    }

    fn times(doc: &mut Document) -> ObjectId {
        doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
        })
    }

    /// Gives `doc` a catalog pointing at `pages_id` and returns the saved file.
    fn save(mut doc: Document, pages_id: ObjectId, pages: Dictionary) -> Vec<u8> {
        doc.objects.insert(pages_id, pages.into());
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("save the generated PDF");
        bytes
    }

    /// Content that leaves the graphics state scaled, shifted and red, as some producers do.
    const LEAKY: &str = "3 0 0 3 40 40 cm 1 0 0 rg 0.2 w";

    /// Three pages: the first inherits its MediaBox and Resources and has an array of content
    /// streams that leaves the graphics state modified; the second is turned 90 degrees and
    /// has its own MediaBox and indirect Resources; the third has a CropBox offset from the
    /// origin.
    fn original() -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font = times(&mut doc);

        let leaky = content(&mut doc, LEAKY);
        let text = content(&mut doc, "BT /F1 12 Tf 20 200 Td (Original page one) Tj ET");
        let first = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id,
            "Contents" => vec![leaky.into(), text.into()],
        });

        let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
        let text = content(&mut doc, "BT /F1 12 Tf 72 720 Td (Original page two) Tj ET");
        let second = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Rotate" => 90,
            "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]),
            "Resources" => resources, "Contents" => text,
        });

        let text = content(
            &mut doc,
            "BT /F1 12 Tf 120 600 Td (Original page three) Tj ET",
        );
        let third = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id,
            "CropBox" => numbers(&[100.0, 150.0, 500.0, 650.0]), "Contents" => text,
        });

        let pages = dictionary! {
            "Type" => "Pages",
            "Kids" => vec![first.into(), second.into(), third.into()],
            "Count" => 3,
            "MediaBox" => numbers(&[0.0, 0.0, 612.0, 792.0]),
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
        };
        save(doc, pages_id, pages)
    }

    /// One page with MediaBox [0 0 400 600] (or `media`), `rotate` and `crop`, whose content
    /// leaves the graphics state modified.
    fn single_page(media: [f64; 4], rotate: i64, crop: Option<[f64; 4]>) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let leaky = content(&mut doc, LEAKY);
        let mut page = dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => leaky,
            "MediaBox" => numbers(&media), "Rotate" => rotate,
        };
        if let Some(crop) = crop {
            page.set("CropBox", numbers(&crop));
        }
        let page = doc.add_object(page);
        let pages = dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 };
        save(doc, pages_id, pages)
    }

    fn field(
        page: u32,
        (x, y, width, height): (f64, f64, f64, f64),
        kind: StampKind,
        value: &str,
    ) -> StampField {
        StampField {
            page,
            x,
            y,
            width,
            height,
            kind,
            value: value.into(),
        }
    }

    fn certificate(original: &[u8], audit_entries: usize) -> Certificate {
        Certificate {
            title: "Master services agreement".into(),
            code: "SGN-7Q4K-2M".into(),
            document_id: "0197a3b2-7c1d-7e00-9f3a-4b5c6d7e8f90".into(),
            original_sha256: sha256_hex(original),
            completed_at: "2026-11-21T22:38:39.123Z".into(),
            recipients: vec![
                CertificateRecipient {
                    name: "Ada Lovelace".into(),
                    email: "ada@example.com".into(),
                    role: "SIGNER".into(),
                    status: "SIGNED".into(),
                    viewed_at: Some("2026-11-21T22:30:00.000Z".into()),
                    signed_at: Some("2026-11-21T22:38:39.123Z".into()),
                    ip_address: Some("203.0.113.7".into()),
                    user_agent: Some(
                        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                         Chrome/131.0.0.0 Safari/537.36"
                            .into(),
                    ),
                },
                CertificateRecipient {
                    name: "Charles Babbage".into(),
                    email: "charles@example.org".into(),
                    role: "VIEWER".into(),
                    status: "VIEWED".into(),
                    viewed_at: Some("2026-11-21T22:31:00.000Z".into()),
                    signed_at: None,
                    ip_address: None,
                    user_agent: None,
                },
            ],
            audit: (1..=audit_entries)
                .map(|n| CertificateAuditLine {
                    at: format!("2026-11-21T22:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
                    event: "SIGNED".into(),
                    message: format!("Auditmessage{n:03} recorded"),
                    ip_address: "198.51.100.23".into(),
                    user_agent: format!("Agent/{n}.0 {}", "x".repeat(150)),
                })
                .collect(),
        }
    }

    fn render(original: &[u8], fields: &[StampField]) -> FinalPdf {
        render_final(original, fields, &certificate(original, 3)).expect("render the final PDF")
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("PNG header");
        let pixels: Vec<u8> = (0..width * height)
            .flat_map(|i| [0, 0, 128, (i % 256) as u8])
            .collect();
        writer.write_image_data(&pixels).expect("PNG data");
        writer.finish().expect("PNG end");
        bytes
    }

    fn data_url(png: &[u8]) -> String {
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(png)
        )
    }

    // -- Poppler ---------------------------------------------------------------------------------

    fn poppler_installed() -> bool {
        let installed = Command::new("pdftotext").arg("-v").output().is_ok();
        if !installed {
            eprintln!(
                "NOTE: pdftotext is not installed (apt-get install poppler-utils); skipping the text checks"
            );
        }
        installed
    }

    /// Runs `pdftotext` with `args` on `pdf` and returns its output.
    fn pdftotext(pdf: &[u8], args: &[&str]) -> String {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "signet-stamp-{}-{}.pdf",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, pdf).expect("write the PDF for pdftotext");
        let output = Command::new("pdftotext")
            .args(args)
            .arg(&path)
            .arg("-")
            .output()
            .expect("run pdftotext");
        let _ = std::fs::remove_file(&path);
        assert!(
            output.status.success(),
            "pdftotext {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn page_text(pdf: &[u8], page: usize) -> String {
        let page = page.to_string();
        pdftotext(pdf, &["-layout", "-f", &page, "-l", &page])
    }

    #[derive(Debug)]
    struct Word {
        text: String,
        x_min: f64,
        y_min: f64,
        x_max: f64,
        y_max: f64,
    }

    fn attribute(tag: &str, name: &str) -> f64 {
        let start = tag
            .find(&format!("{name}=\""))
            .unwrap_or_else(|| panic!("no {name} in {tag}"))
            + name.len()
            + 2;
        let end = start + tag[start..].find('"').expect("closing quote");
        tag[start..end].parse().expect("a number")
    }

    /// The page size and the words of page 1, in displayed top-left coordinates, from
    /// `pdftotext -bbox`.
    fn words(pdf: &[u8]) -> (PageSize, Vec<Word>) {
        let html = pdftotext(pdf, &["-bbox", "-cropbox", "-f", "1", "-l", "1"]);
        let page = html.find("<page ").expect("a page element");
        let size = PageSize {
            width: attribute(&html[page..], "width"),
            height: attribute(&html[page..], "height"),
        };
        let words = html
            .split("<word ")
            .skip(1)
            .map(|element| {
                let (tag, rest) = element.split_once('>').expect("a word tag");
                Word {
                    text: rest.split('<').next().unwrap_or_default().to_owned(),
                    x_min: attribute(tag, "xMin"),
                    y_min: attribute(tag, "yMin"),
                    x_max: attribute(tag, "xMax"),
                    y_max: attribute(tag, "yMax"),
                }
            })
            .collect();
        (size, words)
    }

    fn assert_sizes_kept(original: &[u8], stamped: &FinalPdf) {
        let before = pdf::inspect(original).expect("inspect the original");
        let after = pdf::inspect(&stamped.bytes).expect("inspect the final PDF");
        assert_eq!(after.pages, before.pages + stamped.certificate_pages);
        assert_eq!(after.page_sizes[..before.pages], before.page_sizes[..]);
        for size in &after.page_sizes[before.pages..] {
            assert_eq!(
                *size,
                PageSize {
                    width: 612.0,
                    height: 792.0
                }
            );
        }
    }

    // -- Tests -----------------------------------------------------------------------------------

    #[test]
    fn stamps_every_page_and_appends_the_certificate() {
        let original = original();
        let fields = [
            field(
                1,
                (72.0, 100.0, 200.0, 24.0),
                StampKind::Text,
                "Hello Signet",
            ),
            field(
                1,
                (300.0, 100.0, 120.0, 20.0),
                StampKind::Date,
                "2026-11-21",
            ),
            field(
                1,
                (72.0, 600.0, 200.0, 40.0),
                StampKind::Signature,
                "Ada Lovelace",
            ),
            field(
                2,
                (100.0, 100.0, 200.0, 30.0),
                StampKind::Text,
                "Rotated field",
            ),
            field(3, (20.0, 20.0, 60.0, 30.0), StampKind::Initials, "AL"),
            field(
                3,
                (20.0, 400.0, 300.0, 30.0),
                StampKind::Text,
                "Cropped (field) \\ ok",
            ),
        ];
        let certificate = certificate(&original, 3);
        let result = render_final(&original, &fields, &certificate).expect("render");

        assert_eq!(result.certificate_pages, 1);
        assert_sizes_kept(&original, &result);
        let loaded = Document::load_mem(&result.bytes).expect("lopdf loads the final PDF");
        assert_eq!(loaded.get_pages().len(), 4);

        if !poppler_installed() {
            return;
        }
        let expected: [&[&str]; 3] = [
            &[
                "Hello Signet",
                "2026-11-21",
                "Ada Lovelace",
                "Original page one",
            ],
            &["Rotated field", "Original page two"],
            &["AL", "Cropped (field) \\ ok", "Original page three"],
        ];
        for (index, values) in expected.iter().enumerate() {
            let text = page_text(&result.bytes, index + 1);
            for value in *values {
                assert!(
                    text.contains(value),
                    "page {}: no {value:?} in {text}",
                    index + 1
                );
            }
        }

        let text = page_text(&result.bytes, 4);
        for value in [
            "Certificate of completion",
            &certificate.title,
            &certificate.code,
            &certificate.document_id,
            &certificate.completed_at,
            &certificate.original_sha256,
            &result.stamped_sha256,
            "ada@example.com",
            "charles@example.org",
            "Signet certificate — page 1 of 1",
        ] {
            assert!(
                text.contains(value),
                "no {value:?} in the certificate: {text}"
            );
        }
        for entry in &certificate.audit {
            assert!(
                text.contains(&entry.message),
                "no {:?} in {text}",
                entry.message
            );
        }
    }

    #[test]
    fn pdfinfo_accepts_the_final_pdf() {
        if !poppler_installed() {
            return;
        }
        let original = original();
        let result = render(
            &original,
            &[field(1, (72.0, 72.0, 100.0, 20.0), StampKind::Text, "x")],
        );
        let path =
            std::env::temp_dir().join(format!("signet-stamp-info-{}.pdf", std::process::id()));
        std::fs::write(&path, &result.bytes).expect("write");
        let output = Command::new("pdfinfo")
            .arg(&path)
            .output()
            .expect("run pdfinfo");
        let _ = std::fs::remove_file(&path);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(stdout.contains("Pages:           4"), "{stdout}");
        assert!(
            output.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Left, top, right and bottom, in pixels.
    type Bounds = (usize, usize, usize, usize);

    /// The page as `pdftoppm -cropbox` draws it at 72 dpi, one pixel a point: its size and
    /// the bounding box (x0, y0, x1, y1) of its dark pixels, top-left origin.
    fn ink(pdf: &[u8]) -> ((usize, usize), Option<Bounds>) {
        let path = std::env::temp_dir().join(format!(
            "signet-stamp-ink-{}-{}",
            std::process::id(),
            sha256_hex(pdf)
        ));
        std::fs::write(path.with_extension("pdf"), pdf).expect("write the PDF for pdftoppm");
        let output = Command::new("pdftoppm")
            .args([
                "-cropbox",
                "-r",
                "72",
                "-gray",
                "-singlefile",
                "-f",
                "1",
                "-l",
                "1",
            ])
            .arg(path.with_extension("pdf"))
            .arg(&path)
            .output()
            .expect("run pdftoppm");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let image = std::fs::read(path.with_extension("pgm")).expect("read the PGM");
        let _ = std::fs::remove_file(path.with_extension("pdf"));
        let _ = std::fs::remove_file(path.with_extension("pgm"));

        // "P5 <width> <height> <maxval>" and one byte of white space, then the pixels.
        let mut header = Vec::new();
        let mut offset = 0;
        while header.len() < 4 {
            let start = offset
                + image[offset..]
                    .iter()
                    .position(|b| !b.is_ascii_whitespace())
                    .expect("a token");
            let end = start
                + image[start..]
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .expect("the token's end");
            header.push(String::from_utf8_lossy(&image[start..end]).into_owned());
            offset = end + 1;
        }
        let (width, height): (usize, usize) = (
            header[1].parse().expect("width"),
            header[2].parse().expect("height"),
        );
        let pixels = &image[offset..];
        assert_eq!(pixels.len(), width * height);
        let dark: Vec<(usize, usize)> = (0..width * height)
            .filter(|&i| pixels[i] < 128)
            .map(|i| (i % width, i / width))
            .collect();
        let bounds = (!dark.is_empty()).then(|| {
            let xs = dark.iter().map(|&(x, _)| x);
            let ys = dark.iter().map(|&(_, y)| y);
            (
                xs.clone().min().unwrap_or(0),
                ys.clone().min().unwrap_or(0),
                xs.max().unwrap_or(0),
                ys.max().unwrap_or(0),
            )
        });
        ((width, height), bounds)
    }

    /// The transform test: a word stamped at a known displayed position must come out there,
    /// whatever the page's rotation and visible box. Checked twice: with the word boxes of
    /// `pdftotext -bbox`, and with the pixels `pdftoppm` draws, which cannot be read in any
    /// orientation but the displayed one.
    #[test]
    fn stamps_land_in_their_boxes_whatever_the_rotation_and_crop_box() {
        if !poppler_installed() {
            return;
        }
        let media = [0.0, 0.0, 400.0, 600.0];
        let offset_crop = Some([50.0, 70.0, 350.0, 520.0]);
        let cases = [
            (media, 0, None),
            (media, 90, None),
            (media, 180, None),
            (media, 270, None),
            (media, -90, None),
            (media, 450, None),
            (media, 0, offset_crop),
            (media, 90, offset_crop),
            (media, 180, offset_crop),
            (media, 270, offset_crop),
            ([-100.0, 30.0, 300.0, 630.0], 270, None),
        ];
        for (media, rotate, crop) in cases {
            let original = single_page(media, rotate, crop);
            let displayed = pdf::inspect(&original).expect("inspect").page_sizes[0];
            // Near the top-left corner, so that a mirrored or turned placement misses.
            let (x, y, width, height) = (40.0, 60.0, 160.0, 28.0);
            let mark = format!("Mark{rotate}");
            let result = render(
                &original,
                &[field(1, (x, y, width, height), StampKind::Text, &mark)],
            );
            let case = format!("rotate {rotate}, media {media:?}, crop {crop:?}");

            let (_, words) = words(&result.bytes);
            let word = words
                .iter()
                .find(|word| word.text == mark)
                .unwrap_or_else(|| panic!("{case}: no {mark} among {words:?}"));
            let tolerance = 0.5;
            assert!(
                word.x_min >= x - tolerance
                    && word.x_max <= x + width + tolerance
                    && word.y_min >= y - tolerance
                    && word.y_max <= y + height + tolerance,
                "{case}: {word:?} is outside the box ({x}, {y}, {width}, {height})"
            );
            // Left-aligned after the padding, and vertically centred.
            assert!(
                (word.x_min - (x + TEXT_PADDING)).abs() < 1.0,
                "{case}: {word:?}"
            );
            let middle = (word.y_min + word.y_max) / 2.0;
            assert!(
                (middle - (y + height / 2.0)).abs() < 1.0,
                "{case}: {word:?}"
            );

            let (size, ink) = ink(&result.bytes);
            assert_eq!(
                size,
                (
                    displayed.width.round() as usize,
                    displayed.height.round() as usize
                ),
                "{case}: the drawn page is not the displayed size"
            );
            let (x0, y0, x1, y1) = ink.unwrap_or_else(|| panic!("{case}: nothing drawn"));
            let inside = |low: usize, high: usize, start: f64, length: f64| {
                low as f64 >= start - 1.0 && high as f64 <= start + length + 1.0
            };
            assert!(
                inside(x0, x1, x, width) && inside(y0, y1, y, height),
                "{case}: ink at ({x0}, {y0})-({x1}, {y1}) is outside the box"
            );
            assert!(
                (x0 as f64) < x + 6.0,
                "{case}: the text does not start at the left: {x0}"
            );
        }
    }

    #[test]
    fn a_png_signature_is_embedded_as_an_image_with_a_soft_mask() {
        let original = original();
        let url = data_url(&png(60, 20));
        let fields = [
            field(1, (72.0, 500.0, 200.0, 50.0), StampKind::Signature, &url),
            // The same image again is embedded once.
            field(2, (72.0, 300.0, 100.0, 30.0), StampKind::Initials, &url),
        ];
        let result = render(&original, &fields);
        assert_sizes_kept(&original, &result);

        let doc = Document::load_mem(&result.bytes).expect("load");
        let pages = doc.get_pages();
        let mut seen = Vec::new();
        for number in [1, 2] {
            let page = doc.get_dictionary(pages[&number]).expect("page");
            let resources = page
                .get_deref(b"Resources", &doc)
                .and_then(Object::as_dict)
                .expect("resources");
            let xobjects = resources
                .get_deref(b"XObject", &doc)
                .and_then(Object::as_dict)
                .expect("XObject");
            let (_, image) = xobjects.iter().next().expect("an image");
            let id = image.as_reference().expect("a reference");
            let stream = doc
                .get_object(id)
                .and_then(Object::as_stream)
                .expect("image stream");
            assert_eq!(
                stream.dict.get(b"Subtype").and_then(Object::as_name).ok(),
                Some(&b"Image"[..])
            );
            assert_eq!(
                stream.dict.get(b"Width").and_then(Object::as_i64).ok(),
                Some(60)
            );
            assert_eq!(
                stream
                    .dict
                    .get(b"ColorSpace")
                    .and_then(Object::as_name)
                    .ok(),
                Some(&b"DeviceRGB"[..])
            );
            assert_eq!(stream.filters().ok(), Some(vec![&b"FlateDecode"[..]]));
            assert_eq!(
                stream.decompressed_content().expect("decode").len(),
                60 * 20 * 3
            );
            let mask = stream
                .dict
                .get(b"SMask")
                .and_then(Object::as_reference)
                .expect("an SMask");
            let mask = doc
                .get_object(mask)
                .and_then(Object::as_stream)
                .expect("mask stream");
            assert_eq!(mask.decompressed_content().expect("decode").len(), 60 * 20);
            // The page's own fonts are still there.
            let fonts = resources
                .get_deref(b"Font", &doc)
                .and_then(Object::as_dict)
                .expect("fonts");
            assert!(fonts.has(b"F1"));
            seen.push(id);
        }
        assert_eq!(seen[0], seen[1]);
    }

    #[test]
    fn grayscale_palette_and_16_bit_pngs_are_decoded() {
        let encode = |color, depth, data: &[u8], palette: Option<&[u8]>| {
            let mut bytes = Vec::new();
            let mut encoder = png::Encoder::new(&mut bytes, 2, 1);
            encoder.set_color(color);
            encoder.set_depth(depth);
            if let Some(palette) = palette {
                encoder.set_palette(palette.to_vec());
            }
            let mut writer = encoder.write_header().expect("header");
            writer.write_image_data(data).expect("data");
            writer.finish().expect("end");
            bytes
        };
        let gray = decode_png(&encode(
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[10, 200],
            None,
        ))
        .expect("gray");
        assert_eq!(gray.rgb, [10, 10, 10, 200, 200, 200]);
        assert!(gray.alpha.is_none());
        let indexed = decode_png(&encode(
            png::ColorType::Indexed,
            png::BitDepth::Eight,
            &[1, 0],
            Some(&[1, 2, 3, 4, 5, 6]),
        ))
        .expect("indexed");
        assert_eq!(indexed.rgb, [4, 5, 6, 1, 2, 3]);
        let deep = decode_png(&encode(
            png::ColorType::GrayscaleAlpha,
            png::BitDepth::Sixteen,
            &[0xFF, 0, 0x80, 0, 0, 0, 0xFF, 0xFF],
            None,
        ))
        .expect("16-bit");
        assert_eq!(deep.rgb, [0xFF, 0xFF, 0xFF, 0, 0, 0]);
        assert_eq!(deep.alpha, Some(vec![0x80, 0xFF]));
    }

    #[test]
    fn a_malformed_data_url_is_stamped_as_text() {
        let original = original();
        let fields = [
            field(
                1,
                (72.0, 500.0, 200.0, 40.0),
                StampKind::Signature,
                "data:image/png;base64,@@not base64@@",
            ),
            field(
                1,
                (72.0, 600.0, 200.0, 40.0),
                StampKind::Signature,
                "data:image/png;base64,aGVsbG8=",
            ),
            field(
                2,
                (72.0, 300.0, 200.0, 40.0),
                StampKind::Initials,
                "data:image/jpeg;base64,/9j/4AAQ",
            ),
        ];
        let result = render(&original, &fields);
        assert_sizes_kept(&original, &result);
        if !poppler_installed() {
            return;
        }
        assert_eq!(
            page_text(&result.bytes, 1).matches("[signature]").count(),
            2
        );
        assert!(page_text(&result.bytes, 2).contains("[signature]"));
    }

    #[test]
    fn a_long_audit_trail_continues_on_further_pages() {
        let original = original();
        let certificate = certificate(&original, 120);
        let result = render_final(&original, &[], &certificate).expect("render");
        assert!(
            result.certificate_pages >= 3,
            "{} pages",
            result.certificate_pages
        );
        assert_sizes_kept(&original, &result);
        if !poppler_installed() {
            return;
        }
        let count = result.certificate_pages;
        let mut all = String::new();
        for index in 1..=count {
            let text = page_text(&result.bytes, 3 + index);
            let footer = format!("Signet certificate — page {index} of {count}");
            assert!(text.contains(&footer), "no {footer:?} in {text}");
            let heading = if index == 1 {
                "Certificate of completion"
            } else {
                "Certificate of completion (continued)"
            };
            assert!(text.contains(heading), "page {index}: {text}");
            all.push_str(&text);
        }
        for entry in &certificate.audit {
            assert_eq!(all.matches(&entry.message).count(), 1, "{}", entry.message);
        }
    }

    #[test]
    fn every_fixture_can_be_stamped() {
        let manifest = format!("{FIXTURES}MANIFEST.tsv");
        let manifest = std::fs::read_to_string(&manifest).unwrap_or_else(|error| {
            panic!("the PDF fixtures are missing: cannot read {manifest}: {error}")
        });
        let mut lines = manifest.lines().filter(|line| !line.trim().is_empty());
        let header: Vec<_> = lines.next().expect("a header").split('\t').collect();
        let column = |name| {
            header
                .iter()
                .position(|&column| column == name)
                .expect("a column")
        };
        let (file, encrypted) = (column("file"), column("encrypted"));
        let poppler = poppler_installed();

        let mut stamped = 0;
        for line in lines {
            let columns: Vec<_> = line.split('\t').collect();
            let name = columns[file];
            let path = format!("{FIXTURES}{name}");
            let original = std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
            let fields = [field(
                1,
                (72.0, 72.0, 220.0, 24.0),
                StampKind::Text,
                "SignetStampedValue",
            )];
            if columns[encrypted] == "true" {
                assert!(
                    matches!(
                        render_final(&original, &fields, &certificate(&original, 2)),
                        Err(StampError::Read(_))
                    ),
                    "{name}"
                );
                continue;
            }
            let result = render_final(&original, &fields, &certificate(&original, 2))
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_sizes_kept(&original, &result);
            if poppler {
                let text = page_text(&result.bytes, 1);
                assert!(text.contains("SignetStampedValue"), "{name}: {text}");
            }
            stamped += 1;
        }
        assert!(stamped >= 5, "only {stamped} fixtures stamped");
    }

    #[test]
    fn the_output_is_deterministic_and_the_stamped_hash_is_checkable() {
        let original = original();
        let fields = [
            field(
                1,
                (72.0, 100.0, 200.0, 24.0),
                StampKind::Text,
                "Same every time",
            ),
            field(
                2,
                (72.0, 300.0, 100.0, 30.0),
                StampKind::Signature,
                &data_url(&png(8, 4)),
            ),
        ];
        let first = render(&original, &fields);
        let second = render(&original, &fields);
        assert_eq!(first.stamped_sha256, second.stamped_sha256);
        assert_eq!(first.bytes, second.bytes);
        assert_eq!(first.sha256, sha256_hex(&first.bytes));
        assert_ne!(first.stamped_sha256, first.sha256);
        for hash in [&first.sha256, &first.stamped_sha256] {
            assert_eq!(hash.len(), 64);
            assert!(
                hash.bytes()
                    .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')),
                "{hash}"
            );
        }

        let revision = stamped_revision(&first.bytes).expect("the stamped revision");
        assert_eq!(sha256_hex(revision), first.stamped_sha256);
        assert!(revision.len() < first.bytes.len());
        let stamped = pdf::inspect(revision).expect("the stamped revision is a PDF of its own");
        assert_eq!(stamped.pages, 3);
    }

    #[test]
    fn fields_on_missing_pages_are_refused() {
        let original = original();
        for page in [0, 4] {
            let fields = [field(page, (1.0, 1.0, 10.0, 10.0), StampKind::Text, "x")];
            let result = render_final(&original, &fields, &certificate(&original, 1));
            assert!(
                matches!(result, Err(StampError::NoSuchPage(p)) if p == page),
                "{result:?}"
            );
        }
    }

    #[test]
    fn unreadable_originals_are_refused_without_panicking() {
        let certificate = certificate(b"", 1);
        for bytes in [
            &b""[..],
            b"hello",
            b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        ] {
            let result = render_final(bytes, &[], &certificate);
            assert!(matches!(result, Err(StampError::Read(_))), "{result:?}");
        }
        let mut truncated = original();
        truncated.truncate(truncated.len() / 2);
        truncated.extend(b"\x00garbage\xff".repeat(50));
        // Either repaired or refused, but never a panic.
        let _ = render_final(&truncated, &[], &certificate);
    }

    #[test]
    fn odd_page_trees_still_get_their_pages() {
        // The catalog points straight at a page, which has no /Contents.
        let mut doc = Document::with_version("1.4");
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "MediaBox" => numbers(&[0.0, 0.0, 300.0, 300.0]),
        });
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => page });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("save");
        let result = render(
            &bytes,
            &[field(
                1,
                (10.0, 10.0, 100.0, 20.0),
                StampKind::Text,
                "Lonely",
            )],
        );
        assert_sizes_kept(&bytes, &result);

        // A page written inline in its parent's /Kids, and /Contents behind a reference to an
        // array.
        let mut doc = Document::with_version("1.4");
        let pages_id = doc.new_object_id();
        let text = content(&mut doc, "0 0 1 rg");
        let contents = doc.add_object(vec![Object::Reference(text)]);
        let pages = dictionary! {
            "Type" => "Pages", "Count" => 1,
            "Kids" => vec![Object::Dictionary(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
            })],
            "MediaBox" => numbers(&[0.0, 0.0, 500.0, 300.0]),
        };
        let bytes = save(doc, pages_id, pages);
        let result = render(
            &bytes,
            &[field(
                1,
                (10.0, 10.0, 100.0, 20.0),
                StampKind::Text,
                "Inline",
            )],
        );
        assert_sizes_kept(&bytes, &result);

        if poppler_installed() {
            assert!(page_text(&result.bytes, 1).contains("Inline"));
        }
    }

    #[test]
    fn certificate_pages_ignore_what_the_page_tree_root_passes_down() {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let page = doc.add_object(dictionary! { "Type" => "Page", "Parent" => pages_id });
        let pages = dictionary! {
            "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
            "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]),
            "CropBox" => numbers(&[10.0, 10.0, 300.0, 400.0]),
            "Rotate" => 90,
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => times(&mut doc) } },
        };
        let bytes = save(doc, pages_id, pages);
        let result = render(&bytes, &[]);
        // The certificate pages are US Letter, upright.
        assert_sizes_kept(&bytes, &result);
        let doc = Document::load_mem(&result.bytes).expect("load");
        let certificate_page = doc.get_pages()[&2];
        let page = doc.get_dictionary(certificate_page).expect("page");
        assert_eq!(page.get(b"Rotate").and_then(Object::as_i64).ok(), Some(0));
        if poppler_installed() {
            assert!(page_text(&result.bytes, 2).contains("Certificate of completion"));
        }
    }

    #[test]
    fn text_is_fitted_to_its_box() {
        assert_eq!(number_text(12.0), "12");
        assert_eq!(number_text(-0.0001), "0");
        assert_eq!(number_text(1.23456), "1.235");

        let area = Rect {
            x0: 10.0,
            y0: 20.0,
            x1: 110.0,
            y1: 40.0,
        };
        let size = |text: &str| {
            let shaped = typeset::shape(text);
            let mut fonts = Fonts::new();
            let mut doc = Document::with_version("1.7");
            let names = fonts
                .objects_for(&mut doc, &shaped)
                .expect("ids")
                .into_iter()
                .map(|(face, _)| (face, format!("F{face}")))
                .collect();
            let ops = String::from_utf8_lossy(&text_ops(&mut fonts, &names, &shaped, BLACK, area))
                .into_owned();
            let size = ops
                .split(" Tf")
                .next()
                .and_then(|before| before.rsplit(' ').next())
                .expect("a Tf");
            (size.parse::<f64>().expect("a size"), shaped.width)
        };
        // Short text is as large as the box allows; long text shrinks to fit the width.
        assert_eq!(size("Hi").0, 14.0);
        let (fitted, width) = size("A rather long value that cannot fit");
        assert!(fitted < 14.0);
        assert!(width * fitted / 1000.0 <= 96.0 + 0.01);
        let shaped = typeset::shape("");
        assert!(text_ops(&mut Fonts::new(), &HashMap::new(), &shaped, BLACK, area).is_empty());
    }

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

    /// Names and values in many scripts, as a signer would type them.
    const SCRIPTS: [&str; 12] = [
        "Zoë Ærøskøbing-Łukasiewicz",
        "O'Brien, \"Bob\"",
        "Ελένη Παπαδοπούλου",
        "Юлия Соколова",
        "王芳",
        "山田 さくら",
        "김민준",
        "محمد الأحمد",
        "דוד כהן",
        "प्रिया शर्मा",
        "José Müller; CFO",
        "Nguyễn Thị Minh Khai",
    ];

    #[test]
    fn every_script_is_stamped_and_certified_as_written() {
        let original = original();
        let fields: Vec<StampField> = SCRIPTS
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let kind = if index % 2 == 0 {
                    StampKind::Signature
                } else {
                    StampKind::Text
                };
                field(
                    1,
                    (72.0, 60.0 + 50.0 * index as f64, 300.0, 36.0),
                    kind,
                    name,
                )
            })
            .collect();
        let mut certificate = certificate(&original, 2);
        certificate.recipients = SCRIPTS
            .iter()
            .map(|name| CertificateRecipient {
                name: (*name).into(),
                ..certificate.recipients[0].clone()
            })
            .collect();
        certificate.title = "Договор — اتفاقية — 合同".into();
        let result = render_final(&original, &fields, &certificate).expect("render");
        assert_sizes_kept(&original, &result);
        let doc = Document::load_mem(&result.bytes).expect("load");
        let fonts: Vec<String> = doc
            .objects
            .values()
            .filter_map(|object| object.as_dict().ok())
            .filter(|dict| dict.has_type(b"Font"))
            .filter_map(|dict| dict.get(b"Subtype").and_then(Object::as_name).ok())
            .map(|name| String::from_utf8_lossy(name).into_owned())
            .collect();
        assert!(fonts.iter().any(|name| name == "Type0"), "{fonts:?}");
        assert!(fonts.iter().any(|name| name == "CIDFontType2"), "{fonts:?}");
        if !poppler_installed() {
            return;
        }
        let stamped = pdftotext(&result.bytes, &["-f", "1", "-l", "1"]);
        let certified = pdftotext(&result.bytes, &["-f", "4"]);
        for name in SCRIPTS {
            assert!(stamped.contains(name), "page 1 lacks {name:?}: {stamped}");
            assert!(
                certified.contains(name),
                "the certificate lacks {name:?}: {certified}"
            );
        }
        for piece in ["Договор — ", "اتفاقية", "合同"] {
            assert!(certified.contains(piece), "{certified}");
        }
        assert!(!stamped.contains('?') && !certified.contains('?'));
    }
}
