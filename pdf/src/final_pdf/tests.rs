use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use lopdf::{Dictionary, Object, ObjectId, Stream, dictionary};

use super::*;
use crate::certificate::CertificateAuditLine;
use crate::certificate::CertificateRecipient;
use crate::page_geometry::PageSize;
use crate::render_final;
use crate::revisions::stamped_revision;
use crate::stamp::{StampKind, TEXT_PADDING};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/pdf/");

// -- Building originals --------------------------------------------------------------------

fn numbers(values: &[f64]) -> Vec<Object> {
    values.iter().map(|&value| (value as f32).into()).collect()
}

fn content(doc: &mut Document, ops: &str) -> ObjectId {
    doc.add_object(Stream::new(dictionary! {}, ops.as_bytes().to_vec()))
}

fn times(doc: &mut Document) -> ObjectId {
    doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Times-Roman",
    })
}

/// Gives `doc` a catalog pointing at `pages_id` and returns the saved file.
fn save(mut doc: Document, pages_id: ObjectId, pages: Dictionary) -> Vec<u8> {
    doc.objects.insert(pages_id, pages.into());
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save the generated PDF");
    bytes
}

/// Content that leaves the graphics state scaled, shifted and red, as some producers do.
const LEAKY: &str = "3 0 0 3 40 40 cm 1 0 0 rg 0.2 w";

/// Three pages: the first inherits its MediaBox and Resources and has an array of content
/// streams that leaves the graphics state modified; the second is turned 90 degrees and
/// has its own MediaBox and indirect Resources; the third has a CropBox offset from the
/// origin.
fn original() -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = times(&mut doc);

    let leaky = content(&mut doc, LEAKY);
    let text = content(&mut doc, "BT /F1 12 Tf 20 200 Td (Original page one) Tj ET");
    let first = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id,
        "Contents" => vec![leaky.into(), text.into()],
    });

    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let text = content(&mut doc, "BT /F1 12 Tf 72 720 Td (Original page two) Tj ET");
    let second = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Rotate" => 90,
        "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]),
        "Resources" => resources, "Contents" => text,
    });

    let text = content(
        &mut doc,
        "BT /F1 12 Tf 120 600 Td (Original page three) Tj ET",
    );
    let third = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id,
        "CropBox" => numbers(&[100.0, 150.0, 500.0, 650.0]), "Contents" => text,
    });

    let pages = dictionary! {
        "Type" => "Pages",
        "Kids" => vec![first.into(), second.into(), third.into()],
        "Count" => 3,
        "MediaBox" => numbers(&[0.0, 0.0, 612.0, 792.0]),
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
    };
    save(doc, pages_id, pages)
}

/// One page with MediaBox [0 0 400 600] (or `media`), `rotate` and `crop`, whose content
/// leaves the graphics state modified.
fn single_page(media: [f64; 4], rotate: i64, crop: Option<[f64; 4]>) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let leaky = content(&mut doc, LEAKY);
    let mut page = dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => leaky,
        "MediaBox" => numbers(&media), "Rotate" => rotate,
    };
    if let Some(crop) = crop {
        page.set("CropBox", numbers(&crop));
    }
    let page = doc.add_object(page);
    let pages = dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 };
    save(doc, pages_id, pages)
}

fn field(
    page: u32,
    (x, y, width, height): (f64, f64, f64, f64),
    kind: StampKind,
    value: &str,
) -> StampField {
    StampField {
        page,
        x,
        y,
        width,
        height,
        kind,
        value: value.into(),
    }
}

fn certificate(original: &[u8], audit_entries: usize) -> Certificate {
    Certificate {
        language: Default::default(),
        title: "Master services agreement".into(),
        code: "SGN-7Q4K-2M".into(),
        document_id: "0197a3b2-7c1d-7e00-9f3a-4b5c6d7e8f90".into(),
        original_sha256: sha256_hex(original),
        completed_at: "2026-11-21T22:38:39.123Z".into(),
        recipients: vec![
            CertificateRecipient {
                name: "Ada Lovelace".into(),
                email: "ada@example.com".into(),
                role: "SIGNER".into(),
                status: "SIGNED".into(),
                viewed_at: Some("2026-11-21T22:30:00.000Z".into()),
                signed_at: Some("2026-11-21T22:38:39.123Z".into()),
                ip_address: Some("203.0.113.7".into()),
                user_agent: Some(
                    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                     Chrome/131.0.0.0 Safari/537.36"
                        .into(),
                ),
                consented_at: None,
                consent_ip: None,
                consent_user_agent: None,
                consent_text: None,
                auth_method: None,
                auth_passed_at: None,
                fields: Vec::new(),
            },
            CertificateRecipient {
                name: "Charles Babbage".into(),
                email: "charles@example.org".into(),
                role: "VIEWER".into(),
                status: "VIEWED".into(),
                viewed_at: Some("2026-11-21T22:31:00.000Z".into()),
                signed_at: None,
                ip_address: None,
                user_agent: None,
                consented_at: None,
                consent_ip: None,
                consent_user_agent: None,
                consent_text: None,
                auth_method: None,
                auth_passed_at: None,
                fields: Vec::new(),
            },
        ],
        audit: (1..=audit_entries)
            .map(|n| CertificateAuditLine {
                at: format!("2026-11-21T22:{:02}:{:02}.000Z", n / 60 % 60, n % 60),
                event: "SIGNED".into(),
                message: format!("Auditmessage{n:03} recorded"),
                ip_address: "198.51.100.23".into(),
                user_agent: format!("Agent/{n}.0 {}", "x".repeat(150)),
                entries: 1,
            })
            .collect(),
    }
}

