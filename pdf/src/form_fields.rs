//! A PDF's own form fields (its AcroForm) read as the fields Signet makes of them
//! (docs/fields.md, "Form fields"): each terminal field with a visible widget becomes the JSON
//! of a `FieldInput`, so that it goes through the very checks an integrator's field does.
//!
//! The field tree is walked from the catalog's `/AcroForm /Fields`, with `/FT`, `/Ff`, `/V`,
//! `/Opt` and `/MaxLen` inherited from ancestors; a widget is on the page whose `/Annots`
//! lists it, else on its `/P` page. Its `/Rect` is mapped into the page as displayed (its
//! visible box and `/Rotate`), as every field's coordinates are. The walk is bounded in nodes
//! and depth: the file is untrusted.

use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId};
use serde::{Deserialize, Serialize};

use crate::inspect::Limits;
use crate::page_geometry::{PageView, Rect, rect};
use crate::page_tree;

/// The most fields a form is imported with.
pub const MAX_FORM_FIELDS: usize = 500;
/// The most nodes of the field tree (fields and widgets) read.
const MAX_FIELD_NODES: usize = 5000;
/// The deepest a field tree is followed.
const MAX_FIELD_DEPTH: usize = 32;

/// `/Ff` bits (PDF 32000-1, 12.7.3.1 and 12.7.4).
const READ_ONLY: i64 = 1;
const REQUIRED: i64 = 1 << 1;
const RADIO: i64 = 1 << 15;
const PUSH_BUTTON: i64 = 1 << 16;
/// Annotation `/F` bits: Hidden and NoView.
const NOT_SHOWN: i64 = (1 << 1) | (1 << 5);

/// Why a form could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum FormError {
    #[error("{0}")]
    Unreadable(String),
    #[error("the form has more than {MAX_FORM_FIELDS} fields")]
    TooManyFields,
    #[error(
        "the form's field tree has more than {MAX_FIELD_NODES} nodes or {MAX_FIELD_DEPTH} levels"
    )]
    TooDeep,
}

/// One imported field, in the JSON spelling of a `FieldInput` (and of a template's field).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ImportedField {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The fully qualified field name: partial names joined by `.`.
    pub label: String,
    pub page: usize,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub required: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
}

/// The form fields of the PDF `bytes`, read within `limits` as its upload was, each as the JSON
/// of a `FieldInput`, in the order of the field tree. A PDF without a form has none.
pub fn import_form(bytes: &[u8], limits: Limits) -> Result<Vec<serde_json::Value>, FormError> {
    let fields = std::panic::catch_unwind(|| {
        let (mut doc, _) = crate::inspect::read(bytes, limits)
            .map_err(|error| FormError::Unreadable(error.to_string()))?;
        let pages = page_tree::leaf_pages(&mut doc)
            .map_err(|error| FormError::Unreadable(error.to_string()))?;
        form_fields(&doc, &pages)
    })
    .unwrap_or_else(|_| Err(FormError::Unreadable("the PDF parser failed on it".into())))?;
    Ok(fields
        .iter()
        .map(|field| serde_json::to_value(field).unwrap_or_default())
        .collect())
}

/// What a field inherits from its ancestors (PDF 32000-1, 12.7.3.1).
#[derive(Clone, Default)]
struct Inherited<'a> {
    name: Option<String>,
    kind: Option<&'a [u8]>,
    flags: i64,
    value: Option<&'a Object>,
    options: Option<&'a Object>,
    max_length: Option<i64>,
}

/// A widget shown on a page.
struct Placed<'a> {
    /// Its place among its field's widgets.
    index: usize,
    /// The page's index.
    page: usize,
    /// Its box on the page as displayed.
    shown: Rect,
    widget: &'a Dictionary,
}

/// A terminal field: its own and inherited attributes, and its widgets.
struct Terminal<'a> {
    attributes: Inherited<'a>,
    widgets: Vec<(ObjectId, &'a Dictionary)>,
}

/// The widgets' pages: every annotation the pages list, by id, with its page's index.
pub(crate) fn annotation_pages(doc: &Document, pages: &[ObjectId]) -> HashMap<ObjectId, usize> {
    let mut on = HashMap::new();
    for (index, &page) in pages.iter().enumerate() {
        let Ok(page) = doc.get_dictionary(page) else {
            continue;
        };
        let annots = page.get_deref(b"Annots", doc).and_then(Object::as_array);
        for annot in annots.into_iter().flatten() {
            if let Ok(id) = annot.as_reference() {
                on.entry(id).or_insert(index);
            }
        }
    }
    on
}

