use lopdf::{Document, Object, ObjectId, Stream, StringFormat, dictionary};

use super::*;
use crate::stamp::StampKind;

fn rect_of(x0: i64, y0: i64, x1: i64, y1: i64) -> Object {
    Object::Array(vec![x0.into(), y0.into(), x1.into(), y1.into()])
}

fn appearance(doc: &mut Document, content: &str) -> ObjectId {
    doc.add_object(Stream::new(
        dictionary! { "BBox" => rect_of(0, 0, 200, 20) },
        content.as_bytes().to_vec(),
    ))
}

struct Form {
    doc: Document,
    page: ObjectId,
    replaced: ObjectId,
    kept: ObjectId,
    check: ObjectId,
    link: ObjectId,
}

/// A Letter page with two filled text widgets (one where a field will be stamped, one not), a
/// ticked check box and a link.
fn form() -> Form {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let border = "0 0 200 20 re S";
    let text =
        |value: &str| format!("{border}\n/Tx BMC\nBT /Helv 12 Tf 2 5 Td ({value}) Tj ET\nEMC\n");
    let old = appearance(&mut doc, &text("Old value"));
    let filled = appearance(&mut doc, &text("Filled before upload"));
    let yes = appearance(&mut doc, "0 0 10 10 re f");
    let off = appearance(&mut doc, "0 0 10 10 re S");
    let widget = |doc: &mut Document, rect: Object, extra: Dictionary| {
        let mut dict = dictionary! { "Type" => "Annot", "Subtype" => "Widget", "Rect" => rect };
        for (k, v) in extra {
            dict.set(k, v);
        }
        doc.add_object(dict)
    };
    let replaced = widget(
        &mut doc,
        rect_of(72, 692, 272, 712),
        dictionary! { "FT" => "Tx", "T" => Object::string_literal("rent"), "AP" => dictionary! { "N" => old } },
    );
    let kept = widget(
        &mut doc,
        rect_of(72, 600, 272, 620),
        dictionary! { "FT" => "Tx", "T" => Object::string_literal("note"), "AP" => dictionary! { "N" => filled } },
    );
    let check = widget(
        &mut doc,
        rect_of(300, 600, 310, 610),
        dictionary! {
            "FT" => "Btn", "T" => Object::string_literal("agree"), "AS" => "Yes",
            "AP" => dictionary! { "N" => dictionary! { "Yes" => yes, "Off" => off } },
        },
    );
    let link = doc.add_object(dictionary! {
        "Type" => "Annot", "Subtype" => "Link", "Rect" => rect_of(0, 0, 10, 10),
    });
    let content = doc.add_object(Stream::new(dictionary! {}, b"BT ET".to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "MediaBox" => rect_of(0, 0, 612, 792),
        "Contents" => content,
        "Annots" => vec![replaced.into(), kept.into(), check.into(), link.into()],
    });
    doc.objects.insert(
        pages_id,
        dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }.into(),
    );
    let catalog = doc.add_object(dictionary! {
        "Type" => "Catalog", "Pages" => pages_id,
        "AcroForm" => dictionary! { "Fields" => vec![replaced.into(), kept.into(), check.into()] },
    });
    doc.trailer.set("Root", catalog);
    Form {
        doc,
        page,
        replaced,
        kept,
        check,
        link,
    }
}