fn render(original: &[u8], fields: &[StampField]) -> FinalPdf {
    render_final(original, fields, &certificate(original, 3)).expect("render the final PDF")
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("PNG header");
    let pixels: Vec<u8> = (0..width * height)
        .flat_map(|i| [0, 0, 128, (i % 256) as u8])
        .collect();
    writer.write_image_data(&pixels).expect("PNG data");
    writer.finish().expect("PNG end");
    bytes
}

fn data_url(png: &[u8]) -> String {
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(png)
    )
}

// -- Poppler ---------------------------------------------------------------------------------

fn poppler_installed() -> bool {
    let installed = Command::new("pdftotext").arg("-v").output().is_ok();
    if !installed {
        eprintln!(
            "NOTE: pdftotext is not installed (apt-get install poppler-utils); skipping the text checks"
        );
    }
    installed
}

/// Runs `pdftotext` with `args` on `pdf` and returns its output.
fn pdftotext(pdf: &[u8], args: &[&str]) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "signet-stamp-{}-{}.pdf",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, pdf).expect("write the PDF for pdftotext");
    let output = Command::new("pdftotext")
        .args(args)
        .arg(&path)
        .arg("-")
        .output()
        .expect("run pdftotext");
    let _ = std::fs::remove_file(&path);
    assert!(
        output.status.success(),
        "pdftotext {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn page_text(pdf: &[u8], page: usize) -> String {
    let page = page.to_string();
    pdftotext(pdf, &["-layout", "-f", &page, "-l", &page])
}

#[derive(Debug)]
struct Word {
    text: String,
    x_min: f64,
    y_min: f64,
    x_max: f64,
    y_max: f64,
}

fn attribute(tag: &str, name: &str) -> f64 {
    let start = tag
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + name.len()
        + 2;
    let end = start + tag[start..].find('"').expect("closing quote");
    tag[start..end].parse().expect("a number")
}

/// The page size and the words of page 1, in displayed top-left coordinates, from
/// `pdftotext -bbox`.
fn words(pdf: &[u8]) -> (PageSize, Vec<Word>) {
    let html = pdftotext(pdf, &["-bbox", "-cropbox", "-f", "1", "-l", "1"]);
    let page = html.find("<page ").expect("a page element");
    let size = PageSize {
        width: attribute(&html[page..], "width"),
        height: attribute(&html[page..], "height"),
    };
    let words = html
        .split("<word ")
        .skip(1)
        .map(|element| {
            let (tag, rest) = element.split_once('>').expect("a word tag");
            Word {
                text: rest.split('<').next().unwrap_or_default().to_owned(),
                x_min: attribute(tag, "xMin"),
                y_min: attribute(tag, "yMin"),
                x_max: attribute(tag, "xMax"),
                y_max: attribute(tag, "yMax"),
            }
        })
        .collect();
    (size, words)
}

fn assert_sizes_kept(original: &[u8], stamped: &FinalPdf) {
    let before = crate::inspect(original).expect("inspect the original");
    let after = crate::inspect(&stamped.bytes).expect("inspect the final PDF");
    assert_eq!(after.pages, before.pages + stamped.certificate_pages);
    assert_eq!(after.page_sizes[..before.pages], before.page_sizes[..]);
    for size in &after.page_sizes[before.pages..] {
        assert_eq!(
            *size,
            PageSize {
                width: 612.0,
                height: 792.0
            }
        );
    }
}

// -- Tests -----------------------------------------------------------------------------------

