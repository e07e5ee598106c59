//! Issue #33: anchors and text tags, on PDFs written by reportlab (runs split over operators,
//! an embedded TrueType subset with a ToUnicode map, a page turned by qpdf), checked against
//! where poppler (`pdftotext -bbox`) shows the same text.

use std::{path::Path, process::Command};

use serde_json::{Value, json};
use signet_tests::TestApp;

/// Writes the test PDFs into `dir` (tests/support/text_pdfs.py), and anchors-rotated.pdf.
fn write_pdfs(dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new("python3")
        .arg(root.join("tests/support/text_pdfs.py"))
        .arg(dir)
        .arg(root.join("pdf/fonts/NotoSans-Regular.ttf"))
        .status()
        .expect("python3");
    assert!(status.success(), "reportlab could not write the PDFs");
    let status = Command::new("qpdf")
        .args(["--rotate=+90:2"])
        .arg(dir.join("anchors.pdf"))
        .arg(dir.join("anchors-rotated.pdf"))
        .status()
        .expect("qpdf");
    assert!(status.success());
}

/// `(page, xMin, yMin, text)` of every word poppler finds.
fn words(pdf: &Path) -> Vec<(u32, f64, f64, String)> {
    let out = Command::new("pdftotext")
        .args(["-bbox"])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext");
    let html = String::from_utf8(out.stdout).unwrap();
    let mut page = 0;
    let mut words = Vec::new();
    let attr = |line: &str, name: &str| -> f64 {
        let from = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        line[from..from + line[from..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    for line in html.lines() {
        if line.contains("<page ") {
            page += 1;
        } else if line.contains("<word ") {
            let text = &line[line.find('>').unwrap() + 1..line.rfind("</word>").unwrap()];
            words.push((
                page,
                attr(line, "xMin"),
                attr(line, "yMin"),
                text.to_owned(),
            ));
        }
    }
    words
}

fn at<'a>(words: &'a [(u32, f64, f64, String)], text: &str) -> Vec<&'a (u32, f64, f64, String)> {
    words.iter().filter(|w| w.3 == text).collect()
}

fn assert_near(field: &Value, page: u32, x: f64, y: f64) {
    assert_eq!(field["page"], page, "{field}");
    let (fx, fy) = (field["x"].as_f64().unwrap(), field["y"].as_f64().unwrap());
    assert!(
        (fx - x).abs() <= 2.0 && (fy - y).abs() <= 2.0,
        "field at ({fx}, {fy}), poppler's text at ({x}, {y}): {field}"
    );
}

#[tokio::test]
async fn anchors_place_fields_where_the_text_is_shown() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let dir = tempfile::tempdir().unwrap();
    write_pdfs(dir.path());
    let pdf = dir.path().join("anchors-rotated.pdf");
    let words = words(&pdf);
    let doc = app
        .document_from(account, "Lease", std::fs::read(&pdf).unwrap())
        .await;
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Not found, asked once too often, neither anchor nor place: 400, nothing added.
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([
                {"recipientEmail": "ann@example.com", "type": "SIGNATURE", "anchor": {"text": "Nobody signature:"}},
                {"recipientEmail": "ann@example.com", "type": "INITIALS", "anchor": {"text": "Landlord signature:", "occurrence": 3}},
                {"recipientEmail": "ann@example.com", "type": "DATE", "x": 1, "y": 1},
                {"recipientEmail": "ann@example.com", "type": "DATE", "page": 1, "x": 1, "y": 1, "anchor": {"text": "Lease"}},
            ]),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let named: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    for field in ["[0].anchor", "[1].anchor", "[2].page", "[3].anchor"] {
        assert!(named.contains(&field), "{field} in {body}");
    }
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["recipients"][0]["fields"],
        json!([]),
        "{detail}"
    );

    let (status, body) = app
        .post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([
                // Three runs in Helvetica (no /Widths), white space written twice.
                {"recipientEmail": "ann@example.com", "type": "SIGNATURE",
                 "anchor": {"text": "Tenant  signature:", "yOffset": 14}},
                // The TrueType subset, both occurrences.
                {"recipientEmail": "ann@example.com", "type": "INITIALS", "width": 60, "height": 20,
                 "anchor": {"text": "Landlord signature:", "occurrence": "all"}},
                // On the page qpdf turned.
                {"recipientEmail": "ann@example.com", "type": "DATE", "width": 100, "height": 30,
                 "anchor": {"text": "Witness signature:", "occurrence": 1, "xOffset": 0}},
                {"recipientEmail": "ann@example.com", "type": "TEXT", "page": 1, "x": 72, "y": 700},
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let fields = detail["data"]["recipients"][0]["fields"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(fields.len(), 5, "{detail}");
    let of = |kind: &str| -> Vec<&Value> { fields.iter().filter(|f| f["type"] == kind).collect() };
    let tenant = at(&words, "Tenant")[0];
    assert_near(of("SIGNATURE")[0], tenant.0, tenant.1, tenant.2 + 14.0);
    let mut landlord = at(&words, "Landlord");
    landlord.sort_by(|a, b| a.2.total_cmp(&b.2));
    let mut initials = of("INITIALS");
    initials.sort_by(|a, b| {
        a["y"]
            .as_f64()
            .unwrap()
            .total_cmp(&b["y"].as_f64().unwrap())
    });
    assert_eq!((landlord.len(), initials.len()), (2, 2));
    for (field, word) in initials.iter().zip(&landlord) {
        assert_near(field, word.0, word.1, word.2);
    }
    let witness = at(&words, "Witness")[0];
    assert_eq!(witness.0, 2);
    assert_near(of("DATE")[0], 2, witness.1, witness.2);
    assert_near(of("TEXT")[0], 1, 72.0, 700.0);
}

#[tokio::test]
async fn tags_make_a_templates_roles_and_fields_and_leave_the_pdf() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    let dir = tempfile::tempdir().unwrap();
    write_pdfs(dir.path());
    let pdf = dir.path().join("tags.pdf");
    let words = words(&pdf);
    let upload = |file: &str, query: &str| {
        let bytes = std::fs::read(dir.path().join(file)).unwrap();
        app.client
            .post(format!("{}/external/api/v1/templates{query}", app.base))
            .header("X-API-KEY", &key)
            .header("Content-Type", "application/pdf")
            .body(bytes)
            .send()
    };

    // A tag that does not parse is named, with its text and page; nothing is made.
    let (status, body) =
        signet_tests::read(upload("tags-bad.pdf", "?fields=tags").await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["errors"][0]["field"], "tags[1]", "{body}");
    let reason = body["errors"][0]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
        + body["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(
        reason.contains("{{stamp:Tenant}}") && reason.contains("page 2"),
        "{body}"
    );
    let (_, list) = app.get("/templates", &key).await;
    assert_eq!(
        list["data"]["templates"]
            .as_array()
            .map(Vec::len)
            .unwrap_or(0),
        0,
        "{list}"
    );

    let (status, body) = signet_tests::read(
        upload("tags.pdf", "?fields=tags&title=Tagged")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_owned();
    let (status, detail) = app.get(&format!("/templates/{id}"), &key).await;
    assert_eq!(status, 200, "{detail}");
    let roles = detail["data"]["roles"].as_array().unwrap();
    let names: Vec<&str> = roles.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Tenant", "Landlord", "Role 3"], "{detail}");
    let field = |role: usize, kind: &str| -> Value {
        roles[role]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["type"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("{kind} of role {role}: {detail}"))
    };
    // The tag split over two runs is one word to poppler too.
    let signature = at(&words, "{{signature:Tenant}}")[0];
    assert_near(&field(0, "SIGNATURE"), 1, signature.1, signature.2);
    let date = field(0, "DATE");
    assert_eq!(date["label"], "Signed on", "{date}");
    let date_word = at(&words, "{{date:Tenant;label=Signed")[0];
    assert_near(&date, 1, date_word.1, date_word.2);
    let initials = at(&words, "{{initials:Landlord}}")[0];
    assert_near(&field(1, "INITIALS"), 1, initials.1, initials.2);
    let text = field(2, "TEXT");
    assert_eq!(
        (text["width"].as_f64(), text["height"].as_f64()),
        (Some(120.0), Some(20.0)),
        "{text}"
    );

    // The stored PDF shows no tag, and the rest where it was.
    let keys = app.file_store.keys().await;
    let stored = keys
        .iter()
        .find(|k| k.contains(&id))
        .expect("the template's PDF");
    let bytes = app.file_store.store().get(stored).await.unwrap();
    let cleaned = dir.path().join("cleaned.pdf");
    std::fs::write(&cleaned, &bytes).unwrap();
    let after = self::words(&cleaned);
    assert!(
        after
            .iter()
            .all(|w| !w.3.contains("{{") && !w.3.contains("}}")),
        "{after:?}"
    );
    let keep = |words: &[(u32, f64, f64, String)]| at(words, "Keep")[0].clone();
    assert_eq!(keep(&after), keep(&words));
    let tenant = |words: &[(u32, f64, f64, String)]| at(words, "Tenant:")[0].clone();
    assert_eq!(tenant(&after), tenant(&words));
    let text = Command::new("pdftotext")
        .arg(&cleaned)
        .arg("-")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&text.stdout).contains("{{"));
}

