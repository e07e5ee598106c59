//! Checks an uploaded PDF and reads what the rest of Signet needs from it: its page count, the
//! size of each page and the SHA-256 of the file.

use std::{
    cell::RefCell,
    time::{Duration, Instant},
};

use lopdf::{Dictionary, Document, LoadOptions, Object, ObjectId};
use sha2::{Digest, Sha256};

use crate::page_tree::{self, inherited};

pub const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;
pub const MAX_PAGES: usize = 2_000;

/// How much junk may precede `%PDF-`, as PDF readers tolerate.
const MAX_HEADER_OFFSET: usize = 1024;
const US_LETTER: Rect = Rect {
    x0: 0.0,
    y0: 0.0,
    x1: 612.0,
    y1: 792.0,
};

/// The size of a page in PDF points as it is displayed, that is after its `/Rotate`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PageSize {
    pub width: f64,
    pub height: f64,
}

/// Bounds on the work one inspection may do, whatever the file asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes that the streams decoded while reading the file (object streams) may
    /// inflate to, all together. Also the bound on any single stream. `PDF_MAX_INFLATED_MIB`.
    pub max_inflated_bytes: usize,
    /// The longest one inspection may take. `PDF_MAX_INSPECT_SECS`.
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_inflated_bytes: 64 * 1024 * 1024,
            max_time: Duration::from_secs(10),
        }
    }
}

#[derive(Debug, Clone)]
pub struct InspectedPdf {
    pub pages: usize,
    pub page_sizes: Vec<PageSize>,
    /// Lowercase hex SHA-256 of the whole file.
    pub sha256: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the file is empty")]
    Empty,
    #[error("the file is larger than 50 MiB")]
    TooLarge,
    #[error("the file is not a PDF (it does not start with %PDF-)")]
    NotPdf,
    #[error("the PDF is corrupt and cannot be read: {0}")]
    Corrupt(String),
    #[error("the PDF is encrypted or password-protected; upload an unprotected copy")]
    Encrypted,
    #[error("the PDF has no pages")]
    NoPages,
    #[error("the PDF has {0} pages; at most 2000 are accepted")]
    TooManyPages(usize),
    #[error("the PDF's compressed data expands to more than {0} MiB")]
    TooMuchInflated(usize),
    #[error("the PDF takes longer than {0} seconds to read")]
    TooSlow(u64),
}

/// Validates an uploaded PDF and returns its page count, page sizes and SHA-256.
///
/// Checks, in this order: empty, larger than [`MAX_UPLOAD_BYTES`], no `%PDF-` header within
/// the first 1024 bytes, unparseable, encrypted (any `/Encrypt` entry, even when an empty user
/// password would open the file), no pages, more than [`MAX_PAGES`] pages.
///
/// The pages are the leaves of the page tree, whatever its `/Count` entries claim. A page's
/// size is its CropBox clipped to its MediaBox, or its MediaBox alone; both boxes and `/Rotate`
/// are inherited from the page's ancestors. A page with neither box anywhere is taken to be
/// US Letter (612 × 792), as PDF readers do.
///
/// Parsing is CPU-bound: from async code, call this inside `spawn_blocking`.
pub fn inspect(bytes: &[u8]) -> Result<InspectedPdf, PdfError> {
    inspect_with(bytes, Limits::default())
}