#[test]
fn stamps_every_page_and_appends_the_certificate() {
    let original = original();
    let fields = [
        field(
            1,
            (72.0, 100.0, 200.0, 24.0),
            StampKind::Text,
            "Hello Signet",
        ),
        field(
            1,
            (300.0, 100.0, 120.0, 20.0),
            StampKind::Date,
            "2026-11-21",
        ),
        field(
            1,
            (72.0, 600.0, 200.0, 40.0),
            StampKind::Signature,
            "Ada Lovelace",
        ),
        field(
            2,
            (100.0, 100.0, 200.0, 30.0),
            StampKind::Text,
            "Rotated field",
        ),
        field(3, (20.0, 20.0, 60.0, 30.0), StampKind::Initials, "AL"),
        field(
            3,
            (20.0, 400.0, 300.0, 30.0),
            StampKind::Text,
            "Cropped (field) \\ ok",
        ),
    ];
    let certificate = certificate(&original, 3);
    let result = render_final(&original, &fields, &certificate).expect("render");

    assert_eq!(result.certificate_pages, 1);
    assert_sizes_kept(&original, &result);
    let loaded = Document::load_mem(&result.bytes).expect("lopdf loads the final PDF");
    assert_eq!(loaded.get_pages().len(), 4);

    if !poppler_installed() {
        return;
    }
    let expected: [&[&str]; 3] = [
        &[
            "Hello Signet",
            "2026-11-21",
            "Ada Lovelace",
            "Original page one",
        ],
        &["Rotated field", "Original page two"],
        &["AL", "Cropped (field) \\ ok", "Original page three"],
    ];
    for (index, values) in expected.iter().enumerate() {
        let text = page_text(&result.bytes, index + 1);
        for value in *values {
            assert!(
                text.contains(value),
                "page {}: no {value:?} in {text}",
                index + 1
            );
        }
    }

    let text = page_text(&result.bytes, 4);
    for value in [
        "Certificate of completion",
        &certificate.title,
        &certificate.code,
        &certificate.document_id,
        &certificate.completed_at,
        &certificate.original_sha256,
        &result.stamped_sha256,
        "ada@example.com",
        "charles@example.org",
        "Signet certificate — page 1 of 1",
    ] {
        assert!(
            text.contains(value),
            "no {value:?} in the certificate: {text}"
        );
    }
    for entry in &certificate.audit {
        assert!(
            text.contains(&entry.message),
            "no {:?} in {text}",
            entry.message
        );
    }
}

