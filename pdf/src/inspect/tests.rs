use super::*;
use lopdf::xref::XrefType;
use lopdf::{Dictionary, EncryptionState, EncryptionVersion, ObjectId, Permissions, dictionary};
use sha2::{Digest, Sha256};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/pdf/");

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{FIXTURES}{name}");
    std::fs::read(&path).unwrap_or_else(|error| panic!("cannot read fixture {path}: {error}"))
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < 1e-3
}

fn assert_sizes(actual: &[PageSize], expected: &[(f64, f64)]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?}");
    for (size, &(width, height)) in actual.iter().zip(expected) {
        assert!(
            close(size.width, width) && close(size.height, height),
            "expected {expected:?}, got {actual:?}"
        );
    }
}

/// A /Pages node with `kids`; `extra` adds entries to it.
fn pages_node(kids: &[ObjectId], count: i64, extra: Dictionary) -> Object {
    let mut node = dictionary! {
        "Type" => "Pages",
        "Kids" => kids.iter().map(|&id| Object::from(id)).collect::<Vec<_>>(),
        "Count" => count,
    };
    node.extend(&extra);
    node.into()
}

fn page(doc: &mut Document, parent: ObjectId, extra: Dictionary) -> ObjectId {
    let mut page = dictionary! { "Type" => "Page", "Parent" => parent };
    page.extend(&extra);
    doc.add_object(page)
}

fn numbers(values: &[f64]) -> Vec<Object> {
    values.iter().map(|&value| (value as f32).into()).collect()
}

/// Gives `doc` a catalog pointing at `pages_id` and returns the saved file.
fn save(mut doc: Document, pages_id: ObjectId) -> Vec<u8> {
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save the generated PDF");
    bytes
}

/// A document with `kids` pages under a root whose /Count is `count`.
fn simple_pdf(kids: usize, count: i64) -> Vec<u8> {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let ids: Vec<_> = (0..kids)
        .map(|_| page(&mut doc, pages_id, dictionary! {}))
        .collect();
    let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
    doc.objects
        .insert(pages_id, pages_node(&ids, count, media_box));
    save(doc, pages_id)
}

#[test]
fn fixtures_match_the_manifest() {
    let path = format!("{FIXTURES}MANIFEST.tsv");
    let manifest = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("the PDF fixtures are missing: cannot read {path}: {error}")
    });
    let mut lines = manifest.lines().filter(|line| !line.trim().is_empty());
    let header: Vec<_> = lines
        .next()
        .expect("MANIFEST.tsv is empty")
        .split('\t')
        .collect();
    let column = |name| {
        header
            .iter()
            .position(|&column| column == name)
            .unwrap_or_else(|| panic!("MANIFEST.tsv has no {name} column"))
    };
    let (file, pages, encrypted) = (column("file"), column("pages"), column("encrypted"));

    let mut checked = 0;
    for line in lines {
        let fields: Vec<_> = line.split('\t').collect();
        let name = fields[file];
        let result = inspect(&fixture(name));
        if fields[encrypted] == "true" {
            assert!(
                matches!(result, Err(PdfError::Encrypted)),
                "{name}: {result:?}"
            );
        } else {
            let expected: usize = fields[pages].parse().expect("a page count");
            let inspected = result.unwrap_or_else(|error| panic!("{name}: {error}"));
            assert_eq!(inspected.pages, expected, "{name}");
            assert_eq!(inspected.page_sizes.len(), expected, "{name}");
        }
        checked += 1;
    }
    assert!(checked > 0, "MANIFEST.tsv lists no files");
}

#[test]
fn rotated_fixture_pages_are_sized_as_displayed() {
    // Every page has MediaBox [0 0 595.2756 841.8898]; /Rotate is 90, 180, 270 and 360.
    let inspected = inspect(&fixture("habibi-rotated.pdf")).expect("inspect");
    let (short, long) = (595.2756, 841.8898);
    assert_sizes(
        &inspected.page_sizes,
        &[(long, short), (short, long), (long, short), (short, long)],
    );
    assert_eq!(inspected.page_sizes[0].width, long);
}

