//! Flattening a PDF's form for the final PDF: each widget annotation is replaced by its normal
//! appearance drawn into its page's content (under the stamped values, which are drawn after),
//! the catalog's `/AcroForm` is removed and the field and widget dictionaries go, so nothing
//! of the final PDF stays editable.
//!
//! A widget that lies within a stamped field's box is the widget of a form field imported as
//! that field (docs/fields.md, "Form fields"): the stamped value replaces what it showed, so it
//! is drawn without its value: a text or choice field's appearance without its variable text
//! (the `/Tx` marked content), a check box or radio button in its `Off` state. Any other widget
//! is drawn as it shows, so a form filled in before upload keeps its values.

use std::collections::HashSet;

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};

use crate::content_stream::numbers;
use crate::page_geometry::{PageView, Rect, number, rect};
use crate::stamp::{StampField, add_resource, effective_resources, existing_contents};
use crate::stamp_error::{StampError, too_many_objects};

/// Annotation `/F` bits: Hidden and NoView.
const NOT_SHOWN: i64 = (1 << 1) | (1 << 5);
/// How far a widget may stray outside a stamped field's box and still be that field's.
const SAME_PLACE: f64 = 0.5;
/// The most field dictionaries walked to remove them.
const MAX_FIELD_NODES: usize = 5000;

/// Flattens the form of `doc`, whose pages are `pages`; `stamps` are the fields about to be
/// stamped. A document without form widgets or `/AcroForm` is left as it is.
pub(crate) fn flatten_form(
    doc: &mut Document,
    pages: &[ObjectId],
    stamps: &[StampField],
) -> Result<(), StampError> {
    let has_form = doc
        .catalog()
        .map(|catalog| catalog.has(b"AcroForm"))
        .unwrap_or(false);
    let mut removed: HashSet<ObjectId> = field_tree(doc);
    let mut save_state = None;
    for (index, &page_id) in pages.iter().enumerate() {
        let Some((widgets, kept)) = page_widgets(doc, page_id) else {
            continue;
        };
        let replaced_areas: Vec<Rect> = stamps
            .iter()
            .filter(|stamp| stamp.page as usize == index + 1)
            .map(|stamp| Rect {
                x0: stamp.x,
                y0: stamp.y,
                x1: stamp.x + stamp.width,
                y1: stamp.y + stamp.height,
            })
            .collect();
        let page = doc
            .get_dictionary(page_id)
            .map_err(|error| StampError::Read(error.to_string()))?;
        let view = PageView::of(doc, page);
        let mut resources = effective_resources(doc, page);
        let mut ops = b"Q\n".to_vec();
        for (id, widget) in &widgets {
            if let Some(id) = id {
                removed.insert(*id);
            }
            if let Some(drawn) = draw_widget(doc, &view, widget, &replaced_areas, &mut resources)? {
                ops.extend(drawn);
            }
        }
        let flat = doc
            .try_add_object(Stream::new(dictionary! {}, ops))
            .map_err(too_many_objects)?;
        let save = match save_state {
            Some(id) => id,
            None => {
                let id = doc
                    .try_add_object(Stream::new(dictionary! {}, b"q\n".to_vec()))
                    .map_err(too_many_objects)?;
                save_state = Some(id);
                id
            }
        };
        let mut contents = vec![Object::Reference(save)];
        contents.extend(existing_contents(doc, page_id));
        contents.push(Object::Reference(flat));
        let page = doc
            .get_dictionary_mut(page_id)
            .map_err(|error| StampError::Read(error.to_string()))?;
        page.set("Contents", contents);
        page.set("Resources", resources);
        if kept.is_empty() {
            page.remove(b"Annots");
        } else {
            page.set("Annots", kept);
        }
    }
    if has_form && let Ok(catalog) = doc.catalog_mut() {
        catalog.remove(b"AcroForm");
    }
    // Field and widget dictionaries only: never a page, the page tree or the catalog, which a
    // malformed field tree may name among its kids.
    for page in pages {
        removed.remove(page);
    }
    for id in removed {
        let is_field = matches!(
            doc.objects.get(&id),
            Some(Object::Dictionary(dict))
                if !dict.has_type(b"Catalog") && !dict.has_type(b"Pages") && !dict.has_type(b"Page")
        );
        if is_field {
            doc.objects.remove(&id);
        }
    }
    Ok(())
}