#[test]
fn pdfinfo_accepts_the_final_pdf() {
    if !poppler_installed() {
        return;
    }
    let original = original();
    let result = render(
        &original,
        &[field(1, (72.0, 72.0, 100.0, 20.0), StampKind::Text, "x")],
    );
    let path = std::env::temp_dir().join(format!("signet-stamp-info-{}.pdf", std::process::id()));
    std::fs::write(&path, &result.bytes).expect("write");
    let output = Command::new("pdfinfo")
        .arg(&path)
        .output()
        .expect("run pdfinfo");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("Pages:           4"), "{stdout}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Left, top, right and bottom, in pixels.
type Bounds = (usize, usize, usize, usize);

/// The page as `pdftoppm -cropbox` draws it at 72 dpi, one pixel a point: its size and
/// the bounding box (x0, y0, x1, y1) of its dark pixels, top-left origin.
fn ink(pdf: &[u8]) -> ((usize, usize), Option<Bounds>) {
    let path = std::env::temp_dir().join(format!(
        "signet-stamp-ink-{}-{}",
        std::process::id(),
        sha256_hex(pdf)
    ));
    std::fs::write(path.with_extension("pdf"), pdf).expect("write the PDF for pdftoppm");
    let output = Command::new("pdftoppm")
        .args([
            "-cropbox",
            "-r",
            "72",
            "-gray",
            "-singlefile",
            "-f",
            "1",
            "-l",
            "1",
        ])
        .arg(path.with_extension("pdf"))
        .arg(&path)
        .output()
        .expect("run pdftoppm");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let image = std::fs::read(path.with_extension("pgm")).expect("read the PGM");
    let _ = std::fs::remove_file(path.with_extension("pdf"));
    let _ = std::fs::remove_file(path.with_extension("pgm"));

    // "P5 <width> <height> <maxval>" and one byte of white space, then the pixels.
    let mut header = Vec::new();
    let mut offset = 0;
    while header.len() < 4 {
        let start = offset
            + image[offset..]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .expect("a token");
        let end = start
            + image[start..]
                .iter()
                .position(|b| b.is_ascii_whitespace())
                .expect("the token's end");
        header.push(String::from_utf8_lossy(&image[start..end]).into_owned());
        offset = end + 1;
    }
    let (width, height): (usize, usize) = (
        header[1].parse().expect("width"),
        header[2].parse().expect("height"),
    );
    let pixels = &image[offset..];
    assert_eq!(pixels.len(), width * height);
    let dark: Vec<(usize, usize)> = (0..width * height)
        .filter(|&i| pixels[i] < 128)
        .map(|i| (i % width, i / width))
        .collect();
    let bounds = (!dark.is_empty()).then(|| {
        let xs = dark.iter().map(|&(x, _)| x);
        let ys = dark.iter().map(|&(_, y)| y);
        (
            xs.clone().min().unwrap_or(0),
            ys.clone().min().unwrap_or(0),
            xs.max().unwrap_or(0),
            ys.max().unwrap_or(0),
        )
    });
    ((width, height), bounds)
}

/// The transform test: a word stamped at a known displayed position must come out there,
/// whatever the page's rotation and visible box. Checked twice: with the word boxes of
/// `pdftotext -bbox`, and with the pixels `pdftoppm` draws, which cannot be read in any
/// orientation but the displayed one.
#[test]
fn stamps_land_in_their_boxes_whatever_the_rotation_and_crop_box() {
    if !poppler_installed() {
        return;
    }
    let media = [0.0, 0.0, 400.0, 600.0];
    let offset_crop = Some([50.0, 70.0, 350.0, 520.0]);
    let cases = [
        (media, 0, None),
        (media, 90, None),
        (media, 180, None),
        (media, 270, None),
        (media, -90, None),
        (media, 450, None),
        (media, 0, offset_crop),
        (media, 90, offset_crop),
        (media, 180, offset_crop),
        (media, 270, offset_crop),
        ([-100.0, 30.0, 300.0, 630.0], 270, None),
    ];
    for (media, rotate, crop) in cases {
        let original = single_page(media, rotate, crop);
        let displayed = crate::inspect(&original).expect("inspect").page_sizes[0];
        // Near the top-left corner, so that a mirrored or turned placement misses.
        let (x, y, width, height) = (40.0, 60.0, 160.0, 28.0);
        let mark = format!("Mark{rotate}");
        let result = render(
            &original,
            &[field(1, (x, y, width, height), StampKind::Text, &mark)],
        );
        let case = format!("rotate {rotate}, media {media:?}, crop {crop:?}");

        let (_, words) = words(&result.bytes);
        let word = words
            .iter()
            .find(|word| word.text == mark)
            .unwrap_or_else(|| panic!("{case}: no {mark} among {words:?}"));
        let tolerance = 0.5;
        assert!(
            word.x_min >= x - tolerance
                && word.x_max <= x + width + tolerance
                && word.y_min >= y - tolerance
                && word.y_max <= y + height + tolerance,
            "{case}: {word:?} is outside the box ({x}, {y}, {width}, {height})"
        );
        // Left-aligned after the padding, and vertically centred.
        assert!(
            (word.x_min - (x + TEXT_PADDING)).abs() < 1.0,
            "{case}: {word:?}"
        );
        let middle = (word.y_min + word.y_max) / 2.0;
        assert!(
            (middle - (y + height / 2.0)).abs() < 1.0,
            "{case}: {word:?}"
        );

        let (size, ink) = ink(&result.bytes);
        assert_eq!(
            size,
            (
                displayed.width.round() as usize,
                displayed.height.round() as usize
            ),
            "{case}: the drawn page is not the displayed size"
        );
        let (x0, y0, x1, y1) = ink.unwrap_or_else(|| panic!("{case}: nothing drawn"));
        let inside = |low: usize, high: usize, start: f64, length: f64| {
            low as f64 >= start - 1.0 && high as f64 <= start + length + 1.0
        };
        assert!(
            inside(x0, x1, x, width) && inside(y0, y1, y, height),
            "{case}: ink at ({x0}, {y0})-({x1}, {y1}) is outside the box"
        );
        assert!(
            (x0 as f64) < x + 6.0,
            "{case}: the text does not start at the left: {x0}"
        );
    }
}

#[test]
fn a_png_signature_is_embedded_as_an_image_with_a_soft_mask() {
    let original = original();
    let url = data_url(&png(60, 20));
    let fields = [
        field(1, (72.0, 500.0, 200.0, 50.0), StampKind::Signature, &url),
        // The same image again is embedded once.
        field(2, (72.0, 300.0, 100.0, 30.0), StampKind::Initials, &url),
    ];
    let result = render(&original, &fields);
    assert_sizes_kept(&original, &result);

    let doc = Document::load_mem(&result.bytes).expect("load");
    let pages = doc.get_pages();
    let mut seen = Vec::new();
    for number in [1, 2] {
        let page = doc.get_dictionary(pages[&number]).expect("page");
        let resources = page
            .get_deref(b"Resources", &doc)
            .and_then(Object::as_dict)
            .expect("resources");
        let xobjects = resources
            .get_deref(b"XObject", &doc)
            .and_then(Object::as_dict)
            .expect("XObject");
        let (_, image) = xobjects.iter().next().expect("an image");
        let id = image.as_reference().expect("a reference");
        let stream = doc
            .get_object(id)
            .and_then(Object::as_stream)
            .expect("image stream");
        assert_eq!(
            stream.dict.get(b"Subtype").and_then(Object::as_name).ok(),
            Some(&b"Image"[..])
        );
        assert_eq!(
            stream.dict.get(b"Width").and_then(Object::as_i64).ok(),
            Some(60)
        );
        assert_eq!(
            stream
                .dict
                .get(b"ColorSpace")
                .and_then(Object::as_name)
                .ok(),
            Some(&b"DeviceRGB"[..])
        );
        assert_eq!(stream.filters().ok(), Some(vec![&b"FlateDecode"[..]]));
        assert_eq!(
            stream.decompressed_content().expect("decode").len(),
            60 * 20 * 3
        );
        let mask = stream
            .dict
            .get(b"SMask")
            .and_then(Object::as_reference)
            .expect("an SMask");
        let mask = doc
            .get_object(mask)
            .and_then(Object::as_stream)
            .expect("mask stream");
        assert_eq!(mask.decompressed_content().expect("decode").len(), 60 * 20);
        // The page's own fonts are still there.
        let fonts = resources
            .get_deref(b"Font", &doc)
            .and_then(Object::as_dict)
            .expect("fonts");
        assert!(fonts.has(b"F1"));
        seen.push(id);
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn a_malformed_data_url_is_stamped_as_text() {
    let original = original();
    let fields = [
        field(
            1,
            (72.0, 500.0, 200.0, 40.0),
            StampKind::Signature,
            "data:image/png;base64,@@not base64@@",
        ),
        field(
            1,
            (72.0, 600.0, 200.0, 40.0),
            StampKind::Signature,
            "data:image/png;base64,aGVsbG8=",
        ),
        field(
            2,
            (72.0, 300.0, 200.0, 40.0),
            StampKind::Initials,
            "data:image/jpeg;base64,/9j/4AAQ",
        ),
    ];
    let result = render(&original, &fields);
    assert_sizes_kept(&original, &result);
    if !poppler_installed() {
        return;
    }
    assert_eq!(
        page_text(&result.bytes, 1).matches("[signature]").count(),
        2
    );
    assert!(page_text(&result.bytes, 2).contains("[signature]"));
}

#[test]
fn a_long_audit_trail_continues_on_further_pages() {
    let original = original();
    let certificate = certificate(&original, 120);
    let result = render_final(&original, &[], &certificate).expect("render");
    assert!(
        result.certificate_pages >= 3,
        "{} pages",
        result.certificate_pages
    );
    assert_sizes_kept(&original, &result);
    if !poppler_installed() {
        return;
    }
    let count = result.certificate_pages;
    let mut all = String::new();
    for index in 1..=count {
        let text = page_text(&result.bytes, 3 + index);
        let footer = format!("Signet certificate — page {index} of {count}");
        assert!(text.contains(&footer), "no {footer:?} in {text}");
        let heading = if index == 1 {
            "Certificate of completion"
        } else {
            "Certificate of completion (continued)"
        };
        assert!(text.contains(heading), "page {index}: {text}");
        all.push_str(&text);
    }
    for entry in &certificate.audit {
        assert_eq!(all.matches(&entry.message).count(), 1, "{}", entry.message);
    }
}

#[test]
fn every_fixture_can_be_stamped() {
    let manifest = format!("{FIXTURES}MANIFEST.tsv");
    let manifest = std::fs::read_to_string(&manifest).unwrap_or_else(|error| {
        panic!("the PDF fixtures are missing: cannot read {manifest}: {error}")
    });
    let mut lines = manifest.lines().filter(|line| !line.trim().is_empty());
    let header: Vec<_> = lines.next().expect("a header").split('\t').collect();
    let column = |name| {
        header
            .iter()
            .position(|&column| column == name)
            .expect("a column")
    };
    let (file, encrypted) = (column("file"), column("encrypted"));
    let poppler = poppler_installed();

    let mut stamped = 0;
    for line in lines {
        let columns: Vec<_> = line.split('\t').collect();
        let name = columns[file];
        let path = format!("{FIXTURES}{name}");
        let original = std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
        let fields = [field(
            1,
            (72.0, 72.0, 220.0, 24.0),
            StampKind::Text,
            "SignetStampedValue",
        )];
        if columns[encrypted] == "true" {
            assert!(
                matches!(
                    render_final(&original, &fields, &certificate(&original, 2)),
                    Err(StampError::Read(_))
                ),
                "{name}"
            );
            continue;
        }
        let result = render_final(&original, &fields, &certificate(&original, 2))
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_sizes_kept(&original, &result);
        if poppler {
            let text = page_text(&result.bytes, 1);
            assert!(text.contains("SignetStampedValue"), "{name}: {text}");
        }
        stamped += 1;
    }
    assert!(stamped >= 5, "only {stamped} fixtures stamped");
}

#[test]
fn the_output_is_deterministic_and_the_stamped_hash_is_checkable() {
    let original = original();
    let fields = [
        field(
            1,
            (72.0, 100.0, 200.0, 24.0),
            StampKind::Text,
            "Same every time",
        ),
        field(
            2,
            (72.0, 300.0, 100.0, 30.0),
            StampKind::Signature,
            &data_url(&png(8, 4)),
        ),
    ];
    let first = render(&original, &fields);
    let second = render(&original, &fields);
    assert_eq!(first.stamped_sha256, second.stamped_sha256);
    assert_eq!(first.bytes, second.bytes);
    assert_eq!(first.sha256, sha256_hex(&first.bytes));
    assert_ne!(first.stamped_sha256, first.sha256);
    for hash in [&first.sha256, &first.stamped_sha256] {
        assert_eq!(hash.len(), 64);
        assert!(
            hash.bytes()
                .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')),
            "{hash}"
        );
    }

    let revision = stamped_revision(&first.bytes).expect("the stamped revision");
    assert_eq!(sha256_hex(revision), first.stamped_sha256);
    assert!(revision.len() < first.bytes.len());
    let stamped = crate::inspect(revision).expect("the stamped revision is a PDF of its own");
    assert_eq!(stamped.pages, 3);
}

#[test]
fn fields_on_missing_pages_are_refused() {
    let original = original();
    for page in [0, 4] {
        let fields = [field(page, (1.0, 1.0, 10.0, 10.0), StampKind::Text, "x")];
        let result = render_final(&original, &fields, &certificate(&original, 1));
        assert!(
            matches!(result, Err(StampError::NoSuchPage(p)) if p == page),
            "{result:?}"
        );
    }
}

#[test]
fn unreadable_originals_are_refused_without_panicking() {
    let certificate = certificate(b"", 1);
    for bytes in [
        &b""[..],
        b"hello",
        b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
    ] {
        let result = render_final(bytes, &[], &certificate);
        assert!(matches!(result, Err(StampError::Read(_))), "{result:?}");
    }
    let mut truncated = original();
    truncated.truncate(truncated.len() / 2);
    truncated.extend(b"\x00garbage\xff".repeat(50));
    // Either repaired or refused, but never a panic.
    let _ = render_final(&truncated, &[], &certificate);
}

#[test]
fn odd_page_trees_still_get_their_pages() {
    // The catalog points straight at a page, which has no /Contents.
    let mut doc = Document::with_version("1.4");
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "MediaBox" => numbers(&[0.0, 0.0, 300.0, 300.0]),
    });
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => page });
    doc.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).expect("save");
    let result = render(
        &bytes,
        &[field(
            1,
            (10.0, 10.0, 100.0, 20.0),
            StampKind::Text,
            "Lonely",
        )],
    );
    assert_sizes_kept(&bytes, &result);

    // A page written inline in its parent's /Kids, and /Contents behind a reference to an
    // array.
    let mut doc = Document::with_version("1.4");
    let pages_id = doc.new_object_id();
    let text = content(&mut doc, "0 0 1 rg");
    let contents = doc.add_object(vec![Object::Reference(text)]);
    let pages = dictionary! {
        "Type" => "Pages", "Count" => 1,
        "Kids" => vec![Object::Dictionary(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        })],
        "MediaBox" => numbers(&[0.0, 0.0, 500.0, 300.0]),
    };
    let bytes = save(doc, pages_id, pages);
    let result = render(
        &bytes,
        &[field(
            1,
            (10.0, 10.0, 100.0, 20.0),
            StampKind::Text,
            "Inline",
        )],
    );
    assert_sizes_kept(&bytes, &result);

    if poppler_installed() {
        assert!(page_text(&result.bytes, 1).contains("Inline"));
    }
}

