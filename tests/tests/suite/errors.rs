//! Every row of the error table (DESIGN §3): status, code, message and `data: {}`.

use reqwest::Method;
use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, assert_error, read};
use uuid::Uuid;

pub(crate) const INVALID: &str = "Invalid request body or validation error";

fn signer(email: &str) -> Value {
    json!({"name": "Sam Signer", "email": email, "role": "SIGNER"})
}

fn field(email: &str, page: i64, x: f64, y: f64) -> Value {
    json!({"recipientEmail": email, "type": "SIGNATURE", "page": page, "x": x, "y": y})
}

fn send_body(expiry: &str) -> Value {
    json!({"message": "Please sign", "description": "Q3 contract", "expiryDate": expiry})
}

async fn counts(app: &TestApp, doc: Uuid) -> (i64, i64, i64) {
    sqlx::query_as(
        "SELECT (SELECT count(*) FROM recipients WHERE document_id = $1),
                (SELECT count(*) FROM fields WHERE document_id = $1),
                (SELECT count(*) FROM audit_entries WHERE document_id = $1)",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn bad_bodies_are_refused_and_change_nothing() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    let before = counts(&app, doc).await;

    let raw = |body: &'static str, content_type: &'static str| {
        let app = &app;
        let path = path.clone();
        let key = key.clone();
        async move {
            read(
                app.client
                    .post(format!("{}/external/api/v1{path}", app.base))
                    .header("x-api-key", key)
                    .header("content-type", content_type)
                    .body(body)
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    // Not JSON, trailing garbage, wrong content type.
    assert_error(&raw("[{", "application/json").await, 400, "ERROR", INVALID);
    assert_error(
        &raw("[] []", "application/json").await,
        400,
        "ERROR",
        INVALID,
    );
    assert_error(
        &raw(
            r#"[{"name":"A","email":"a@b.co","role":"SIGNER"}]"#,
            "text/plain",
        )
        .await,
        400,
        "ERROR",
        INVALID,
    );
    // Serde's failures read as the validator's do, the field named (the message unchanged).
    for (body, field, reason) in [
        (
            json!({"name": "A", "email": "a@b.co", "role": "SIGNER"}),
            "",
            "must be an array",
        ),
        (
            json!([{"name": 5, "email": "a@b.co", "role": "SIGNER"}]),
            "[0].name",
            "must be a string",
        ),
        (
            json!([{"name": "A", "role": "SIGNER"}]),
            "[0].email",
            "is required",
        ),
        (
            json!([{"name": "A", "email": "a@b.co", "role": "OWNER"}]),
            "[0].role",
            "must be one of SIGNER, VIEWER",
        ),
    ] {
        let response = app.post(&path, &key, &body).await;
        assert_error(&response, 400, "ERROR", INVALID);
        assert_eq!(
            response.1["errors"],
            json!([{"field": field, "reason": reason}]),
            "{body}"
        );
    }
    for body in [
        json!({"name": "A", "email": "a@b.co", "role": "SIGNER"}), // object, not array
        json!([{"name": 5, "email": "a@b.co", "role": "SIGNER"}]), // wrong type
        json!([{"name": "A", "role": "SIGNER"}]),                  // missing required
        json!([{"name": "A", "email": "a@b.co", "role": "OWNER"}]), // bad enum
        json!([{"name": "A", "email": "a@b.co", "role": "signer"}]), // enums are exact
        json!([]),                                                 // empty array
        json!([{"name": "A", "email": "not-an-email", "role": "SIGNER"}]),
        json!([{"name": " ", "email": "a@b.co", "role": "SIGNER"}]),
        json!([{"name": "A", "email": "a@b.co", "role": "SIGNER", "countryCode": "44"}]),
        json!([{"name": "x".repeat(201), "email": "a@b.co", "role": "SIGNER"}]),
        Value::Array((0..101).map(|i| signer(&format!("s{i}@b.co"))).collect()),
    ] {
        let response = app.post(&path, &key, &body).await;
        assert_error(&response, 400, "ERROR", INVALID);
        assert!(
            response.1["errors"].is_array(),
            "400s explain themselves: {}",
            response.1
        );
    }
    assert_eq!(
        counts(&app, doc).await,
        before,
        "refused bodies change nothing"
    );

    // Unknown properties are ignored.
    let mut extra = signer("ok@b.co");
    extra["nickname"] = json!("Sammy");
    assert_eq!(app.post(&path, &key, &json!([extra])).await.0, 200);
}

#[tokio::test]
async fn body_over_one_mebibyte_is_413() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let big = json!([{"name": "x".repeat(1024 * 1024), "email": "a@b.co", "role": "SIGNER"}]);
    let response = app
        .post(&format!("/documents/{doc}/recipients"), &key, &big)
        .await;
    assert_error(&response, 413, "ERROR", "Request body too large");
}

#[tokio::test]
async fn unknown_foreign_and_malformed_documents_are_404() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    let (other_account, _) = app.account(1000).await;
    let foreign = app.document(other_account, "Theirs", &[LETTER]).await;
    for id in [
        Uuid::now_v7().to_string(),
        foreign.to_string(),
        "not-a-uuid".into(),
    ] {
        assert_error(
            &app.post(
                &format!("/documents/{id}/recipients"),
                &key,
                &json!([signer("a@b.co")]),
            )
            .await,
            404,
            "ERROR",
            "Document not found",
        );
        assert_error(
            &app.get(&format!("/documents/{id}"), &key).await,
            404,
            "ERROR",
            "Document not found",
        );
    }
}

#[tokio::test]
async fn recipient_rules() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    assert_eq!(
        app.post(&path, &key, &json!([signer("ann@b.co")])).await.0,
        200
    );
    let duplicate = "Recipient with this email already exists";
    // Already on the document (case-insensitive) and twice in one request.
    assert_error(
        &app.post(&path, &key, &json!([signer("ANN@b.co")])).await,
        400,
        "ERROR",
        duplicate,
    );
    assert_error(
        &app.post(&path, &key, &json!([signer("x@b.co"), signer("X@B.CO")]))
            .await,
        400,
        "ERROR",
        duplicate,
    );
    assert_eq!(counts(&app, doc).await.0, 1);
}

#[tokio::test]
async fn field_rules() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app
        .document(account, "Contract", &[LETTER, (842.0, 595.0)])
        .await;
    app.post(
        &format!("/documents/{doc}/recipients"),
        &key,
        &json!([signer("ann@b.co")]),
    )
    .await;
    let path = format!("/documents/{doc}/fields");
    let before = counts(&app, doc).await;
    assert_error(
        &app.post(&path, &key, &json!([field("nobody@b.co", 1, 0.0, 0.0)]))
            .await,
        400,
        "ERROR",
        "Recipient not found for email: nobody@b.co",
    );
    for page in [0, 3, -1] {
        assert_error(
            &app.post(&path, &key, &json!([field("ann@b.co", page, 0.0, 0.0)]))
                .await,
            400,
            "ERROR",
            &format!("Page {page} is out of range (document has 2 pages)"),
        );
    }
    // Default box 200x50: x 413 + 200 > 612 on page 1; landscape page 2 is 595 high.
    for (page, x, y) in [
        (1, 413.0, 0.0),
        (1, 0.0, 743.0),
        (2, 0.0, 546.0),
        (1, -1.0, 0.0),
    ] {
        assert_error(
            &app.post(&path, &key, &json!([field("ann@b.co", page, x, y)]))
                .await,
            400,
            "ERROR",
            &format!("Field is outside the bounds of page {page}"),
        );
    }
    // One bad field in a batch refuses the whole batch.
    assert_error(
        &app.post(
            &path,
            &key,
            &json!([
                field("ann@b.co", 1, 0.0, 0.0),
                field("ann@b.co", 9, 0.0, 0.0)
            ]),
        )
        .await,
        400,
        "ERROR",
        "Page 9 is out of range (document has 2 pages)",
    );
    for bad in [
        json!([{"recipientEmail": "ann@b.co", "type": "STAMP", "page": 1, "x": 0, "y": 0}]),
        json!([{"recipientEmail": "ann@b.co", "type": "TEXT", "page": "1", "x": 0, "y": 0}]),
        json!([{"recipientEmail": "ann@b.co", "type": "TEXT", "page": 1, "x": 0}]),
        json!([{"recipientEmail": "ann@b.co", "type": "TEXT", "page": 1, "x": 0, "y": 0, "width": 0}]),
        json!([]),
    ] {
        assert_error(&app.post(&path, &key, &bad).await, 400, "ERROR", INVALID);
    }
    assert_eq!(counts(&app, doc).await, before);
    // Exactly at the edges fits: 412 + 200 = 612, 742 + 50 = 792.
    assert_eq!(
        app.post(&path, &key, &json!([field("ann@b.co", 1, 412.0, 742.0)]))
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn send_preconditions_in_order() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let send = format!("/documents/{doc}/send");
    let future = "2099-01-01T00:00:00Z";
    assert_error(
        &app.post(&send, &key, &send_body(future)).await,
        400,
        "ERROR",
        "Document has no recipients",
    );
    app.post(
        &format!("/documents/{doc}/recipients"),
        &key,
        &json!([signer("a@b.co"), signer("b@b.co")]),
    )
    .await;
    app.post(
        &format!("/documents/{doc}/fields"),
        &key,
        &json!([field("a@b.co", 1, 0.0, 0.0)]),
    )
    .await;
    assert_error(
        &app.post(&send, &key, &send_body(future)).await,
        400,
        "ERROR",
        "Every recipient must have at least one field",
    );
    app.post(
        &format!("/documents/{doc}/fields"),
        &key,
        &json!([field("b@b.co", 1, 0.0, 100.0)]),
    )
    .await;
    for past in ["2020-01-01T00:00:00Z", &chrono::Utc::now().to_rfc3339()] {
        assert_error(
            &app.post(&send, &key, &send_body(past)).await,
            400,
            "ERROR",
            "expiryDate must be in the future",
        );
    }
    for bad in [
        json!({"message": "m", "description": "d", "expiryDate": "next week"}),
        json!({"message": "", "description": "d", "expiryDate": future}),
        json!({"description": "d", "expiryDate": future}),
        json!({"message": "m", "expiryDate": future}),
        json!({"message": "m", "description": "d"}),
        json!({"message": "m", "description": "d", "expiryDate": 1_900_000_000}),
        json!([]),
    ] {
        assert_error(&app.post(&send, &key, &bad).await, 400, "ERROR", INVALID);
    }
    let (status, _) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(status, 200);
    let events: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_entries WHERE document_id = $1 AND event = 'SENT'",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(events, 0, "refused sends write nothing");

    // Any offset is accepted and stored as UTC.
    let (status, body) = app
        .post(&send, &key, &send_body("2099-06-30T12:00:00+02:00"))
        .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Document sent successfully"))
    );
    assert_eq!(body["data"], json!({}));
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["status"], "SENT");
    assert_eq!(detail["data"]["expiryDate"], "2099-06-30T10:00:00.000Z");

    // Not DRAFT any more: sending again and adding recipients or fields are refused.
    let not_draft = "Document is not in DRAFT status";
    assert_error(
        &app.post(&send, &key, &send_body(future)).await,
        400,
        "ERROR",
        not_draft,
    );
    assert_error(
        &app.post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([signer("c@b.co")]),
        )
        .await,
        400,
        "ERROR",
        not_draft,
    );
    assert_error(
        &app.post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([field("a@b.co", 1, 0.0, 300.0)]),
        )
        .await,
        400,
        "ERROR",
        not_draft,
    );
}

