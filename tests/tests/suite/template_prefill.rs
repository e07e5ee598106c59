//! Templates with labelled fields and prefilled values (issue #32): read-only values stamped as
//! given, editable ones the signer may change, through the real router, a real worker binary, a
//! real SMTP server and the final PDF read back by pdftotext.

use std::collections::HashMap;

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, read};
use uuid::Uuid;

use crate::{
    real_names::final_pdf,
    signing_flow::{consent, invitations, pdftotext, session, wait_for_status},
};

const LANDLORD: &str = "landlord@example.com";
const TENANT: &str = "tenant@example.com";

async fn count(app: &TestApp, table: &str, account: Uuid) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {table} WHERE account_id = $1"
    )))
    .bind(account)
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}

/// A DRAFT lease: the landlord's signature and rent (TEXT), the tenant's company (TEXT) and
/// signature. Returns the document and its fields' ids by `<email> <type>`.
async fn lease_draft(app: &TestApp, account: Uuid, key: &str) -> (Uuid, HashMap<String, String>) {
    let doc = app.document(account, "Lease", &[LETTER]).await;
    let people = json!([
        {"name": "Landlord Example", "email": LANDLORD, "role": "SIGNER"},
        {"name": "Tenant Example", "email": TENANT, "role": "SIGNER"},
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), key, &people)
        .await;
    assert_eq!(status, 200, "{body}");
    let field = |email: &str, kind: &str, y: u32| json!({"recipientEmail": email, "type": kind, "page": 1, "x": 72, "y": y, "width": 300, "height": 36});
    let fields = json!([
        field(LANDLORD, "SIGNATURE", 80),
        field(LANDLORD, "TEXT", 140),
        field(TENANT, "TEXT", 200),
        field(TENANT, "SIGNATURE", 260),
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), key, &fields)
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app.get(&format!("/documents/{doc}"), key).await;
    let mut ids = HashMap::new();
    for recipient in detail["data"]["recipients"].as_array().unwrap() {
        for field in recipient["fields"].as_array().unwrap() {
            assert_eq!(field["readOnly"], false, "{detail}");
            ids.insert(
                format!(
                    "{} {}",
                    recipient["email"].as_str().unwrap(),
                    field["type"].as_str().unwrap()
                ),
                field["id"].as_str().unwrap().to_owned(),
            );
        }
    }
    (doc, ids)
}

/// The lease template: `Rent` read-only, `Company` editable, the signatures labelled by default.
async fn lease_template(
    app: &TestApp,
    key: &str,
    doc: Uuid,
    ids: &HashMap<String, String>,
) -> String {
    let body = json!({"documentId": doc, "roles": {LANDLORD: "Landlord", TENANT: "Tenant"},
    "fields": {
        ids[&format!("{LANDLORD} TEXT")].clone(): {"label": "Rent", "readOnly": true},
        ids[&format!("{TENANT} TEXT")].clone(): {"label": " Company "},
    }});
    let (status, made) = app.post("/templates", key, &body).await;
    assert_eq!(status, 200, "{made}");
    made["data"]["id"].as_str().unwrap().to_owned()
}

/// The `field` of each `errors[]` entry.
fn named(answer: &Value) -> Vec<String> {
    answer["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors: {answer}"))
        .iter()
        .map(|e| e["field"].as_str().unwrap().to_owned())
        .collect()
}

async fn submit(app: &TestApp, link: &str, given: &[(&Value, &str)]) -> (u16, Value) {
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

/// What the signing page hands its script.
fn page_data(page: &str) -> Value {
    let start = r#"<script id="signing-data" type="application/json">"#;
    let data = &page[page.find(start).expect("the page's data") + start.len()..];
    serde_json::from_str(&data[..data.find("</script>").unwrap()]).unwrap()
}

/// The field of a signing session's `fields` of this type.
fn of_type<'a>(opened: &'a Value, kind: &str) -> &'a Value {
    opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} field: {opened}"))
}

