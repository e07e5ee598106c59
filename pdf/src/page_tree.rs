//! The page tree: which pages a document has and in what order, and what a page inherits from
//! its ancestors.
//!
//! Upload inspection counts and sizes the pages of [`leaf_pages`], and stamping puts a field on
//! page n of the very same list: one walk, so that a field's page number cannot mean one page
//! at upload and another in the final PDF.

use std::collections::HashSet;

use lopdf::{Dictionary, Document, Object, ObjectId};

/// Bound on the walk up `/Parent` links, which a malformed file can make circular.
const MAX_PARENT_DEPTH: usize = 64;

#[derive(Debug, thiserror::Error)]
pub(crate) enum PageTreeError {
    /// The trailer's `/Root` does not lead to a dictionary.
    #[error("no document catalog ({0})")]
    NoCatalog(lopdf::Error),
    /// A node written inline could not be given an object number of its own.
    #[error("{0}")]
    TooManyObjects(lopdf::Error),
}

/// The leaf pages of the page tree, in order, whatever its `/Count` entries claim; empty if the
/// catalog has no usable `/Pages`.
///
/// A node is a page unless it has usable `/Kids` and is not typed `/Page`; a `/Pages` node
/// without usable kids is skipped. A node reached twice (a loop, or a kid listed twice) is
/// taken once; kids that are not dictionaries, such as references to missing objects, are not
/// pages.
///
/// Page tree nodes written inline (which the PDF format does not allow, but readers accept) are
/// moved into objects of their own, since only an indirect object can be modified by reference
/// and be a `/Parent`: every page then has an id.
pub(crate) fn leaf_pages(doc: &mut Document) -> Result<Vec<ObjectId>, PageTreeError> {
    let Some(root) = root_pages_id(doc)? else {
        return Ok(Vec::new());
    };
    let mut pages = Vec::new();
    let mut seen = HashSet::new();
    let mut pending = vec![root];
    while let Some(reference) = pending.pop() {
        if !seen.insert(reference) {
            continue;
        }
        let reference = Object::Reference(reference);
        let Ok((Some(id), Object::Dictionary(node))) = doc.dereference(&reference) else {
            continue;
        };
        let kids = node
            .get_deref(b"Kids", doc)
            .and_then(Object::as_array)
            .ok()
            .cloned();
        let (is_page, is_pages) = (node.has_type(b"Page"), node.has_type(b"Pages"));
        match kids {
            Some(kids) if !is_page => {
                let kids = indirect_kids(doc, id, kids)?;
                pending.extend(kids.into_iter().rev());
            }
            // An intermediate node without usable kids.
            _ if is_pages => {}
            _ => pages.push(id),
        }
    }
    Ok(pages)
}

/// The root of the page tree, moved into an object of its own if the catalog holds it inline.
fn root_pages_id(doc: &mut Document) -> Result<Option<ObjectId>, PageTreeError> {
    let catalog = doc.catalog().map_err(PageTreeError::NoCatalog)?;
    match catalog.get(b"Pages") {
        Ok(Object::Reference(id)) => Ok(Some(*id)),
        Ok(Object::Dictionary(root)) => {
            let root = root.clone();
            let id = doc
                .try_add_object(root)
                .map_err(PageTreeError::TooManyObjects)?;
            doc.catalog_mut()
                .map_err(PageTreeError::NoCatalog)?
                .set("Pages", id);
            Ok(Some(id))
        }
        _ => Ok(None),
    }
}

/// The references among `kids`, after moving each inline kid into an object of its own.
fn indirect_kids(
    doc: &mut Document,
    parent: ObjectId,
    mut kids: Vec<Object>,
) -> Result<Vec<ObjectId>, PageTreeError> {
    let mut ids = Vec::new();
    let mut moved = false;
    for kid in &mut kids {
        match kid {
            Object::Reference(id) => ids.push(*id),
            Object::Dictionary(node) => {
                let id = doc
                    .try_add_object(std::mem::take(node))
                    .map_err(PageTreeError::TooManyObjects)?;
                *kid = Object::Reference(id);
                ids.push(id);
                moved = true;
            }
            _ => {}
        }
    }
    if moved && let Ok(node) = doc.get_dictionary_mut(parent) {
        node.set("Kids", kids);
    }
    Ok(ids)
}

/// The first usable value of `key` on the page or, failing that, on its nearest ancestor.
pub(crate) fn inherited<T>(
    doc: &Document,
    page: &Dictionary,
    key: &[u8],
    parse: impl Fn(&Object) -> Option<T>,
) -> Option<T> {
    let mut node = page;
    for _ in 0..MAX_PARENT_DEPTH {
        if let Some(value) = node.get_deref(key, doc).ok().and_then(&parse) {
            return Some(value);
        }
        node = node
            .get_deref(b"Parent", doc)
            .and_then(Object::as_dict)
            .ok()?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    #[test]
    fn inline_nodes_become_objects_and_keep_their_place() {
        // The catalog holds the root inline; the root holds its second page inline.
        let mut doc = Document::with_version("1.7");
        let first = doc.add_object(dictionary! { "Type" => "Page" });
        let third = doc.add_object(dictionary! { "Type" => "Page" });
        let second = dictionary! { "Type" => "Page", "Rotate" => 90 };
        let root = dictionary! {
            "Type" => "Pages", "Count" => 3,
            "Kids" => vec![first.into(), second.into(), third.into()],
        };
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => root });
        doc.trailer.set("Root", catalog);

        let pages = leaf_pages(&mut doc).expect("the pages");
        assert_eq!(pages.len(), 3);
        assert_eq!((pages[0], pages[2]), (first, third));
        let moved = doc.get_dictionary(pages[1]).expect("the moved page");
        assert_eq!(moved.get(b"Rotate").and_then(Object::as_i64).ok(), Some(90));
        let root = doc
            .catalog()
            .and_then(|catalog| catalog.get(b"Pages"))
            .and_then(Object::as_reference)
            .expect("the root is now a reference");
        let kids = doc
            .get_dictionary(root)
            .and_then(|root| root.get(b"Kids"))
            .and_then(Object::as_array)
            .expect("kids");
        assert!(kids.iter().all(|kid| kid.as_reference().is_ok()));
        // A second walk finds the same pages.
        assert_eq!(leaf_pages(&mut doc).expect("again"), pages);
    }

    #[test]
    fn a_catalog_without_pages_has_none() {
        let mut doc = Document::with_version("1.7");
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog" });
        doc.trailer.set("Root", catalog);
        assert_eq!(leaf_pages(&mut doc).expect("no error"), Vec::new());
        let mut doc = Document::with_version("1.7");
        assert!(matches!(
            leaf_pages(&mut doc),
            Err(PageTreeError::NoCatalog(_))
        ));
    }
}