#[tokio::test]
async fn authentication_usage_routes_and_methods() {
    let app = TestApp::spawn_with(&[("API_USAGE_WINDOW_SECS", "3600")]).await;
    let (_, key) = app.account(2).await;
    let missing = "API key is missing or invalid";
    assert_error(
        &read(app.call(Method::GET, "/documents", None, None).await).await,
        401,
        "UNAUTHENTICATED",
        missing,
    );
    assert_error(
        &read(app.call(Method::GET, "/documents", Some(""), None).await).await,
        401,
        "UNAUTHENTICATED",
        missing,
    );
    assert_error(
        &app.get("/documents", "sk_nope").await,
        401,
        "UNAUTHENTICATED",
        "Invalid API key",
    );
    // Authentication comes before routing: an unknown route without a key is 401.
    assert_error(
        &read(app.call(Method::GET, "/nowhere", None, None).await).await,
        401,
        "UNAUTHENTICATED",
        missing,
    );

    assert_error(&app.get("/nowhere", &key).await, 404, "ERROR", "Not found");
    assert_eq!(app.get("/documents", &key).await.0, 200);
    // The limit of 2 is used up: refused, with Retry-After, and not counted.
    for _ in 0..3 {
        let limited = app.call(Method::GET, "/documents", Some(&key), None).await;
        let retry_after: u64 = limited.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (1..=3600).contains(&retry_after),
            "Retry-After {retry_after}"
        );
        assert_error(
            &read(limited).await,
            429,
            "ERROR",
            "API rate limit exceeded",
        );
    }
    let used: i32 = sqlx::query_scalar("SELECT api_usage_count FROM accounts")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(used, 2);
}

