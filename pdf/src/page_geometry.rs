//! Where a page is shown: its visible box, its rotation, and so its size as displayed, which is
//! what field coordinates are relative to.

use lopdf::{Dictionary, Document, Object};

use crate::page_tree::inherited;

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

/// The size of `page` as displayed.
pub(crate) fn page_size(doc: &Document, page: &Dictionary) -> PageSize {
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

    pub(crate) fn displayed_height(&self) -> f64 {
        match self.rotate {
            90 | 270 => self.visible.width(),
            _ => self.visible.height(),
        }
    }

    /// The `cm` matrix from "displayed" space, whose origin is the bottom-left corner of the
    /// page as displayed and whose y axis points up, to default user space. Text drawn in
    /// displayed space is upright on screen whatever the page's rotation.
    pub(crate) fn displayed_to_user(&self) -> [f64; 6] {
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

impl PageView {
    /// Where `rect` (default user space) is on the page as displayed: x from the left edge, y
    /// down from the top edge, clipped to the visible box; `None` if it is not on it.
    pub(crate) fn displayed_box(&self, rect: Rect) -> Option<Rect> {
        let [a, b, c, d, e, f] = self.displayed_to_user();
        // The inverse of a quarter-turn matrix is its transpose.
        let to_displayed = |x: f64, y: f64| (a * (x - e) + b * (y - f), c * (x - e) + d * (y - f));
        let (xa, ya) = to_displayed(rect.x0, rect.y0);
        let (xb, yb) = to_displayed(rect.x1, rect.y1);
        let height = self.displayed_height();
        let width = match self.rotate {
            90 | 270 => self.visible.height(),
            _ => self.visible.width(),
        };
        let displayed = Rect {
            x0: xa.min(xb),
            y0: height - ya.max(yb),
            x1: xa.max(xb),
            y1: height - ya.min(yb),
        };
        displayed.intersect(Rect {
            x0: 0.0,
            y0: 0.0,
            x1: width,
            y1: height,
        })
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
pub(crate) fn rect(doc: &Document, object: &Object) -> Option<Rect> {
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

pub(crate) fn number(object: &Object) -> Option<f64> {
    match *object {
        Object::Integer(value) => Some(value as f64),
        // lopdf keeps reals as f32. Going through its shortest decimal form gives back the
        // number written in the file: 595.2756 rather than 595.2755737304688.
        Object::Real(value) => value.to_string().parse().ok(),
        _ => None,
    }
    .filter(|value: &f64| value.is_finite())
}