#[test]
fn certificate_pages_ignore_what_the_page_tree_root_passes_down() {
    let mut doc = Document::with_version("1.7");
    let pages_id = doc.new_object_id();
    let page = doc.add_object(dictionary! { "Type" => "Page", "Parent" => pages_id });
    let pages = dictionary! {
        "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
        "MediaBox" => numbers(&[0.0, 0.0, 595.0, 842.0]),
        "CropBox" => numbers(&[10.0, 10.0, 300.0, 400.0]),
        "Rotate" => 90,
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => times(&mut doc) } },
    };
    let bytes = save(doc, pages_id, pages);
    let result = render(&bytes, &[]);
    // The certificate pages are US Letter, upright.
    assert_sizes_kept(&bytes, &result);
    let doc = Document::load_mem(&result.bytes).expect("load");
    let certificate_page = doc.get_pages()[&2];
    let page = doc.get_dictionary(certificate_page).expect("page");
    assert_eq!(page.get(b"Rotate").and_then(Object::as_i64).ok(), Some(0));
    if poppler_installed() {
        assert!(page_text(&result.bytes, 2).contains("Certificate of completion"));
    }
}

/// Names and values in many scripts, as a signer would type them.
const SCRIPTS: [&str; 12] = [
    "Zoë Ærøskøbing-Łukasiewicz",
    "O'Brien, \"Bob\"",
    "Ελένη Παπαδοπούλου",
    "Юлия Соколова",
    "王芳",
    "山田 さくら",
    "김민준",
    "محمد الأحمد",
    "דוד כהן",
    "प्रिया शर्मा",
    "José Müller; CFO",
    "Nguyễn Thị Minh Khai",
];