pub(crate) fn form_fields(
    doc: &Document,
    pages: &[ObjectId],
) -> Result<Vec<ImportedField>, FormError> {
    let terminals = terminal_fields(doc)?;
    let on_page = annotation_pages(doc, pages);
    let page_index: HashMap<ObjectId, usize> =
        pages.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut imported = Vec::new();
    for terminal in &terminals {
        // Each shown widget on a page: its place among the field's widgets (which `/Opt`
        // counts by), its page and its box as displayed.
        let mut placed: Vec<Placed> = Vec::new();
        for (index, &(id, widget)) in terminal.widgets.iter().enumerate() {
            let flags = widget
                .get_deref(b"F", doc)
                .and_then(Object::as_i64)
                .unwrap_or(0);
            if flags & NOT_SHOWN != 0 {
                continue;
            }
            let page = on_page.get(&id).copied().or_else(|| {
                let page = widget.get(b"P").and_then(Object::as_reference).ok()?;
                page_index.get(&page).copied()
            });
            let (Some(page), Some(area)) = (
                page,
                widget
                    .get(b"Rect")
                    .ok()
                    .and_then(|object| rect(doc, object)),
            ) else {
                continue;
            };
            let Ok(page_dict) = doc.get_dictionary(pages[page]) else {
                continue;
            };
            if let Some(shown) = PageView::of(doc, page_dict).displayed_box(area) {
                placed.push(Placed {
                    index,
                    page,
                    shown,
                    widget,
                });
            }
        }
        if let Some(field) = import(doc, terminal, &placed) {
            if imported.len() == MAX_FORM_FIELDS {
                return Err(FormError::TooManyFields);
            }
            imported.push(field);
        }
    }
    Ok(imported)
}

/// The Signet field a terminal field becomes, if any: push buttons, unknown kinds, fields with
/// no widget shown on a page, and read-only fields with nothing to show are not fields to fill.
fn import(doc: &Document, terminal: &Terminal, placed: &[Placed]) -> Option<ImportedField> {
    let (page, first) = placed.first().map(|p| (p.page, p.shown))?;
    let attributes = &terminal.attributes;
    let flags = attributes.flags;
    let text = |object: Option<&Object>| -> Option<String> {
        let object = doc.dereference(object?).ok()?.1;
        match object {
            Object::Name(name) => Some(String::from_utf8_lossy(name).into_owned()),
            Object::Array(items) => items
                .first()
                .and_then(|item| lopdf::decode_text_string(doc.dereference(item).ok()?.1).ok()),
            _ => lopdf::decode_text_string(object).ok(),
        }
        .filter(|value| !value.is_empty())
    };
    let mut area = first;
    let mut options = Vec::new();
    let (kind, value) = match attributes.kind? {
        b"Tx" => ("TEXT", text(attributes.value)),
        b"Sig" => ("SIGNATURE", None),
        b"Ch" => {
            let choices = choices(doc, attributes.options);
            let value = text(attributes.value).map(|value| {
                choices
                    .iter()
                    .find(|(export, _)| *export == value)
                    .map_or(value, |(_, shown)| shown.clone())
            });
            options = choices.into_iter().map(|(_, shown)| shown).collect();
            ("DROPDOWN", value)
        }
        b"Btn" if flags & PUSH_BUTTON != 0 => return None,
        b"Btn" => {
            let exports = export_values(doc, attributes.options);
            let state = text(attributes.value).filter(|state| state != "Off");
            // A state named by its index into /Opt stands for the option at that index.
            let named = |state: String| match state.parse::<usize>() {
                Ok(index) if index < exports.len() => exports[index].clone(),
                _ => state,
            };
            if flags & RADIO != 0 {
                for widget in placed {
                    let option = exports
                        .get(widget.index)
                        .cloned()
                        .or_else(|| on_state(doc, widget.widget));
                    if let Some(option) = option.filter(|o| !options.contains(o)) {
                        options.push(option);
                    }
                    if widget.page == page {
                        area = union(area, widget.shown);
                    }
                }
                ("RADIO", state.map(named))
            } else {
                ("CHECKBOX", state.map(|_| "true".to_owned()))
            }
        }
        _ => return None,
    };
    let read_only = flags & READ_ONLY != 0 && kind != "SIGNATURE";
    if read_only && value.is_none() {
        return None;
    }
    Some(ImportedField {
        kind,
        label: attributes.name.clone().unwrap_or_default(),
        page: page + 1,
        x: area.x0,
        y: area.y0,
        width: area.width(),
        height: area.height(),
        required: kind == "SIGNATURE" || flags & REQUIRED != 0,
        read_only,
        value,
        options,
        max_length: attributes.max_length.filter(|_| kind == "TEXT"),
    })
}

fn union(a: Rect, b: Rect) -> Rect {
    Rect {
        x0: a.x0.min(b.x0),
        y0: a.y0.min(b.y0),
        x1: a.x1.max(b.x1),
        y1: a.y1.max(b.y1),
    }
}