#[test]
fn boxes_and_rotation_are_inherited() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let plain = page(&mut doc, pages_id, dictionary! {});
    let cropped = page(
        &mut doc,
        pages_id,
        dictionary! { "CropBox" => numbers(&[50.0, 50.0, 350.0, 450.0]) },
    );
    let turned = page(&mut doc, pages_id, dictionary! { "Rotate" => 90 });
    let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
    doc.objects.insert(
        pages_id,
        pages_node(&[plain, cropped, turned], 3, media_box),
    );

    let inspected = inspect(&save(doc, pages_id)).expect("inspect");
    assert_eq!(inspected.pages, 3);
    assert_sizes(
        &inspected.page_sizes,
        &[(595.0, 842.0), (300.0, 400.0), (842.0, 595.0)],
    );
}

#[test]
fn odd_boxes_and_rotations() {
    let mut doc = Document::with_version("1.7");
    let root_id = doc.new_object_id();
    let middle_id = doc.new_object_id();
    // Corners in reverse order, as reals, behind an indirect reference.
    let media_box = doc.add_object(numbers(&[500.5, 700.0, 100.5, 100.0]));
    let crop_larger_than_media = page(
        &mut doc,
        middle_id,
        dictionary! { "CropBox" => numbers(&[0.0, 0.0, 1000.0, 300.0]) },
    );
    let inherits_rotation = page(&mut doc, middle_id, dictionary! {});
    let own_box_and_rotation = page(
        &mut doc,
        middle_id,
        dictionary! {
            "MediaBox" => vec![Object::Integer(0), 0.into(), 200.into(), 100.into()],
            "Rotate" => 180,
        },
    );
    let crop_outside_media = page(
        &mut doc,
        middle_id,
        dictionary! { "CropBox" => numbers(&[600.0, 0.0, 700.0, 50.0]) },
    );
    doc.objects.insert(
        middle_id,
        pages_node(
            &[
                crop_larger_than_media,
                inherits_rotation,
                own_box_and_rotation,
                crop_outside_media,
            ],
            4,
            dictionary! { "Parent" => root_id, "Rotate" => -90 },
        ),
    );
    doc.objects.insert(
        root_id,
        pages_node(&[middle_id], 4, dictionary! { "MediaBox" => media_box }),
    );

    let inspected = inspect(&save(doc, root_id)).expect("inspect");
    assert_sizes(
        &inspected.page_sizes,
        &[
            (200.0, 400.0),
            (600.0, 400.0),
            (200.0, 100.0),
            (600.0, 400.0),
        ],
    );
}

#[test]
fn a_page_without_any_box_is_us_letter() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let lonely = page(&mut doc, pages_id, dictionary! {});
    doc.objects
        .insert(pages_id, pages_node(&[lonely], 1, dictionary! {}));
    let inspected = inspect(&save(doc, pages_id)).expect("inspect");
    assert_sizes(&inspected.page_sizes, &[(612.0, 792.0)]);
}

#[test]
fn loops_in_the_page_tree_do_not_hang() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let looping_id = doc.new_object_id();
    let own_parent = doc.new_object_id();
    doc.objects.insert(
        own_parent,
        dictionary! { "Type" => "Page", "Parent" => own_parent }.into(),
    );
    let missing = (9999, 0);
    // The intermediate node lists itself and the root among its kids, and its /Parent is
    // itself.
    doc.objects.insert(
        looping_id,
        pages_node(
            &[looping_id, own_parent, pages_id, missing],
            1,
            dictionary! { "Parent" => looping_id },
        ),
    );
    doc.objects.insert(
        pages_id,
        pages_node(&[looping_id, own_parent], 2, dictionary! {}),
    );

    let inspected = inspect(&save(doc, pages_id)).expect("inspect");
    assert_eq!(inspected.pages, 1);
    assert_sizes(&inspected.page_sizes, &[(612.0, 792.0)]);
}

