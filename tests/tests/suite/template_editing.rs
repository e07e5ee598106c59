//! Templates made from an uploaded PDF, given roles and fields by `PATCH /templates/{id}`, used
//! and sent; the update's refusals; the list's search and sorting (issue #32). The console's
//! templates pages: made from a draft and used.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, eventually, fixtures_dir, read};
use uuid::Uuid;

use crate::{console::Browser, draft_editing::data_attribute};

const WAIT: Duration = Duration::from_secs(120);

/// A real four-page PDF (pdfTeX, A4: 595.276 × 841.89 points).
fn four_pages() -> Vec<u8> {
    std::fs::read(fixtures_dir().join("pdflatex-4-pages.pdf")).expect("the fixture")
}

/// `POST /templates` with the PDF as the body; (status, Idempotent-Replayed, answer).
async fn upload(
    app: &TestApp,
    key: &str,
    title: Option<&str>,
    pdf: Vec<u8>,
    idempotency_key: Option<&str>,
) -> (u16, Option<String>, Value) {
    let url = format!("{}/external/api/v1/templates", app.base);
    let title: Vec<(&str, &str)> = title.map(|t| ("title", t)).into_iter().collect();
    let url = reqwest::Url::parse_with_params(&url, &title).unwrap();
    let mut request = app
        .client
        .post(url)
        .header("X-API-KEY", key)
        .header("Content-Type", "application/pdf")
        .body(pdf);
    if let Some(idempotency_key) = idempotency_key {
        request = request.header("Idempotency-Key", idempotency_key);
    }
    let response = request.send().await.expect("request");
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    (status, replayed, body)
}

pub(crate) async fn template_from_pdf(app: &TestApp, key: &str, title: Option<&str>) -> String {
    let (status, _, answer) = upload(app, key, title, four_pages(), None).await;
    assert_eq!(status, 200, "{answer}");
    answer["data"]["id"].as_str().unwrap().to_owned()
}

async fn patch(app: &TestApp, key: &str, template: &str, body: &Value) -> (u16, Value) {
    read(
        app.call(
            Method::PATCH,
            &format!("/templates/{template}"),
            Some(key),
            Some(body),
        )
        .await,
    )
    .await
}

