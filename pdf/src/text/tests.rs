use lopdf::{Document, Object, Stream, dictionary};

use super::tags::take_tags;
use super::*;

/// A one-page PDF (612 × 792 unless `media_box`) with Helvetica as /F1 (no widths: the
/// standard metrics) and `content` as its content stream.
fn pdf(content: &str, extra_page: lopdf::Dictionary) -> Vec<u8> {
    let mut doc = Document::with_version("1.7");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let contents = doc.add_object(Stream::new(dictionary! {}, content.as_bytes().to_vec()));
    let pages_id = doc.new_object_id();
    let mut page = dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    };
    page.extend(&extra_page);
    let page = doc.add_object(page);
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

fn text_of(bytes: &[u8]) -> String {
    let (mut doc, _) = crate::inspect::read(bytes, Limits::default()).unwrap();
    let pages = read_pages(&mut doc, Limits::default()).unwrap();
    pages[0].chars.iter().map(|&(c, _)| c).collect()
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() < 0.05
}

#[test]
fn text_split_over_operators_reads_as_one_line_at_its_place() {
    // "Tenant" in one Tj, "signature:" in a TJ with a kern and a space adjustment, drawn out of
    // order: the right half first.
    let bytes = pdf(
        "BT /F1 12 Tf 1 0 0 1 113.34 700 Tm [(sig) 20 (nature:)] TJ ET \
         BT /F1 12 Tf 72 700 Td (Tenant) Tj ET",
        dictionary! {},
    );
    assert_eq!(text_of(&bytes), "Tenant signature:");
    let found = find_text(&bytes, &["Tenant  signature:".into()], Limits::default()).unwrap();
    let [found] = found[0][..] else {
        panic!("{found:?}")
    };
    // Helvetica at 12: ascent 0.718 em above the baseline at 792 - 700.
    assert_eq!(found.page, 1);
    assert!(near(found.x, 72.0), "{found:?}");
    assert!(near(found.y, 92.0 - 0.718 * 12.0), "{found:?}");
    assert!(near(found.height, (0.718 + 0.207) * 12.0), "{found:?}");
}

#[test]
fn widths_spacing_and_scaling_move_the_next_glyph() {
    // "AB" with 2 pt character spacing at 50% horizontal scale: B starts at
    // 100 + (0.667 * 10 + 2) * 0.5.
    let bytes = pdf(
        "BT /F1 10 Tf 2 Tc 50 Tz 100 500 Td (AB) Tj ET",
        dictionary! {},
    );
    let found = find_text(&bytes, &["B".into()], Limits::default()).unwrap();
    assert!(
        near(found[0][0].x, 100.0 + (6.67 + 2.0) * 0.5),
        "{:?}",
        found[0]
    );
    // Word spacing applies to the space only; T* uses the leading; ' moves to the next line.
    let bytes = pdf(
        "BT /F1 10 Tf 14 TL 5 Tw 100 500 Td (a b) Tj T* (c) Tj (d) ' ET",
        dictionary! {},
    );
    assert_eq!(text_of(&bytes), "a b\nc\nd");
    let found = find_text(
        &bytes,
        &["b".into(), "c".into(), "d".into()],
        Limits::default(),
    )
    .unwrap();
    assert!(near(found[0][0].x, 100.0 + 5.56 + 2.78 + 5.0), "{found:?}");
    assert!(near(found[1][0].y, 292.0 + 14.0 - 7.18), "{found:?}");
    assert!(near(found[2][0].y, 292.0 + 28.0 - 7.18), "{found:?}");
}

#[test]
fn the_graphics_state_and_forms_place_text() {
    // cm inside q/Q, then a form XObject with its own matrix.
    let mut doc = Document::with_version("1.7");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let form = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 500.into(), 500.into()],
            "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 0.into(), 100.into()],
            "Resources" => dictionary! { "Font" => dictionary! { "F9" => font } },
        },
        b"BT /F9 10 Tf 10 10 Td (inform) Tj ET".to_vec(),
    ));
    let contents = doc.add_object(Stream::new(
        dictionary! {},
        b"q 1 0 0 1 50 50 cm BT /F1 10 Tf 0 0 Td (moved) Tj ET Q BT /F1 10 Tf 0 0 Td (origin) Tj ET q 1 0 0 1 200 0 cm /X1 Do Q"
            .to_vec(),
    ));
    let pages_id = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! {
            "Font" => dictionary! { "F1" => font }, "XObject" => dictionary! { "X1" => form },
        },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    let needles = ["moved".to_owned(), "origin".into(), "inform".into()];
    let found = find_text(&bytes, &needles, Limits::default()).unwrap();
    let baseline = |b: &TextBox| b.y + 7.18;
    assert!(
        near(found[0][0].x, 50.0) && near(baseline(&found[0][0]), 742.0),
        "{found:?}"
    );
    assert!(
        near(found[1][0].x, 0.0) && near(baseline(&found[1][0]), 792.0),
        "{found:?}"
    );
    assert!(
        near(found[2][0].x, 210.0) && near(baseline(&found[2][0]), 682.0),
        "{found:?}"
    );
}