#[test]
fn an_incremental_update_adds_a_page() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let first = page(&mut doc, pages_id, dictionary! {});
    let second = page(&mut doc, pages_id, dictionary! {});
    let media_box = dictionary! { "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]) };
    doc.objects
        .insert(pages_id, pages_node(&[first, second], 2, media_box));
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    // lopdf writes an xref stream by default; use a table, as the update below does.
    doc.reference_table.cross_reference_type = XrefType::CrossReferenceTable;
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save");
    assert_eq!(inspect(&bytes).expect("inspect").pages, 2);

    let startxref = bytes
        .windows(9)
        .rposition(|window| window == b"startxref")
        .expect("startxref");
    let previous_xref: usize = String::from_utf8_lossy(&bytes[startxref + 9..])
        .split_whitespace()
        .next()
        .and_then(|offset| offset.parse().ok())
        .expect("the previous xref offset");
    let third = doc.max_id + 1;
    let (pages, catalog) = (pages_id.0, catalog.0);
    let (first, second) = (first.0, second.0);

    let mut updated = bytes.clone();
    updated.push(b'\n');
    let page_at = updated.len();
    updated.extend(
        format!("{third} 0 obj\n<< /Type /Page /Parent {pages} 0 R /Rotate 270 >>\nendobj\n")
            .as_bytes(),
    );
    let pages_at = updated.len();
    updated.extend(
        format!(
            "{pages} 0 obj\n<< /Type /Pages /Kids [{first} 0 R {second} 0 R {third} 0 R] \
             /Count 3 /MediaBox [0 0 500 800] >>\nendobj\n"
        )
        .as_bytes(),
    );
    let xref_at = updated.len();
    updated.extend(
        format!(
            "xref\n{pages} 1\n{pages_at:010} 00000 n \n{third} 1\n{page_at:010} 00000 n \n\
             trailer\n<< /Size {} /Root {catalog} 0 R /Prev {previous_xref} >>\n\
             startxref\n{xref_at}\n%%EOF\n",
            third + 1
        )
        .as_bytes(),
    );

    let inspected = inspect(&updated).expect("inspect the updated file");
    assert_eq!(inspected.pages, 3);
    assert_sizes(
        &inspected.page_sizes,
        &[(500.0, 800.0), (500.0, 800.0), (800.0, 500.0)],
    );
}

#[test]
fn the_real_leaf_pages_are_counted_not_count() {
    assert_eq!(inspect(&simple_pdf(2, 3)).expect("inspect").pages, 2);
    assert_eq!(inspect(&simple_pdf(3, 1)).expect("inspect").pages, 3);
    assert!(matches!(inspect(&simple_pdf(0, 2)), Err(PdfError::NoPages)));
}

#[test]
fn too_many_pages_are_refused() {
    assert_eq!(
        inspect(&simple_pdf(MAX_PAGES, 1)).expect("inspect").pages,
        MAX_PAGES
    );
    assert!(matches!(
        inspect(&simple_pdf(MAX_PAGES + 1, 1)),
        Err(PdfError::TooManyPages(2001))
    ));
}

#[test]
fn bad_input_gets_the_right_error() {
    assert!(matches!(inspect(b""), Err(PdfError::Empty)));
    assert!(matches!(inspect(b"hello"), Err(PdfError::NotPdf)));
    assert!(matches!(
        inspect(&vec![b' '; MAX_UPLOAD_BYTES + 1]),
        Err(PdfError::TooLarge)
    ));

    let mut corrupt = fixture("minimal-document.pdf")[..200].to_vec();
    corrupt.extend(b"\x00garbage\xff".repeat(100));
    assert!(
        matches!(inspect(&corrupt), Err(PdfError::Corrupt(_))),
        "{:?}",
        inspect(&corrupt)
    );
}

#[test]
fn leading_junk_before_the_header_is_tolerated_up_to_1024_bytes() {
    let pdf = simple_pdf(1, 1);
    let with_junk = |length| [vec![b'x'; length], pdf.clone()].concat();
    assert_eq!(inspect(&with_junk(1024)).expect("inspect").pages, 1);
    assert!(matches!(inspect(&with_junk(1025)), Err(PdfError::NotPdf)));
}

