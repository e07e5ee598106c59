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
        sha256: sha256_hex(bytes),
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

#[cfg(test)]
mod tests;