#[test]
fn every_script_is_stamped_and_certified_as_written() {
    let original = original();
    let fields: Vec<StampField> = SCRIPTS
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let kind = if index % 2 == 0 {
                StampKind::Signature
            } else {
                StampKind::Text
            };
            field(
                1,
                (72.0, 60.0 + 50.0 * index as f64, 300.0, 36.0),
                kind,
                name,
            )
        })
        .collect();
    let mut certificate = certificate(&original, 2);
    certificate.recipients = SCRIPTS
        .iter()
        .map(|name| CertificateRecipient {
            name: (*name).into(),
            ..certificate.recipients[0].clone()
        })
        .collect();
    certificate.title = "Договор — اتفاقية — 合同".into();
    let result = render_final(&original, &fields, &certificate).expect("render");
    assert_sizes_kept(&original, &result);
    let doc = Document::load_mem(&result.bytes).expect("load");
    let fonts: Vec<String> = doc
        .objects
        .values()
        .filter_map(|object| object.as_dict().ok())
        .filter(|dict| dict.has_type(b"Font"))
        .filter_map(|dict| dict.get(b"Subtype").and_then(Object::as_name).ok())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect();
    assert!(fonts.iter().any(|name| name == "Type0"), "{fonts:?}");
    assert!(fonts.iter().any(|name| name == "CIDFontType2"), "{fonts:?}");
    if !poppler_installed() {
        return;
    }
    let stamped = pdftotext(&result.bytes, &["-f", "1", "-l", "1"]);
    let certified = pdftotext(&result.bytes, &["-f", "4"]);
    for name in SCRIPTS {
        assert!(stamped.contains(name), "page 1 lacks {name:?}: {stamped}");
        assert!(
            certified.contains(name),
            "the certificate lacks {name:?}: {certified}"
        );
    }
    for piece in ["Договор — ", "اتفاقية", "合同"] {
        assert!(certified.contains(piece), "{certified}");
    }
    assert!(!stamped.contains('?') && !certified.contains('?'));
}