/// A page's widget annotations (with their ids when they are objects of their own) and the
/// annotations it keeps, if it has any widget.
#[allow(clippy::type_complexity)]
fn page_widgets(
    doc: &Document,
    page_id: ObjectId,
) -> Option<(Vec<(Option<ObjectId>, Dictionary)>, Vec<Object>)> {
    let page = doc.get_dictionary(page_id).ok()?;
    let annots = page
        .get_deref(b"Annots", doc)
        .and_then(Object::as_array)
        .ok()?;
    let mut widgets = Vec::new();
    let mut kept = Vec::new();
    for annot in annots {
        match doc.dereference(annot) {
            Ok((id, Object::Dictionary(dict)))
                if dict
                    .get(b"Subtype")
                    .and_then(Object::as_name)
                    .is_ok_and(|subtype| subtype == b"Widget") =>
            {
                widgets.push((id, dict.clone()));
            }
            _ => kept.push(annot.clone()),
        }
    }
    (!widgets.is_empty()).then_some((widgets, kept))
}

/// The ids of the dictionaries of the catalog's field tree, bounded.
fn field_tree(doc: &Document) -> HashSet<ObjectId> {
    let mut seen = HashSet::new();
    let roots = doc
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"AcroForm", doc).ok())
        .and_then(|form| form.as_dict().ok())
        .and_then(|form| form.get_deref(b"Fields", doc).ok())
        .and_then(|fields| fields.as_array().ok());
    let mut pending: Vec<&Object> = roots.into_iter().flatten().collect();
    while let Some(node) = pending.pop() {
        if seen.len() >= MAX_FIELD_NODES {
            break;
        }
        let Ok(id) = node.as_reference() else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        if let Ok(kids) = doc
            .get_dictionary(id)
            .and_then(|field| field.get_deref(b"Kids", doc))
            .and_then(Object::as_array)
        {
            pending.extend(kids);
        }
    }
    seen
}

