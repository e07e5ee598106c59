//! Embedded signing (issue #34): a recipient marked `embedded` gets no invitation and no
//! reminder; a signing session's URL works once, for a recipient whose turn has come, and
//! binds the session to the browser that opened it (its cookie), under whose pages the signing
//! link's routes answer; only the account's allowed origins may frame the page. The browser
//! side (framing, postMessage, /embed.js) is `browser::embedded_signing_in_an_integrators_page`.

use reqwest::{Method, header};
use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, assert_error, read};
use uuid::Uuid;

const FUTURE: &str = "2099-01-01T00:00:00Z";

/// A SENT document for `recipients` (email, signingOrder, embedded), one SIGNATURE field each,
/// with reminders after a day; returns it and its detail.
async fn sent(
    app: &TestApp,
    account: Uuid,
    key: &str,
    recipients: &[(&str, i64, bool)],
) -> (Uuid, Value) {
    let doc = app.document(account, "Embedded", &[LETTER]).await;
    let people: Vec<Value> = recipients
        .iter()
        .map(|(email, order, embedded)| {
            json!({"name": "Someone", "email": email, "role": "SIGNER", "signingOrder": order, "embedded": embedded})
        })
        .collect();
    let added = app
        .post(&format!("/documents/{doc}/recipients"), key, &json!(people))
        .await;
    assert_eq!(added.0, 200, "{}", added.1);
    let fields: Vec<Value> = recipients
        .iter()
        .enumerate()
        .map(|(i, (email, _, _))| {
            json!({"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 72, "y": 80 + 60 * i, "width": 200, "height": 40})
        })
        .collect();
    let placed = app
        .post(&format!("/documents/{doc}/fields"), key, &json!(fields))
        .await;
    assert_eq!(placed.0, 200, "{}", placed.1);
    let send = json!({"message": "Please sign.", "description": "", "expiryDate": FUTURE,
                      "reminders": {"firstAfterDays": 1, "everyDays": 1}});
    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), key, &send)
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, detail) = app.get(&format!("/documents/{doc}"), key).await;
    (doc, detail["data"].clone())
}