#[tokio::test]
async fn the_consoles_upload_finds_fields_that_wait_for_recipients() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let dir = tempfile::tempdir().unwrap();
    write_pdfs(dir.path());
    let words = words(&dir.path().join("tags.pdf"));
    let mut browser = crate::console::Browser::signed_in_as(&app, account).await;
    let csrf = browser.get("/app/documents").await.csrf();
    let read = |file: &str| std::fs::read(dir.path().join(file)).unwrap();
    let documents = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM documents")
            .fetch_one(&app.db.pool)
            .await
            .unwrap()
    };

    // A tag that does not parse refuses the upload as the template route does; nothing stored.
    let refused = browser
        .upload_form(
            Some(&csrf),
            "Bad",
            "tags-bad.pdf",
            read("tags-bad.pdf"),
            true,
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.body.contains("tags[1]") && refused.body.contains("{{stamp:Tenant}}"),
        "{}",
        refused.body
    );
    assert_eq!(documents().await, 0);

    // Without the option, the upload is today's: no fields wait.
    let plain = browser
        .upload_form(Some(&csrf), "Plain", "tags.pdf", read("tags.pdf"), false)
        .await;
    assert_eq!(plain.status, 303, "{}", plain.body);
    let page = browser.get(plain.location.as_deref().unwrap()).await;
    assert!(!page.body.contains(r#"id="placeholders""#), "{}", page.body);
    let waiting: i64 = sqlx::query_scalar("SELECT count(*) FROM document_placeholders")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(waiting, 0);

    // With it, the roles the tags name wait on the document's page, in order.
    let found = browser
        .upload_form(Some(&csrf), "Tagged", "tags.pdf", read("tags.pdf"), true)
        .await;
    assert_eq!(found.status, 303, "{}", found.body);
    let path = found.location.unwrap();
    let doc = path.rsplit('/').next().unwrap().to_owned();
    let page = browser.get(&path).await;
    let at = |role: &str| page.body.find(&format!(r#"data-role="{role}""#));
    let (tenant, landlord, third) = (at("Tenant"), at("Landlord"), at("Role 3"));
    assert!(
        tenant.is_some() && tenant < landlord && landlord < third,
        "{}",
        page.body
    );

    // Send is refused while they wait, naming each role, in the console and the API.
    let send = format!("/app/documents/{doc}/send");
    let send_form = [
        ("csrf", csrf.as_str()),
        ("message", "Please sign"),
        ("description", ""),
        ("expiry", "2099-01-01T10:00"),
    ];
    let refused = browser.post(&send, &send_form).await;
    assert_eq!(refused.status, 400);
    assert!(
        refused.body.contains(
            "<li>placeholders.Tenant: fields found in the PDF for Tenant wait for a recipient</li>"
        ),
        "{}",
        refused.body
    );
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let named: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["field"].as_str())
        .collect();
    for role in [
        "placeholders.Tenant",
        "placeholders.Landlord",
        "placeholders.Role 3",
    ] {
        assert!(named.contains(&role), "{role}: {body}");
    }

    // A person is checked as any recipient: a bad address changes nothing.
    let give = format!("/app/documents/{doc}/placeholders");
    let bad = browser
        .post(
            &give,
            &[
                ("csrf", &csrf),
                ("role", "Tenant"),
                ("name", "Tia"),
                ("email", "not an address"),
            ],
        )
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    assert!(bad.body.contains(r#"data-role="Tenant""#), "{}", bad.body);
    for (role, name, email) in [
        ("Tenant", "Tia Tenant", "tia@example.com"),
        ("Landlord", "Lou Landlord", "lou@example.com"),
        ("Role 3", "Wes Witness", "wes@example.com"),
    ] {
        let given = browser
            .post(
                &give,
                &[
                    ("csrf", &csrf),
                    ("role", role),
                    ("name", name),
                    ("email", email),
                ],
            )
            .await;
        assert_eq!(given.status, 303, "{role}: {}", given.body);
    }
    let page = browser.get(&path).await;
    assert!(!page.body.contains(r#"id="placeholders""#), "{}", page.body);

    // Each person has their role's fields where the tags were.
    let (status, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(status, 200, "{detail}");
    let recipients = detail["data"]["recipients"].as_array().unwrap();
    let emails: Vec<&str> = recipients
        .iter()
        .map(|r| r["email"].as_str().unwrap())
        .collect();
    assert_eq!(
        emails,
        ["tia@example.com", "lou@example.com", "wes@example.com"],
        "{detail}"
    );
    let field = |who: usize, kind: &str| -> Value {
        recipients[who]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["type"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("{kind} of recipient {who}: {detail}"))
    };
    let signature = at_word(&words, "{{signature:Tenant}}");
    assert_near(&field(0, "SIGNATURE"), 1, signature.1, signature.2);
    let date = field(0, "DATE");
    assert_eq!(date["label"], "Signed on", "{date}");
    let date_word = at_word(&words, "{{date:Tenant;label=Signed");
    assert_near(&date, 1, date_word.1, date_word.2);
    let initials = at_word(&words, "{{initials:Landlord}}");
    assert_near(&field(1, "INITIALS"), 1, initials.1, initials.2);
    let text = field(2, "TEXT");
    assert_eq!(
        (text["width"].as_f64(), text["height"].as_f64()),
        (Some(120.0), Some(20.0)),
        "{text}"
    );

    let sent = browser.post(&send, &send_form).await;
    assert_eq!(sent.status, 303, "{}", sent.body);
    let status: String =
        sqlx::query_scalar("SELECT status::text FROM documents WHERE id = $1::uuid")
            .bind(&doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(status, "SENT");
}

fn at_word<'a>(words: &'a [(u32, f64, f64, String)], text: &str) -> &'a (u32, f64, f64, String) {
    at(words, text)
        .first()
        .copied()
        .unwrap_or_else(|| panic!("poppler does not show {text}"))
}