/// The operators that draw `widget`'s normal appearance in its box, if it is shown and has
/// one.
fn draw_widget(
    doc: &mut Document,
    view: &PageView,
    widget: &Dictionary,
    replaced_areas: &[Rect],
    resources: &mut Dictionary,
) -> Result<Option<Vec<u8>>, StampError> {
    let flags = widget
        .get_deref(b"F", doc)
        .and_then(Object::as_i64)
        .unwrap_or(0);
    let Some(area) = widget
        .get(b"Rect")
        .ok()
        .and_then(|object| rect(doc, object))
    else {
        return Ok(None);
    };
    if flags & NOT_SHOWN != 0 {
        return Ok(None);
    }
    let replaced = view.displayed_box(area).is_some_and(|shown| {
        replaced_areas.iter().any(|stamp| {
            shown.x0 >= stamp.x0 - SAME_PLACE
                && shown.y0 >= stamp.y0 - SAME_PLACE
                && shown.x1 <= stamp.x1 + SAME_PLACE
                && shown.y1 <= stamp.y1 + SAME_PLACE
        })
    });
    let Some(appearance) = normal_appearance(doc, widget, replaced) else {
        return Ok(None);
    };
    let Ok(Object::Stream(stream)) = doc.get_object(appearance) else {
        return Ok(None);
    };
    let variable = has_variable_text(stream);
    let Some(bbox) = stream.dict.get(b"BBox").ok().and_then(|o| rect(doc, o)) else {
        return Ok(None);
    };
    let matrix = stream
        .dict
        .get_deref(b"Matrix", doc)
        .and_then(Object::as_array)
        .ok()
        .and_then(|items| {
            let values: Vec<f64> = items
                .iter()
                .filter_map(|item| number(doc.dereference(item).ok()?.1))
                .collect();
            <[f64; 6]>::try_from(values).ok()
        })
        .unwrap_or([1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    // PDF 32000-1, 12.5.5: the box transformed by the form's matrix is fitted to the
    // annotation's rectangle.
    let [a, b, c, d, e, f] = matrix;
    let corners = [
        (bbox.x0, bbox.y0),
        (bbox.x1, bbox.y0),
        (bbox.x0, bbox.y1),
        (bbox.x1, bbox.y1),
    ]
    .map(|(x, y)| (a * x + c * y + e, b * x + d * y + f));
    let x0 = corners.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x1 = corners
        .iter()
        .map(|p| p.0)
        .fold(f64::NEG_INFINITY, f64::max);
    let y0 = corners.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y1 = corners
        .iter()
        .map(|p| p.1)
        .fold(f64::NEG_INFINITY, f64::max);
    if x1 - x0 <= 0.0 || y1 - y0 <= 0.0 {
        return Ok(None);
    }
    let (sx, sy) = (area.width() / (x1 - x0), area.height() / (y1 - y0));
    let fit = [sx, 0.0, 0.0, sy, area.x0 - x0 * sx, area.y0 - y0 * sy];

    let form = if replaced && variable {
        without_variable_text(doc, appearance)?
    } else {
        appearance
    };
    if let Ok(Object::Stream(stream)) = doc.get_object_mut(form) {
        stream.dict.set("Type", "XObject");
        stream.dict.set("Subtype", "Form");
    }
    let name = add_resource(doc, resources, b"XObject", "SgForm", form);
    Ok(Some(
        format!(
            "q\n{} cm\n/{} Do\nQ\n",
            numbers(&fit),
            String::from_utf8_lossy(&name)
        )
        .into_bytes(),
    ))
}

/// The id of the widget's normal appearance stream: `/AP /N` itself, or the entry of its
/// `/AS` state, or of `Off` for a button whose value the stamp replaces.
fn normal_appearance(doc: &Document, widget: &Dictionary, replaced: bool) -> Option<ObjectId> {
    let normal = widget
        .get_deref(b"AP", doc)
        .and_then(Object::as_dict)
        .ok()?
        .get(b"N")
        .ok()?;
    if let Ok(id) = normal.as_reference()
        && let Ok(Object::Stream(_)) = doc.get_object(id)
    {
        return Some(id);
    }
    let states = doc.dereference(normal).ok()?.1.as_dict().ok()?;
    let state: Vec<u8> = if replaced {
        b"Off".to_vec()
    } else {
        widget
            .get_deref(b"AS", doc)
            .and_then(Object::as_name)
            .ok()?
            .to_vec()
    };
    states.get(&state).and_then(Object::as_reference).ok()
}

fn has_variable_text(stream: &Stream) -> bool {
    let content = stream
        .decompressed_content()
        .unwrap_or_else(|_| stream.content.clone());
    content.windows(6).any(|window| window == b"/Tx BM")
}

/// A copy of the appearance stream `id` without its `/Tx` marked content (the field's value).
fn without_variable_text(doc: &mut Document, id: ObjectId) -> Result<ObjectId, StampError> {
    let Ok(Object::Stream(stream)) = doc.get_object(id) else {
        return Ok(id);
    };
    let content = stream
        .decompressed_content()
        .unwrap_or_else(|_| stream.content.clone());
    let Ok(decoded) = Content::decode(&content) else {
        return Ok(id);
    };
    let mut kept: Vec<Operation> = Vec::with_capacity(decoded.operations.len());
    // Depth of marked content inside a /Tx section; 0 outside it.
    let mut inside = 0usize;
    for operation in decoded.operations {
        let begins = matches!(operation.operator.as_str(), "BMC" | "BDC");
        if inside > 0 {
            if begins {
                inside += 1;
            } else if operation.operator == "EMC" {
                inside -= 1;
            }
            continue;
        }
        let is_tx = operation.operator == "BMC"
            && matches!(operation.operands.first(), Some(Object::Name(name)) if name == b"Tx");
        if is_tx {
            inside = 1;
            continue;
        }
        kept.push(operation);
    }
    let bytes = Content { operations: kept }
        .encode()
        .map_err(|error| StampError::Write(error.to_string()))?;
    let mut dict = stream.dict.clone();
    for key in [b"Filter".as_slice(), b"DecodeParms", b"Length"] {
        dict.remove(key);
    }
    let mut copy = Stream::new(dict, bytes);
    copy.compress()
        .map_err(|error| StampError::Write(error.to_string()))?;
    doc.try_add_object(copy).map_err(too_many_objects)
}

#[cfg(test)]
mod tests;
