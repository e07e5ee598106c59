//! Stamping: each filled field drawn into its box on its page, upright as the page is displayed,
//! over the page's original content.

use std::collections::{BTreeMap, HashMap};

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};

use crate::content_stream::numbers;
use crate::page_geometry::{PageView, Rect};
use crate::page_tree::inherited;
use crate::signature_image::{ImageXObject, add_image, decode_png_data_url, is_data_url};
use crate::stamp_error::{StampError, too_many_objects};
use crate::typeset::{self, Fonts, Shaped};

/// A filled field to stamp. Coordinates are PDF points with the origin at the top-left corner
/// of the page as displayed: after its `/Rotate`, relative to its visible box (the CropBox
/// clipped to the MediaBox, else the MediaBox). x grows right, y grows down.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StampField {
    /// 1-based page number, counted as [`crate::inspect()`] counts pages.
    pub page: u32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub kind: StampKind,
    /// Plain text, or for a signature or initials either a typed name or a PNG data URL
    /// (`data:image/png;base64,...`); for a checkbox [`CHECKED`] (a check mark) or anything
    /// else (nothing drawn).
    pub value: String,
}

/// The value of a ticked checkbox.
pub const CHECKED: &str = "true";

/// What a field is, as far as drawing it goes: a checkbox is a check mark; the others are
/// their text (a choice's option, a number as typed), or a signature's image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StampKind {
    Text,
    Date,
    Signature,
    Initials,
    Checkbox,
    Radio,
    Dropdown,
    Number,
    Email,
    Name,
    Company,
}

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

/// Stamps each field on page `field.page` of `pages`, counted from 1; a field on a page that
/// `pages` does not have is refused.
pub(crate) fn stamp_fields(
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
    Check,
    Nothing,
}

const BLACK: [f64; 3] = [0.0, 0.0, 0.0];
/// Typed signatures and initials are drawn in ink blue.
const INK: [f64; 3] = [0.05, 0.15, 0.45];

fn mark(doc: &mut Document, shared: &mut Shared, field: &StampField) -> Result<Mark, StampError> {
    // Laid out in its own direction, with any bidi control or invisible character drawn as an
    // escape: a filled field shows what was stored, in stored order.
    let text = |value: &str, color| Mark::Text {
        text: typeset::shape(&typeset::escaped(value.trim())),
        color,
    };
    Ok(match field.kind {
        StampKind::Checkbox if field.value.trim() == CHECKED => Mark::Check,
        StampKind::Checkbox => Mark::Nothing,
        StampKind::Text
        | StampKind::Date
        | StampKind::Radio
        | StampKind::Dropdown
        | StampKind::Number
        | StampKind::Email
        | StampKind::Name
        | StampKind::Company => text(&field.value, BLACK),
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
            Mark::Check => ops.extend(check_ops(area)),
            Mark::Nothing => {}
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
pub(crate) const TEXT_PADDING: f64 = 2.0;
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

/// Draws a check mark, stroked as a path (no font needed to show it), in the largest square
/// centred in `area`.
fn check_ops(area: Rect) -> Vec<u8> {
    let side = area.width().min(area.height()) * 0.8;
    let x = area.x0 + (area.width() - side) / 2.0;
    let y = area.y0 + (area.height() - side) / 2.0;
    let at = |u: f64, v: f64| numbers(&[x + u * side, y + v * side]);
    format!(
        "q\n0 0 0 RG\n{} w\n1 J\n1 j\n{} m\n{} l\n{} l\nS\nQ\n",
        numbers(&[side * 0.1]),
        at(0.12, 0.52),
        at(0.4, 0.2),
        at(0.88, 0.82),
    )
    .into_bytes()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content_stream::number_text;

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
    fn a_check_mark_is_a_stroked_path_inside_its_box() {
        let area = Rect {
            x0: 100.0,
            y0: 200.0,
            x1: 120.0,
            y1: 220.0,
        };
        let ops = String::from_utf8(check_ops(area)).unwrap();
        assert!(
            ops.contains(" m\n") && ops.contains(" l\n") && ops.contains("S\n"),
            "{ops}"
        );
        assert!(
            !ops.contains("Tj") && !ops.contains("TJ"),
            "no glyph: {ops}"
        );
        for point in ops
            .lines()
            .filter(|l| l.ends_with(" m") || l.ends_with(" l"))
        {
            let xy: Vec<f64> = point
                .split(' ')
                .take(2)
                .map(|n| n.parse().unwrap())
                .collect();
            assert!((100.0..=120.0).contains(&xy[0]) && (200.0..=220.0).contains(&xy[1]));
        }
    }
}
