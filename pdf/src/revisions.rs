//! The final PDF's two revisions: the stamped document saved whole, then an incremental update
//! that appends pages to it. The first revision is therefore a byte-for-byte prefix of the
//! final file, which [`stamped_revision`] finds again.

use lopdf::xref::XrefType;
use lopdf::{Dictionary, Document, IncrementalDocument, Object, ObjectId, dictionary};

use crate::stamp_error::{StampError, too_many_objects};

/// The stamped document inside a final PDF made by [`crate::render_final`] (sealed or not):
/// its first revision, whose SHA-256 is [`crate::FinalPdf::stamped_sha256`]. The trailers'
/// `/Prev` lead from the last revision back to the first, which has none; it ends at the first
/// `%%EOF` line after its cross-reference table.
pub fn stamped_revision(final_pdf: &[u8]) -> Option<&[u8]> {
    let mut xref = xref_offset(final_pdf)?;
    // The final PDF has three revisions (stamped, certificate pages, seal); a few more are
    // followed, a loop never.
    for _ in 0..8 {
        let trailer = xref + find(final_pdf.get(xref..)?, b"trailer")?;
        let trailer_end = trailer + find(&final_pdf[trailer..], b"startxref")?;
        match find(&final_pdf[trailer..trailer_end], b"/Prev") {
            Some(at) => xref = leading_number(&final_pdf[trailer + at + b"/Prev".len()..])?,
            None => {
                let eof = xref + find(&final_pdf[xref..], b"%%EOF\n")?;
                return Some(&final_pdf[..eof + b"%%EOF\n".len()]);
            }
        }
    }
    None
}

/// Saves the stamped document with a classic cross-reference table, ending with "%%EOF\n".
pub(crate) fn save_stamped(doc: &mut Document) -> Result<Vec<u8>, StampError> {
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

/// Appends pages to the saved `stamped` document (`doc`, as saved) as an incremental update:
/// `add` creates them in the update under the page tree root it is given and returns references
/// to them, which become the root's last kids. `page_count` is the number of pages `doc` has.
pub(crate) fn append_pages(
    stamped: Vec<u8>,
    doc: Document,
    page_count: usize,
    add: impl FnOnce(&mut Document, ObjectId) -> Result<Vec<Object>, StampError>,
) -> Result<Vec<u8>, StampError> {
    let root = doc
        .catalog()
        .and_then(|catalog| catalog.get(b"Pages"))
        .and_then(Object::as_reference)
        .map_err(|error| StampError::Read(error.to_string()))?;
    let mut update = IncrementalDocument::create_from(stamped, doc);
    let root = pages_root_for_appending(&mut update, root)?;

    let new = &mut update.new_document;
    let kids = add(new, root)?;
    let added = kids.len();
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
    root_node.set("Count", (page_count + added) as i64);

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