/// The content of each form XObject the page draws, in the order drawn.
fn drawn_forms(doc: &Document, page: ObjectId) -> Vec<String> {
    let page = doc.get_dictionary(page).unwrap();
    let contents = page.get(b"Contents").unwrap().as_array().unwrap();
    let last = doc
        .get_object(contents.last().unwrap().as_reference().unwrap())
        .unwrap()
        .as_stream()
        .unwrap();
    let ops = String::from_utf8(last.content.clone()).unwrap();
    let xobjects = page
        .get(b"Resources")
        .unwrap()
        .as_dict()
        .unwrap()
        .get(b"XObject")
        .unwrap()
        .as_dict()
        .unwrap();
    ops.lines()
        .filter_map(|line| line.strip_suffix(" Do"))
        .map(|name| {
            let id = xobjects
                .get(&name.as_bytes()[1..])
                .unwrap()
                .as_reference()
                .unwrap();
            let stream = doc.get_object(id).unwrap().as_stream().unwrap();
            assert_eq!(
                stream.dict.get(b"Subtype").unwrap().as_name().unwrap(),
                b"Form"
            );
            String::from_utf8(
                stream
                    .decompressed_content()
                    .unwrap_or(stream.content.clone()),
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn widgets_are_drawn_into_the_page_and_the_form_goes() {
    let Form {
        mut doc,
        page,
        replaced,
        kept,
        check,
        link,
    } = form();
    // A field stamped over the first widget (its box as displayed: 80 down from the top).
    let stamp = StampField {
        page: 1,
        x: 70.0,
        y: 78.0,
        width: 204.0,
        height: 24.0,
        kind: StampKind::Text,
        value: "New value".into(),
    };
    flatten_form(&mut doc, &[page], &[stamp]).unwrap();

    assert!(!doc.catalog().unwrap().has(b"AcroForm"));
    for widget in [replaced, kept, check] {
        assert!(doc.get_object(widget).is_err(), "{widget:?} is still there");
    }
    let annots = doc
        .get_dictionary(page)
        .unwrap()
        .get(b"Annots")
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(annots, vec![Object::Reference(link)]);

    let drawn = drawn_forms(&doc, page);
    assert_eq!(drawn.len(), 3, "{drawn:?}");
    // The stamped field's widget keeps its border, not its old value.
    assert!(
        drawn[0].contains("re") && !drawn[0].contains("Old value"),
        "{}",
        drawn[0]
    );
    // The other text widget, and the check box, show as they were.
    assert!(drawn[1].contains("Filled before upload"), "{}", drawn[1]);
    assert!(drawn[2].contains("re f"), "{}", drawn[2]);

    // The page's content stays balanced: a "q" first, the drawn widgets after the original.
    let contents = doc
        .get_dictionary(page)
        .unwrap()
        .get(b"Contents")
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    let text = |object: &Object| {
        let stream = doc
            .get_object(object.as_reference().unwrap())
            .unwrap()
            .as_stream()
            .unwrap();
        String::from_utf8(stream.content.clone()).unwrap()
    };
    assert_eq!(text(&contents[0]), "q\n");
    assert_eq!(text(&contents[1]), "BT ET");
    let last = text(&contents[2]);
    assert!(last.starts_with("Q\n"), "{last}");
    // The first widget's box is [72 692 272 712], its appearance 200 × 20: drawn unscaled there.
    assert!(last.contains("q\n1 0 0 1 72 692 cm\n"), "{last}");
}

#[test]
fn a_button_whose_value_is_stamped_is_drawn_off() {
    let Form { mut doc, page, .. } = form();
    let over_check = StampField {
        page: 1,
        x: 299.0,
        y: 181.0,
        width: 12.0,
        height: 12.0,
        kind: StampKind::Text,
        value: "x".into(),
    };
    flatten_form(&mut doc, &[page], &[over_check]).unwrap();
    let drawn = drawn_forms(&doc, page);
    assert!(drawn[2].contains("re S"), "{}", drawn[2]);
}

#[test]
fn a_document_without_a_form_is_left_alone() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id,
        "Annots" => vec![Object::Dictionary(dictionary! { "Subtype" => "Link" })],
        "Contents" => Object::String(vec![], StringFormat::Literal),
    });
    doc.objects.insert(
        pages_id,
        dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }.into(),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let before = doc.objects.clone();
    flatten_form(&mut doc, &[page], &[]).unwrap();
    assert_eq!(doc.objects, before);
}

#[test]
fn a_field_tree_naming_the_page_tree_removes_no_page() {
    let Form { mut doc, page, .. } = form();
    let catalog = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    let pages_id = doc
        .get_dictionary(catalog)
        .unwrap()
        .get(b"Pages")
        .unwrap()
        .as_reference()
        .unwrap();
    // A "field" whose kids are the page tree, the catalog and the page.
    let rogue = doc.add_object(dictionary! {
        "T" => Object::string_literal("rogue"),
        "Kids" => vec![pages_id.into(), catalog.into(), page.into()],
    });
    doc.get_dictionary_mut(catalog)
        .unwrap()
        .set("AcroForm", dictionary! { "Fields" => vec![rogue.into()] });
    flatten_form(&mut doc, &[page], &[]).unwrap();
    for kept in [catalog, pages_id, page] {
        assert!(doc.get_dictionary(kept).is_ok(), "{kept:?} was removed");
    }
    assert!(doc.get_object(rogue).is_err());
}
