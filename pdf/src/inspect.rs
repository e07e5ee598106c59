//! Checks an uploaded PDF and reads what the rest of Signet needs from it: its page count, the
//! size of each page and the SHA-256 of the file.

use std::{
    cell::RefCell,
    time::{Duration, Instant},
};

use lopdf::{Document, LoadOptions, Object, ObjectId};

use crate::page_geometry::{PageSize, page_size};
use crate::page_tree;
use crate::sha256_hex;

pub const MAX_UPLOAD_BYTES: usize = 50 * 1024 * 1024;
pub const MAX_PAGES: usize = 2_000;

/// How much junk may precede `%PDF-`, as PDF readers tolerate.
const MAX_HEADER_OFFSET: usize = 1024;

/// The most values (numbers, names, strings, references, and each array, dictionary and entry)
/// the objects of one file may hold, all together: lopdf spends some 100 bytes on each, so
/// `[[][][]…]` inflated from a few kilobytes would otherwise become gigabytes of heap.
pub const MAX_VALUES: usize = 3_000_000;
/// The deepest arrays and dictionaries may nest.
pub const MAX_NESTING: usize = 64;

/// Bounds on the work one inspection may do, whatever the file asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct InspectedPdf {
    pub pages: usize,
    pub page_sizes: Vec<PageSize>,
    /// Lowercase hex SHA-256 of the whole file.
    pub sha256: String,
}

#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
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
    #[error(
        "the PDF holds more than {MAX_VALUES} values or nests them more than {MAX_NESTING} deep"
    )]
    TooComplex,
    #[error(
        "the PDF is damaged (its structure had to be rebuilt) and {0}: open it in a PDF reader, save or export it again, and upload the new file"
    )]
    Damaged(String),
    #[error("the PDF's cross-reference data points many objects at the same bytes")]
    RepeatedStreams,
    #[error("the PDF needs more than {0} MiB of memory to read")]
    TooMuchMemory(usize),
    #[error("the PDF's text is too long or drawn in too many operations to read")]
    TooMuchText,
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
    read(bytes, limits).map(|(_, inspected)| inspected)
}

/// [`inspect_with`], and the document it read, for work that goes on with it (checking a
/// seal) without parsing the file again.
pub(crate) fn read(bytes: &[u8], limits: Limits) -> Result<(Document, InspectedPdf), PdfError> {
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
    // A file lopdf had to rebuild by scanning (a truncated download, say) is taken only if
    // every page it promises reads whole: otherwise its signer would meet missing pages.
    if doc.xref_recovery == Some(lopdf::xref::XrefRecovery::Reconstructed)
        && let Some(damage) = damage(&doc, &pages)
    {
        return Err(PdfError::Damaged(damage));
    }
    let page_sizes = pages
        .iter()
        .map(|&id| doc.get_dictionary(id).map(|page| page_size(&doc, page)))
        .collect::<Result<_, _>>()
        .map_err(|error| PdfError::Corrupt(error.to_string()))?;
    let inspected = InspectedPdf {
        pages: pages.len(),
        page_sizes,
        sha256: sha256_hex(bytes),
    };
    Ok((doc, inspected))
}