/// The words of page `page` with their boxes, from `pdftotext -bbox`.
fn words_of_page(pdf: &[u8], page: usize) -> Vec<Word> {
    let page = page.to_string();
    let html = pdftotext(pdf, &["-bbox", "-f", &page, "-l", &page]);
    html.split("<word ")
        .skip(1)
        .map(|element| {
            let (tag, rest) = element.split_once('>').expect("a word tag");
            Word {
                text: rest.split('<').next().unwrap_or_default().to_owned(),
                x_min: attribute(tag, "xMin"),
                y_min: attribute(tag, "yMin"),
                x_max: attribute(tag, "xMax"),
                y_max: attribute(tag, "yMax"),
            }
        })
        .collect()
}

#[test]
fn certificates_are_labelled_in_the_documents_language() {
    use signet_i18n::Language;
    let original = single_page([0.0, 0.0, 612.0, 792.0], 0, None);
    for (language, labels) in [
        (
            Language::German,
            &[
                "Abschlusszertifikat",
                "Empfänger (2)",
                "Unterschrieben am",
                "Prüfprotokoll",
                "Zustimmung zu elektronischen Dokumenten",
            ][..],
        ),
        (
            Language::ChineseSimplified,
            &[
                "完成证书",
                "收件人（2）",
                "签署时间",
                "审计记录",
                "同意使用电子记录",
            ][..],
        ),
        (
            Language::Arabic,
            &[
                "شهادة",
                "الإتمام",
                "المستلمون",
                "التدقيق",
                "التوقيع",
                "الموافقة",
            ][..],
        ),
        (
            Language::Italian,
            &[
                "Certificato di completamento",
                "Destinatari (2)",
                "Firmato il",
                "Registro di controllo",
                "Consenso ai documenti elettronici",
            ][..],
        ),
        (
            Language::Dutch,
            &[
                "Voltooiingscertificaat",
                "Ontvangers (2)",
                "Ondertekend op",
                "Audittrail",
                "Toestemming voor elektronische documenten",
            ][..],
        ),
        (
            Language::Polish,
            &[
                "Certyfikat ukończenia",
                "Odbiorcy (2)",
                "Data podpisania",
                "Dziennik audytu",
                "Zgoda na dokumenty elektroniczne",
            ][..],
        ),
        (
            Language::Russian,
            &[
                "Сертификат о завершении",
                "Получатели (2)",
                "Дата подписания",
                "Журнал аудита",
                "Согласие на электронные документы",
            ][..],
        ),
        (
            Language::Turkish,
            &[
                "Tamamlanma sertifikası",
                "Alıcılar (2)",
                "İmzalanma zamanı",
                "Denetim kaydı",
                "Elektronik kayıtlara onay",
            ][..],
        ),
        (
            Language::Japanese,
            &[
                "完了証明書",
                "受信者（2）",
                "署名日時",
                "監査証跡",
                "電子記録の利用への同意",
            ][..],
        ),
        (
            Language::Korean,
            &[
                "완료 증명서",
                "수신자(2)",
                "서명 일시",
                "감사 기록",
                "전자 기록 사용 동의",
            ][..],
        ),
        (
            Language::Hebrew,
            &["אישור", "השלמה", "נמענים", "ביקורת", "החתימה", "הסכמה"][..],
        ),
    ] {
        let mut certificate = certificate(&original, 3);
        certificate.language = language;
        let consenting = &mut certificate.recipients[0];
        consenting.consented_at = Some("2026-11-21T22:29:00.000Z".into());
        consenting.consent_ip = Some("203.0.113.7".into());
        consenting.consent_user_agent = Some("Agent/1.0".into());
        consenting.consent_text = Some(
            "I agree to use electronic records and signatures.\n\nI can ask for a paper copy."
                .into(),
        );
        let result = render_final(&original, &[], &certificate).expect("render");
        if !poppler_installed() {
            return;
        }
        let text = pdftotext(&result.bytes, &["-f", "2"]);
        for label in labels {
            assert!(text.contains(label), "{language}: no {label:?} in {text}");
        }
        for english in ["Certificate of completion", "Recipients (", "Audit trail"] {
            assert!(!text.contains(english), "{language}: {english:?} in {text}");
        }
        // The consent block of the one recipient who consented, with the words agreed to.
        assert!(text.contains("22:29:00.000Z"), "{text}");
        assert_eq!(
            text.matches("I agree to use electronic").count(),
            1,
            "{text}"
        );
        assert!(text.contains("I can ask for a paper copy."), "{text}");
        assert!(!text.contains('?'), "{language}: {text}");
        // Right-to-left pages are set against the right margin, the others against the left.
        let words = words_of_page(&result.bytes, 2);
        let heading = words
            .iter()
            .filter(|w| w.y_min < 60.0)
            .fold((f64::MAX, f64::MIN), |(left, right), w| {
                (left.min(w.x_min), right.max(w.x_max))
            });
        if language.is_right_to_left() {
            assert!((heading.1 - (612.0 - 54.0)).abs() < 2.0, "{heading:?}");
        } else {
            assert!((heading.0 - 54.0).abs() < 2.0, "{heading:?}");
        }
    }
}

