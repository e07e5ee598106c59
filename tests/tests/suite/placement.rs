//! Issue #33: fields placed on PDFs as they come (turned pages, cropped pages, a MediaBox away
//! from the origin, boxes inherited from the page tree, mixed sizes) are stamped where the
//! signer saw them. The PDF is made by reportlab and qpdf (tests/support/placement_pdf.py);
//! where its words are, and where the final PDF's stamped values are, is read by poppler's
//! `pdftotext -bbox`; the signing page is read in Chromium.

use std::{collections::HashMap, process::Command};

use serde_json::{Value, json};
use signet_tests::{
    BrowserScript, Mailbox, TestApp, WorkerProcess, read, repo_root, screenshots_dir,
};

use crate::{
    real_names::final_pdf,
    signing_flow::{consent, invitations, session, wait_for_status},
};

const SIGNER: &str = "placed@example.com";
/// How far a stamped value's glyphs may stray from its field's box, in points.
const TOLERANCE: f64 = 2.0;
/// The pages of tests/support/placement_pdf.py that are turned a quarter (or three).
const TURNED: [usize; 4] = [2, 4, 7, 8];

/// A word's box as poppler reports it: points from the top-left corner of the page as displayed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WordBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

/// A page as `pdftotext -bbox -cropbox` reads it: its size (before `/Rotate`) and its words.
#[derive(Debug, Default)]
pub(crate) struct TextPage {
    pub width: f64,
    pub height: f64,
    pub words: Vec<(String, WordBox)>,
}

impl TextPage {
    pub(crate) fn word(&self, text: &str) -> Option<WordBox> {
        self.words.iter().find(|(w, _)| w == text).map(|(_, b)| *b)
    }
}

/// The pages of `pdf` with their words' boxes, read by poppler relative to each page's visible
/// box (`-cropbox`).
pub(crate) fn text_boxes(pdf: &[u8]) -> Vec<TextPage> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = Command::new("pdftotext")
        .args(["-bbox", "-cropbox"])
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils; scripts/test.sh installs it)");
    assert!(out.status.success(), "pdftotext refused the PDF");
    let attribute = |line: &str, name: &str| -> f64 {
        let start = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        line[start..start + line[start..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    let mut pages: Vec<TextPage> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let line = line.trim();
        if line.starts_with("<page ") {
            pages.push(TextPage {
                width: attribute(line, "width"),
                height: attribute(line, "height"),
                words: Vec::new(),
            });
        } else if line.starts_with("<word ") {
            let text = &line[line.find('>').unwrap() + 1..line.rfind("</word>").unwrap()];
            let found = WordBox {
                x0: attribute(line, "xMin"),
                y0: attribute(line, "yMin"),
                x1: attribute(line, "xMax"),
                y1: attribute(line, "yMax"),
            };
            pages
                .last_mut()
                .unwrap()
                .words
                .push((text.replace("&amp;", "&"), found));
        }
    }
    pages
}

/// `inner` lies inside `outer`, each edge within `tolerance`.
pub(crate) fn inside(inner: WordBox, outer: WordBox, tolerance: f64) -> bool {
    inner.x0 >= outer.x0 - tolerance
        && inner.y0 >= outer.y0 - tolerance
        && inner.x1 <= outer.x1 + tolerance
        && inner.y1 <= outer.y1 + tolerance
}

/// The PDF of tests/support/placement_pdf.py, made afresh by reportlab and qpdf.
fn placement_pdf() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("placement.pdf");
    let status = Command::new("python3")
        .arg(repo_root().join("tests/support/placement_pdf.py"))
        .arg(&out)
        .status()
        .expect("python3 with reportlab and qpdf (scripts/test.sh installs them)");
    assert!(status.success(), "placement_pdf.py failed");
    std::fs::read(out).unwrap()
}

/// One field placed on a page, in displayed points, with the value it is filled with.
struct Placed {
    page: usize,
    area: WordBox,
    value: String,
}

fn field_json(placed: &Placed) -> Value {
    json!({
        "recipientEmail": SIGNER, "type": "TEXT", "page": placed.page,
        "x": placed.area.x0, "y": placed.area.y0,
        "width": placed.area.x1 - placed.area.x0, "height": placed.area.y1 - placed.area.y0,
    })
}