/// Loads `bytes` within `limits`: every parse of a PDF in Signet goes through here, the
/// upload's and those of the final PDF's revisions alike.
pub(crate) fn load(bytes: &[u8], limits: Limits) -> Result<Document, PdfError> {
    let options = LoadOptions {
        filter: Some(charge_budget),
        max_decompressed_size: Some(limits.max_inflated_bytes),
        ..LoadOptions::default()
    };
    BUDGET.set(Some(Budget {
        remaining: limits.max_inflated_bytes,
        values_left: MAX_VALUES,
        // Each stream's bytes are bytes of the file: streams that hold more in all are the
        // same bytes read again through many cross-reference entries.
        stream_bytes_left: bytes.len(),
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
        Some(Exceeded::Values) => return Err(PdfError::TooComplex),
        Some(Exceeded::StreamBytes) => return Err(PdfError::RepeatedStreams),
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
    values_left: usize,
    stream_bytes_left: usize,
    deadline: Instant,
    exceeded: Option<Exceeded>,
}

#[derive(Debug, Clone, Copy)]
enum Exceeded {
    Bytes,
    Time,
    Values,
    StreamBytes,
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
        match count_values(object, budget.values_left) {
            Some(values) => budget.values_left -= values,
            None => {
                budget.exceeded = Some(Exceeded::Values);
                return false;
            }
        }
        let Object::Stream(stream) = object else {
            return true;
        };
        match budget.stream_bytes_left.checked_sub(stream.content.len()) {
            Some(left) => budget.stream_bytes_left = left,
            None => {
                budget.exceeded = Some(Exceeded::StreamBytes);
                return false;
            }
        }
        if !stream.dict.has_type(b"ObjStm") {
            return true;
        }
        match stream.decompressed_content_with_limit(budget.remaining) {
            // lopdf parses every object of an object stream before it hands any to this
            // filter: one that could hold more values than are left is refused unparsed.
            Ok(plain) if tokens(&plain) > budget.values_left => {
                budget.exceeded = Some(Exceeded::Values);
                false
            }
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

/// What of a rebuilt file's pages cannot be read: fewer pages than its page tree counts, or a
/// page whose content streams or resources do not load.
fn damage(doc: &Document, pages: &[ObjectId]) -> Option<String> {
    let counted = doc
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"Pages", doc).ok())
        .and_then(|root| root.as_dict().ok())
        .and_then(|root| root.get(b"Count").ok())
        .and_then(|count| count.as_i64().ok());
    if let Some(counted) = counted.filter(|&counted| counted > pages.len() as i64) {
        return Some(format!(
            "only {} of its {counted} pages can be read",
            pages.len()
        ));
    }
    let loads = |object: &Object| match object {
        Object::Reference(id) => doc.get_object(*id).is_ok(),
        _ => true,
    };
    for (number, &id) in pages.iter().enumerate() {
        let unreadable = || Some(format!("page {} cannot be read completely", number + 1));
        let Ok(page) = doc.get_dictionary(id) else {
            return unreadable();
        };
        let contents_load = match page.get(b"Contents") {
            Err(_) => true,
            Ok(Object::Array(parts)) => parts.iter().all(loads),
            Ok(contents) => {
                loads(contents) && !matches!(doc.dereference(contents), Ok((_, Object::Null)))
            }
        };
        // The page's own /Resources or its nearest ancestor's, as written: one that names an
        // object the file no longer has is damage, not an absence.
        let mut node = Some(page);
        let mut written = None;
        for _ in 0..MAX_NESTING {
            let Some(current) = node else { break };
            if let Ok(resources) = current.get(b"Resources") {
                written = Some(resources);
                break;
            }
            node = current
                .get_deref(b"Parent", doc)
                .and_then(Object::as_dict)
                .ok();
        }
        let resources_load = written.is_none_or(|resources| {
            loads(resources)
                && doc
                    .dereference(resources)
                    .ok()
                    .and_then(|(_, resources)| resources.as_dict().ok())
                    .is_some_and(|resources| {
                        resources.iter().all(|(_, kind)| {
                            loads(kind)
                                && doc
                                    .dereference(kind)
                                    .ok()
                                    .and_then(|(_, kind)| kind.as_dict().ok())
                                    .is_none_or(|entries| {
                                        entries.iter().all(|(_, entry)| loads(entry))
                                    })
                        })
                    })
        });
        if !contents_load || !resources_load {
            return unreadable();
        }
    }
    None
}

/// How many values `object` holds, itself included, if no more than `at_most` and nested no
/// deeper than [`MAX_NESTING`]. Walked with a stack of its own: the object is the file's, and
/// its depth is not yet known to be small.
fn count_values(object: &Object, at_most: usize) -> Option<usize> {
    let mut pending = vec![(object, 0)];
    let mut count = 0usize;
    while let Some((object, depth)) = pending.pop() {
        count += 1;
        if count > at_most || depth > MAX_NESTING {
            return None;
        }
        let dict = match object {
            Object::Array(items) => {
                pending.extend(items.iter().map(|item| (item, depth + 1)));
                continue;
            }
            Object::Dictionary(dict) => dict,
            Object::Stream(stream) => &stream.dict,
            _ => continue,
        };
        count += dict.len();
        pending.extend(dict.iter().map(|(_, value)| (value, depth + 1)));
    }
    (count <= at_most).then_some(count)
}

/// How many PDF tokens `text` holds at most (each delimiter, and each run of other
/// characters): no fewer than the values it parses to.
fn tokens(text: &[u8]) -> usize {
    let mut count = 0;
    let mut in_token = false;
    for &byte in text {
        if byte.is_ascii_whitespace() || byte == 0 {
            in_token = false;
        } else if b"[]<>(){}/".contains(&byte) {
            count += 1;
            in_token = false;
        } else if !in_token {
            count += 1;
            in_token = true;
        }
    }
    count
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

#[cfg(test)]
mod tests;