async fn count(app: &TestApp, sql: &'static str, account: Uuid) -> i64 {
    sqlx::query_scalar(sql)
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

fn error_fields(answer: &Value) -> Vec<String> {
    answer["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| e["field"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn lease_roles() -> Value {
    json!([
        {"name": "Tenant", "role": "SIGNER", "signingOrder": 1, "fields": [
            {"label": "Tenant.signature.1", "type": "SIGNATURE", "page": 2, "x": 72, "y": 600},
            {"label": "Company", "type": "TEXT", "page": 1, "x": 72, "y": 100, "width": 250, "height": 30, "readOnly": true},
        ]},
        {"name": "Landlord", "role": "SIGNER", "signingOrder": 2, "language": "de", "fields": [
            {"label": "Landlord.signature.1", "type": "SIGNATURE", "page": 4, "x": 300, "y": 700, "width": 200, "height": 50},
        ]},
    ])
}

#[tokio::test]
async fn a_template_from_a_pdf_is_given_roles_and_fields_and_then_used() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let templates = "SELECT count(*) FROM templates WHERE account_id = $1";
    let documents = "SELECT count(*) FROM documents WHERE account_id = $1";

    // Not a PDF: refused, naming the file, nothing made.
    let (status, _, answer) = upload(&app, &key, None, b"%PDX not one".to_vec(), None).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(error_fields(&answer), ["file"], "{answer}");
    assert_eq!(count(&app, templates, account).await, 0);

    // The PDF, with an Idempotency-Key: a retry gets the same template.
    let query = Some("Lease from a PDF");
    let (status, replayed, first) = upload(&app, &key, query, four_pages(), Some("pdf-1")).await;
    assert_eq!((status, replayed), (200, None), "{first}");
    let (status, replayed, again) = upload(&app, &key, query, four_pages(), Some("pdf-1")).await;
    assert_eq!(
        (status, replayed.as_deref()),
        (200, Some("true")),
        "{again}"
    );
    assert_eq!(first, again);
    assert_eq!(count(&app, templates, account).await, 1);
    let template = first["data"]["id"].as_str().unwrap().to_owned();
    let (status, detail) = app.get(&format!("/templates/{template}"), &key).await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["data"]["title"], "Lease from a PDF");
    assert_eq!(detail["data"]["pages"], 4);
    assert_eq!(detail["data"]["roles"], json!([]));
    // Larger than the JSON body limit (1 MiB), with an Idempotency-Key, whose middleware
    // reads the body first: a PDF body may be as large as an upload.
    let stream = b"<< /Length 3145728 >>\nstream\n"
        .iter()
        .copied()
        .chain(std::iter::repeat_n(b'x', 3 * 1024 * 1024))
        .chain(b"\nendstream".iter().copied())
        .collect();
    let large = signet_tests::hostile::one_page_with(&[stream]);
    let (status, _, answer) = upload(&app, &key, Some("Large"), large, Some("pdf-large")).await;
    assert_eq!(status, 200, "{answer}");
    // Untitled when no title is given.
    let untitled = template_from_pdf(&app, &key, None).await;
    let (_, untitled) = app.get(&format!("/templates/{untitled}"), &key).await;
    assert_eq!(untitled["data"]["title"], "Untitled template", "{untitled}");

    // No roles yet: no document can be made from it.
    let path = format!("/templates/{template}/documents");
    let (status, answer) = app.post(&path, &key, &json!({"roles": {}})).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(error_fields(&answer), ["roles"], "{answer}");
    assert_eq!(count(&app, documents, account).await, 0);

    // A role without a field is named too.
    let (status, answer) = patch(
        &app,
        &key,
        &template,
        &json!({"roles": [{"name": "Tenant", "role": "SIGNER", "fields": []}]}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let body = json!({"roles": {"Tenant": {"name": "Ann", "email": "ann@example.com"}}});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(error_fields(&answer), ["roles.Tenant"], "{answer}");
    assert_eq!(count(&app, documents, account).await, 0);

    // Roles, fields and defaults.
    let body = json!({"title": "Lease", "message": "Please sign the lease.", "expiryDays": 7,
        "roles": lease_roles()});
    let (status, answer) = patch(&app, &key, &template, &body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["message"], "Template updated successfully");
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let data = &detail["data"];
    assert_eq!(data["title"], "Lease", "{detail}");
    assert_eq!(data["message"], "Please sign the lease.");
    assert_eq!(data["expiryDays"], 7);
    assert_eq!(data["roles"][0]["name"], "Tenant");
    assert_eq!(data["roles"][0]["signingOrder"], 1);
    assert_eq!(data["roles"][0]["fields"][1]["label"], "Company");
    assert_eq!(data["roles"][0]["fields"][1]["readOnly"], true);
    assert_eq!(
        data["roles"][0]["fields"][0]["width"], 200,
        "the default width"
    );
    assert_eq!(data["roles"][1]["language"], "de");
    assert_eq!(data["roles"][1]["fields"][0]["page"], 4);
    assert!(
        data["updatedAt"].as_str() > data["createdAt"].as_str(),
        "{detail}"
    );

    // Used and sent with the template's defaults.
    let body = json!({"roles": {
        "Tenant": {"name": "Ann Tenant", "email": "ann@example.com"},
        "Landlord": {"name": "Bob Landlord", "email": "bob@example.com"},
    }, "values": {"Company": "Acme Ltd"}, "send": true});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 200, "{answer}");
    let doc = answer["data"]["id"].as_str().unwrap().to_owned();
    let (_, made) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(made["data"]["status"], "SENT", "{made}");
    assert_eq!(
        made["data"]["templateId"],
        template.as_str(),
        "kept for the record"
    );
    assert_eq!(made["data"]["title"], "Lease");
    assert_eq!(made["data"]["pages"], 4, "{made}");
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.to == "ann@example.com")
        .await;
    assert!(
        mails[0].text.contains("Please sign the lease."),
        "{}",
        mails[0].text
    );
    // Read again once the invitation's outcome is written (a moment after the SMTP server
    // took it): what the update must not change.
    let made = eventually("the invitation recorded as sent", WAIT, || async {
        let (_, made) = app.get(&format!("/documents/{doc}"), &key).await;
        (made["data"]["recipients"][0]["deliveryStatus"] == "SENT").then_some(made)
    })
    .await;
    let fields: i64 = sqlx::query_scalar("SELECT count(*) FROM fields WHERE document_id = $1")
        .bind(doc.parse::<Uuid>().unwrap())
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(fields, 3);

    // A later update clears a default and changes the roles; the document made keeps its own.
    let body = json!({"message": null, "roles": [{"name": "Signer", "role": "SIGNER", "fields": [
        {"label": "Sign here", "type": "SIGNATURE", "page": 1, "x": 10, "y": 10}]}]});
    let (status, answer) = patch(&app, &key, &template, &body).await;
    assert_eq!(status, 200, "{answer}");
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    assert_eq!(detail["data"]["message"], Value::Null, "{detail}");
    assert_eq!(
        detail["data"]["expiryDays"], 7,
        "kept: the body did not name it"
    );
    assert_eq!(detail["data"]["roles"].as_array().unwrap().len(), 1);
    let (_, after) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(after["data"]["recipients"], made["data"]["recipients"]);
    let fields_after: i64 =
        sqlx::query_scalar("SELECT count(*) FROM fields WHERE document_id = $1")
            .bind(doc.parse::<Uuid>().unwrap())
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(fields_after, 3);
}