/// [`inspect`] within `limits`: a file whose object streams inflate to more than
/// `max_inflated_bytes` in all, or that takes longer than `max_time` to read, is refused.
pub fn inspect_with(bytes: &[u8], limits: Limits) -> Result<InspectedPdf, PdfError> {
    if bytes.is_empty() {
        return Err(PdfError::Empty);
    }
    if bytes.len() > MAX_UPLOAD_BYTES {
        return Err(PdfError::TooLarge);
    }
    let head = &bytes[..bytes.len().min(MAX_HEADER_OFFSET + 5)];
    if !head.windows(5).any(|window| window == b"%PDF-") {
        return Err(PdfError::NotPdf);
    }

    // An encrypted file is refused before lopdf decrypts and inflates its streams, work that
    // the budget below does not see.
    if names_encrypt(bytes) {
        return Err(PdfError::Encrypted);
    }
    let mut doc = load(bytes, limits)?;
    // When the empty user password opens the file, lopdf decrypts it and removes /Encrypt from
    // the trailer; `was_encrypted` still tells. Otherwise /Encrypt stays and no object is loaded.
    if doc.trailer.has(b"Encrypt") || doc.was_encrypted() {
        return Err(PdfError::Encrypted);
    }

    // The pages that stamping will number fields by: see `page_tree`.
    let pages =
        page_tree::leaf_pages(&mut doc).map_err(|error| PdfError::Corrupt(error.to_string()))?;
    match pages.len() {
        0 => return Err(PdfError::NoPages),
        count if count > MAX_PAGES => return Err(PdfError::TooManyPages(count)),
        _ => {}
    }
    let page_sizes = pages
        .iter()
        .map(|&id| doc.get_dictionary(id).map(|page| page_size(&doc, page)))
        .collect::<Result<_, _>>()
        .map_err(|error| PdfError::Corrupt(error.to_string()))?;
    Ok(InspectedPdf {
        pages: pages.len(),
        page_sizes,
        sha256: hex::encode(Sha256::digest(bytes)),
    })
}

fn load(bytes: &[u8], limits: Limits) -> Result<Document, PdfError> {
    let options = LoadOptions {
        filter: Some(charge_budget),
        max_decompressed_size: Some(limits.max_inflated_bytes),
        ..LoadOptions::default()
    };
    BUDGET.set(Some(Budget {
        remaining: limits.max_inflated_bytes,
        deadline: Instant::now() + limits.max_time,
        exceeded: None,
    }));
    // lopdf is a large parser and this input is untrusted: a bug in it must not bring down the
    // caller.
    let loaded = std::panic::catch_unwind(|| Document::load_mem_with_options(bytes, options));
    let budget = BUDGET.take();
    match budget.and_then(|budget| budget.exceeded) {
        Some(Exceeded::Bytes) => {
            return Err(PdfError::TooMuchInflated(
                limits.max_inflated_bytes / (1024 * 1024),
            ));
        }
        Some(Exceeded::Time) => return Err(PdfError::TooSlow(limits.max_time.as_secs())),
        None => {}
    }
    match loaded {
        Ok(Ok(doc)) => Ok(doc),
        Ok(Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
            ..
        }))) => Err(PdfError::TooMuchInflated(
            limits.max_inflated_bytes / (1024 * 1024),
        )),
        // Setting up decryption fails with errors of many kinds.
        Ok(Err(lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword)) => {
            Err(PdfError::Encrypted)
        }
        Ok(Err(error)) => Err(PdfError::Corrupt(error.to_string())),
        Err(_) => Err(PdfError::Corrupt("the PDF parser failed on it".into())),
    }
}

/// What one inspection may still spend. lopdf calls [`charge_budget`] for each object it reads,
/// on the thread that called it (lopdf is built without rayon), before it decodes an object
/// stream.
struct Budget {
    remaining: usize,
    deadline: Instant,
    exceeded: Option<Exceeded>,
}

#[derive(Debug, Clone, Copy)]
enum Exceeded {
    Bytes,
    Time,
}

thread_local! {
    static BUDGET: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

/// lopdf's load filter: inflates each object stream here, within what is left of the budget,
/// and hands lopdf the plain bytes, so that lopdf does not inflate it again. Once the budget or
/// the time is spent, every further object is dropped (which makes the rest of the load cheap)
/// and the inspection fails.
fn charge_budget(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let keep = BUDGET.with_borrow_mut(|budget| {
        let Some(budget) = budget else {
            return true;
        };
        if budget.exceeded.is_some() {
            return false;
        }
        if Instant::now() > budget.deadline {
            budget.exceeded = Some(Exceeded::Time);
            return false;
        }
        let Object::Stream(stream) = object else {
            return true;
        };
        if !stream.dict.has_type(b"ObjStm") {
            return true;
        }
        match stream.decompressed_content_with_limit(budget.remaining) {
            Ok(plain) => {
                budget.remaining -= plain.len();
                stream.set_plain_content(plain);
                true
            }
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => {
                budget.exceeded = Some(Exceeded::Bytes);
                false
            }
            // Undecodable: lopdf reports or skips it as it would have.
            Err(_) => true,
        }
    });
    // For a top-level object lopdf only asks whether to keep it; for an object inside an
    // object stream (never itself a stream) it keeps the copy returned.
    match (keep, &*object) {
        (false, _) => None,
        (true, Object::Stream(_)) => Some((id, Object::Null)),
        (true, object) => Some((id, object.clone())),
    }
}

/// Whether the file names an `/Encrypt` entry (not `/EncryptMetadata` or the like), which only
/// the trailer of an encrypted file has: the name, spelled plainly or with `#xx` escapes,
/// followed by a reference or a dictionary.
fn names_encrypt(bytes: &[u8]) -> bool {
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|&b| b == b'/') {
        at += offset + 1;
        let (name, next) = pdf_name(&bytes[at..]);
        if name == b"Encrypt" {
            let rest = bytes[at + next..].trim_ascii_start();
            if rest.starts_with(b"<<") || rest.first().is_some_and(u8::is_ascii_digit) {
                return true;
            }
        }
    }
    false
}