#[tokio::test]
async fn fields_are_stamped_and_shown_where_they_were_placed_on_every_layout() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let original = placement_pdf();
    let pages = text_boxes(&original);
    assert_eq!(pages.len(), 8);
    let doc = app
        .document_from(account, "Placement", original.clone())
        .await;

    // The sizes recorded at upload are the pages as displayed: turned pages swap poppler's
    // (unturned) width and height, cropped ones are their CropBox.
    let sizes: sqlx::types::Json<Value> =
        sqlx::query_scalar("SELECT page_sizes FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    let sizes = sizes.0;
    let displayed: Vec<(f64, f64)> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if TURNED.contains(&(i + 1)) {
                (p.height, p.width)
            } else {
                (p.width, p.height)
            }
        })
        .collect();
    for (i, (width, height)) in displayed.iter().enumerate() {
        let size = &sizes[i];
        assert!(
            (size["width"].as_f64().unwrap() - width).abs() < 0.01
                && (size["height"].as_f64().unwrap() - height).abs() < 0.01,
            "page {}: recorded {size}, displayed {width} × {height}",
            i + 1
        );
    }

    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([{"name": "Placed Example", "email": SIGNER, "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // On each page: a field over its marker word, and one in its bottom-right corner, flush
    // with the displayed edges. A point further right is off the page, and refused.
    let mut placed = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let number = i + 1;
        let word = page
            .word(&format!("Anchor{number}"))
            .unwrap_or_else(|| panic!("no marker on page {number}: {page:?}"));
        placed.push(Placed {
            page: number,
            area: WordBox {
                x0: word.x0 - 4.0,
                y0: word.y0 - 4.0,
                x1: word.x0 + 156.0,
                y1: word.y0 + 56.0,
            },
            value: format!("Value{number}"),
        });
        let (width, height) = displayed[i];
        placed.push(Placed {
            page: number,
            area: WordBox {
                x0: width - 120.0,
                y0: height - 30.0,
                x1: width,
                y1: height,
            },
            value: format!("Corner{number}"),
        });
        let mut beyond = field_json(placed.last().unwrap());
        beyond["x"] = json!(width - 119.0);
        let (status, body) = app
            .post(&format!("/documents/{doc}/fields"), &key, &json!([beyond]))
            .await;
        assert_eq!(status, 400, "page {number}: {body}");
        assert!(
            body.to_string()
                .contains(&format!("outside the bounds of page {number}")),
            "{body}"
        );
    }
    let fields: Vec<Value> = placed.iter().map(field_json).collect();
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &json!(fields))
        .await;
    assert_eq!(status, 200, "{body}");

    // The detail shows each field where it was put.
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let shown = detail["data"]["recipients"][0]["fields"]
        .as_array()
        .unwrap();
    assert_eq!(shown.len(), placed.len(), "{detail}");
    for field in &placed {
        assert!(
            shown.iter().any(|f| f["page"] == field.page
                && (f["x"].as_f64().unwrap() - field.area.x0).abs() < 0.01
                && (f["y"].as_f64().unwrap() - field.area.y0).abs() < 0.01),
            "page {} field at {:?} not in {detail}",
            field.page,
            field.area
        );
    }
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "Please sign.", "description": "Placement", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let link = invitations(&mailbox, 1).await[SIGNER].clone();

    // The signing page draws each field over the words it was placed on.
    let findings = BrowserScript::new("placement.mjs")
        .env("LINK", &link)
        .env("PAGES", pages.len().to_string())
        .env("FIELDS", placed.len().to_string())
        .env("SHOTS", screenshots_dir())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");
    assert_eq!(findings["formControls"], 0, "{findings}");
    for (i, shown) in findings["pages"].as_array().unwrap().iter().enumerate() {
        let number = i + 1;
        let (width, height) = displayed[i];
        let scale = shown["canvas"]["width"].as_f64().unwrap() / width;
        assert!(
            (shown["canvas"]["height"].as_f64().unwrap() - height * scale).abs() < 1.0,
            "page {number}: pdf.js draws it {} × {}, the server says {width} × {height}",
            shown["canvas"]["width"],
            shown["canvas"]["height"]
        );
        let boxes: Vec<WordBox> = shown["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let (x, y) = (b["x"].as_f64().unwrap(), b["y"].as_f64().unwrap());
                WordBox {
                    x0: x / scale,
                    y0: y / scale,
                    x1: (x + b["width"].as_f64().unwrap()) / scale,
                    y1: (y + b["height"].as_f64().unwrap()) / scale,
                }
            })
            .collect();
        let word = pages[i].word(&format!("Anchor{number}")).unwrap();
        for field in placed.iter().filter(|p| p.page == number) {
            let drawn = boxes
                .iter()
                .find(|b| inside(**b, field.area, 1.0) && inside(field.area, **b, 1.0));
            assert!(
                drawn.is_some(),
                "page {number}: no box drawn at {:?}: {boxes:?}",
                field.area
            );
        }
        assert!(
            boxes.iter().any(|b| inside(word, *b, 0.5)),
            "page {number}: the word at {word:?} is under no field box: {boxes:?}"
        );
    }

    // Filled and signed: each value is stamped inside its box.
    consent(&app, &link).await;
    let opened = session(&app, &link).await;
    let given: Vec<Value> = opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let field = placed
                .iter()
                .find(|p| {
                    f["page"] == p.page
                        && (f["x"].as_f64().unwrap() - p.area.x0).abs() < 0.01
                        && (f["y"].as_f64().unwrap() - p.area.y0).abs() < 0.01
                })
                .unwrap_or_else(|| panic!("an unknown field: {f}"));
            json!({"id": f["id"], "value": field.value})
        })
        .collect();
    let (status, body) = read(
        app.client
            .post(format!("{link}/submit"))
            .json(&json!({"fields": given}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let stamped = text_boxes(&final_pdf(&app, &detail).await);
    let mut found = HashMap::new();
    for field in &placed {
        let page = &stamped[field.page - 1];
        let value = page
            .word(&field.value)
            .unwrap_or_else(|| panic!("{} is not on page {}: {page:?}", field.value, field.page));
        assert!(
            inside(value, field.area, TOLERANCE),
            "page {}: {} is stamped at {value:?}, outside its field {:?}",
            field.page,
            field.value,
            field.area
        );
        found.insert(field.value.clone(), value);
    }
    assert_eq!(found.len(), placed.len());
}