#[tokio::test]
async fn an_update_that_breaks_a_rule_is_refused_whole_naming_the_element() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    let template = template_from_pdf(&app, &key, Some("Lease")).await;
    let (status, answer) = patch(&app, &key, &template, &json!({"roles": lease_roles()})).await;
    assert_eq!(status, 200, "{answer}");
    let (_, before) = app.get(&format!("/templates/{template}"), &key).await;

    let field = |extra: Value| {
        let mut field = json!({"label": "Extra", "type": "TEXT", "page": 1, "x": 72, "y": 72});
        for (k, v) in extra.as_object().unwrap() {
            field[k] = v.clone();
        }
        field
    };
    let with_tenant_field = |extra: Value| {
        let mut roles = lease_roles();
        roles[0]["fields"]
            .as_array_mut()
            .unwrap()
            .push(field(extra));
        json!({"title": "Changed", "roles": roles})
    };
    let cases = [
        (
            with_tenant_field(json!({"page": 5})),
            "roles[0].fields[2].page",
            "Page 5 is out of range (document has 4 pages)",
        ),
        (
            with_tenant_field(json!({"x": 600, "width": 100})),
            "roles[0].fields[2]",
            "Field is outside the bounds of page 1",
        ),
        (
            with_tenant_field(json!({"label": "Company"})),
            "roles[0].fields[2].label",
            "Invalid request body or validation error",
        ),
        (
            with_tenant_field(json!({"label": "Company/Name"})),
            "roles[0].fields[2].label",
            "Invalid request body or validation error",
        ),
        (
            with_tenant_field(json!({"type": "SIGNATURE", "readOnly": true})),
            "roles[0].fields[2].readOnly",
            "Invalid request body or validation error",
        ),
        (
            json!({"roles": [lease_roles()[0], lease_roles()[0]]}),
            "roles[1].name",
            "Invalid request body or validation error",
        ),
        (
            json!({"title": "Changed", "expiryDays": 0}),
            "expiryDays",
            "Invalid request body or validation error",
        ),
    ];
    for (body, field, message) in cases {
        let (status, answer) = patch(&app, &key, &template, &body).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["message"], message, "{body}: {answer}");
        assert!(
            error_fields(&answer).contains(&field.to_owned()),
            "{field} in {answer}"
        );
        let (_, now) = app.get(&format!("/templates/{template}"), &key).await;
        assert_eq!(now, before, "{body} changed nothing");
    }

    let (status, answer) = patch(
        &app,
        &key,
        &Uuid::now_v7().to_string(),
        &json!({"title": "x"}),
    )
    .await;
    assert_eq!(status, 404, "{answer}");

    let (status, _) = app
        .post(&format!("/templates/{template}/archive"), &key, &json!({}))
        .await;
    assert_eq!(status, 200);
    let (status, answer) = patch(&app, &key, &template, &json!({"title": "Changed"})).await;
    assert_eq!(status, 409, "{answer}");
    assert_eq!(answer["message"], "Template is archived");
    let (_, now) = app.get(&format!("/templates/{template}"), &key).await;
    assert_eq!(now["data"]["title"], "Lease");
}