/// A PDF name's bytes after its `/`, with `#xx` escapes decoded, and how many input bytes it
/// took.
fn pdf_name(bytes: &[u8]) -> (Vec<u8>, usize) {
    let is_end = |b: u8| b.is_ascii_whitespace() || b"/<>[]()%{}".contains(&b) || b == 0;
    let mut name = Vec::new();
    let mut i = 0;
    while i < bytes.len() && !is_end(bytes[i]) && name.len() <= 16 {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'#', Some(hex)) if hex.iter().all(u8::is_ascii_hexdigit) => {
                let hex = std::str::from_utf8(hex).unwrap_or("00");
                name.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                i += 3;
            }
            (byte, _) => {
                name.push(byte);
                i += 1;
            }
        }
    }
    (name, i)
}

fn page_size(doc: &Document, page: &Dictionary) -> PageSize {
    let view = PageView::of(doc, page);
    let (width, height) = (view.visible.width(), view.visible.height());
    if matches!(view.rotate, 90 | 270) {
        PageSize {
            width: height,
            height: width,
        }
    } else {
        PageSize { width, height }
    }
}

/// Where a page is shown: its visible box (the CropBox clipped to the MediaBox, else the
/// MediaBox, else US Letter) in default user space, and its clockwise rotation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PageView {
    pub(crate) visible: Rect,
    /// 0, 90, 180 or 270.
    pub(crate) rotate: i64,
}

impl PageView {
    pub(crate) fn of(doc: &Document, page: &Dictionary) -> PageView {
        let media_box = inherited(doc, page, b"MediaBox", |object| rect(doc, object));
        let crop_box = inherited(doc, page, b"CropBox", |object| rect(doc, object));
        let visible = match (crop_box, media_box) {
            (Some(crop), Some(media)) => crop.intersect(media).unwrap_or(media),
            (Some(crop), None) => crop,
            (None, media) => media.unwrap_or(US_LETTER),
        };
        let rotate = inherited(doc, page, b"Rotate", number)
            .filter(|degrees| degrees.fract() == 0.0)
            .map_or(0, |degrees| (degrees as i64).rem_euclid(360));
        PageView {
            visible,
            // Readers ignore a rotation that is not a multiple of 90 degrees.
            rotate: if rotate % 90 == 0 { rotate } else { 0 },
        }
    }
}

/// A rectangle in PDF user space, corners ordered (`x0 < x1`, `y0 < y1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl Rect {
    pub(crate) fn width(self) -> f64 {
        self.x1 - self.x0
    }

    pub(crate) fn height(self) -> f64 {
        self.y1 - self.y0
    }

    /// The overlap of two rectangles, if it has an area.
    pub(crate) fn intersect(self, other: Rect) -> Option<Rect> {
        let overlap = Rect {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        };
        (overlap.x0 < overlap.x1 && overlap.y0 < overlap.y1).then_some(overlap)
    }
}

/// A PDF rectangle: four numbers, each possibly an indirect reference, giving two opposite
/// corners in any order. One without area is unusable.
fn rect(doc: &Document, object: &Object) -> Option<Rect> {
    let [a, b, c, d] = object.as_array().ok()?.as_slice() else {
        return None;
    };
    let value = |object| number(doc.dereference(object).ok()?.1);
    let (xa, ya, xb, yb) = (value(a)?, value(b)?, value(c)?, value(d)?);
    let rect = Rect {
        x0: xa.min(xb),
        y0: ya.min(yb),
        x1: xa.max(xb),
        y1: ya.max(yb),
    };
    (rect.x0 < rect.x1 && rect.y0 < rect.y1).then_some(rect)
}