#[tokio::test]
async fn wrong_method_is_405() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    for (method, path) in [
        (Method::DELETE, "/documents".to_owned()),
        (Method::PUT, format!("/documents/{}", Uuid::now_v7())),
        (Method::GET, format!("/documents/{}/send", Uuid::now_v7())),
    ] {
        assert_error(
            &read(app.call(method, &path, Some(&key), None).await).await,
            405,
            "ERROR",
            "Method not allowed",
        );
    }
    // Outside the base path too.
    let response = app
        .client
        .post(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert_error(&read(response).await, 405, "ERROR", "Method not allowed");
    let response = app
        .client
        .get(format!("{}/nowhere", app.base))
        .send()
        .await
        .unwrap();
    assert_error(&read(response).await, 404, "ERROR", "Not found");
}

#[tokio::test]
async fn bad_query_parameters_are_named() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1000).await;
    for (query, name, reason) in [
        (
            "page=0",
            "page",
            "must be a whole number from 1 to 2147483647",
        ),
        (
            "page=abc",
            "page",
            "must be a whole number from 1 to 2147483647",
        ),
        ("limit=101", "limit", "must be between 1 and 100"),
        ("limit=0", "limit", "must be between 1 and 100"),
        ("limit=5&limit=6", "limit", "must be given once"),
        (
            "status=DELETED",
            "status",
            "must be one of DRAFT, SENT, COMPLETED, TRASH",
        ),
        (
            "sortBy=size",
            "sortBy",
            "must be one of dateCreated, documentName, dateModified",
        ),
        ("sortOrder=UP", "sortOrder", "must be ASC or DESC"),
        (
            "search=a%07b",
            "search",
            "must not contain control characters",
        ),
    ] {
        let answer = app.get(&format!("/documents?{query}"), &key).await;
        assert_error(
            &answer,
            400,
            "ERROR",
            &format!("Invalid query parameter: {name}"),
        );
        assert_eq!(
            answer.1["errors"],
            serde_json::json!([{"field": name, "reason": reason}]),
            "{query}"
        );
    }
}

