use lopdf::{Document, Object, ObjectId, StringFormat, dictionary};
use serde_json::json;

use super::*;

fn text(value: &str) -> Object {
    Object::String(value.as_bytes().to_vec(), StringFormat::Literal)
}

fn rect_of(x0: i64, y0: i64, x1: i64, y1: i64) -> Object {
    Object::Array(vec![x0.into(), y0.into(), x1.into(), y1.into()])
}

/// A document with one page (`page` its extra entries) and a catalog; returns it and the page.
fn one_page(page: Dictionary) -> (Document, ObjectId) {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let mut page_dict = dictionary! {
        "Type" => "Page", "Parent" => pages_id, "MediaBox" => rect_of(0, 0, 612, 792),
    };
    for (key, value) in page {
        page_dict.set(key, value);
    }
    let page_id = doc.add_object(page_dict);
    doc.objects.insert(
        pages_id,
        dictionary! { "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1 }.into(),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    (doc, page_id)
}

fn with_form(doc: &mut Document, page: ObjectId, fields: Vec<Object>, annots: Vec<Object>) {
    let catalog = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    doc.get_dictionary_mut(catalog)
        .unwrap()
        .set("AcroForm", dictionary! { "Fields" => fields });
    doc.get_dictionary_mut(page).unwrap().set("Annots", annots);
}

fn imported(doc: &mut Document) -> Vec<serde_json::Value> {
    let pages = page_tree::leaf_pages(doc).unwrap();
    form_fields(doc, &pages)
        .unwrap()
        .iter()
        .map(|f| serde_json::to_value(f).unwrap())
        .collect()
}

#[test]
fn each_kind_of_field_becomes_its_signet_kind() {
    let (mut doc, page) = one_page(dictionary! {});
    let widget = |doc: &mut Document, rect: Object, extra: Dictionary| {
        let mut dict =
            dictionary! { "Type" => "Annot", "Subtype" => "Widget", "Rect" => rect, "P" => page };
        for (k, v) in extra {
            dict.set(k, v);
        }
        doc.add_object(dict)
    };
    // A text field under a parent that names it and gives it its kind.
    let name = widget(
        &mut doc,
        rect_of(72, 692, 272, 712),
        dictionary! { "T" => text("name"), "V" => text("Ann Example"), "MaxLen" => 40, "Ff" => 2 },
    );
    let tenant = doc.add_object(dictionary! {
        "T" => text("tenant"), "FT" => "Tx", "Kids" => vec![name.into()],
    });
    doc.get_dictionary_mut(name).unwrap().set("Parent", tenant);
    let check = widget(
        &mut doc,
        rect_of(72, 600, 86, 614),
        dictionary! {
            "T" => text("agree"), "FT" => "Btn", "V" => Object::Name(b"Yes".to_vec()),
            "AP" => dictionary! { "N" => dictionary! { "Yes" => Object::Null, "Off" => Object::Null } },
        },
    );
    // A radio group: two widgets, the group's box their union.
    let radio_kid = |doc: &mut Document, rect: Object, on: &[u8]| {
        let mut normal = Dictionary::new();
        normal.set(on.to_vec(), Object::Null);
        normal.set("Off", Object::Null);
        widget(
            doc,
            rect,
            dictionary! { "AP" => dictionary! { "N" => normal } },
        )
    };
    let monthly = radio_kid(&mut doc, rect_of(72, 500, 86, 514), b"Monthly");
    let yearly = radio_kid(&mut doc, rect_of(172, 500, 186, 514), b"Yearly");
    let plan = doc.add_object(dictionary! {
        "T" => text("plan"), "FT" => "Btn", "Ff" => RADIO, "V" => Object::Name(b"Yearly".to_vec()),
        "Kids" => vec![monthly.into(), yearly.into()],
    });
    let choice = widget(
        &mut doc,
        rect_of(72, 400, 272, 420),
        dictionary! {
            "T" => text("billing"), "FT" => "Ch", "V" => text("m"),
            "Opt" => vec![Object::Array(vec![text("m"), text("Monthly")]), text("Yearly")],
        },
    );
    let signature = widget(
        &mut doc,
        rect_of(72, 300, 272, 350),
        dictionary! { "T" => text("sign here"), "FT" => "Sig" },
    );
    let button = widget(
        &mut doc,
        rect_of(72, 200, 172, 220),
        dictionary! { "T" => text("reset"), "FT" => "Btn", "Ff" => PUSH_BUTTON },
    );
    let fixed = widget(
        &mut doc,
        rect_of(300, 692, 500, 712),
        dictionary! { "T" => text("rent"), "FT" => "Tx", "Ff" => READ_ONLY, "V" => text("EUR 900") },
    );
    let blank_fixed = widget(
        &mut doc,
        rect_of(300, 600, 500, 620),
        dictionary! { "T" => text("unused"), "FT" => "Tx", "Ff" => READ_ONLY },
    );
    let hidden = widget(
        &mut doc,
        rect_of(300, 500, 500, 520),
        dictionary! { "T" => text("hidden"), "FT" => "Tx", "F" => 2 },
    );
    let fields: Vec<Object> = [
        tenant,
        check,
        plan,
        choice,
        signature,
        button,
        fixed,
        blank_fixed,
        hidden,
    ]
    .into_iter()
    .map(Object::from)
    .collect();
    // The signature's widget is not in the page's /Annots: found by its /P.
    let annots = [name, check, monthly, yearly, choice, button, fixed]
        .into_iter()
        .map(Object::from)
        .collect();
    with_form(&mut doc, page, fields, annots);

    assert_eq!(
        imported(&mut doc),
        [
            json!({"type": "TEXT", "label": "tenant.name", "page": 1, "x": 72.0, "y": 80.0,
                "width": 200.0, "height": 20.0, "required": true, "value": "Ann Example",
                "maxLength": 40}),
            json!({"type": "CHECKBOX", "label": "agree", "page": 1, "x": 72.0, "y": 178.0,
                "width": 14.0, "height": 14.0, "required": false, "value": "true"}),
            json!({"type": "RADIO", "label": "plan", "page": 1, "x": 72.0, "y": 278.0,
                "width": 114.0, "height": 14.0, "required": false, "value": "Yearly",
                "options": ["Monthly", "Yearly"]}),
            json!({"type": "DROPDOWN", "label": "billing", "page": 1, "x": 72.0, "y": 372.0,
                "width": 200.0, "height": 20.0, "required": false, "value": "Monthly",
                "options": ["Monthly", "Yearly"]}),
            json!({"type": "SIGNATURE", "label": "sign here", "page": 1, "x": 72.0, "y": 442.0,
                "width": 200.0, "height": 50.0, "required": true}),
            json!({"type": "TEXT", "label": "rent", "page": 1, "x": 300.0, "y": 80.0,
                "width": 200.0, "height": 20.0, "required": false, "readOnly": true,
                "value": "EUR 900"}),
        ]
    );
}

#[test]
fn widget_boxes_are_mapped_into_the_page_as_displayed() {
    // A Letter page cropped to [50 60 562 700] and turned a quarter: displayed 640 wide, 512
    // high. A widget at user [100 100 300 130] is 40 from the crop's bottom (displayed left)
    // and 50 from its left (displayed top).
    let (mut doc, page) = one_page(dictionary! {
        "CropBox" => rect_of(50, 60, 562, 700), "Rotate" => 90,
    });
    let field = doc.add_object(dictionary! {
        "Type" => "Annot", "Subtype" => "Widget", "FT" => "Tx", "T" => text("turned"),
        "Rect" => rect_of(100, 100, 300, 130),
    });
    with_form(&mut doc, page, vec![field.into()], vec![field.into()]);
    let found = imported(&mut doc);
    let area = |key: &str| found[0][key].as_f64().unwrap();
    assert_eq!(
        (area("x"), area("y"), area("width"), area("height")),
        (40.0, 50.0, 30.0, 200.0)
    );

    for (rotate, expected) in [
        (
            0,
            Rect {
                x0: 50.0,
                y0: 570.0,
                x1: 250.0,
                y1: 600.0,
            },
        ),
        (
            180,
            Rect {
                x0: 262.0,
                y0: 40.0,
                x1: 462.0,
                y1: 70.0,
            },
        ),
        (
            270,
            Rect {
                x0: 570.0,
                y0: 262.0,
                x1: 600.0,
                y1: 462.0,
            },
        ),
    ] {
        let (doc, page) = one_page(dictionary! {
            "CropBox" => rect_of(50, 60, 562, 700), "Rotate" => rotate,
        });
        let view = PageView::of(&doc, doc.get_dictionary(page).unwrap());
        let shown = view.displayed_box(Rect {
            x0: 100.0,
            y0: 100.0,
            x1: 300.0,
            y1: 130.0,
        });
        assert_eq!(shown, Some(expected), "rotate {rotate}");
    }
    // Off the visible box: not a place on the page.
    let (doc, page) = one_page(dictionary! { "CropBox" => rect_of(50, 60, 562, 700) });
    let view = PageView::of(&doc, doc.get_dictionary(page).unwrap());
    let off = Rect {
        x0: 0.0,
        y0: 0.0,
        x1: 40.0,
        y1: 40.0,
    };
    assert_eq!(view.displayed_box(off), None);
}

#[test]
fn a_looping_or_endless_field_tree_is_bounded() {
    let (mut doc, page) = one_page(dictionary! {});
    // A parent listing itself among its kids: read once.
    let parent = doc.new_object_id();
    let widget = doc.add_object(dictionary! {
        "Subtype" => "Widget", "Rect" => rect_of(72, 72, 172, 92), "Parent" => parent,
    });
    doc.objects.insert(
        parent,
        dictionary! {
            "T" => text("loop"), "FT" => "Tx", "Kids" => vec![parent.into(), widget.into()],
        }
        .into(),
    );
    with_form(&mut doc, page, vec![parent.into()], vec![widget.into()]);
    assert_eq!(imported(&mut doc).len(), 1);

    // A chain deeper than the bound.
    let (mut doc, page) = one_page(dictionary! {});
    let mut kid = doc.add_object(dictionary! {
        "Subtype" => "Widget", "Rect" => rect_of(72, 72, 172, 92),
    });
    for level in 0..=MAX_FIELD_DEPTH + 1 {
        kid = doc.add_object(dictionary! {
            "T" => text(&format!("l{level}")), "FT" => "Tx", "Kids" => vec![kid.into()],
        });
    }
    with_form(&mut doc, page, vec![kid.into()], vec![]);
    let pages = page_tree::leaf_pages(&mut doc).unwrap();
    assert!(matches!(form_fields(&doc, &pages), Err(FormError::TooDeep)));

    // No form at all: no fields.
    let (mut doc, _) = one_page(dictionary! {});
    assert!(imported(&mut doc).is_empty());
}
