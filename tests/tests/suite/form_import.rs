//! Issue #33: a PDF's own form fields (its AcroForm) imported as a template's fields
//! (`POST /templates?fields=form`), prefilled by their names, signed, and flattened in the
//! final PDF. Two forms from tools that share no code with Signet: one made by reportlab's
//! acroform module and qpdf (tests/support/form_pdf.py), two text fields and a signature field
//! on a page turned a quarter; one made by LibreOffice from an HTML page of form controls, a
//! field of every form kind. Through the real binaries, a real SMTP server, poppler and
//! Chromium.

use std::process::Command;

use lopdf::{Document, Object};
use serde_json::{Value, json};
use signet_tests::{
    BrowserScript, Mailbox, TestApp, WorkerProcess, read, repo_root, screenshots_dir,
};

use crate::{
    field_kinds::{Area, dark_pixels},
    placement::{WordBox, inside, text_boxes},
    real_names::final_pdf,
    signing_flow::{consent, invitations, session, wait_for_status},
};

const SIGNER: &str = "former@example.com";

/// The PDF of tests/support/form_pdf.py, made afresh.
fn form_pdf() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("form.pdf");
    let status = Command::new("python3")
        .arg(repo_root().join("tests/support/form_pdf.py"))
        .arg(&out)
        .status()
        .expect("python3 with reportlab and qpdf (scripts/test.sh installs them)");
    assert!(status.success(), "form_pdf.py failed");
    std::fs::read(out).unwrap()
}

/// `POST /templates` with `pdf` as the body and `query` (already encoded).
async fn upload(app: &TestApp, key: &str, query: &str, pdf: Vec<u8>) -> (u16, Value) {
    read(
        app.client
            .post(format!("{}/external/api/v1/templates?{query}", app.base))
            .header("X-API-KEY", key)
            .header("Content-Type", "application/pdf")
            .body(pdf)
            .send()
            .await
            .unwrap(),
    )
    .await
}

fn area(field: &Value) -> WordBox {
    let number = |key: &str| field[key].as_f64().unwrap();
    WordBox {
        x0: number("x"),
        y0: number("y"),
        x1: number("x") + number("width"),
        y1: number("y") + number("height"),
    }
}

/// The widget annotations among all the objects of `pdf`, and the names of its AcroForm's
/// fields, if it has one.
fn widgets_and_fields(pdf: &[u8]) -> (usize, Option<Vec<String>>) {
    let doc = Document::load_mem(pdf).unwrap();
    let widgets = doc
        .objects
        .values()
        .filter(|object| {
            object
                .as_dict()
                .and_then(|dict| dict.get(b"Subtype"))
                .and_then(Object::as_name)
                .is_ok_and(|subtype| subtype == b"Widget")
        })
        .count();
    let fields = doc
        .catalog()
        .unwrap()
        .get_deref(b"AcroForm", &doc)
        .and_then(Object::as_dict)
        .ok()
        .map(|form| {
            form.get_deref(b"Fields", &doc)
                .and_then(Object::as_array)
                .unwrap()
                .iter()
                .map(|field| {
                    let field = doc.dereference(field).unwrap().1.as_dict().unwrap();
                    lopdf::decode_text_string(field.get(b"T").unwrap()).unwrap()
                })
                .collect()
        });
    (widgets, fields)
}

