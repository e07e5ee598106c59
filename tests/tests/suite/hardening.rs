//! Issue #29's smaller hardening items, each against the real router, the real worker binary and
//! a real PostgreSQL: a webhook host name's internal address is not told to the account owner;
//! an SMS delivery report records nothing untrusted and never makes the provider retry; a
//! missing or repeated signature on a signed URL answers as a wrong one; an `Idempotency-Key`
//! tells requests apart by their `Content-Type`; signed file links are served with `nosniff`.

use std::time::Duration;

use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use signet_tests::{
    LETTER, Mailbox, SmsProvider, TestApp, WorkerProcess, assert_error, eventually, read,
};
use uuid::Uuid;

use crate::{console::Browser, signing_flow::send_document, webhooks::account_with_webhook};

/// The addresses `localhost` may resolve to, none of which an account owner may be told.
const LOOPBACK_ADDRESSES: [&str; 2] = ["127.0.0.1", "::1"];

#[tokio::test]
async fn a_webhook_host_on_an_internal_address_is_refused_without_naming_the_address() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let hook = "http://localhost:9/hooks";
    let (account, key, _) = account_with_webhook(&app, hook).await;

    // Set in the console: refused with the rule, not with the address the name resolves to.
    let mut browser = Browser::signed_in_as(&app, account).await;
    let csrf = browser.get("/app/settings/api").await.csrf();
    let refused = browser
        .post(
            "/app/settings/api/webhook",
            &[("csrf", &csrf), ("url", hook)],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused
            .body
            .contains("resolves to a private, loopback, link-local or otherwise internal address"),
        "{}",
        refused.body
    );
    for address in LOOPBACK_ADDRESSES {
        assert!(!refused.body.contains(address), "{}", refused.body);
    }
    // An address written in the URL is the caller's own: it may be named.
    let literal = browser
        .post(
            "/app/settings/api/webhook",
            &[("csrf", &csrf), ("url", "http://10.1.2.3/hooks")],
        )
        .await;
    assert_eq!(literal.status, StatusCode::BAD_REQUEST);
    assert!(
        literal.body.contains("resolves to 10.1.2.3"),
        "{}",
        literal.body
    );

    // At delivery (the URL was stored before the guard could see it): the delivery log the
    // owner reads says why, without the address; the operator's log has it.
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_RETRY_SCHEDULE", "1")]);
    send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER")],
        &[("ann@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let pool = &app.db.pool;
    let error: String = eventually(
        "an attempt to be made and refused",
        Duration::from_secs(60),
        || async move {
            sqlx::query_scalar::<_, Option<String>>(
                "SELECT error FROM webhook_attempts ORDER BY attempt LIMIT 1",
            )
            .fetch_optional(pool)
            .await
            .unwrap()
            .flatten()
        },
    )
    .await;
    assert!(error.contains("internal address"), "{error}");
    for address in LOOPBACK_ADDRESSES {
        assert!(!error.contains(address), "{error}");
    }
    assert!(
        worker
            .wait_for_log("refused to dial a host that resolves to an internal address")
            .await
            .contains("localhost")
    );
}

/// An API and a worker that text through a Twilio-shaped provider on loopback; an invitation
/// to Ann (who has a number) sent and handed to the provider.
struct Invited {
    app: TestApp,
    provider: SmsProvider,
    _worker: WorkerProcess,
    _mailbox: Mailbox,
    key: String,
    doc: Uuid,
    sms_id: Uuid,
    message: signet_tests::Texted,
}

impl Invited {
    async fn start() -> Self {
        let provider = SmsProvider::start().await;
        let settings = provider.settings();
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let app = TestApp::spawn_with(&settings).await;
        let mailbox = Mailbox::start().await;
        let worker = WorkerProcess::start(&app, &mailbox.url(), &settings);
        let (account, key) = app.account(1000).await;
        let doc = app.document(account, "Lease", &[LETTER]).await;
        let ann = json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER",
                          "countryCode": "+44", "phoneNumber": "07911 123456"}]);
        let field = json!([{"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1,
                            "x": 72, "y": 80, "width": 200, "height": 40}]);
        for (path, body) in [
            (format!("/documents/{doc}/recipients"), ann),
            (format!("/documents/{doc}/fields"), field),
            (
                format!("/documents/{doc}/send"),
                json!({"message": "Please sign.", "description": "",
                       "expiryDate": "2099-01-01T00:00:00Z"}),
            ),
        ] {
            let (status, body) = app.post(&path, &key, &body).await;
            assert_eq!(status, 200, "{path}: {body}");
        }
        let pool = &app.db.pool;
        let sms_id: Uuid = eventually(
            "the invitation SMS to be sent",
            Duration::from_secs(60),
            || async move {
                sqlx::query_scalar(
                    "SELECT id FROM outbound_sms WHERE document_id = $1 AND status = 'SENT'",
                )
                .bind(doc)
                .fetch_optional(pool)
                .await
                .unwrap()
            },
        )
        .await;
        let message = provider.accepted().pop().expect("the provider accepted it");
        Self {
            app,
            provider,
            _worker: worker,
            _mailbox: mailbox,
            key,
            doc,
            sms_id,
            message,
        }
    }

    fn callback(&self) -> String {
        self.message
            .status_callback
            .clone()
            .expect("a status callback URL")
    }

    /// Posts a delivery report to `url`; its status and body.
    async fn post(&self, url: &str, form: &[(&str, &str)]) -> (u16, String) {
        let response = self.app.client.post(url).form(form).send().await.unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    }

    async fn row(&self) -> (String, Option<String>) {
        sqlx::query_as("SELECT status, last_error FROM outbound_sms WHERE id = $1")
            .bind(self.sms_id)
            .fetch_one(&self.app.db.pool)
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn an_sms_delivery_report_records_nothing_untrusted_and_is_never_retried() {
    let texted = Invited::start().await;
    let callback = texted.callback();
    let sid = texted.message.sid.clone().expect("the provider's sid");

    // A MessageSid no provider sends: refused with a 400 (not retried), nothing recorded.
    let (status, body) = texted
        .post(
            &callback,
            &[("MessageSid", "SM\u{0}1"), ("MessageStatus", "undelivered")],
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["errors"][0]["field"], "MessageSid", "{body}");
    assert_eq!(texted.row().await.0, "SENT");

    // An ErrorCode that is not a number (a NUL once made this a 500, which the provider
    // retries): a 204, and the failure recorded with an unknown error code.
    let (status, body) = texted
        .post(
            &callback,
            &[
                ("MessageSid", sid.as_str()),
                ("MessageStatus", "Undelivered"),
                ("ErrorCode", "300\u{0}3<b>"),
            ],
        )
        .await;
    assert_eq!(status, 204, "{body}");
    let expected = "the provider reported it undelivered (an unknown error code)";
    assert_eq!(
        texted.row().await,
        ("FAILED".to_owned(), Some(expected.to_owned()))
    );
    let (status, trail) = texted
        .app
        .get(&format!("/documents/{}/audit", texted.doc), &texted.key)
        .await;
    assert_eq!(status, 200, "{trail}");
    let failure = trail["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["message"].as_str())
        .find(|message| message.contains("could not be delivered"))
        .expect("the failure is in the audit trail")
        .to_owned();
    assert!(failure.ends_with(expected), "{failure}");
    assert_eq!(texted.provider.requests().len(), 1, "texted once");
}

#[tokio::test]
async fn a_missing_or_repeated_signature_is_answered_as_a_wrong_one() {
    let texted = Invited::start().await;
    let app = &texted.app;
    let callback = texted.callback();
    let (unsigned, sig) = callback.split_once("?sig=").unwrap();
    let report = [("MessageStatus", "delivered")];

    // The SMS status callback: a bare 404, the body not even read.
    for url in [
        unsigned.to_owned(),
        format!("{unsigned}?sig="),
        format!("{unsigned}?sig={sig}&sig={sig}"),
        format!("{unsigned}?sig=00&sig={sig}"),
        format!("{unsigned}?sig={sig}&sig=00"),
    ] {
        let (status, body) = texted.post(&url, &report).await;
        let body: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{url}: {body}"));
        assert_error(&(status, body), 404, "ERROR", "Not found");
        let unreadable = app
            .client
            .post(&url)
            .header(header::CONTENT_TYPE, "application/json")
            .body("{")
            .send()
            .await
            .unwrap();
        assert_eq!(unreadable.status(), 404, "{url}: before the body is read");
    }
    assert_eq!(texted.row().await.0, "SENT", "no report was taken");
    let (status, _) = texted.post(&callback, &report).await;
    assert_eq!(status, 204);
    assert_eq!(texted.row().await.0, "DELIVERED", "the signed URL works");

    // A signed file link: the documented 403, whichever parameter is missing or repeated.
    let detail = app
        .get(&format!("/documents/{}", texted.doc), &texted.key)
        .await
        .1;
    let link = detail["data"]["filePath"].as_str().unwrap().to_owned();
    let (path, query) = link.split_once('?').unwrap();
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_owned()
    };
    let (expires, sig) = (param("expires"), param("sig"));
    assert_eq!(app.client.get(&link).send().await.unwrap().status(), 200);
    for url in [
        format!("{path}?expires={expires}"),
        format!("{path}?sig={sig}"),
        format!("{path}?expires={expires}&sig="),
        format!("{link}&sig={sig}"),
        format!("{path}?expires={expires}&sig=00&sig={sig}"),
        format!("{link}&expires={expires}"),
    ] {
        let response = app.client.get(&url).send().await.unwrap();
        assert_error(
            &read(response).await,
            403,
            "ERROR",
            "File link is invalid or has expired",
        );
    }
}

/// A POST under the API base path with an `Idempotency-Key` and the given `Content-Type`.
async fn post_as(
    app: &TestApp,
    path: &str,
    api_key: &str,
    idempotency_key: &str,
    content_type: &str,
    body: &str,
) -> (u16, Option<String>, Value) {
    let response = app
        .client
        .post(format!("{}/external/api/v1{path}", app.base))
        .header("X-API-KEY", api_key)
        .header("Idempotency-Key", idempotency_key)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    (status, replayed, body)
}

const ANA: &str = r#"[{"email":"ana@example.com","name":"Ana Souza","role":"SIGNER"}]"#;

#[tokio::test]
async fn an_idempotency_key_tells_requests_apart_by_their_content_type() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Keyed", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");

    let first = post_as(&app, &path, &key, "k-1", "application/json", ANA).await;
    assert_eq!(first.0, 200, "{}", first.2);
    // The same bytes as another type are another request (this one would be refused).
    let other = post_as(&app, &path, &key, "k-1", "text/plain", ANA).await;
    assert_eq!(other.1, None, "not a replay");
    assert_error(
        &(other.0, other.2),
        422,
        "ERROR",
        "This Idempotency-Key was used for a different request",
    );
    // The same type, spelled otherwise, is the same request.
    let again = post_as(&app, &path, &key, "k-1", " Application/JSON ", ANA).await;
    assert_eq!((again.0, again.1.as_deref()), (200, Some("true")));
    assert_eq!(again.2, first.2);

    // A key stored by the release before, whose fingerprint had no Content-Type, still
    // replays to its retry rather than calling it another request.
    let earlier = {
        let mut bytes = format!("POST\0{path}\0").into_bytes();
        bytes.extend_from_slice(ANA.as_bytes()); // already in canonical form
        Sha256::digest(&bytes).to_vec()
    };
    let stored = br#"{"code":"DEFAULT","message":"stored before the upgrade","data":{}}"#;
    sqlx::query(
        "INSERT INTO idempotency_keys (account_id, key, fingerprint, locked_until,
                                       response_status, response_body, expires_at)
         VALUES ($1, 'k-earlier', $2, now(), 200, $3, now() + interval '1 day')",
    )
    .bind(account)
    .bind(&earlier)
    .bind(&stored[..])
    .execute(&app.db.pool)
    .await
    .unwrap();
    let retried = post_as(&app, &path, &key, "k-earlier", "application/json", ANA).await;
    assert_eq!(
        (
            retried.0,
            retried.1.as_deref(),
            retried.2["message"].as_str()
        ),
        (200, Some("true"), Some("stored before the upgrade"))
    );
    let recipients: i64 =
        sqlx::query_scalar("SELECT count(*) FROM recipients WHERE document_id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(recipients, 1, "nothing ran twice");
}