#[test]
fn rotated_pages_give_displayed_coordinates() {
    // On a page turned a quarter clockwise, user space (72, 700) is shown 700 pt from the left
    // and 72 pt from the top; the text runs downwards, its ascent to the left.
    let bytes = pdf(
        "BT /F1 12 Tf 72 700 Td (Anchor) Tj ET",
        dictionary! { "Rotate" => 90 },
    );
    let found = find_text(&bytes, &["Anchor".into()], Limits::default()).unwrap();
    let b = found[0][0];
    assert!(near(b.x, 700.0 - 0.207 * 12.0), "{b:?}");
    assert!(near(b.y, 72.0), "{b:?}");
    assert!(b.height > b.width, "{b:?}");
    // A crop box moves the origin.
    let bytes = pdf(
        "BT /F1 12 Tf 72 700 Td (Anchor) Tj ET",
        dictionary! { "CropBox" => vec![50.into(), 50.into(), 562.into(), 742.into()] },
    );
    let found = find_text(&bytes, &["Anchor".into()], Limits::default()).unwrap();
    assert!(near(found[0][0].x, 22.0), "{:?}", found[0]);
    assert!(near(found[0][0].y, 42.0 - 0.718 * 12.0), "{:?}", found[0]);
}

#[test]
fn every_occurrence_is_found_and_a_missing_text_is_not() {
    let bytes = pdf(
        "BT /F1 12 Tf 72 700 Td (Sign here) Tj 0 -100 Td (Sign here) Tj ET",
        dictionary! {},
    );
    let found = find_text(
        &bytes,
        &["Sign here".into(), "Nowhere".into()],
        Limits::default(),
    )
    .unwrap();
    assert_eq!(found[0].len(), 2);
    assert!(found[0][0].y < found[0][1].y);
    assert!(found[1].is_empty());
}

#[test]
fn a_composite_font_reads_through_its_unicode_map_and_widths() {
    let mut doc = Document::with_version("1.7");
    let cmap = b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
1 beginbfchar\n<0003> <0048>\nendbfchar\n\
1 beginbfrange\n<0004> <0005> [<0069> <0021>]\nendbfrange\n\
endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
    let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap.to_vec()));
    let descendant = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "CIDFontType2", "BaseFont" => "X",
        "DW" => 1000,
        "W" => vec![3.into(), vec![Object::Integer(700), Object::Integer(300)].into()],
    });
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "X", "Encoding" => "Identity-H",
        "DescendantFonts" => vec![descendant.into()], "ToUnicode" => to_unicode,
    });
    let contents = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F2 10 Tf 100 100 Td <000300040005> Tj ET".to_vec(),
    ));
    let pages_id = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        "Resources" => dictionary! { "Font" => dictionary! { "F2" => font } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    assert_eq!(text_of(&bytes), "Hi!");
    let found = find_text(&bytes, &["!".into()], Limits::default()).unwrap();
    // H is 700, i is 300 (the W array), ! the default 1000.
    assert!(near(found[0][0].x, 110.0), "{found:?}");
    assert!(near(found[0][0].width, 10.0), "{found:?}");
}

#[test]
fn differences_name_glyphs() {
    let mut doc = Document::with_version("1.7");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Custom",
        "FirstChar" => 1, "Widths" => vec![500.into(), 500.into()],
        "Encoding" => dictionary! {
            "Type" => "Encoding", "BaseEncoding" => "WinAnsiEncoding",
            "Differences" => vec![1.into(), Object::Name(b"braceleft".to_vec()), Object::Name(b"eacute".to_vec())],
        },
    });
    let contents = doc.add_object(Stream::new(
        dictionary! {},
        b"BT /F1 10 Tf 100 100 Td <0101020202> Tj ET".to_vec(),
    ));
    let pages_id = doc.new_object_id();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    assert_eq!(text_of(&bytes), "{{ééé");
}

#[test]
fn tags_are_found_and_taken_out_without_moving_the_rest() {
    let bytes = pdf(
        "BT /F1 12 Tf 72 700 Td (Sign: {{signa) Tj [(ture:Tenant}}) -200 (after)] TJ \
         0 -20 Td ({{text:1;label=x) ' ET",
        dictionary! {},
    );
    let before = find_text(&bytes, &["after".into()], Limits::default()).unwrap();
    let (taken, cleaned) = take_tags(&bytes, Limits::default()).unwrap();
    let texts: Vec<&str> = taken.tags.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["{{signature:Tenant}}", "{{text:1;label=x"]);
    let sign = find_text(&bytes, &["Sign: ".into()], Limits::default()).unwrap();
    let tag = taken.tags[0].at;
    assert!(tag.x > sign[0][0].x + sign[0][0].width, "{tag:?}");
    let cleaned = cleaned.expect("a cleaned file");
    assert_eq!(taken.inspected.sha256, crate::sha256_hex(&cleaned));
    assert_eq!(text_of(&cleaned), "Sign: after");
    let after = find_text(&cleaned, &["after".into()], Limits::default()).unwrap();
    assert!(near(after[0][0].x, before[0][0].x), "{after:?} {before:?}");
    assert!(near(after[0][0].y, before[0][0].y));
    // A file without tags is not rewritten.
    let plain = pdf("BT /F1 12 Tf 72 700 Td (no tags) Tj ET", dictionary! {});
    let (taken, cleaned) = take_tags(&plain, Limits::default()).unwrap();
    assert!(taken.tags.is_empty() && cleaned.is_none());
}

#[test]
fn a_hostile_content_stream_stops_at_the_budget() {
    // A TJ array of more glyphs than the budget, built from a short stream repeated.
    let mut content = String::from("BT /F1 1 Tf 0 0 Td ");
    let array = format!(
        "[{}] TJ ",
        "(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa) -1 ".repeat(2_000)
    );
    for _ in 0..(MAX_GLYPHS / 120_000 + 2) {
        content.push_str(&array);
    }
    content.push_str("ET");
    let bytes = pdf(&content, dictionary! {});
    let started = std::time::Instant::now();
    let read = find_text(&bytes, &["a".into()], Limits::default());
    assert!(matches!(read, Err(PdfError::TooMuchText)), "{read:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}