#[tokio::test]
async fn a_pdf_form_becomes_a_template_whose_documents_are_prefilled_signed_and_flattened() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (_, key) = app.account(1000).await;
    let original = form_pdf();
    let words = &text_boxes(&original)[0];
    assert_eq!(widgets_and_fields(&original).0, 3);

    let (status, made) = upload(&app, &key, "fields=form&title=Form%20lease", original).await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let roles = detail["data"]["roles"].as_array().unwrap();
    assert_eq!(roles.len(), 1, "{detail}");
    assert_eq!(
        (&roles[0]["name"], &roles[0]["role"]),
        (&json!("Role 1"), &json!("SIGNER"))
    );
    let fields = roles[0]["fields"].as_array().unwrap();
    let kinds: Vec<(&str, &str)> = fields
        .iter()
        .map(|f| (f["label"].as_str().unwrap(), f["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Company", "TEXT"),
            ("Rent", "TEXT"),
            ("Signature", "SIGNATURE")
        ],
        "{detail}"
    );
    let by_label = |label: &str| area(fields.iter().find(|f| f["label"] == label).unwrap());
    // The page is turned a quarter: the widget's value, drawn by reportlab in its appearance,
    // lies in the imported box as poppler finds it; the signature's rectangle [72 420 312 470]
    // is 420 from the displayed left and 72 from the displayed top.
    for word in ["Acme", "Ltd"] {
        let found = words.word(word).unwrap();
        assert!(
            inside(found, by_label("Company"), 1.0),
            "{word} at {found:?}, Company at {:?}",
            by_label("Company")
        );
    }
    assert_eq!(
        by_label("Signature"),
        WordBox {
            x0: 420.0,
            y0: 72.0,
            x1: 470.0,
            y1: 312.0
        }
    );

    // A document from it, prefilled by the form fields' names.
    let body = json!({
        "roles": {"Role 1": {"name": "Former Example", "email": SIGNER}},
        "values": {"Company": "Globex Trading", "Rent": "EUR 900"},
        "send": true, "message": "Please sign the form.", "description": "Form lease",
        "expiryDate": "2099-01-01T00:00:00Z",
    });
    let (status, answer) = app
        .post(&format!("/templates/{template}/documents"), &key, &body)
        .await;
    assert_eq!(status, 200, "{answer}");
    let doc: uuid::Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
    let link = invitations(&mailbox, 1).await[SIGNER].clone();

    // The signing page draws the fields over the widgets, and no form control of the PDF.
    let findings = BrowserScript::new("placement.mjs")
        .env("LINK", &link)
        .env("PAGES", "1")
        .env("FIELDS", "3")
        .env("SHOTS", screenshots_dir())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");
    assert_eq!(findings["formControls"], 0, "{findings}");
    let shown = &findings["pages"][0];
    // Turned a quarter, Letter is 792 wide as displayed.
    let scale = shown["canvas"]["width"].as_f64().unwrap() / 792.0;
    let acme = words.word("Acme").unwrap();
    assert!(
        shown["fields"].as_array().unwrap().iter().any(|b| {
            let (x, y) = (b["x"].as_f64().unwrap(), b["y"].as_f64().unwrap());
            let drawn = WordBox {
                x0: x / scale,
                y0: y / scale,
                x1: (x + b["width"].as_f64().unwrap()) / scale,
                y1: (y + b["height"].as_f64().unwrap()) / scale,
            };
            inside(acme, drawn, 1.0)
        }),
        "no field box over the Company widget at {acme:?}: {findings}"
    );

    consent(&app, &link).await;
    let opened = session(&app, &link).await;
    let given: Vec<Value> = opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| match f["type"].as_str().unwrap() {
            "SIGNATURE" => json!({"id": f["id"], "value": "Former Example"}),
            _ => json!({"id": f["id"], "value": f["value"]}),
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
    let signed = final_pdf(&app, &detail).await;

    // Flattened: the stamped document has no form and no widget at all; the final PDF's only
    // field is the seal's own (an invisible signature field added after).
    let stamped = signet_pdf::stamped_revision(&signed).expect("the stamped revision");
    assert_eq!(widgets_and_fields(stamped), (0, None));
    let (widgets, form) = widgets_and_fields(&signed);
    assert_eq!(widgets, 1, "only the seal's widget");
    assert_eq!(form.map(|f| f.len()), Some(1), "only the seal's field");

    // The values are stamped in the boxes; the form's old value is not drawn under them.
    let page = &text_boxes(&signed)[0];
    // (Each stamp is one word to poppler: its glyphs are placed one by one.)
    for (word, label) in [
        ("Globex Trading", "Company"),
        ("EUR 900", "Rent"),
        ("Former Example", "Signature"),
    ] {
        let found = page
            .word(word)
            .unwrap_or_else(|| panic!("{word} is not on the page: {page:?}"));
        assert!(
            inside(found, by_label(label), 2.0),
            "{word} at {found:?}, {label} at {:?}",
            by_label(label)
        );
    }
    assert!(page.word("Acme").is_none(), "{page:?}");
    assert!(page.word("Company:").is_some(), "the page's own text stays");
}

#[tokio::test]
async fn importing_a_form_that_is_not_there_is_refused() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    let named = |answer: &Value| -> Vec<String> {
        answer["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap().to_owned())
            .collect()
    };
    let plain = signet_tests::pdf(&[signet_tests::LETTER]);
    let (status, answer) = upload(&app, &key, "fields=form", plain.clone()).await;
    assert_eq!(
        (status, named(&answer)),
        (400, vec!["fields".to_owned()]),
        "{answer}"
    );
    let (status, answer) = upload(&app, &key, "fields=everything", plain).await;
    assert_eq!(
        (status, named(&answer)),
        (400, vec!["fields".to_owned()]),
        "{answer}"
    );
    let (_, list) = app.get("/templates", &key).await;
    assert_eq!(list["data"]["total"], 0, "nothing was made: {list}");
}

/// An HTML page of form controls, converted to a PDF form by LibreOffice: text fields, one with
/// a value, a check box, a radio group and a combo box. The controls become AcroForm fields
/// only inside a `<form>`; loaded as a Writer document (not Writer/Web) the page is one page.
fn libreoffice_form() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("order.html");
    std::fs::write(
        &html,
        r#"<html><body><h1>Order form</h1><form>
<p>Company: <input type="text" name="company" size="30"></p>
<p>Amount: <input type="text" name="amount" value="EUR 900"></p>
<p>Agree: <input type="checkbox" name="agree"></p>
<p>Plan: <input type="radio" name="plan" value="monthly"> monthly
   <input type="radio" name="plan" value="yearly"> yearly</p>
<p>Country: <select name="country"><option>France</option><option>Japan</option></select></p>
</form></body></html>"#,
    )
    .unwrap();
    // A profile of its own, so that tests running at once do not share one.
    let profile = format!(
        "-env:UserInstallation=file://{}",
        dir.path().join("profile").display()
    );
    let output = Command::new("soffice")
        .arg(profile)
        .args([
            "--headless",
            "--infilter=HTML (StarWriter)",
            "--convert-to",
            "pdf:writer_pdf_Export",
            "--outdir",
        ])
        .arg(dir.path())
        .arg(&html)
        .output()
        .expect("soffice (libreoffice-writer-nogui; scripts/test.sh installs it)");
    assert!(output.status.success(), "soffice failed: {output:?}");
    std::fs::read(dir.path().join("order.pdf")).expect("soffice wrote no PDF")
}

