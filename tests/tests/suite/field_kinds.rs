//! More kinds of field (issue #33, docs/fields.md): every new kind added with its properties,
//! shown by the detail, filled through the signing JSON, refused when a value breaks its rule
//! (a `400` naming the field, nothing recorded), stamped inside its box on the final PDF
//! (pdftotext -bbox; a check mark drawn as a path, seen by rendering the page with pdftoppm)
//! and listed on the certificate. Real router, worker binary, SMTP server and poppler.

use std::{path::Path, process::Command};

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, read};
use uuid::Uuid;

use crate::{
    real_names::final_pdf,
    signing_flow::{consent, invitations, pdftotext, session, wait_for_status},
};

const ANN: &str = "ann@example.com";

/// Each field of the test: its request, and what its signer sends (`None`: left out).
fn fields() -> Vec<(Value, Option<&'static str>)> {
    let at = |n: usize, extra: Value| {
        let mut field = json!({"recipientEmail": ANN, "page": 1, "x": 72, "y": 40 + 52 * n,
            "width": 240, "height": 30});
        field
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        field
    };
    vec![
        (at(0, json!({"type": "SIGNATURE"})), Some("Ann Example")),
        (
            at(
                1,
                json!({"type": "CHECKBOX", "label": "Agree", "width": 24, "height": 24}),
            ),
            Some("true"),
        ),
        (
            at(
                2,
                json!({"type": "CHECKBOX", "label": "Newsletter", "required": false, "width": 24, "height": 24}),
            ),
            Some("false"),
        ),
        (
            at(
                3,
                json!({"type": "RADIO", "label": "Plan", "options": ["Monthly", "Yearly"]}),
            ),
            Some("Yearly"),
        ),
        (
            at(
                4,
                json!({"type": "DROPDOWN", "label": "Region", "options": ["North", "South"], "value": "North"}),
            ),
            Some("South"),
        ),
        (
            at(
                5,
                json!({"type": "NUMBER", "label": "Seats", "min": 1, "max": 100, "decimals": 2}),
            ),
            Some("12.50"),
        ),
        (
            at(6, json!({"type": "EMAIL", "label": "Billing email"})),
            Some("billing@example.com"),
        ),
        (
            at(7, json!({"type": "NAME", "label": "Full name"})),
            Some("Ann B. Example"),
        ),
        (
            at(
                8,
                json!({"type": "COMPANY", "label": "Company", "maxLength": 40}),
            ),
            Some("Acme Widgets"),
        ),
        (
            at(
                9,
                json!({"type": "TEXT", "label": "Code", "maxLength": 6, "pattern": "[A-Z]{2}[0-9]{2,4}"}),
            ),
            Some("AB1234"),
        ),
        (
            at(
                10,
                json!({"type": "TEXT", "label": "Note", "required": false}),
            ),
            None,
        ),
        (
            at(
                11,
                json!({"type": "NUMBER", "label": "Discount", "value": "5", "readOnly": true}),
            ),
            None,
        ),
        (
            at(
                12,
                json!({"type": "ATTACHMENT", "label": "ID scan", "required": false}),
            ),
            None,
        ),
    ]
}