#[test]
fn bidi_controls_in_values_are_drawn_as_escapes_in_stored_order() {
    let original = original();
    let spoofs = [
        // (stored, what it reads as when the controls act)
        ("$\u{202E}00.00001\u{202C}", "$10000.00"),
        ("Lease \u{202E}fdp.exe", "exe.pdf"),
    ];
    let fields = vec![
        field(1, (72.0, 60.0, 300.0, 36.0), StampKind::Text, spoofs[0].0),
        field(
            1,
            (72.0, 120.0, 300.0, 36.0),
            StampKind::Signature,
            "Mallory \u{202E}<moc.knab@oec>",
        ),
    ];
    for language in [
        signet_i18n::Language::English,
        signet_i18n::Language::Arabic,
    ] {
        let mut certificate = certificate(&original, 2);
        certificate.language = language;
        certificate.title = spoofs[1].0.into();
        certificate.recipients[0].name = "Mallory \u{202E}<moc.knab@oec>".into();
        certificate.recipients[0].user_agent = Some("Agent\u{2069}\u{202E}/1.0 \u{200B}x".into());
        let result = render_final(&original, &fields, &certificate).expect("render");
        if !poppler_installed() {
            return;
        }
        let stamped = pdftotext(&result.bytes, &["-f", "1", "-l", "1"]);
        let certified = pdftotext(&result.bytes, &["-f", "4"]);
        assert!(stamped.contains("$<U+202E>00.00001<U+202C>"), "{stamped}");
        assert!(
            stamped.contains("Mallory <U+202E><moc.knab@oec>"),
            "{stamped}"
        );
        for expected in [
            "Lease <U+202E>fdp.exe",
            "Mallory <U+202E><moc.knab@oec>",
            "Agent<U+2069><U+202E>/1.0 <U+200B>x",
        ] {
            assert!(
                certified.contains(expected),
                "{language}: no {expected:?} in {certified}"
            );
        }
        for (_, spoofed) in spoofs {
            assert!(
                !stamped.contains(spoofed) && !certified.contains(spoofed),
                "{language}"
            );
        }
        assert!(
            !certified.contains("ceo@bank.com"),
            "{language}: {certified}"
        );
    }
}

/// Issue #30 item 4: the certificate says what each person did in words, by role: a viewer
/// who never opened the document "has not opened" it, never "PENDING"; a signer "Signed".
#[test]
fn the_certificate_says_each_persons_state_in_words_by_role() {
    if !poppler_installed() {
        return;
    }
    let original = original();
    let mut certificate = certificate(&original, 3);
    certificate.recipients[1].status = "PENDING".into();
    certificate.recipients[1].viewed_at = None;
    let text = pdftotext(
        &render_final(&original, &[], &certificate).unwrap().bytes,
        &[],
    );
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "Role: Signer",
        "Status: Signed",
        "Role: Viewer (receives a copy; signs nothing)",
        "Status: Has not opened the document",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    assert!(
        !text.contains("PENDING") && !text.contains("SIGNER"),
        "{text}"
    );
}