#[tokio::test]
async fn a_libreoffice_form_of_every_kind_is_imported_prefilled_signed_and_flattened() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (_, key) = app.account(1000).await;
    let original = libreoffice_form();
    assert_eq!(
        widgets_and_fields(&original).0,
        6,
        "five fields, the radio group of two"
    );

    let (status, made) = upload(&app, &key, "fields=form&title=Order", original).await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let fields = detail["data"]["roles"][0]["fields"]
        .as_array()
        .unwrap()
        .clone();
    let kinds: Vec<(&str, &str)> = fields
        .iter()
        .map(|f| (f["label"].as_str().unwrap(), f["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("company", "TEXT"),
            ("amount", "TEXT"),
            ("agree", "CHECKBOX"),
            ("plan", "RADIO"),
            ("country", "DROPDOWN"),
        ],
        "{detail}"
    );
    let field = |label: &str| fields.iter().find(|f| f["label"] == label).unwrap().clone();
    assert_eq!(field("amount")["value"], "EUR 900", "{detail}");
    assert_eq!(
        field("plan")["options"],
        json!(["monthly", "yearly"]),
        "{detail}"
    );
    assert_eq!(
        field("country")["options"],
        json!(["France", "Japan"]),
        "{detail}"
    );

    // A document from it, prefilled by the HTML names.
    let body = json!({
        "roles": {"Role 1": {"name": "Former Example", "email": SIGNER}},
        "values": {"company": "ООО Ромашка", "country": "Japan"},
        "send": true, "message": "Please sign the order.", "description": "Order",
        "expiryDate": "2099-01-01T00:00:00Z",
    });
    let (status, answer) = app
        .post(&format!("/templates/{template}/documents"), &key, &body)
        .await;
    assert_eq!(status, 200, "{answer}");
    let doc: uuid::Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
    let link = invitations(&mailbox, 1).await[SIGNER].clone();

    consent(&app, &link).await;
    let opened = session(&app, &link).await;
    let shown = opened["fields"].as_array().unwrap();
    let prefilled = |label: &str| {
        shown
            .iter()
            .find(|f| f["label"] == label)
            .unwrap_or_else(|| panic!("no {label} in {opened}"))["value"]
            .clone()
    };
    assert_eq!(
        [
            prefilled("company"),
            prefilled("amount"),
            prefilled("country")
        ],
        [json!("ООО Ромашка"), json!("EUR 900"), json!("Japan")],
        "{opened}"
    );
    let given: Vec<Value> = shown
        .iter()
        .map(|f| {
            let value = match f["label"].as_str().unwrap() {
                "agree" => json!("true"),
                "plan" => json!("yearly"),
                _ => f["value"].clone(),
            };
            json!({"id": f["id"], "value": value})
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
    let signed = final_pdf(&app, &detail).await;

    let stamped = signet_pdf::stamped_revision(&signed).expect("the stamped revision");
    assert_eq!(widgets_and_fields(stamped), (0, None));

    // Each value is stamped inside its field's box (the check mark is a path, not text).
    let page = &text_boxes(&signed)[0];
    for (word, label) in [
        ("ООО Ромашка", "company"),
        ("EUR 900", "amount"),
        ("yearly", "plan"),
        ("Japan", "country"),
    ] {
        let boxed = area(&field(label));
        let found = page
            .words
            .iter()
            .filter(|(w, _)| w == word)
            .map(|(_, b)| *b)
            .collect::<Vec<_>>();
        assert!(
            found.iter().any(|b| inside(*b, boxed, 2.0)),
            "{word} at {found:?}, not in {label} at {boxed:?}: {page:?}"
        );
    }
    assert!(
        page.word("France").is_none(),
        "the form's old choice is not drawn: {page:?}"
    );

    // The ticked box has its check mark, drawn as a path: dark where the form's box was blank
    // (the box is 8 pt square, so at a pixel a point the mark is a few pixels).
    let dir = tempfile::tempdir().unwrap();
    let (before, after) = (dir.path().join("form.pdf"), dir.path().join("signed.pdf"));
    std::fs::write(&before, libreoffice_form()).unwrap();
    std::fs::write(&after, &signed).unwrap();
    let agree = area(&field("agree"));
    let agree = Area {
        x0: agree.x0,
        y0: agree.y0,
        x1: agree.x1,
        y1: agree.y1,
    };
    let (blank, ticked) = (dark_pixels(&before, agree), dark_pixels(&after, agree));
    assert!(
        ticked >= blank + 3,
        "no check mark: {blank} dark pixels before, {ticked} after"
    );
}