fn recipient_id(detail: &Value, email: &str) -> String {
    detail["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == email)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn put_origins(app: &TestApp, key: &str, origins: Value) -> (u16, Value) {
    let body = json!({ "allowedOrigins": origins });
    read(
        app.call(Method::PUT, "/account/embedding", Some(key), Some(&body))
            .await,
    )
    .await
}

async fn session(
    app: &TestApp,
    key: &str,
    doc: Uuid,
    recipient: &str,
    body: Value,
) -> (u16, Value) {
    app.post(
        &format!("/documents/{doc}/recipients/{recipient}/signing-session"),
        key,
        &body,
    )
    .await
}

/// The cookie a response sets, as `name=value`, and its attributes.
fn set_cookie(response: &reqwest::Response) -> (String, String) {
    let value = response.headers()[header::SET_COOKIE].to_str().unwrap();
    let (pair, attributes) = value.split_once(';').unwrap();
    (pair.to_owned(), attributes.to_owned())
}

#[tokio::test]
async fn embedded_recipients_get_no_invitation_and_no_reminder() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (doc, detail) = sent(
        &app,
        account,
        &key,
        &[("ann@signet.test", 1, true), ("bob@signet.test", 1, false)],
    )
    .await;
    let ann = &detail["recipients"][0];
    let bob = &detail["recipients"][1];
    assert_eq!(
        (ann["embedded"].as_bool(), bob["embedded"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(ann["invitedAt"].is_string(), "Ann's turn has come: {ann}");
    assert!(
        ann["nextReminderAt"].is_null(),
        "no reminder for Ann: {ann}"
    );
    assert!(bob["nextReminderAt"].is_string(), "Bob is reminded: {bob}");

    let emails: Vec<(String, String)> = sqlx::query_as(
        "SELECT r.email, e.kind FROM outbound_emails e JOIN recipients r ON r.id = e.recipient_id
         WHERE r.document_id = $1 ORDER BY r.email",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        emails,
        vec![("bob@signet.test".into(), "INVITATION".into())]
    );
    let (has_link,): (bool,) = sqlx::query_as(
        "SELECT signing_token_hash IS NOT NULL FROM recipients WHERE email = 'ann@signet.test' AND document_id = $1",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert!(!has_link, "an embedded recipient has no signing link");
    let trail = app.get(&format!("/documents/{doc}/audit"), &key).await;
    assert!(
        trail
            .1
            .to_string()
            .contains("Document sent to 2 recipients"),
        "{}",
        trail.1
    );

    // The owner's reminder reaches Bob only.
    let (status, body) = app
        .post(&format!("/documents/{doc}/remind"), &key, &json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["reminded"], json!(["bob@signet.test"]));

    // The default stays as it was: a recipient added without `embedded` is not.
    let other = app.document(account, "Plain", &[LETTER]).await;
    app.post(
        &format!("/documents/{other}/recipients"),
        &key,
        &json!([{"name": "Cy", "email": "cy@signet.test", "role": "SIGNER"}]),
    )
    .await;
    let (_, plain) = app.get(&format!("/documents/{other}"), &key).await;
    assert_eq!(
        plain["data"]["recipients"][0]["embedded"],
        json!(false),
        "{plain}"
    );
    // A value of the wrong type is named.
    let wrong = app
        .post(
            &format!("/documents/{other}/recipients"),
            &key,
            &json!([{"name": "Di", "email": "di@signet.test", "role": "SIGNER", "embedded": "yes"}]),
        )
        .await;
    assert_eq!(wrong.0, 400, "{}", wrong.1);
    assert_eq!(wrong.1["errors"][0]["field"], "[0].embedded", "{}", wrong.1);
}

#[tokio::test]
async fn a_session_is_for_a_recipient_whose_turn_has_come() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;

    // Not sent yet.
    let draft = app.document(account, "Draft", &[LETTER]).await;
    app.post(
        &format!("/documents/{draft}/recipients"),
        &key,
        &json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER"}]),
    )
    .await;
    let (_, detail) = app.get(&format!("/documents/{draft}"), &key).await;
    let in_draft = recipient_id(&detail["data"], "ann@signet.test");
    assert_error(
        &session(&app, &key, draft, &in_draft, json!({})).await,
        409,
        "ERROR",
        "Document is no longer open for signing",
    );

    let (doc, detail) = sent(
        &app,
        account,
        &key,
        &[("ann@signet.test", 1, false), ("bob@signet.test", 2, true)],
    )
    .await;
    let ann = recipient_id(&detail, "ann@signet.test");
    let bob = recipient_id(&detail, "bob@signet.test");
    assert_error(
        &session(&app, &key, doc, &bob, json!({})).await,
        409,
        "ERROR",
        "The recipient's turn has not come: group 2 of the signing order waits until every signer of the earlier groups has signed",
    );
    assert_error(
        &session(&app, &key, doc, &Uuid::new_v4().to_string(), json!({})).await,
        404,
        "ERROR",
        "Recipient not found",
    );
    assert_error(
        &session(&app, &key, doc, "not-a-uuid", json!({})).await,
        404,
        "ERROR",
        "Recipient not found",
    );
    // Another account's document is not found.
    let (_, other_key) = app.account(1000).await;
    assert_error(
        &session(&app, &other_key, doc, &ann, json!({})).await,
        404,
        "ERROR",
        "Document not found",
    );
    let sessions: i64 = sqlx::query_scalar("SELECT count(*) FROM embedded_sessions")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(sessions, 0, "a refusal makes nothing");

    // Ann, in the first group, has a session without any allowed origin: a page for a window.
    let (status, body) = session(&app, &key, doc, &ann, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let url = body["data"]["url"].as_str().unwrap();
    assert!(url.starts_with(&format!("{}/embed/", app.base)), "{url}");
    assert_eq!(body["data"]["documentId"], json!(doc.to_string()));
    assert_eq!(body["data"]["recipientId"], json!(ann));
    assert!(body["data"]["expiresAt"].is_string(), "{body}");

    // Ann signs through it; then Bob's group is invited (no e-mail: he is embedded) and his
    // turn has come, while Ann has signed.
    let opened = app.client.get(url).send().await.unwrap();
    assert_eq!(opened.status(), 303);
    let (cookie, _) = set_cookie(&opened);
    let page = format!(
        "{}{}",
        app.base,
        opened.headers()[header::LOCATION].to_str().unwrap()
    );
    sign_through(&app, &page, &cookie, &detail, "ann@signet.test").await;
    assert_error(
        &session(&app, &key, doc, &ann, json!({})).await,
        409,
        "ERROR",
        "The recipient has already signed this document",
    );
    let (status, body) = session(&app, &key, doc, &bob, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let invitations: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails e JOIN recipients r ON r.id = e.recipient_id
         WHERE r.email = 'bob@signet.test' AND r.document_id = $1",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(invitations, 0);
}

/// Consents and signs `email`'s one SIGNATURE field on the session's page at `page`.
async fn sign_through(app: &TestApp, page: &str, cookie: &str, detail: &Value, email: &str) {
    let field = detail["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == email)
        .unwrap()["fields"][0]["id"]
        .clone();
    let post = |path: &str, body: Value| {
        app.client
            .post(format!("{page}/{path}"))
            .header(header::COOKIE, cookie)
            .json(&body)
            .send()
    };
    let consent = read(post("consent", json!({"language": "en"})).await.unwrap()).await;
    assert_eq!(consent.0, 200, "{}", consent.1);
    let signed = read(
        post(
            "submit",
            json!({"fields": [{"id": field, "value": "Ann Example"}]}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(signed.0, 200, "{}", signed.1);
}

#[tokio::test]
async fn the_url_works_once_and_binds_the_session_to_that_browser() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let origin = "http://localhost:5173";
    assert_eq!(put_origins(&app, &key, json!([origin])).await.0, 200);
    let (doc, detail) = sent(&app, account, &key, &[("ann@signet.test", 1, true)]).await;
    let ann = recipient_id(&detail, "ann@signet.test");
    let (status, body) = session(
        &app,
        &key,
        doc,
        &ann,
        json!({"returnUrl": "http://localhost:5173/done?contract=42"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let url = body["data"]["url"].as_str().unwrap().to_owned();

    let opened = app.client.get(&url).send().await.unwrap();
    assert_eq!(opened.status(), 303);
    let (cookie, attributes) = set_cookie(&opened);
    assert!(cookie.starts_with("signet_embedded="), "{cookie}");
    for attribute in ["HttpOnly", "Secure", "SameSite=None", "Partitioned"] {
        assert!(attributes.contains(attribute), "{attributes}");
    }
    let location = opened.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        attributes.contains(&format!("Path={location}")),
        "{attributes}"
    );
    let page = format!("{}{location}", app.base);

    // The page, in this browser: framed by the allowed origin only, and told whom to tell.
    let shown = app
        .client
        .get(&page)
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), 200);
    let csp = shown.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.ends_with(&format!("frame-ancestors {origin}")), "{csp}");
    assert!(shown.headers().get(header::X_FRAME_OPTIONS).is_none());
    let html = shown.text().await.unwrap();
    assert!(
        html.contains(r#"id="embed-data""#),
        "the page says whom to tell"
    );
    assert!(
        html.contains(&format!(r#""origins":["{origin}"]"#)),
        "{html}"
    );
    assert!(html.contains(r#""returnUrl":"http://localhost:5173/done?contract=42""#));
    assert!(
        html.contains(&format!(r#""base":"{location}""#)),
        "its script posts under the session"
    );

    // Without the cookie (another browser), nothing is shown or answered.
    let elsewhere = app.client.get(&page).send().await.unwrap();
    assert_eq!(elsewhere.status(), 410);
    assert!(
        elsewhere
            .text()
            .await
            .unwrap()
            .contains("This signing session has ended")
    );
    let json = read(
        app.client
            .get(format!("{page}/session"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_error(&json, 404, "ERROR", "Signing link not found");

    // A second use of the URL is refused, in words, and told to the frame's parent.
    let again = app.client.get(&url).send().await.unwrap();
    assert_eq!(again.status(), 410);
    assert!(again.headers().get(header::SET_COOKIE).is_none());
    let refused = again.text().await.unwrap();
    assert!(
        refused.contains("This signing link cannot be used again"),
        "{refused}"
    );
    assert!(refused.contains(r#""type":"signet:error""#), "{refused}");
    // An unknown one finds nothing, and may be framed by no one.
    let unknown = app
        .client
        .get(format!("{}/embed/nothing-here", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert!(
        unknown.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .ends_with("frame-ancestors 'none'")
    );

    // The session's JSON routes are the signing link's: Ann signs, VIEWED and SIGNED audited.
    let view = read(
        app.client
            .get(format!("{page}/session"))
            .header(header::COOKIE, &cookie)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(view.0, 200, "{}", view.1);
    assert_eq!(view.1["data"]["recipient"]["email"], "ann@signet.test");
    sign_through(&app, &page, &cookie, &detail, "ann@signet.test").await;
    let (_, trail) = app.get(&format!("/documents/{doc}/audit"), &key).await;
    let events: Vec<&str> = trail["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert!(
        events.contains(&"VIEWED") && events.contains(&"SIGNED"),
        "{events:?}"
    );

    // The browser session ends: the page is refused in that browser too.
    sqlx::query("UPDATE embedded_sessions SET expires_at = now() - interval '1 second'")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let ended = app
        .client
        .get(&page)
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 410);

    // A signing link's page keeps refusing every frame.
    let link = app
        .client
        .get(format!("{}/sign/unknown-token", app.base))
        .send()
        .await
        .unwrap();
    assert!(
        link.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .ends_with("frame-ancestors 'none'")
    );
    assert_eq!(link.headers()[header::X_FRAME_OPTIONS], "DENY");
}

#[tokio::test]
async fn an_expired_url_is_refused() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (doc, detail) = sent(&app, account, &key, &[("ann@signet.test", 1, true)]).await;
    let ann = recipient_id(&detail, "ann@signet.test");
    let (_, body) = session(&app, &key, doc, &ann, json!({})).await;
    let url = body["data"]["url"].as_str().unwrap().to_owned();
    sqlx::query("UPDATE embedded_sessions SET ticket_expires_at = now() - interval '1 second'")
        .execute(&app.db.pool)
        .await
        .unwrap();
    let opened = app.client.get(&url).send().await.unwrap();
    assert_eq!(opened.status(), 410);
    assert!(opened.headers().get(header::SET_COOKIE).is_none());
    let used: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT used_at FROM embedded_sessions")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert!(used.is_none());
}

#[tokio::test]
async fn allowed_origins_and_session_values_are_checked() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (status, body) = read(
        app.call(Method::GET, "/account/embedding", Some(&key), None)
            .await,
    )
    .await;
    assert_eq!(
        (status, &body["data"]),
        (200, &json!({"allowedOrigins": []}))
    );

    let refused = put_origins(
        &app,
        &key,
        json!([
            "https://ok.example.com",
            "http://app.example.com",
            "https://x.example.com/path",
            "*",
            "HTTPS://OK.example.com:443"
        ]),
    )
    .await;
    assert_eq!(refused.0, 400, "{}", refused.1);
    assert_eq!(
        refused.1["message"],
        "Invalid request body or validation error"
    );
    let errors: Vec<(String, String)> = refused.1["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().into(),
                e["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        vec![
            (
                "allowedOrigins[1]".into(),
                "must use https (http only for a loopback host)".into()
            ),
            (
                "allowedOrigins[2]".into(),
                "must be an origin: scheme://host[:port], with no path, query or fragment".into()
            ),
            (
                "allowedOrigins[3]".into(),
                "must be an origin: scheme://host[:port], with no path, query or fragment".into()
            ),
            ("allowedOrigins[4]".into(), "given more than once".into()),
        ]
    );
    let too_many: Vec<String> = (0..21)
        .map(|i| format!("https://a{i}.example.com"))
        .collect();
    let refused = put_origins(&app, &key, json!(too_many)).await;
    assert_eq!(
        refused.1["errors"],
        json!([{"field": "allowedOrigins", "reason": "at most 20 origins"}])
    );
    let refused = put_origins(&app, &key, json!("https://ok.example.com")).await;
    assert_eq!(refused.0, 400, "{}", refused.1);
    let (_, body) = read(
        app.call(Method::GET, "/account/embedding", Some(&key), None)
            .await,
    )
    .await;
    assert_eq!(
        body["data"]["allowedOrigins"],
        json!([]),
        "bad input changes nothing"
    );

    let (status, body) = put_origins(
        &app,
        &key,
        json!(["HTTPS://App.Example.com:443/", "http://127.0.0.1:8080"]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["allowedOrigins"],
        json!(["https://app.example.com", "http://127.0.0.1:8080"])
    );

    let (doc, detail) = sent(&app, account, &key, &[("ann@signet.test", 1, true)]).await;
    let ann = recipient_id(&detail, "ann@signet.test");
    let refused = session(
        &app,
        &key,
        doc,
        &ann,
        json!({"parentOrigin": "https://evil.example.com", "returnUrl": "javascript:alert(1)"}),
    )
    .await;
    assert_eq!(refused.0, 400, "{}", refused.1);
    assert_eq!(
        refused.1["errors"],
        json!([
            {"field": "parentOrigin", "reason": "not one of the account's allowed origins (PUT /account/embedding)"},
            {"field": "returnUrl", "reason": "must be an absolute http or https URL"},
        ])
    );
    let refused = session(
        &app,
        &key,
        doc,
        &ann,
        json!({"parentOrigin": "https://app.example.com", "returnUrl": "http://127.0.0.1:8080/done"}),
    )
    .await;
    assert_eq!(
        refused.1["errors"],
        json!([{"field": "returnUrl", "reason": "must be on parentOrigin https://app.example.com"}])
    );
    let refused = session(
        &app,
        &key,
        doc,
        &ann,
        json!({"returnUrl": "https://elsewhere.example.com/x"}),
    )
    .await;
    assert_eq!(
        refused.1["errors"],
        json!([{"field": "returnUrl", "reason": "its origin https://elsewhere.example.com is not one of the account's allowed origins (PUT /account/embedding)"}])
    );
    let (status, body) = session(
        &app,
        &key,
        doc,
        &ann,
        json!({"parentOrigin": "https://app.example.com", "returnUrl": "https://app.example.com/done"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The parent origin alone frames that session's page.
    let url = body["data"]["url"].as_str().unwrap();
    let opened = app.client.get(url).send().await.unwrap();
    let (cookie, _) = set_cookie(&opened);
    let page = format!(
        "{}{}",
        app.base,
        opened.headers()[header::LOCATION].to_str().unwrap()
    );
    let shown = app
        .client
        .get(&page)
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert!(
        shown.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .ends_with("frame-ancestors https://app.example.com")
    );
}

/// The browser test of issue #34 (tests/browser/embedded.mjs): an integrator's page on another
/// loopback origin embeds the signing page with /embed.js, the signer signs in the frame and the
/// page gets `signet:signed`; a second use of the URL is refused; an origin the account does
/// not allow is refused framing.
#[tokio::test]
async fn an_integrators_page_embeds_signing_in_a_browser() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (doc, detail) = sent(&app, account, &key, &[("ann@signet.test", 1, true)]).await;
    let ann = recipient_id(&detail, "ann@signet.test");

    let findings = signet_tests::BrowserScript::new("embedded.mjs")
        .env("BASE", &app.base)
        .env("KEY", &key)
        .env("DOC", doc.to_string())
        .env("RECIPIENT", &ann)
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    let ids = json!({"documentId": doc.to_string(), "recipientId": ann});
    let typed = |events: &Value| -> Vec<Value> {
        events
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                assert_eq!(
                    (&e["documentId"], &e["recipientId"]),
                    (&ids["documentId"], &ids["recipientId"]),
                    "{e}"
                );
                e["type"].clone()
            })
            .collect()
    };
    assert_eq!(
        typed(&findings["events"]),
        vec![json!("signet:ready"), json!("signet:signed")]
    );
    let frame_url = findings["frameUrl"].as_str().unwrap();
    assert!(
        frame_url.contains("/done?contract=42&event=signed"),
        "{frame_url}"
    );
    let reuse = &findings["reuseEvents"];
    assert_eq!(typed(reuse), vec![json!("signet:error")]);
    assert_eq!(reuse[0]["reason"], "url_used_or_expired");
    assert_eq!(
        findings["reuseText"],
        "This signing link cannot be used again"
    );
    assert!(
        findings["refusedFraming"]
            .as_str()
            .unwrap()
            .contains("frame-ancestors"),
        "{findings}"
    );
    assert_eq!(findings["otherOriginEvents"], json!([]));
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");

    let status: String = sqlx::query_scalar("SELECT status FROM recipients WHERE id = $1")
        .bind(Uuid::parse_str(&ann).unwrap())
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(status, "SIGNED");
}

/// The console's API settings set the same list, one origin per line, and name each refused
/// one by what was typed.
#[tokio::test]
async fn the_console_sets_the_allowed_origins() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mut browser = crate::console::Browser::signed_in_as(&app, account).await;
    let page = browser.get("/app/settings/api").await;
    assert!(page.body.contains("Embedded signing"), "{}", page.body);
    let csrf = page.csrf();

    let refused = browser
        .post(
            "/app/settings/api/embedding",
            &[
                ("csrf", &csrf),
                ("origins", "https://app.example.com\nhttp://app.example.com"),
            ],
        )
        .await;
    assert_eq!(refused.status, reqwest::StatusCode::BAD_REQUEST);
    assert!(
        refused
            .body
            .contains("http://app.example.com: must use https (http only for a loopback host)"),
        "{}",
        refused.body
    );
    let (_, body) = read(
        app.call(Method::GET, "/account/embedding", Some(&key), None)
            .await,
    )
    .await;
    assert_eq!(body["data"]["allowedOrigins"], json!([]));

    let saved = browser
        .post(
            "/app/settings/api/embedding",
            &[
                ("csrf", &csrf),
                (
                    "origins",
                    " https://App.example.com \n\nhttp://localhost:3000\n",
                ),
            ],
        )
        .await;
    assert!(
        saved.body.contains("Embedded signing origins saved."),
        "{}",
        saved.body
    );
    assert!(
        saved
            .body
            .contains("https://app.example.com\nhttp://localhost:3000</textarea>"),
        "{}",
        saved.body
    );
    let (_, body) = read(
        app.call(Method::GET, "/account/embedding", Some(&key), None)
            .await,
    )
    .await;
    assert_eq!(
        body["data"]["allowedOrigins"],
        json!(["https://app.example.com", "http://localhost:3000"])
    );
}

/// Signer authentication applies inside an embedded session too: a recipient with an access
/// code sees the code form (framed, told to the parent), and the session and every action
/// refuse, until the code is given on the session's own path; the pass then comes as a cookie
/// with the session cookie's attributes (sent from a frame on another site), and is needed
/// with it.
#[tokio::test]
async fn an_embedded_session_asks_for_the_recipients_access_code_first() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let origin = "http://localhost:5173";
    assert_eq!(put_origins(&app, &key, json!([origin])).await.0, 200);
    let doc = app.document(account, "Confidential terms", &[LETTER]).await;
    let ann = json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER", "embedded": true,
        "authentication": {"method": "ACCESS_CODE", "accessCode": "blue-harbour-42"}}]);
    let added = app
        .post(&format!("/documents/{doc}/recipients"), &key, &ann)
        .await;
    assert_eq!(added.0, 200, "{}", added.1);
    let field = json!([{"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1,
        "x": 72, "y": 80, "width": 200, "height": 40}]);
    let placed = app
        .post(&format!("/documents/{doc}/fields"), &key, &field)
        .await;
    assert_eq!(placed.0, 200, "{}", placed.1);
    let send = json!({"message": "Please sign.", "description": "", "expiryDate": FUTURE});
    let sent = app
        .post(&format!("/documents/{doc}/send"), &key, &send)
        .await;
    assert_eq!(sent.0, 200, "{}", sent.1);
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let detail = detail["data"].clone();
    let ann = recipient_id(&detail, "ann@signet.test");

    let (status, body) = session(&app, &key, doc, &ann, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let opened = app
        .client
        .get(body["data"]["url"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(opened.status(), 303);
    let (embedded_cookie, _) = set_cookie(&opened);
    let location = opened.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_owned();
    let page = format!("{}{location}", app.base);
    let call = |method: Method, path: &str, cookie: &str, body: Option<Value>| {
        let mut request = app
            .client
            .request(method, format!("{page}{path}"))
            .header(header::COOKIE, cookie);
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send()
    };

    // The page is the code form, framed by the allowed origin, posting under the session, and
    // nothing of the document.
    let shown = call(Method::GET, "", &embedded_cookie, None).await.unwrap();
    assert_eq!(shown.status(), 401);
    let csp = shown.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.ends_with(&format!("frame-ancestors {origin}")), "{csp}");
    let html = shown.text().await.unwrap();
    for expected in [
        r#"id="auth-form""#,
        &format!(r#""base":"{location}""#),
        r#""authentication":"ACCESS_CODE""#,
        r#""type":"signet:ready""#,
    ] {
        assert!(html.contains(expected), "{expected} in {html}");
    }
    for secret in [
        "Confidential terms",
        "Please sign.",
        "signing-data",
        "/files/",
    ] {
        assert!(!html.contains(secret), "{secret} in {html}");
    }

    // The session and the actions refuse; no code is sent for an access code.
    let refused = read(
        call(Method::GET, "/session", &embedded_cookie, None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused.0, 401, "{}", refused.1);
    assert_eq!(
        refused.1["code"], "AUTHENTICATION_REQUIRED",
        "{}",
        refused.1
    );
    assert_eq!(
        refused.1["data"],
        json!({"method": "ACCESS_CODE"}),
        "{}",
        refused.1
    );
    let consent = Some(json!({"language": "en"}));
    let refused = read(
        call(Method::POST, "/consent", &embedded_cookie, consent)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused.0, 401, "{}", refused.1);
    let not_sent = read(
        call(
            Method::POST,
            "/auth/send",
            &embedded_cookie,
            Some(json!({})),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(not_sent.0, 400, "{}", not_sent.1);

    // A wrong code is counted; the right one without the session's cookie finds no one.
    let wrong = Some(json!({"code": "not-the-code"}));
    let wrong = read(
        call(Method::POST, "/auth", &embedded_cookie, wrong)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(wrong.0, 400, "{}", wrong.1);
    assert_eq!(wrong.1["errors"][0]["field"], "code", "{}", wrong.1);
    let right = Some(json!({"code": "blue-harbour-42"}));
    let stranger = read(
        call(Method::POST, "/auth", "", right.clone())
            .await
            .unwrap(),
    )
    .await;
    assert_error(&stranger, 404, "ERROR", "Signing link not found");

    // The right code on the session's path: the pass, with the session cookie's attributes.
    let passed = call(Method::POST, "/auth", &embedded_cookie, right)
        .await
        .unwrap();
    assert_eq!(passed.status(), 200);
    let (pass_cookie, attributes) = set_cookie(&passed);
    assert!(
        pass_cookie.starts_with("signet_signer_pass="),
        "{pass_cookie}"
    );
    for attribute in [
        "HttpOnly",
        "Secure",
        "SameSite=None",
        "Partitioned",
        &format!("Path={location}"),
    ] {
        assert!(
            attributes.contains(attribute),
            "{attribute} in {attributes}"
        );
    }
    assert!(!attributes.contains("SameSite=Strict"), "{attributes}");

    // The session cookie alone is still refused; with the pass, the document opens and Ann
    // signs; the trail says she passed.
    let alone = read(
        call(Method::GET, "/session", &embedded_cookie, None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(alone.0, 401, "{}", alone.1);
    let both = format!("{embedded_cookie}; {pass_cookie}");
    let view = read(call(Method::GET, "/session", &both, None).await.unwrap()).await;
    assert_eq!(view.0, 200, "{}", view.1);
    assert_eq!(view.1["data"]["recipient"]["email"], "ann@signet.test");
    let shown = call(Method::GET, "", &both, None).await.unwrap();
    assert_eq!(shown.status(), 200);
    assert!(shown.text().await.unwrap().contains("signing-data"));
    sign_through(&app, &page, &both, &detail, "ann@signet.test").await;
    let (_, trail) = app.get(&format!("/documents/{doc}/audit"), &key).await;
    let trail = trail.to_string();
    assert!(trail.contains("passed ACCESS_CODE"), "{trail}");
    assert!(trail.contains("SIGNED"), "{trail}");
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let auth = &detail["data"]["recipients"][0]["authentication"];
    assert_eq!(auth["failedAttempts"], 0, "a right code forgives: {auth}");
    assert!(auth["passedAt"].is_string(), "{auth}");
}