async fn submit(app: &TestApp, link: &str, given: &[(String, String)]) -> (u16, Value) {
    let fields: Vec<Value> = given
        .iter()
        .map(|(id, value)| json!({"id": id, "value": value}))
        .collect();
    read(
        app.client
            .post(format!("{link}/submit"))
            .json(&json!({"fields": fields}))
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// The `field` and `reason` of each `errors[]` entry.
fn errors(answer: &Value) -> Vec<(String, String)> {
    answer["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors: {answer}"))
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The values stored on the document's fields, by label (unlabelled ones left out).
async fn stored_values(app: &TestApp, doc: Uuid) -> Vec<(String, Option<String>)> {
    sqlx::query_as(
        "SELECT label, value FROM fields WHERE document_id = $1 AND label IS NOT NULL
         ORDER BY created_at",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

/// A box in PDF points from the page's top-left corner, as the API and pdftotext give them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Area {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Area {
    fn of_field(field: &Value) -> Self {
        let n = |k: &str| field[k].as_f64().unwrap();
        Self {
            x0: n("x"),
            y0: n("y"),
            x1: n("x") + n("width"),
            y1: n("y") + n("height"),
        }
    }

    /// Whether `inner` lies inside this box, within 2 points.
    fn holds(&self, inner: &Area) -> bool {
        inner.x0 >= self.x0 - 2.0
            && inner.x1 <= self.x1 + 2.0
            && inner.y0 >= self.y0 - 2.0
            && inner.y1 <= self.y1 + 2.0
    }
}

/// The words of page 1 of a PDF with their boxes, read by poppler's pdftotext.
fn words(pdf: &Path) -> Vec<(String, Area)> {
    let out = Command::new("pdftotext")
        .args(["-bbox", "-f", "1", "-l", "1"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils; scripts/test.sh installs it)");
    assert!(out.status.success());
    let html = String::from_utf8_lossy(&out.stdout).into_owned();
    html.split("<word ")
        .skip(1)
        .map(|word| {
            let attr = |name: &str| -> f64 {
                word.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let text = word.split('>').nth(1).unwrap().split('<').next().unwrap();
            (
                text.replace("&amp;", "&"),
                Area {
                    x0: attr("xMin"),
                    y0: attr("yMin"),
                    x1: attr("xMax"),
                    y1: attr("yMax"),
                },
            )
        })
        .collect()
}

/// How many dark pixels page 1 has inside `area`, rendered by poppler's pdftoppm at 72 dpi
/// (a pixel a point).
pub(crate) fn dark_pixels(pdf: &Path, area: Area) -> usize {
    let out = Command::new("pdftoppm")
        .args(["-gray", "-r", "72", "-f", "1", "-l", "1"])
        .arg(pdf)
        .output()
        .expect("pdftoppm (poppler-utils; scripts/test.sh installs it)");
    assert!(out.status.success());
    let pgm = out.stdout;
    // "P5\n<width> <height>\n255\n" then a byte a pixel.
    let mut header = pgm.splitn(4, |b| *b == b'\n');
    assert_eq!(header.next(), Some(&b"P5"[..]));
    let size = String::from_utf8_lossy(header.next().unwrap()).into_owned();
    let width: usize = size.split(' ').next().unwrap().parse().unwrap();
    header.next();
    let pixels = header.next().unwrap();
    let mut dark = 0;
    for y in area.y0.ceil() as usize..area.y1.floor() as usize {
        for x in area.x0.ceil() as usize..area.x1.floor() as usize {
            if pixels[y * width + x] < 128 {
                dark += 1;
            }
        }
    }
    dark
}

#[tokio::test]
async fn every_kind_is_filled_checked_stamped_in_its_box_and_certified() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Order form", &[LETTER]).await;
    let people = json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER"}]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), &key, &people)
        .await;
    assert_eq!(status, 200, "{body}");
    let planned = fields();
    let requests: Vec<Value> = planned.iter().map(|(f, _)| f.clone()).collect();
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &json!(requests))
        .await;
    assert_eq!(status, 200, "{body}");

    // The detail shows every property, and no value.
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let shown = detail["data"]["recipients"][0]["fields"]
        .as_array()
        .unwrap();
    assert_eq!(shown.len(), planned.len());
    let kinds: Vec<&str> = shown.iter().map(|f| f["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "SIGNATURE",
            "CHECKBOX",
            "CHECKBOX",
            "RADIO",
            "DROPDOWN",
            "NUMBER",
            "EMAIL",
            "NAME",
            "COMPANY",
            "TEXT",
            "TEXT",
            "NUMBER",
            "ATTACHMENT"
        ]
    );
    assert_eq!(shown[0]["label"], Value::Null);
    assert_eq!(shown[0]["required"], true);
    assert_eq!(shown[2]["required"], false, "{}", shown[2]);
    assert_eq!(shown[3]["options"], json!(["Monthly", "Yearly"]));
    assert_eq!(
        (&shown[5]["min"], &shown[5]["max"], &shown[5]["decimals"]),
        (&json!(1.0), &json!(100.0), &json!(2))
    );
    assert_eq!(shown[9]["maxLength"], 6);
    assert_eq!(shown[9]["pattern"], "[A-Z]{2}[0-9]{2,4}");
    assert_eq!(
        (&shown[11]["readOnly"], &shown[11]["label"]),
        (&json!(true), &json!("Discount"))
    );
    assert!(shown.iter().all(|f| f.get("value").is_none()), "{detail}");
    assert!(shown[0].get("options").is_none(), "{}", shown[0]);

    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), &key, &json!({"message": "Please fill in the order.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let link = invitations(&mailbox, 1).await[ANN].clone();
    let opened = session(&app, &link).await;
    let ids: Vec<String> = opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect();
    // The NAME field starts with its recipient's name, the DROPDOWN with its given value.
    assert_eq!(opened["fields"][7]["value"], "Ann Example", "{opened}");
    assert_eq!(opened["fields"][4]["value"], "North", "{opened}");
    consent(&app, &link).await;
    let prefilled = stored_values(&app, doc).await;

    let valid: Vec<(String, String)> = planned
        .iter()
        .zip(&ids)
        .filter_map(|((_, value), id)| Some((id.clone(), (*value)?.to_owned())))
        .collect();
    let with = |index: usize, value: &str| -> Vec<(String, String)> {
        let mut given = valid.clone();
        given
            .iter_mut()
            .find(|(id, _)| *id == ids[index])
            .unwrap()
            .1 = value.to_owned();
        given
    };
    let position = |index: usize| valid.iter().position(|(id, _)| *id == ids[index]).unwrap();
    let skipped: Vec<(String, String)> = valid
        .iter()
        .filter(|(id, _)| *id != ids[1])
        .cloned()
        .collect();
    // What is wrong, the values sent, the element named and words of the reason.
    type Refusal<'a> = (&'a str, Vec<(String, String)>, String, &'a str);
    let refusals: Vec<Refusal> = vec![
        (
            "a required field skipped",
            skipped,
            "fields".into(),
            "Agree",
        ),
        (
            "a required box not ticked",
            with(1, "false"),
            format!("fields[{}].value", position(1)),
            "ticked",
        ),
        (
            "an option that does not exist",
            with(3, "Weekly"),
            format!("fields[{}].value", position(3)),
            "options",
        ),
        (
            "a number out of range",
            with(5, "101"),
            format!("fields[{}].value", position(5)),
            "from 1 to 100",
        ),
        (
            "too many decimals",
            with(5, "1.234"),
            format!("fields[{}].value", position(5)),
            "2 digits",
        ),
        (
            "not a number",
            with(5, "12,5"),
            format!("fields[{}].value", position(5)),
            "not a number",
        ),
        (
            "a bad e-mail",
            with(6, "billing@"),
            format!("fields[{}].value", position(6)),
            "",
        ),
        (
            "a text over maxLength",
            with(9, "AB12345"),
            format!("fields[{}].value", position(9)),
            "at most 6 characters",
        ),
        (
            "a text not matching the pattern",
            with(9, "ab12"),
            format!("fields[{}].value", position(9)),
            "pattern",
        ),
    ];
    for (what, given, field, reason) in refusals {
        let (status, answer) = submit(&app, &link, &given).await;
        assert_eq!(status, 400, "{what}: {answer}");
        let found = errors(&answer);
        assert_eq!(found.len(), 1, "{what}: {answer}");
        assert_eq!(found[0].0, field, "{what}: {answer}");
        assert!(found[0].1.contains(reason), "{what}: {answer}");
        // Nothing recorded: not signed, no value stored.
        let again = session(&app, &link).await;
        assert_eq!(again["recipient"]["status"], "VIEWED", "{what}");
        assert_eq!(stored_values(&app, doc).await, prefilled, "{what}");
    }

    let (status, body) = submit(&app, &link, &valid).await;
    assert_eq!(status, 200, "{body}");
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("final.pdf");
    std::fs::write(&path, &pdf).unwrap();

    // Each value stamped lies inside its own field's box.
    let found = words(&path);
    let boxes: Vec<Area> = detail["recipients"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(Area::of_field)
        .collect();
    let stamped = [
        (3, "Yearly"),
        (4, "South"),
        (5, "12.50"),
        (6, "billing@example.com"),
        (7, "Ann B. Example"),
        (8, "Acme Widgets"),
        (9, "AB1234"),
        (11, "5"),
    ];
    for (index, value) in stamped {
        let inside: Vec<&str> = found
            .iter()
            .filter(|(_, area)| boxes[index].holds(area))
            .map(|(word, _)| word.as_str())
            .collect();
        assert_eq!(
            inside.join(" "),
            value,
            "field {index}'s box {:?}: {found:?}",
            boxes[index]
        );
    }
    // Nothing is stamped for the fields left empty, nor for the unticked box.
    for index in [2, 10, 12] {
        assert!(
            !found.iter().any(|(_, area)| boxes[index].holds(area)),
            "field {index} is empty: {found:?}"
        );
    }
    // The ticked box has its check mark, drawn as a path; the unticked one stays blank.
    assert!(dark_pixels(&path, boxes[1]) > 10, "no check mark");
    assert_eq!(
        dark_pixels(&path, boxes[2]),
        0,
        "a mark in the unticked box"
    );

    // The certificate lists what Ann filled in, a ticked box in words.
    let text: String = pdftotext(&pdf)
        .chars()
        .filter(|c| !('\u{2066}'..='\u{2069}').contains(c))
        .collect();
    for line in [
        "Fields filled in",
        "Checkbox (Agree): Checked",
        "Checkbox (Newsletter): Not checked",
        "Choice (Plan): Yearly",
        "Drop-down list (Region): South",
        "Number (Seats): 12.50",
        "Email (Billing email): billing@example.com",
        "Name (Full name): Ann B. Example",
        "Company (Company): Acme Widgets",
        "Text (Code): AB1234",
        "Number (Discount): 5",
    ] {
        assert!(
            text.contains(line),
            "{line} not on the certificate:\n{text}"
        );
    }
    assert!(
        !text.contains("(Note)"),
        "an empty field is not listed:\n{text}"
    );
}

#[tokio::test]
async fn adding_fields_names_every_problem_and_adds_none() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Order form", &[LETTER]).await;
    let people = json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER"}]);
    app.post(&format!("/documents/{doc}/recipients"), &key, &people)
        .await;
    let field = |extra: Value| {
        let mut field = json!({"recipientEmail": ANN, "page": 1, "x": 72, "y": 72});
        field
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        field
    };
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([field(json!({"type": "TEXT", "label": "Code"}))]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, answer) = app
        .post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([
                field(json!({"type": "RADIO"})),
                field(json!({"type": "DROPDOWN", "options": ["A", "A"]})),
                field(json!({"type": "NUMBER", "min": 5, "max": 1, "value": "7"})),
                field(json!({"type": "SIGNATURE", "options": ["A"], "pattern": "x"})),
                field(json!({"type": "TEXT", "pattern": "("})),
                field(json!({"type": "EMAIL", "value": "nobody", "readOnly": true})),
                field(json!({"type": "COMPANY", "readOnly": true})),
                field(json!({"type": "CHECKBOX", "value": "yes"})),
                field(json!({"type": "TEXT", "label": "Code"})),
            ]),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    let named: Vec<String> = errors(&answer).into_iter().map(|(f, _)| f).collect();
    for expected in [
        "[0].options",
        "[1].options[1]",
        "[2].max",
        "[3].options",
        "[3].pattern",
        "[4].pattern",
        "[8].label",
        "[5].value",
        "[6].readOnly",
        "[7].value",
    ] {
        assert!(
            named.iter().any(|n| n == expected),
            "{expected} not named: {answer}"
        );
    }
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["recipients"][0]["fields"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "nothing added: {detail}"
    );
}

#[tokio::test]
async fn a_template_keeps_its_fields_properties_and_its_documents_get_them() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Order form", &[LETTER]).await;
    let people = json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER"}]);
    app.post(&format!("/documents/{doc}/recipients"), &key, &people)
        .await;
    let fields = json!([
        {"recipientEmail": ANN, "type": "SIGNATURE", "page": 1, "x": 72, "y": 72},
        {"recipientEmail": ANN, "type": "RADIO", "page": 1, "x": 72, "y": 140, "label": "Plan",
         "options": ["Monthly", "Yearly"], "required": false},
        {"recipientEmail": ANN, "type": "NUMBER", "page": 1, "x": 72, "y": 200, "label": "Seats",
         "min": 1, "max": 10},
        {"recipientEmail": ANN, "type": "NAME", "page": 1, "x": 72, "y": 260},
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &fields)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, made) = app
        .post(
            "/templates",
            &key,
            &json!({"documentId": doc, "roles": {ANN: "Buyer"}}),
        )
        .await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let kept = &detail["data"]["roles"][0]["fields"];
    // One label a field: the document field's own, else the generated one.
    let labels: Vec<&str> = kept
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["Buyer.signature.1", "Plan", "Seats", "Buyer.name.1"],
        "{detail}"
    );
    assert_eq!(kept[1]["options"], json!(["Monthly", "Yearly"]));
    assert_eq!(kept[1]["required"], false);
    assert_eq!(
        (&kept[2]["min"], &kept[2]["max"]),
        (&json!(1.0), &json!(10.0))
    );
    // A NAME field's value is its recipient's, not the template's.
    assert_eq!(kept[3]["value"], Value::Null, "{detail}");

    // A value refused by the field's own rule, then accepted; the document's fields carry the
    // properties and the template's labels, and the NAME field its new recipient's name.
    let person = json!({"Buyer": {"name": "Bo Buyer", "email": "bo@example.com"}});
    let (status, answer) = app
        .post(
            &format!("/templates/{template}/documents"),
            &key,
            &json!({"roles": person, "values": {"Plan": "Weekly", "Seats": "11"}}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    let named: Vec<String> = errors(&answer).into_iter().map(|(f, _)| f).collect();
    assert_eq!(named, ["values.Plan", "values.Seats"], "{answer}");
    let (status, answer) = app
        .post(
            &format!("/templates/{template}/documents"),
            &key,
            &json!({"roles": person, "values": {"Plan": "Yearly"}}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    let made: Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
    let (_, detail) = app.get(&format!("/documents/{made}"), &key).await;
    let made_fields = &detail["data"]["recipients"][0]["fields"];
    assert_eq!(made_fields[1]["label"], "Plan");
    assert_eq!(made_fields[1]["options"], json!(["Monthly", "Yearly"]));
    assert_eq!(made_fields[2]["max"], json!(10.0));
    assert_eq!(
        stored_values(&app, made).await[3],
        ("Buyer.name.1".to_owned(), Some("Bo Buyer".to_owned()))
    );

    // PATCH sets the same properties, checked by the same rules.
    let patch =
        |fields: Value| json!({"roles": [{"name": "Buyer", "role": "SIGNER", "fields": fields}]});
    let response = app
        .call(
            reqwest::Method::PATCH,
            &format!("/templates/{template}"),
            Some(&key),
            Some(&patch(json!([
                {"label": "Terms", "type": "CHECKBOX", "page": 1, "x": 72, "y": 72, "options": ["x"]},
            ]))),
        )
        .await;
    let (status, answer) = read(response).await;
    assert_eq!(status, 400, "{answer}");
    let named: Vec<String> = errors(&answer).into_iter().map(|(f, _)| f).collect();
    assert_eq!(named, ["roles[0].fields[0].options"], "{answer}");
    let response = app
        .call(
            reqwest::Method::PATCH,
            &format!("/templates/{template}"),
            Some(&key),
            Some(&patch(json!([
                {"label": "Terms", "type": "CHECKBOX", "page": 1, "x": 72, "y": 72, "width": 20, "height": 20},
                {"label": "Tier", "type": "DROPDOWN", "page": 1, "x": 72, "y": 140, "options": ["Gold", "Silver"], "value": "Gold", "readOnly": true},
            ]))),
        )
        .await;
    let (status, body) = read(response).await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let kept = &detail["data"]["roles"][0]["fields"];
    assert_eq!(
        (&kept[1]["value"], &kept[1]["readOnly"], &kept[1]["options"]),
        (&json!("Gold"), &json!(true), &json!(["Gold", "Silver"])),
        "{detail}"
    );
}