#[tokio::test]
async fn signed_file_links_are_served_with_nosniff() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Sniffed", &[LETTER]).await;
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    let link = detail["data"]["filePath"].as_str().unwrap().to_owned();
    let whole = app.client.get(&link).send().await.unwrap();
    let etag = whole.headers()[header::ETAG].clone();
    let partial = app
        .client
        .get(&link)
        .header(header::RANGE, "bytes=0-9")
        .send()
        .await
        .unwrap();
    let unchanged = app
        .client
        .get(&link)
        .header(header::IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    let refused = app.client.get(format!("{link}0")).send().await.unwrap();
    let api_answer = app
        .call(
            reqwest::Method::GET,
            &format!("/documents/{doc}"),
            Some(&key),
            None,
        )
        .await;
    for (what, response, status) in [
        ("the file", &whole, 200),
        ("a range", &partial, 206),
        ("not modified", &unchanged, 304),
        ("a wrong link", &refused, 403),
        ("an API answer", &api_answer, 200),
    ] {
        assert_eq!(response.status(), status, "{what}");
        assert_eq!(
            response
                .headers()
                .get(header::X_CONTENT_TYPE_OPTIONS)
                .map(|v| v.to_str().unwrap()),
            Some("nosniff"),
            "{what}"
        );
    }
}