#[test]
fn a_file_the_empty_password_opens_is_still_encrypted() {
    let mut doc = Document::load_mem(&simple_pdf(2, 2)).expect("load");
    let id = Object::string_literal("0123456789abcdef");
    doc.trailer.set("ID", vec![id.clone(), id]);
    let state = EncryptionState::try_from(EncryptionVersion::V2 {
        document: &doc,
        owner_password: "owner",
        user_password: "",
        key_length: 128,
        permissions: Permissions::all(),
    })
    .expect("encryption state");
    doc.encrypt(&state).expect("encrypt");
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save");

    // lopdf opens it without a password...
    assert_eq!(
        Document::load_mem(&bytes).expect("load").get_pages().len(),
        2
    );
    // ...but it is refused all the same.
    assert!(matches!(inspect(&bytes), Err(PdfError::Encrypted)));
}

/// A one-page PDF that also holds an object stream for each of `inflated`, inflating to that
/// many zero bytes. Written by hand: lopdf drops object streams when it saves.
fn bomb(inflated: &[usize]) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
    ];
    for &size in inflated {
        let mut stream = lopdf::Stream::new(dictionary! {}, vec![0; size]);
        stream.compress().expect("compress");
        let mut object = format!(
            "<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length {} >>\nstream\n",
            stream.content.len()
        )
        .into_bytes();
        object.extend(&stream.content);
        object.extend(b"\nendstream");
        objects.push(object);
    }
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).as_bytes());
        pdf.extend(object);
        pdf.extend(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").as_bytes());
    }
    pdf.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    pdf
}

#[test]
fn streams_inflating_past_the_budget_are_refused() {
    let limits = Limits {
        max_inflated_bytes: 1024 * 1024,
        ..Limits::default()
    };
    let under = bomb(&[512 * 1024]);
    assert_eq!(inspect_with(&under, limits).expect("inspect").pages, 1);
    let over = bomb(&[2 * 1024 * 1024]);
    assert!(
        matches!(
            inspect_with(&over, limits),
            Err(PdfError::TooMuchInflated(1))
        ),
        "{:?}",
        inspect_with(&over, limits)
    );
    // The default budget refuses the probe's 250 MB stream without inflating it all.
    assert!(matches!(
        inspect(&bomb(&[250 * 1000 * 1000])),
        Err(PdfError::TooMuchInflated(64))
    ));
}

#[test]
fn the_budget_is_for_all_object_streams_together() {
    let limits = Limits {
        max_inflated_bytes: 1024 * 1024,
        ..Limits::default()
    };
    assert!(inspect_with(&bomb(&[600 * 1024]), limits).is_ok());
    let bytes = bomb(&[600 * 1024, 600 * 1024]);
    assert!(matches!(
        inspect_with(&bytes, limits),
        Err(PdfError::TooMuchInflated(1))
    ));
}

#[test]
fn reading_past_the_time_limit_is_refused() {
    let limits = Limits {
        max_time: Duration::ZERO,
        ..Limits::default()
    };
    assert!(matches!(
        inspect_with(&simple_pdf(3, 3), limits),
        Err(PdfError::TooSlow(0))
    ));
}

#[test]
fn an_escaped_encrypt_name_is_still_seen() {
    assert!(names_encrypt(b"trailer << /Encrypt 5 0 R >>"));
    assert!(names_encrypt(b"trailer << /Encr#79pt << /V 2 >> >>"));
    assert!(!names_encrypt(b"<< /EncryptMetadata false >>"));
    assert!(!names_encrypt(b"(a text about /Encrypt keys)"));
}

#[test]
fn sha256_is_of_the_whole_file() {
    let bytes = fixture("annotated_pdf.pdf");
    let inspected = inspect(&bytes).expect("inspect");
    assert_eq!(inspected.sha256, hex::encode(Sha256::digest(&bytes)));
    assert_eq!(inspected.sha256.len(), 64);
    assert_eq!(inspected.sha256, inspected.sha256.to_lowercase());
}