#[tokio::test]
async fn the_list_searches_titles_and_sorts() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    for title in ["Lease Alpha", "Invoice", "lease beta", "50% off_lease"] {
        template_from_pdf(&app, &key, Some(title)).await;
    }
    let titles = |list: &Value| -> Vec<String> {
        list["data"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, list) = app.get("/templates", &key).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(
        titles(&list),
        ["50% off_lease", "lease beta", "Invoice", "Lease Alpha"],
        "newest first"
    );

    let (_, list) = app
        .get("/templates?search=LEASE&sortBy=title&sortOrder=asc", &key)
        .await;
    assert_eq!(list["data"]["total"], 3, "{list}");
    assert_eq!(
        titles(&list),
        ["50% off_lease", "Lease Alpha", "lease beta"],
        "{list}"
    );
    let (_, list) = app.get("/templates?search=%25%20off_", &key).await;
    assert_eq!(titles(&list), ["50% off_lease"], "% and _ are literal");
    let (_, list) = app
        .get("/templates?search=lease&limit=2&page=2&sortBy=title", &key)
        .await;
    assert_eq!(
        (
            list["data"]["total"].as_i64(),
            list["data"]["totalPages"].as_i64()
        ),
        (Some(3), Some(2))
    );
    assert_eq!(titles(&list), ["50% off_lease"], "descending by default");

    // The oldest, renamed, is the most recently modified.
    let (_, oldest) = app.get("/templates?sortOrder=asc", &key).await;
    let oldest = oldest["data"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, answer) = patch(&app, &key, &oldest, &json!({"title": "Lease Alpha 2"})).await;
    assert_eq!(status, 200, "{answer}");
    let (_, list) = app.get("/templates?sortBy=dateModified", &key).await;
    assert_eq!(titles(&list)[0], "Lease Alpha 2");

    for (query, name) in [
        ("sortBy=documentName", "sortBy"),
        ("sortOrder=up", "sortOrder"),
        ("limit=0", "limit"),
        ("search=a%00b", "search"),
    ] {
        let (status, answer) = app.get(&format!("/templates?{query}"), &key).await;
        assert_eq!(status, 400, "{query}: {answer}");
        assert_eq!(
            answer["message"],
            format!("Invalid query parameter: {name}")
        );
    }
}

/// The console: a template made from a draft on its page, found in the templates list, and
/// used to make a document (sent at once) from the template's page.
#[tokio::test]
async fn the_console_makes_a_template_from_a_draft_and_uses_it() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let draft = app.document(account, "Lease", &[LETTER]).await;
    let steps = [
        (
            "recipients",
            json!([{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]),
        ),
        (
            "fields",
            json!([{"recipientEmail": "ann@example.com", "type": "SIGNATURE", "page": 1, "x": 72, "y": 72}]),
        ),
    ];
    for (step, body) in &steps {
        let (status, answer) = app
            .post(&format!("/documents/{draft}/{step}"), &key, body)
            .await;
        assert_eq!(status, 200, "{step}: {answer}");
    }
    let mut browser = Browser::signed_in_as(&app, account).await;

    let page = browser.get(&format!("/app/documents/{draft}")).await;
    assert!(page.body.contains("Make a template"), "{}", page.body);
    let csrf = page.csrf();
    let made = browser
        .post(
            &format!("/app/documents/{draft}/template"),
            &[
                ("csrf", &csrf),
                ("title", "Console lease"),
                ("role:ann@example.com", "Tenant"),
            ],
        )
        .await;
    assert_eq!(made.status, 303, "{}", made.body);
    let location = made.location.unwrap();
    assert!(location.starts_with("/app/templates/"), "{location}");

    let list = browser.get("/app/templates?search=console").await;
    assert_eq!(list.status, 200);
    assert!(list.body.contains("Console lease"), "{}", list.body);
    let nav = browser.get("/app/documents").await;
    assert!(
        nav.body.contains(r#"href="/app/templates""#),
        "{}",
        nav.body
    );

    let page = browser.get(&location).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Tenant"), "{}", page.body);
    assert!(page.body.contains("Tenant.signature.1"), "{}", page.body);
    let csrf = page.csrf();

    // A mistake is shown in the form, and nothing is made.
    let documents = "SELECT count(*) FROM documents WHERE account_id = $1";
    let before = count(&app, documents, account).await;
    let refused = browser
        .post(
            &format!("{location}/documents"),
            &[
                ("csrf", &csrf),
                ("role:Tenant:name", "Zoë Tenant"),
                ("role:Tenant:email", "not an address"),
            ],
        )
        .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(
        refused.body.contains("roles.Tenant.email"),
        "{}",
        refused.body
    );
    assert_eq!(count(&app, documents, account).await, before);

    let used = browser
        .post(
            &format!("{location}/documents"),
            &[
                ("csrf", &csrf),
                ("role:Tenant:name", "Zoë Tenant"),
                ("role:Tenant:email", "zoe@example.com"),
                ("send", "on"),
                ("message", "Please sign, from the console."),
                ("expiry", "2099-01-01T12:00"),
            ],
        )
        .await;
    assert_eq!(used.status, 303, "{}", used.body);
    let document = used.location.unwrap();
    assert!(document.starts_with("/app/documents/"), "{document}");
    let id = document.trim_start_matches("/app/documents/");
    let (_, detail) = app.get(&format!("/documents/{id}"), &key).await;
    assert_eq!(detail["data"]["status"], "SENT", "{detail}");
    assert_eq!(detail["data"]["title"], "Console lease");
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.to == "zoe@example.com")
        .await;
    assert!(mails[0].text.contains("Please sign, from the console."));

    // Archived from its page: gone from the list.
    let page = browser.get(&location).await;
    let csrf = page.csrf();
    let archived = browser
        .post(&format!("{location}/archive"), &[("csrf", &csrf)])
        .await;
    assert_eq!(archived.status, 303, "{}", archived.body);
    let list = browser.get("/app/templates").await;
    assert!(!list.body.contains("Console lease"), "{}", list.body);
}