#[tokio::test]
async fn database_outage_is_503() {
    // A server whose database is a closed port.
    let db = signet_tests::TestDb::new().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let app = TestApp::spawn_on(
        db,
        &[(
            "DATABASE_URL",
            &format!("postgres://nobody@127.0.0.1:{port}/none"),
        )],
    )
    .await;
    assert_error(
        &app.get("/documents", "sk_whatever").await,
        503,
        "ERROR",
        "Service unavailable",
    );
    let ready = app
        .client
        .get(format!("{}/readyz", app.base))
        .send()
        .await
        .unwrap();
    assert_error(&read(ready).await, 503, "ERROR", "Service unavailable");
    let live = app
        .client
        .get(format!("{}/healthz", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
}

#[tokio::test]
async fn a_panic_is_a_500_envelope() {
    use axum::{Router, routing::get};
    let router: Router = signet_api::app::guard(Router::new().route(
        "/boom",
        get(|| async {
            panic!("handler bug");
            #[allow(unreachable_code)]
            ""
        }),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let response = reqwest::get(format!("http://{addr}/boom")).await.unwrap();
    assert_error(&read(response).await, 500, "ERROR", "Internal server error");
}

/// The `errors` of an answer as `(field, reason)` pairs, in order.
fn problems(answer: &(u16, Value)) -> Vec<(String, String)> {
    answer.1["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no errors: {}", answer.1))
        .iter()
        .map(|p| {
            (
                p["field"].as_str().unwrap().to_owned(),
                p["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(field, reason)| (field.to_string(), reason.to_string()))
        .collect()
}

/// Recipients, fields, audit entries and queued e-mails of the document, and its status.
async fn everything(app: &TestApp, doc: Uuid) -> ((i64, i64, i64), i64, String) {
    let emails: i64 =
        sqlx::query_scalar("SELECT count(*) FROM outbound_emails WHERE document_id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    let status: String = sqlx::query_scalar("SELECT status::text FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    (counts(app, doc).await, emails, status)
}

#[tokio::test]
async fn every_problem_of_a_send_is_answered_at_once() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    app.post(
        &format!("/documents/{doc}/recipients"),
        &key,
        &json!([signer("a@b.co"), signer("b@b.co"), signer("c@b.co")]),
    )
    .await;
    app.post(
        &format!("/documents/{doc}/fields"),
        &key,
        &json!([field("a@b.co", 1, 0.0, 0.0)]),
    )
    .await;
    let send = format!("/documents/{doc}/send");
    let before = everything(&app, doc).await;

    // Three problems of the body, one of them a property serde could not read.
    let answer = app
        .post(
            &send,
            &key,
            &json!({"message": " ", "description": 5, "expiryDate": "2030-01-31"}),
        )
        .await;
    assert_error(&answer, 400, "ERROR", INVALID);
    let rfc3339 = "expected an RFC 3339 timestamp such as 2030-01-31T17:00:00Z";
    assert_eq!(
        problems(&answer),
        pairs(&[
            ("description", "must be a string"),
            ("message", "must not be empty"),
            ("expiryDate", rfc3339),
            ("recipients[1]", "b@b.co has no field"),
            ("recipients[2]", "c@b.co has no field"),
        ]),
        "and what the document lacks, with the body's general message"
    );
    // Every missing property at once, not the first.
    let answer = app.post(&send, &key, &json!({"message": "m"})).await;
    assert_error(&answer, 400, "ERROR", INVALID);
    assert_eq!(
        problems(&answer)[..2],
        pairs(&[
            ("description", "is required"),
            ("expiryDate", "is required")
        ])
    );

    // A well-formed body: the first rule's message, and every recipient without a field named.
    let answer = app
        .post(&send, &key, &send_body("2020-01-01T00:00:00Z"))
        .await;
    assert_error(
        &answer,
        400,
        "ERROR",
        "Every recipient must have at least one field",
    );
    assert_eq!(
        problems(&answer),
        pairs(&[
            ("recipients[1]", "b@b.co has no field"),
            ("recipients[2]", "c@b.co has no field"),
            ("expiryDate", "must be in the future"),
        ])
    );
    assert_eq!(
        everything(&app, doc).await,
        before,
        "refusals change nothing"
    );
}

#[tokio::test]
async fn every_bad_element_is_named_by_its_index() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app
        .document(account, "Contract", &[LETTER, (842.0, 595.0)])
        .await;
    let recipients = format!("/documents/{doc}/recipients");
    app.post(&recipients, &key, &json!([signer("ann@b.co")]))
        .await;
    let before = everything(&app, doc).await;

    let answer = app
        .post(
            &recipients,
            &key,
            &json!([
                {"name": "A", "email": "not-an-email", "role": "SIGNER"},
                signer("ok@b.co"),
                {"email": "c@b.co", "role": "OWNER"},
            ]),
        )
        .await;
    assert_error(&answer, 400, "ERROR", INVALID);
    let mut found = problems(&answer);
    found.sort();
    assert_eq!(
        found,
        pairs(&[
            ("[0].email", "not a valid e-mail address"),
            ("[2].name", "is required"),
            ("[2].role", "must be one of SIGNER, VIEWER"),
        ])
    );

    // Duplicates name their e-mail: on the document already, and twice in the request.
    let answer = app
        .post(
            &recipients,
            &key,
            &json!([signer("ANN@b.co"), signer("x@b.co"), signer("X@B.CO")]),
        )
        .await;
    assert_error(
        &answer,
        400,
        "ERROR",
        "Recipient with this email already exists",
    );
    assert_eq!(
        problems(&answer),
        pairs(&[
            (
                "[2].email",
                "X@B.CO is given more than once in this request (also [1].email)"
            ),
            (
                "[0].email",
                "ANN@b.co is already a recipient of this document"
            ),
        ])
    );

    // Fields: each element that breaks a rule of the document, with the first one's message.
    let fields = format!("/documents/{doc}/fields");
    let batch = json!([
        field("nobody@b.co", 1, 0.0, 0.0),
        field("ann@b.co", 1, 0.0, 0.0),
        field("ann@b.co", 9, 0.0, 0.0),
        field("ann@b.co", 2, 0.0, 546.0),
    ]);
    let answer = app.post(&fields, &key, &batch).await;
    assert_error(
        &answer,
        400,
        "ERROR",
        "Recipient not found for email: nobody@b.co",
    );
    assert_eq!(
        problems(&answer),
        pairs(&[
            (
                "[0].recipientEmail",
                "Recipient not found for email: nobody@b.co"
            ),
            ("[2].page", "Page 9 is out of range (document has 2 pages)"),
            ("[3]", "Field is outside the bounds of page 2"),
        ])
    );
    // With a value of the body wrong too, the body's message, and still every problem.
    let mut batch = batch;
    batch[1]["width"] = json!(0);
    batch[1]["y"] = json!("top");
    let answer = app.post(&fields, &key, &batch).await;
    assert_error(&answer, 400, "ERROR", INVALID);
    assert_eq!(
        problems(&answer),
        pairs(&[
            ("[1].y", "must be a number"),
            ("[1].width", "must be greater than 0"),
            (
                "[0].recipientEmail",
                "Recipient not found for email: nobody@b.co"
            ),
            ("[2].page", "Page 9 is out of range (document has 2 pages)"),
            ("[3]", "Field is outside the bounds of page 2"),
        ])
    );
    assert_eq!(
        everything(&app, doc).await,
        before,
        "refusals change nothing"
    );
}