#[tokio::test]
async fn three_leases_from_one_template_are_stamped_with_their_own_values() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let (source, ids) = lease_draft(&app, account, &key).await;
    let template = lease_template(&app, &key, source, &ids).await;

    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let fields_of = |role: usize| -> Vec<(String, bool)> {
        detail["data"]["roles"][role]["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["label"].as_str().unwrap().to_owned(),
                    f["readOnly"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        fields_of(0),
        [
            ("Landlord.signature.1".to_owned(), false),
            ("Rent".to_owned(), true)
        ],
        "{detail}"
    );
    assert_eq!(
        fields_of(1),
        [
            ("Company".to_owned(), false),
            ("Tenant.signature.1".to_owned(), false)
        ],
        "{detail}"
    );

    // Three leases, each with its own rent and company; in the second the tenant writes their
    // company's name as they want it.
    let leases: Vec<(String, String, Option<&str>)> = (1..=3)
        .map(|n| {
            (
                format!("EUR {n}250 monthly"),
                format!("Acme {n} Ltd"),
                (n == 2).then_some("Globex Trading 2"),
            )
        })
        .collect();
    let mut docs = Vec::new();
    for (n, (rent, company, _)) in leases.iter().enumerate() {
        let body = json!({
            "roles": {
                "Landlord": {"name": format!("Landlord {n}"), "email": format!("landlord{n}@example.com")},
                "Tenant": {"name": format!("Tenant {n}"), "email": format!("tenant{n}@example.com")},
            },
            "values": {"Rent": rent, "Company": company},
            "send": true, "message": "Please sign the lease.", "expiryDate": "2099-01-01T00:00:00Z",
        });
        let (status, answer) = app
            .post(&format!("/templates/{template}/documents"), &key, &body)
            .await;
        assert_eq!(status, 200, "{answer}");
        let doc: Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
        let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
        let read_only: Vec<(&str, bool)> = detail["data"]["recipients"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["fields"].as_array().unwrap())
            .map(|f| {
                (
                    f["type"].as_str().unwrap(),
                    f["readOnly"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            read_only,
            [
                ("SIGNATURE", false),
                ("TEXT", true),
                ("TEXT", false),
                ("SIGNATURE", false)
            ],
            "{detail}"
        );
        let (_, trail) = app.get(&format!("/documents/{doc}/audit"), &key).await;
        assert!(
            trail["data"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["message"]
                    .as_str()
                    .unwrap()
                    .ends_with("2 recipients, 4 fields, 2 prefilled")),
            "{trail}"
        );
        docs.push(doc);
    }

    let links = invitations(&mailbox, 6).await;
    for (n, (rent, company, changed)) in leases.iter().enumerate() {
        let landlord = &links[&format!("landlord{n}@example.com")];
        let opened = session(&app, landlord).await;
        let rent_field = of_type(&opened, "TEXT");
        assert_eq!(
            (&rent_field["readOnly"], &rent_field["value"]),
            (&json!(true), &json!(rent))
        );
        // The page draws the rent with its value, not as something to fill.
        let page = app
            .client
            .get(landlord)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let drawn = &page_data(&page)["fields"];
        assert_eq!(drawn[1]["readOnly"], true, "{drawn}");
        assert_eq!(drawn[1]["value"], json!(rent), "{drawn}");
        assert_eq!(page_data(&page)["progress"][0], "0 of 1 field completed");
        consent(&app, landlord).await;
        let signature = &of_type(&opened, "SIGNATURE")["id"];
        // The rent is not the landlord's to send: 400 naming it, nothing recorded.
        let refused = submit(
            &app,
            landlord,
            &[(signature, "Landlord"), (&rent_field["id"], "EUR 1")],
        )
        .await;
        assert_eq!(refused.0, 400, "{}", refused.1);
        assert_eq!(named(&refused.1), ["fields[1].id"], "{}", refused.1);
        assert!(
            refused.1["errors"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("read-only")
        );
        let again = session(&app, landlord).await;
        assert_eq!(again["recipient"]["status"], "VIEWED");
        assert_eq!(of_type(&again, "TEXT")["value"], json!(rent));
        let (status, body) = submit(&app, landlord, &[(signature, &format!("Landlord {n}"))]).await;
        assert_eq!(status, 200, "{body}");

        let tenant = &links[&format!("tenant{n}@example.com")];
        let opened = session(&app, tenant).await;
        let company_field = of_type(&opened, "TEXT");
        assert_eq!(
            (&company_field["readOnly"], &company_field["value"]),
            (&json!(false), &json!(company))
        );
        consent(&app, tenant).await;
        let signature = &of_type(&opened, "SIGNATURE")["id"];
        // An editable field is the signer's to give, prefilled or not.
        let refused = submit(&app, tenant, &[(signature, "Tenant")]).await;
        assert_eq!(refused.0, 400, "{}", refused.1);
        assert_eq!(named(&refused.1), ["fields"], "{}", refused.1);
        let value = changed.unwrap_or(company);
        let (status, body) = submit(
            &app,
            tenant,
            &[
                (&company_field["id"], value),
                (signature, &format!("Tenant {n}")),
            ],
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }

    let texts = final_texts(&app, &key, &docs).await;
    for (n, (text, (rent, company, changed))) in texts.iter().zip(&leases).enumerate() {
        assert!(
            text.contains(rent.as_str()),
            "lease {n} lacks its rent {rent}:\n{text}"
        );
        let company = changed.map(str::to_owned).unwrap_or(company.clone());
        assert!(
            text.contains(&company),
            "lease {n} lacks {company}:\n{text}"
        );
        if changed.is_some() {
            assert!(
                !text.contains(&leases[n].1),
                "the tenant's own value replaced the prefilled one:\n{text}"
            );
        }
        for (m, (other_rent, other_company, _)) in
            leases.iter().enumerate().filter(|(m, _)| *m != n)
        {
            assert!(
                !text.contains(other_rent.as_str()),
                "lease {n} has lease {m}'s rent:\n{text}"
            );
            assert!(
                !text.contains(other_company.as_str()),
                "lease {n} has lease {m}'s company:\n{text}"
            );
        }
    }
}

/// Each document COMPLETED, its final PDF's text.
async fn final_texts(app: &TestApp, key: &str, docs: &[Uuid]) -> Vec<String> {
    let mut texts = Vec::new();
    for doc in docs {
        let detail = wait_for_status(app, key, *doc, "COMPLETED").await;
        texts.push(pdftotext(&final_pdf(app, &detail).await));
    }
    texts
}

#[tokio::test]
async fn labels_marks_and_values_that_break_a_rule_are_refused_naming_them() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (source, ids) = lease_draft(&app, account, &key).await;
    let rent = ids[&format!("{LANDLORD} TEXT")].clone();
    let signature = ids[&format!("{TENANT} SIGNATURE")].clone();
    let company = ids[&format!("{TENANT} TEXT")].clone();
    let unknown = Uuid::now_v7().to_string();

    for (fields, element) in [
        (
            json!({&unknown: {"label": "Rent"}}),
            format!("fields.{unknown}"),
        ),
        (
            json!({"not-an-id": {"label": "Rent"}}),
            "fields.not-an-id".to_owned(),
        ),
        (
            json!({&rent: {"label": "Rent!"}}),
            format!("fields.{rent}.label"),
        ),
        (
            json!({&rent: {"label": ""}}),
            format!("fields.{rent}.label"),
        ),
        (
            json!({&rent: {"label": "x".repeat(101)}}),
            format!("fields.{rent}.label"),
        ),
        (
            json!({&signature: {"readOnly": true}}),
            format!("fields.{signature}.readOnly"),
        ),
        // Two fields given one label: the later in the document is named.
        (
            json!({&rent: {"label": "Terms"}, &company: {"label": "Terms"}}),
            format!("fields.{company}.label"),
        ),
        // A label given that another field takes by default.
        (
            json!({&rent: {"label": "Tenant.signature.1"}}),
            format!("fields.{rent}.label"),
        ),
    ] {
        let body = json!({"documentId": source, "roles": {LANDLORD: "Landlord", TENANT: "Tenant"},
            "fields": fields});
        let (status, answer) = app.post("/templates", &key, &body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(
            answer["message"],
            "Invalid request body or validation error"
        );
        assert_eq!(named(&answer), [element.as_str()], "{answer}");
        assert_eq!(count(&app, "templates", account).await, 0, "{answer}");
    }

    let template = lease_template(&app, &key, source, &ids).await;
    let path = format!("/templates/{template}/documents");
    let roles = json!({
        "Landlord": {"name": "L", "email": "l@example.com"},
        "Tenant": {"name": "T", "email": "t@example.com"},
    });
    for (values, element, reason) in [
        (
            json!({"Rent": "100", "Nope": "x"}),
            "values.Nope",
            "not a field label",
        ),
        (
            json!({"Rent": "100", "Tenant.signature.1": "Tenant"}),
            "values.Tenant.signature.1",
            "only a field that takes a value",
        ),
        (json!({"Company": "Acme"}), "values.Rent", "required"),
        (json!({"Rent": "   "}), "values.Rent", "must not be empty"),
        (
            json!({"Rent": "100", "Company": "a\u{7}b"}),
            "values.Company",
            "control characters",
        ),
        (
            json!({"Rent": "x".repeat(1001)}),
            "values.Rent",
            "at most 1000 characters",
        ),
    ] {
        let body = json!({"roles": roles, "values": values, "send": true, "message": "Sign.",
            "expiryDate": "2099-01-01T00:00:00Z"});
        let (status, answer) = app.post(&path, &key, &body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(named(&answer), [element], "{answer}");
        let said = answer["errors"][0]["reason"].as_str().unwrap();
        assert!(said.contains(reason), "{element}: {said}");
        // Only the source draft.
        assert_eq!(count(&app, "documents", account).await, 1, "{answer}");
    }
    // No values at all: the read-only field is still named.
    let (status, answer) = app.post(&path, &key, &json!({"roles": roles})).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(named(&answer), ["values.Rent"], "{answer}");

    // A DRAFT made with values keeps them; a template made from it keeps Rent read-only.
    let body = json!({"roles": roles, "values": {"Rent": " EUR 900 ", "Company": "Acme"}});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 200, "{answer}");
    let made: Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
    let stored: Vec<(String, Option<String>, bool)> = sqlx::query_as(
        "SELECT type, value, read_only FROM fields WHERE document_id = $1 ORDER BY created_at",
    )
    .bind(made)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        stored,
        [
            ("SIGNATURE".to_owned(), None, false),
            ("TEXT".to_owned(), Some("EUR 900".to_owned()), true),
            ("TEXT".to_owned(), Some("Acme".to_owned()), false),
            ("SIGNATURE".to_owned(), None, false),
        ]
    );
    let (status, again) = app
        .post("/templates", &key, &json!({"documentId": made}))
        .await;
    assert_eq!(status, 200, "{again}");
    let (_, detail) = app
        .get(
            &format!("/templates/{}", again["data"]["id"].as_str().unwrap()),
            &key,
        )
        .await;
    assert_eq!(
        detail["data"]["roles"][0]["fields"][1]["readOnly"], true,
        "{detail}"
    );
}

/// The signing page in a real browser (tests/browser/signing.mjs): the read-only rent drawn
/// with its value and left out of the guide, the editable company shown filled and changed.
#[tokio::test]
async fn the_signing_page_draws_read_only_values_and_lets_the_signer_change_editable_ones() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let source = app.document(account, "Lease", &[LETTER]).await;
    let (status, body) = app
        .post(
            &format!("/documents/{source}/recipients"),
            &key,
            &json!([{"name": "Ann Lee", "email": "ann@example.com", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let field = |kind: &str, y: u32| json!({"recipientEmail": "ann@example.com", "type": kind, "page": 1, "x": 72, "y": y, "width": 260, "height": 40});
    let placed = json!([
        field("TEXT", 80),
        field("TEXT", 150),
        field("SIGNATURE", 220)
    ]);
    let (status, body) = app
        .post(&format!("/documents/{source}/fields"), &key, &placed)
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app.get(&format!("/documents/{source}"), &key).await;
    let ids: Vec<&str> = detail["data"]["recipients"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    let body = json!({"documentId": source, "roles": {"ann@example.com": "Tenant"},
        "fields": {ids[0]: {"label": "Rent", "readOnly": true}, ids[1]: {"label": "Company"}}});
    let (status, made) = app.post("/templates", &key, &body).await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap();
    let body = json!({"roles": {"Tenant": {"name": "Ann Lee", "email": "ann@example.com"}},
        "values": {"Rent": "EUR 1,250 a month", "Company": "Acme Ltd"},
        "send": true, "message": "Please sign the lease.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, answer) = app
        .post(&format!("/templates/{template}/documents"), &key, &body)
        .await;
    assert_eq!(status, 200, "{answer}");
    let doc: Uuid = answer["data"]["id"].as_str().unwrap().parse().unwrap();
    let links = invitations(&mailbox, 1).await;

    let english = signet_i18n::Language::English;
    let signers = json!([{
        "name": "ann", "link": links["ann@example.com"], "locale": "en-GB",
        "shot": "09-signing-page-prefilled",
        "kinds": {"SIGNATURE": english.text("sign-field-signature"), "TEXT": english.text("sign-field-text")},
        "values": {"SIGNATURE": "Ann Lee", "TEXT": "Globex Ltd"},
    }]);
    let findings = signet_tests::BrowserScript::new("signing.mjs")
        .env("SIGNERS", signers.to_string())
        .env("SHOTS", signet_tests::screenshots_dir())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");
    let seen = &findings["signers"][0];
    assert_eq!(seen["violations"], json!([]), "{seen}");
    // The rent is drawn with its value, named as the sender's, and is not a button.
    assert_eq!(
        seen["readOnlyShown"],
        json!(["EUR 1,250 a month"]),
        "{seen}"
    );
    let name = seen["readOnlyNames"][0].as_str().unwrap();
    assert!(
        name.contains("EUR 1,250 a month") && name.contains(&english.text("sign-field-read-only")),
        "{name}"
    );
    let names: Vec<&str> = seen["fieldNames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].contains("Acme Ltd"),
        "the company is shown filled: {names:?}"
    );
    // Two fields to fill, the company already filled; the guide goes to the signature first.
    let progress = |done: usize| {
        english.format(
            "sign-progress",
            &[("done", done.into()), ("total", 2.into())],
        )
    };
    assert_eq!(seen["progressBefore"], progress(1));
    assert_eq!(seen["progressAfter"], progress(2));
    assert_eq!(seen["focusAfterConsent"], names[1]);
    assert_eq!(seen["emptyErrors"].as_array().unwrap().len(), 1, "{seen}");
    assert_eq!(seen["fieldsAfterSigning"], 0);

    let values: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT type, value FROM fields WHERE document_id = $1 ORDER BY y")
            .bind(doc)
            .fetch_all(&app.db.pool)
            .await
            .unwrap();
    let values: Vec<(&str, Option<&str>)> = values
        .iter()
        .map(|(t, v)| (t.as_str(), v.as_deref()))
        .collect();
    assert_eq!(
        values,
        [
            ("TEXT", Some("EUR 1,250 a month")),
            ("TEXT", Some("Globex Ltd")),
            ("SIGNATURE", Some("Ann Lee")),
        ]
    );
}