/// Issue #32 item 5: a template made from a PDF is given its roles and fields on the console's
/// placement page, whose script saves `{"roles": [...]}` (as PATCH takes it) with the CSRF
/// token in a header; a field off its page is refused, named by its role and field, and
/// nothing changes; an archived template's placement page is its error page.
#[tokio::test]
async fn the_console_edits_a_template_s_roles_and_fields_on_the_placement_page() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let template = template_from_pdf(&app, &key, Some("Console roles")).await;
    let mut browser = Browser::signed_in_as(&app, account).await;
    let location = format!("/app/templates/{template}");

    // Without roles, the template's page leads to the placement page.
    let page = browser.get(&location).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("Add roles and place fields")
            && page.body.contains(&format!(r#"href="{location}/place""#)),
        "{}",
        page.body
    );
    let place = browser.get(&format!("{location}/place")).await;
    assert_eq!(place.status, 200, "{}", place.body);
    assert_eq!(data_attribute(&place.body, "kind"), "template");
    assert_eq!(data_attribute(&place.body, "people"), "[]");
    let csrf = data_attribute(&place.body, "csrf");
    let save_url = data_attribute(&place.body, "save-url");
    assert_eq!(save_url, format!("{location}/roles"));
    // The PDF the page draws, to the signed-in owner only.
    let file_url = data_attribute(&place.body, "file-url");
    let cookie: Vec<String> = browser
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let cookie = cookie.join("; ");
    let file = app
        .client
        .get(format!("{}{file_url}", app.base))
        .header(reqwest::header::COOKIE, cookie.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(file.status(), 200);
    assert_eq!(file.headers()["content-type"], "application/pdf");
    assert_eq!(file.bytes().await.unwrap().to_vec(), four_pages());
    let anonymous = app
        .client
        .get(format!("{}{file_url}", app.base))
        .send()
        .await
        .unwrap();
    assert_ne!(anonymous.status(), 200);

    let save = |token: String, body: Value| {
        app.client
            .post(format!("{}{save_url}", app.base))
            .header(reqwest::header::COOKIE, cookie.clone())
            .header("x-csrf-token", token)
            .json(&body)
            .send()
    };
    // As template-roles.mjs sends it: every role, its fields with their boxes in hundredths of
    // a point, a blank label where none was typed, readOnly on each TEXT field.
    let roles = |x: f64| {
        json!({"roles": [
            {"name": "Tenant", "role": "SIGNER", "signingOrder": 1, "fields": [
                {"label": "", "type": "SIGNATURE", "page": 1, "x": x, "y": 640.5, "width": 200, "height": 50},
                {"label": "Rent", "type": "TEXT", "page": 2, "x": 72, "y": 500, "width": 150, "height": 30, "readOnly": true},
                {"label": "", "type": "TEXT", "page": 2, "x": 72, "y": 560, "width": 150, "height": 30, "readOnly": false},
            ]},
            {"name": "Landlord", "role": "SIGNER", "signingOrder": 2, "fields": [
                {"label": "", "type": "SIGNATURE", "page": 4, "x": 300, "y": 700, "width": 200, "height": 50},
            ]},
            {"name": "Agent", "role": "VIEWER", "fields": []},
        ]})
    };
    let detail_path = format!("/templates/{template}");
    let (status, forged) = read(save("forged".into(), roles(72.0)).await.unwrap()).await;
    assert_eq!(status, 403, "{forged}");

    // A field off its page: refused, named as the page shows it, and nothing saved.
    let (status, refused) = read(save(csrf.clone(), roles(500.0)).await.unwrap()).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["message"], "Field is outside the bounds of page 1");
    assert_eq!(
        refused["errors"][0]["field"],
        "Role “Tenant”, field “Tenant.signature.1” (SIGNATURE on page 1)",
        "{refused}"
    );
    assert_eq!(
        app.get(&detail_path, &key).await.1["data"]["roles"],
        json!([])
    );

    let (status, saved) = read(save(csrf.clone(), roles(72.0)).await.unwrap()).await;
    assert_eq!(
        (status, saved["message"].as_str()),
        (200, Some("Roles and fields saved")),
        "{saved}"
    );
    let shown = app.get(&detail_path, &key).await.1;
    let roles_shown = &shown["data"]["roles"];
    // (name, role, signingOrder, [(label, type, page, readOnly)]) of each role.
    type Summary = (
        String,
        String,
        Option<i64>,
        Vec<(String, String, i64, bool)>,
    );
    let summary: Vec<Summary> = roles_shown
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["role"].as_str().unwrap().to_owned(),
                r["signingOrder"].as_i64(),
                r["fields"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| {
                        (
                            f["label"].as_str().unwrap().to_owned(),
                            f["type"].as_str().unwrap().to_owned(),
                            f["page"].as_i64().unwrap(),
                            f["readOnly"].as_bool().unwrap(),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let field = |label: &str, kind: &str, page: i64, read_only: bool| {
        (label.to_owned(), kind.to_owned(), page, read_only)
    };
    assert_eq!(
        summary,
        vec![
            (
                "Tenant".to_owned(),
                "SIGNER".to_owned(),
                Some(1),
                vec![
                    field("Tenant.signature.1", "SIGNATURE", 1, false),
                    field("Rent", "TEXT", 2, true),
                    field("Tenant.text.2", "TEXT", 2, false),
                ]
            ),
            (
                "Landlord".to_owned(),
                "SIGNER".to_owned(),
                Some(2),
                vec![field("Landlord.signature.1", "SIGNATURE", 4, false)]
            ),
            ("Agent".to_owned(), "VIEWER".to_owned(), None, vec![]),
        ],
        "{shown}"
    );
    assert_eq!(roles_shown[0]["fields"][0]["y"], 640.5, "{shown}");

    // Reopened, the page shows them to edit, and the template's page offers the edit.
    let place = browser.get(&format!("{location}/place")).await;
    let people: Value = serde_json::from_str(&data_attribute(&place.body, "people")).unwrap();
    assert_eq!(people[1]["name"], "Landlord", "{people}");
    let fields: Value = serde_json::from_str(&data_attribute(&place.body, "fields")).unwrap();
    assert_eq!(
        (fields[1]["label"].as_str(), fields[1]["readOnly"].as_bool()),
        (Some("Rent"), Some(true)),
        "{fields}"
    );
    let page = browser.get(&location).await;
    assert!(page.body.contains("Edit roles and fields"), "{}", page.body);

    // Archived: no edit offered, and the placement page is the error page.
    let archived = browser
        .post(&format!("{location}/archive"), &[("csrf", &page.csrf())])
        .await;
    assert_eq!(archived.status, 303, "{}", archived.body);
    let page = browser.get(&location).await;
    assert!(!page.body.contains("/place"), "{}", page.body);
    let place = browser.get(&format!("{location}/place")).await;
    assert_eq!(place.status, 409, "{}", place.body);
    assert!(
        place.body.contains("Template is archived"),
        "{}",
        place.body
    );
    let (status, refused) = read(save(csrf.clone(), roles(72.0)).await.unwrap()).await;
    assert_eq!(
        (status, refused["message"].as_str()),
        (409, Some("Template is archived"))
    );
}