/// A choice field's `/Opt`: each entry a text string, or an array of its export value and the
/// text shown. Returned as (export value, shown text).
fn choices(doc: &Document, options: Option<&Object>) -> Vec<(String, String)> {
    let decode = |object: &Object| {
        doc.dereference(object)
            .ok()
            .and_then(|(_, object)| lopdf::decode_text_string(object).ok())
    };
    let Some(Ok((_, Object::Array(entries)))) = options.map(|o| doc.dereference(o)) else {
        return Vec::new();
    };
    entries
        .iter()
        .take(MAX_FORM_FIELDS)
        .filter_map(|entry| match doc.dereference(entry).ok()?.1 {
            Object::Array(pair) => Some((decode(pair.first()?)?, decode(pair.get(1)?)?)),
            single => {
                let text = decode(single)?;
                Some((text.clone(), text))
            }
        })
        .filter(|(_, shown)| !shown.is_empty())
        .collect()
}

/// A button field's `/Opt`: the export value of each of its widgets, in order.
fn export_values(doc: &Document, options: Option<&Object>) -> Vec<String> {
    choices(doc, options)
        .into_iter()
        .map(|(export, _)| export)
        .collect()
}

/// The name of a button widget's "on" appearance: its normal appearances other than `Off`.
pub(crate) fn on_state(doc: &Document, widget: &Dictionary) -> Option<String> {
    let normal = widget
        .get_deref(b"AP", doc)
        .and_then(Object::as_dict)
        .ok()?
        .get_deref(b"N", doc)
        .and_then(Object::as_dict)
        .ok()?;
    normal
        .iter()
        .map(|(name, _)| name)
        .find(|name| name.as_slice() != b"Off")
        .map(|name| String::from_utf8_lossy(name).into_owned())
}

/// The terminal fields of the catalog's `/AcroForm`, in the order of its tree.
fn terminal_fields(doc: &Document) -> Result<Vec<Terminal<'_>>, FormError> {
    let Some(roots) = doc
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"AcroForm", doc).ok())
        .and_then(|form| form.as_dict().ok())
        .and_then(|form| form.get_deref(b"Fields", doc).ok())
        .and_then(|fields| fields.as_array().ok())
    else {
        return Ok(Vec::new());
    };
    let mut walk = Walk {
        doc,
        seen: HashSet::new(),
        terminals: Vec::new(),
    };
    for root in roots {
        walk.node(root, &Inherited::default(), 0)?;
    }
    Ok(walk.terminals)
}

struct Walk<'a> {
    doc: &'a Document,
    seen: HashSet<ObjectId>,
    terminals: Vec<Terminal<'a>>,
}

impl<'a> Walk<'a> {
    fn node(
        &mut self,
        reference: &'a Object,
        parent: &Inherited<'a>,
        depth: usize,
    ) -> Result<(), FormError> {
        if depth > MAX_FIELD_DEPTH {
            return Err(FormError::TooDeep);
        }
        let Ok((id, Object::Dictionary(node))) = self.doc.dereference(reference) else {
            return Ok(());
        };
        if let Some(id) = id
            && !self.seen.insert(id)
        {
            return Ok(());
        }
        if self.seen.len() > MAX_FIELD_NODES {
            return Err(FormError::TooDeep);
        }
        let doc = self.doc;
        let mut attributes = parent.clone();
        if let Ok(partial) = node.get_deref(b"T", doc)
            && let Ok(partial) = lopdf::decode_text_string(partial)
        {
            attributes.name = Some(match &parent.name {
                Some(prefix) => format!("{prefix}.{partial}"),
                None => partial,
            });
        }
        if let Ok(kind) = node.get_deref(b"FT", doc).and_then(Object::as_name) {
            attributes.kind = Some(kind);
        }
        if let Ok(flags) = node.get_deref(b"Ff", doc).and_then(Object::as_i64) {
            attributes.flags = flags;
        }
        if let Ok(value) = node.get(b"V") {
            attributes.value = Some(value);
        }
        if let Ok(options) = node.get(b"Opt") {
            attributes.options = Some(options);
        }
        if let Ok(max_length) = node.get_deref(b"MaxLen", doc).and_then(Object::as_i64) {
            attributes.max_length = Some(max_length);
        }

        let kids = node.get_deref(b"Kids", doc).and_then(Object::as_array).ok();
        let mut widgets = Vec::new();
        match kids {
            None => {
                // A field and its only widget merged in one dictionary.
                if let Some(id) = id
                    && node.has(b"Rect")
                {
                    widgets.push((id, node));
                }
            }
            Some(kids) => {
                for kid in kids {
                    let Ok((kid_id, Object::Dictionary(child))) = doc.dereference(kid) else {
                        continue;
                    };
                    // A kid without a name and without kids of its own is a widget of this
                    // field; any other kid is a field.
                    let is_widget = !child.has(b"T") && !child.has(b"Kids");
                    match kid_id {
                        Some(kid_id) if is_widget => {
                            if !self.seen.insert(kid_id) {
                                continue;
                            }
                            widgets.push((kid_id, child));
                        }
                        _ if is_widget => {}
                        _ => self.node(kid, &attributes, depth + 1)?,
                    }
                }
            }
        }
        if !widgets.is_empty() {
            self.terminals.push(Terminal {
                attributes,
                widgets,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