fn number(object: &Object) -> Option<f64> {
    match *object {
        Object::Integer(value) => Some(value as f64),
        // lopdf keeps reals as f32. Going through its shortest decimal form gives back the
        // number written in the file: 595.2756 rather than 595.2755737304688.
        Object::Real(value) => value.to_string().parse().ok(),
        _ => None,
    }
    .filter(|value: &f64| value.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::xref::XrefType;
    use lopdf::{EncryptionState, EncryptionVersion, ObjectId, Permissions, dictionary};

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/pdf/");

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!("{FIXTURES}{name}");
        std::fs::read(&path).unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"))
    }

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-3
    }

    fn assert_sizes(actual: &[PageSize], expected: &[(f64, f64)]) {
        assert_eq!(actual.len(), expected.len(), "{actual:?}");
        for (size, &(width, height)) in actual.iter().zip(expected) {
            assert!(
                close(size.width, width) && close(size.height, height),
                "expected {expected:?}, got {actual:?}"
            );
        }
    }

    /// A /Pages node with `kids`; `extra` adds entries to it.
    fn pages_node(kids: &[ObjectId], count: i64, extra: Dictionary) -> Object {
        let mut node = dictionary! {
            "Type" => "Pages",
            "Kids" => kids.iter().map(|&id| Object::from(id)).collect::<Vec<_>>(),
            "Count" => count,
        };
        node.extend(&extra);
        node.into()
    }

    fn page(doc: &mut Document, parent: ObjectId, extra: Dictionary) -> ObjectId {
        let mut page = dictionary! { "Type" => "Page", "Parent" => parent };
        page.extend(&extra);
        doc.add_object(page)
    }

    fn numbers(values: &[f64]) -> Vec<Object> {
        values.iter().map(|&value| (value as f32).into()).collect()
    }

    /// Gives `doc` a catalog pointing at `pages_id` and returns the saved file.
    fn save(mut doc: Document, pages_id: ObjectId) -> Vec<u8> {
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("save the generated PDF");
        bytes
    }

    /// A document with `kids` pages under a root whose /Count is `count`.
    fn simple_pdf(kids: usize, count: i64) -> Vec<u8> {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let ids: Vec<_> = (0..kids)
            .map(|_| page(&mut doc, pages_id, dictionary! {}))
            .collect();
        let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
        doc.objects
            .insert(pages_id, pages_node(&ids, count, media_box));
        save(doc, pages_id)
    }

    #[test]
    fn fixtures_match_the_manifest() {
        let path = format!("{FIXTURES}MANIFEST.tsv");
        let manifest = std::fs::read_to_string(&path).unwrap_or_else(|error| {
            panic!("the PDF fixtures are missing: cannot read {path}: {error}")
        });
        let mut lines = manifest.lines().filter(|line| !line.trim().is_empty());
        let header: Vec<_> = lines
            .next()
            .expect("MANIFEST.tsv is empty")
            .split('\t')
            .collect();
        let column = |name| {
            header
                .iter()
                .position(|&column| column == name)
                .unwrap_or_else(|| panic!("MANIFEST.tsv has no {name} column"))
        };
        let (file, pages, encrypted) = (column("file"), column("pages"), column("encrypted"));

        let mut checked = 0;
        for line in lines {
            let fields: Vec<_> = line.split('\t').collect();
            let name = fields[file];
            let result = inspect(&fixture(name));
            if fields[encrypted] == "true" {
                assert!(
                    matches!(result, Err(PdfError::Encrypted)),
                    "{name}: {result:?}"
                );
            } else {
                let expected: usize = fields[pages].parse().expect("a page count");
                let inspected = result.unwrap_or_else(|error| panic!("{name}: {error}"));
                assert_eq!(inspected.pages, expected, "{name}");
                assert_eq!(inspected.page_sizes.len(), expected, "{name}");
            }
            checked += 1;
        }
        assert!(checked > 0, "MANIFEST.tsv lists no files");
    }

    #[test]
    fn rotated_fixture_pages_are_sized_as_displayed() {
        // Every page has MediaBox [0 0 595.2756 841.8898]; /Rotate is 90, 180, 270 and 360.
        let inspected = inspect(&fixture("habibi-rotated.pdf")).expect("inspect");
        let (short, long) = (595.2756, 841.8898);
        assert_sizes(
            &inspected.page_sizes,
            &[(long, short), (short, long), (long, short), (short, long)],
        );
        assert_eq!(inspected.page_sizes[0].width, long);
    }

    #[test]
    fn boxes_and_rotation_are_inherited() {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let plain = page(&mut doc, pages_id, dictionary! {});
        let cropped = page(
            &mut doc,
            pages_id,
            dictionary! { "CropBox" => numbers(&[50.0, 50.0, 350.0, 450.0]) },
        );
        let turned = page(&mut doc, pages_id, dictionary! { "Rotate" => 90 });
        let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
        doc.objects.insert(
            pages_id,
            pages_node(&[plain, cropped, turned], 3, media_box),
        );

        let inspected = inspect(&save(doc, pages_id)).expect("inspect");
        assert_eq!(inspected.pages, 3);
        assert_sizes(
            &inspected.page_sizes,
            &[(595.0, 842.0), (300.0, 400.0), (842.0, 595.0)],
        );
    }

    #[test]
    fn odd_boxes_and_rotations() {
        let mut doc = Document::with_version("1.7");
        let root_id = doc.new_object_id();
        let middle_id = doc.new_object_id();
        // Corners in reverse order, as reals, behind an indirect reference.
        let media_box = doc.add_object(numbers(&[500.5, 700.0, 100.5, 100.0]));
        let crop_larger_than_media = page(
            &mut doc,
            middle_id,
            dictionary! { "CropBox" => numbers(&[0.0, 0.0, 1000.0, 300.0]) },
        );
        let inherits_rotation = page(&mut doc, middle_id, dictionary! {});
        let own_box_and_rotation = page(
            &mut doc,
            middle_id,
            dictionary! {
                "MediaBox" => vec![Object::Integer(0), 0.into(), 200.into(), 100.into()],
                "Rotate" => 180,
            },
        );
        let crop_outside_media = page(
            &mut doc,
            middle_id,
            dictionary! { "CropBox" => numbers(&[600.0, 0.0, 700.0, 50.0]) },
        );
        doc.objects.insert(
            middle_id,
            pages_node(
                &[
                    crop_larger_than_media,
                    inherits_rotation,
                    own_box_and_rotation,
                    crop_outside_media,
                ],
                4,
                dictionary! { "Parent" => root_id, "Rotate" => -90 },
            ),
        );
        doc.objects.insert(
            root_id,
            pages_node(&[middle_id], 4, dictionary! { "MediaBox" => media_box }),
        );

        let inspected = inspect(&save(doc, root_id)).expect("inspect");
        assert_sizes(
            &inspected.page_sizes,
            &[
                (200.0, 400.0),
                (600.0, 400.0),
                (200.0, 100.0),
                (600.0, 400.0),
            ],
        );
    }

    #[test]
    fn a_page_without_any_box_is_us_letter() {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let lonely = page(&mut doc, pages_id, dictionary! {});
        doc.objects
            .insert(pages_id, pages_node(&[lonely], 1, dictionary! {}));
        let inspected = inspect(&save(doc, pages_id)).expect("inspect");
        assert_sizes(&inspected.page_sizes, &[(612.0, 792.0)]);
    }

    #[test]
    fn loops_in_the_page_tree_do_not_hang() {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let looping_id = doc.new_object_id();
        let own_parent = doc.new_object_id();
        doc.objects.insert(
            own_parent,
            dictionary! { "Type" => "Page", "Parent" => own_parent }.into(),
        );
        let missing = (9999, 0);
        // The intermediate node lists itself and the root among its kids, and its /Parent is
        // itself.
        doc.objects.insert(
            looping_id,
            pages_node(
                &[looping_id, own_parent, pages_id, missing],
                1,
                dictionary! { "Parent" => looping_id },
            ),
        );
        doc.objects.insert(
            pages_id,
            pages_node(&[looping_id, own_parent], 2, dictionary! {}),
        );

        let inspected = inspect(&save(doc, pages_id)).expect("inspect");
        assert_eq!(inspected.pages, 1);
        assert_sizes(&inspected.page_sizes, &[(612.0, 792.0)]);
    }

    #[test]
    fn an_incremental_update_adds_a_page() {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let first = page(&mut doc, pages_id, dictionary! {});
        let second = page(&mut doc, pages_id, dictionary! {});
        let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
        doc.objects
            .insert(pages_id, pages_node(&[first, second], 2, media_box));
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        // lopdf writes an xref stream by default; use a table, as the update below does.
        doc.reference_table.cross_reference_type = XrefType::CrossReferenceTable;
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("save");
        assert_eq!(inspect(&bytes).expect("inspect").pages, 2);

        let startxref = bytes
            .windows(9)
            .rposition(|window| window == b"startxref")
            .expect("startxref");
        let previous_xref: usize = String::from_utf8_lossy(&bytes[startxref + 9..])
            .split_whitespace()
            .next()
            .and_then(|offset| offset.parse().ok())
            .expect("the previous xref offset");
        let third = doc.max_id + 1;
        let (pages, catalog) = (pages_id.0, catalog.0);
        let (first, second) = (first.0, second.0);

        let mut updated = bytes.clone();
        updated.push(b'\n');
        let page_at = updated.len();
        updated.extend(
            format!("{third} 0 obj\n<< /Type /Page /Parent {pages} 0 R /Rotate 270 >>\nendobj\n")
                .as_bytes(),
        );
        let pages_at = updated.len();
        updated.extend(
            format!(
                "{pages} 0 obj\n<< /Type /Pages /Kids [{first} 0 R {second} 0 R {third} 0 R] \
                 /Count 3 /MediaBox [0 0 500 800] >>\nendobj\n"
            )
            .as_bytes(),
        );
        let xref_at = updated.len();
        updated.extend(
            format!(
                "xref\n{pages} 1\n{pages_at:010} 00000 n \n{third} 1\n{page_at:010} 00000 n \n\
                 trailer\n<< /Size {} /Root {catalog} 0 R /Prev {previous_xref} >>\n\
                 startxref\n{xref_at}\n%%EOF\n",
                third + 1
            )
            .as_bytes(),
        );

        let inspected = inspect(&updated).expect("inspect the updated file");
        assert_eq!(inspected.pages, 3);
        assert_sizes(
            &inspected.page_sizes,
            &[(500.0, 800.0), (500.0, 800.0), (800.0, 500.0)],
        );
    }

    #[test]
    fn the_real_leaf_pages_are_counted_not_count() {
        assert_eq!(inspect(&simple_pdf(2, 3)).expect("inspect").pages, 2);
        assert_eq!(inspect(&simple_pdf(3, 1)).expect("inspect").pages, 3);
        assert!(matches!(inspect(&simple_pdf(0, 2)), Err(PdfError::NoPages)));
    }

    #[test]
    fn too_many_pages_are_refused() {
        assert_eq!(
            inspect(&simple_pdf(MAX_PAGES, 1)).expect("inspect").pages,
            MAX_PAGES
        );
        assert!(matches!(
            inspect(&simple_pdf(MAX_PAGES + 1, 1)),
            Err(PdfError::TooManyPages(2001))
        ));
    }

    #[test]
    fn bad_input_gets_the_right_error() {
        assert!(matches!(inspect(b""), Err(PdfError::Empty)));
        assert!(matches!(inspect(b"hello"), Err(PdfError::NotPdf)));
        assert!(matches!(
            inspect(&vec![b' '; MAX_UPLOAD_BYTES + 1]),
            Err(PdfError::TooLarge)
        ));

        let mut corrupt = fixture("minimal-document.pdf")[..200].to_vec();
        corrupt.extend(b"\x00garbage\xff".repeat(100));
        assert!(
            matches!(inspect(&corrupt), Err(PdfError::Corrupt(_))),
            "{:?}",
            inspect(&corrupt)
        );
    }

    #[test]
    fn leading_junk_before_the_header_is_tolerated_up_to_1024_bytes() {
        let pdf = simple_pdf(1, 1);
        let with_junk = |length| [vec![b'x'; length], pdf.clone()].concat();
        assert_eq!(inspect(&with_junk(1024)).expect("inspect").pages, 1);
        assert!(matches!(inspect(&with_junk(1025)), Err(PdfError::NotPdf)));
    }

    #[test]
    fn a_file_the_empty_password_opens_is_still_encrypted() {
        let mut doc = Document::load_mem(&simple_pdf(2, 2)).expect("load");
        let id = Object::string_literal("0123456789abcdef");
        doc.trailer.set("ID", vec![id.clone(), id]);
        let state = EncryptionState::try_from(EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: "",
            key_length: 128,
            permissions: Permissions::all(),
        })
        .expect("encryption state");
        doc.encrypt(&state).expect("encrypt");
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).expect("save");

        // lopdf opens it without a password...
        assert_eq!(
            Document::load_mem(&bytes).expect("load").get_pages().len(),
            2
        );
        // ...but it is refused all the same.
        assert!(matches!(inspect(&bytes), Err(PdfError::Encrypted)));
    }

    /// A one-page PDF that also holds an object stream for each of `inflated`, inflating to that
    /// many zero bytes. Written by hand: lopdf drops object streams when it saves.
    fn bomb(inflated: &[usize]) -> Vec<u8> {
        let mut objects: Vec<Vec<u8>> = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
        ];
        for &size in inflated {
            let mut stream = lopdf::Stream::new(dictionary! {}, vec![0; size]);
            stream.compress().expect("compress");
            let mut object = format!(
                "<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length {} >>\nstream\n",
                stream.content.len()
            )
            .into_bytes();
            object.extend(&stream.content);
            object.extend(b"\nendstream");
            objects.push(object);
        }
        let mut pdf = b"%PDF-1.7\n".to_vec();
        let mut offsets = Vec::new();
        for (i, object) in objects.iter().enumerate() {
            offsets.push(pdf.len());
            pdf.extend(format!("{} 0 obj\n", i + 1).as_bytes());
            pdf.extend(object);
            pdf.extend(b"\nendobj\n");
        }
        let xref = pdf.len();
        pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
        for offset in offsets {
            pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
        }
        pdf.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        pdf
    }

    #[test]
    fn streams_inflating_past_the_budget_are_refused() {
        let limits = Limits {
            max_inflated_bytes: 1024 * 1024,
            ..Limits::default()
        };
        let under = bomb(&[512 * 1024]);
        assert_eq!(inspect_with(&under, limits).expect("inspect").pages, 1);
        let over = bomb(&[2 * 1024 * 1024]);
        assert!(
            matches!(
                inspect_with(&over, limits),
                Err(PdfError::TooMuchInflated(1))
            ),
            "{:?}",
            inspect_with(&over, limits)
        );
        // The default budget refuses the probe's 250 MB stream without inflating it all.
        assert!(matches!(
            inspect(&bomb(&[250 * 1000 * 1000])),
            Err(PdfError::TooMuchInflated(64))
        ));
    }

    #[test]
    fn the_budget_is_for_all_object_streams_together() {
        let limits = Limits {
            max_inflated_bytes: 1024 * 1024,
            ..Limits::default()
        };
        assert!(inspect_with(&bomb(&[600 * 1024]), limits).is_ok());
        let bytes = bomb(&[600 * 1024, 600 * 1024]);
        assert!(matches!(
            inspect_with(&bytes, limits),
            Err(PdfError::TooMuchInflated(1))
        ));
    }

    #[test]
    fn reading_past_the_time_limit_is_refused() {
        let limits = Limits {
            max_time: Duration::ZERO,
            ..Limits::default()
        };
        assert!(matches!(
            inspect_with(&simple_pdf(3, 3), limits),
            Err(PdfError::TooSlow(0))
        ));
    }

    #[test]
    fn an_escaped_encrypt_name_is_still_seen() {
        assert!(names_encrypt(b"trailer << /Encrypt 5 0 R >>"));
        assert!(names_encrypt(b"trailer << /Encr#79pt << /V 2 >> >>"));
        assert!(!names_encrypt(b"<< /EncryptMetadata false >>"));
        assert!(!names_encrypt(b"(a text about /Encrypt keys)"));
    }

    #[test]
    fn sha256_is_of_the_whole_file() {
        let bytes = fixture("annotated_pdf.pdf");
        let inspected = inspect(&bytes).expect("inspect");
        assert_eq!(inspected.sha256, hex::encode(Sha256::digest(&bytes)));
        assert_eq!(inspected.sha256.len(), 64);
        assert_eq!(inspected.sha256, inspected.sha256.to_lowercase());
    }
}
