//! `Idempotency-Key` on the external API's POSTs: a retried write has one effect and gets the
//! first answer again; a key reused for another request, or still in flight, is refused.

use futures::future::join_all;
use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, assert_error, read};
use uuid::Uuid;

/// A POST under the API base path with an `Idempotency-Key`; returns status, the
/// `Idempotent-Replayed` header and the body.
pub(crate) async fn post_with_key(
    app: &TestApp,
    path: &str,
    api_key: &str,
    idempotency_key: &str,
    body: &str,
) -> (u16, Option<String>, Value) {
    let response = app
        .client
        .post(format!("{}/external/api/v1{path}", app.base))
        .header("X-API-KEY", api_key)
        .header("Idempotency-Key", idempotency_key)
        .header("Content-Type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("request");
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    (status, replayed, body)
}

async fn count(app: &TestApp, sql: &'static str, document: Uuid) -> i64 {
    sqlx::query_scalar(sql)
        .bind(document)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

/// How many fields the document has.
async fn fields_on(app: &TestApp, document: Uuid) -> i64 {
    count(
        app,
        "SELECT count(*) FROM fields WHERE document_id = $1",
        document,
    )
    .await
}

const RECIPIENTS: &str = r#"[{"email":"ana@example.com","name":"Ana Souza","role":"SIGNER"}]"#;
const FIELDS: &str = r#"[{"type":"SIGNATURE","page":1,"x":50,"y":50,"width":120,"height":40,"recipientEmail":"ana@example.com"}]"#;

/// A DRAFT with one signer, ready for fields.
async fn draft_with_signer(app: &TestApp, account: Uuid, key: &str) -> Uuid {
    let doc = app.document(account, "Retried", &[LETTER]).await;
    let (status, _, body) = post_with_key(
        app,
        &format!("/documents/{doc}/recipients"),
        key,
        &Uuid::new_v4().to_string(),
        RECIPIENTS,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    doc
}

#[tokio::test]
async fn twenty_concurrent_requests_with_one_key_have_one_effect() {
    let app = TestApp::spawn_with(&[("DATABASE_MAX_CONNECTIONS", "8")]).await;
    let (account, key) = app.account(1000).await;
    let doc = draft_with_signer(&app, account, &key).await;
    let path = format!("/documents/{doc}/fields");

    let answers =
        join_all((0..20).map(|_| post_with_key(&app, &path, &key, "fields-1", FIELDS))).await;
    let first = answers
        .iter()
        .find(|(status, replayed, _)| *status == 200 && replayed.is_none())
        .expect("one request ran")
        .2
        .clone();
    assert_eq!(
        first,
        json!({"code": "DEFAULT", "message": "Fields added successfully", "data": {}})
    );
    for (status, replayed, body) in &answers {
        match status {
            200 => assert_eq!(body, &first, "every answer is the first one"),
            409 => assert_error(
                &(*status, body.clone()),
                409,
                "ERROR",
                "A request with this Idempotency-Key is still being processed",
            ),
            _ => panic!("unexpected answer {status} {replayed:?} {body}"),
        }
    }
    let ran = answers
        .iter()
        .filter(|(s, replayed, _)| *s == 200 && replayed.is_none())
        .count();
    assert_eq!(
        ran, 1,
        "only one request ran; the others were replays or 409s"
    );
    assert_eq!(fields_on(&app, doc).await, 1);
    assert_eq!(
        count(&app, "SELECT count(*) FROM audit_entries WHERE document_id = $1 AND message LIKE 'Fields added%'", doc).await,
        1
    );

    // Once settled, every retry is the stored answer.
    let (status, replayed, body) = post_with_key(&app, &path, &key, "fields-1", FIELDS).await;
    assert_eq!(
        (status, replayed.as_deref(), &body),
        (200, Some("true"), &first)
    );
    assert_eq!(fields_on(&app, doc).await, 1);
}

/// The case the header is for: the answer to a write was lost, and the client sends it again.
#[tokio::test]
async fn a_retried_write_gets_the_first_answer_and_does_nothing_again() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Lost answers", &[LETTER]).await;

    let recipients = format!("/documents/{doc}/recipients");
    let first = post_with_key(&app, &recipients, &key, "add-ana", RECIPIENTS).await;
    assert_eq!((first.0, first.1.as_deref()), (200, None), "{}", first.2);
    let retry = post_with_key(&app, &recipients, &key, "add-ana", RECIPIENTS).await;
    assert_eq!(
        (retry.0, retry.1.as_deref(), &retry.2),
        (200, Some("true"), &first.2)
    );
    // Without a key the same retry is a second request, refused as a duplicate.
    let unkeyed = app
        .post(
            &recipients,
            &key,
            &serde_json::from_str(RECIPIENTS).unwrap(),
        )
        .await;
    assert_error(
        &unkeyed,
        400,
        "ERROR",
        "Recipient with this email already exists",
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM recipients WHERE document_id = $1",
            doc
        )
        .await,
        1
    );

    let fields = post_with_key(
        &app,
        &format!("/documents/{doc}/fields"),
        &key,
        "place",
        FIELDS,
    )
    .await;
    assert_eq!(fields.0, 200, "{}", fields.2);
    let send_path = format!("/documents/{doc}/send");
    let send_body =
        r#"{"message":"Please sign","description":"Lease","expiryDate":"2099-01-01T00:00:00Z"}"#;
    let sent = post_with_key(&app, &send_path, &key, "send-1", send_body).await;
    assert_eq!((sent.0, sent.1.as_deref()), (200, None), "{}", sent.2);
    let resent = post_with_key(&app, &send_path, &key, "send-1", send_body).await;
    assert_eq!(
        (resent.0, resent.1.as_deref(), &resent.2),
        (200, Some("true"), &sent.2)
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM audit_entries WHERE document_id = $1 AND event = 'SENT'",
            doc
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM outbound_emails WHERE document_id = $1",
            doc
        )
        .await,
        1,
        "one invitation"
    );
}

#[tokio::test]
async fn a_key_belongs_to_one_request() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = draft_with_signer(&app, account, &key).await;
    let other_doc = draft_with_signer(&app, account, &key).await;
    let path = format!("/documents/{doc}/fields");
    assert_eq!(post_with_key(&app, &path, &key, "k", FIELDS).await.0, 200);

    // The same request spelled differently (keys reordered, white space) is the same request.
    let respelled = r#" [ { "recipientEmail" : "ana@example.com", "height":40, "width":120, "y":50, "x":50, "page":1, "type":"SIGNATURE" } ] "#;
    let (status, replayed, _) = post_with_key(&app, &path, &key, "k", respelled).await;
    assert_eq!((status, replayed.as_deref()), (200, Some("true")));

    let reused = "This Idempotency-Key was used for a different request";
    let moved = FIELDS.replace("\"x\":50", "\"x\":60");
    let (status, _, body) = post_with_key(&app, &path, &key, "k", &moved).await;
    assert_error(&(status, body), 422, "ERROR", reused);
    let (status, _, body) = post_with_key(
        &app,
        &format!("/documents/{other_doc}/fields"),
        &key,
        "k",
        FIELDS,
    )
    .await;
    assert_error(&(status, body), 422, "ERROR", reused);
    assert_eq!(fields_on(&app, other_doc).await, 0);

    // Keys are the account's own: another account's "k" is another key.
    let (other_account, other_key) = app.account(1000).await;
    let theirs = draft_with_signer(&app, other_account, &other_key).await;
    let (status, replayed, _) = post_with_key(
        &app,
        &format!("/documents/{theirs}/fields"),
        &other_key,
        "k",
        FIELDS,
    )
    .await;
    assert_eq!((status, replayed), (200, None));
}

/// A refusal changed nothing and is kept like a success: the retry is refused the same way,
/// even after the state that caused it changed (a new attempt takes a new key).
#[tokio::test]
async fn a_refusal_is_kept_under_its_key() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Too early", &[LETTER]).await;
    let send_path = format!("/documents/{doc}/send");
    let send_body = r#"{"message":"m","description":"d","expiryDate":"2099-01-01T00:00:00Z"}"#;
    let (status, replayed, body) = post_with_key(&app, &send_path, &key, "early", send_body).await;
    assert_eq!(replayed, None);
    assert_error(
        &(status, body.clone()),
        400,
        "ERROR",
        "Document has no recipients",
    );

    let recipients = format!("/documents/{doc}/recipients");
    assert_eq!(
        post_with_key(&app, &recipients, &key, "r", RECIPIENTS)
            .await
            .0,
        200
    );
    assert_eq!(
        post_with_key(&app, &format!("/documents/{doc}/fields"), &key, "f", FIELDS)
            .await
            .0,
        200
    );
    let again = post_with_key(&app, &send_path, &key, "early", send_body).await;
    assert_eq!(
        (again.0, again.1.as_deref(), &again.2),
        (400, Some("true"), &body)
    );
    let fresh = post_with_key(&app, &send_path, &key, "later", send_body).await;
    assert_eq!(fresh.0, 200, "{}", fresh.2);
}

/// A claim whose request died before answering (its lease ended, nothing committed) goes to the
/// next request with the key; a stored answer past its retention is forgotten.
#[tokio::test]
async fn abandoned_and_expired_keys_are_free_again() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = draft_with_signer(&app, account, &key).await;
    let path = format!("/documents/{doc}/fields");

    let (status, _, _) = post_with_key(&app, &path, &key, "died", FIELDS).await;
    assert_eq!(status, 200);
    // As a request leaves its claim when its process dies mid-way: no answer, lease over.
    sqlx::query(
        "UPDATE idempotency_keys SET response_status = NULL, response_body = NULL,
                locked_until = now() - interval '1 second'
         WHERE account_id = $1 AND key = 'died'",
    )
    .bind(account)
    .execute(&app.db.pool)
    .await
    .unwrap();
    sqlx::query("DELETE FROM fields WHERE document_id = $1")
        .bind(doc)
        .execute(&app.db.pool)
        .await
        .unwrap();
    let (status, replayed, body) = post_with_key(&app, &path, &key, "died", FIELDS).await;
    assert_eq!((status, replayed), (200, None), "{body}");
    assert_eq!(fields_on(&app, doc).await, 1);

    // Held in flight (lease not over): 409 with a Retry-After.
    sqlx::query(
        "UPDATE idempotency_keys SET response_status = NULL, response_body = NULL,
                locked_until = now() + interval '1 hour'
         WHERE account_id = $1 AND key = 'died'",
    )
    .bind(account)
    .execute(&app.db.pool)
    .await
    .unwrap();
    let response = app
        .client
        .post(format!("{}/external/api/v1{path}", app.base))
        .header("X-API-KEY", &key)
        .header("Idempotency-Key", "died")
        .header("Content-Type", "application/json")
        .body(FIELDS)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["retry-after"], "2");
    assert_eq!(response.status(), 409);

    // Past retention, a key may name another request.
    sqlx::query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE account_id = $1")
        .bind(account)
        .execute(&app.db.pool)
        .await
        .unwrap();
    let moved = FIELDS.replace("\"x\":50", "\"x\":200");
    let (status, replayed, body) = post_with_key(&app, &path, &key, "died", &moved).await;
    assert_eq!((status, replayed), (200, None), "{body}");
}

#[tokio::test]
async fn the_sweep_purges_expired_keys() {
    let app = TestApp::spawn().await;
    let mailbox = signet_tests::Mailbox::start().await;
    let (account, key) = app.account(1000).await;
    let doc = draft_with_signer(&app, account, &key).await;
    assert_eq!(
        post_with_key(
            &app,
            &format!("/documents/{doc}/fields"),
            &key,
            "old",
            FIELDS
        )
        .await
        .0,
        200
    );
    sqlx::query(
        "UPDATE idempotency_keys SET expires_at = now() - interval '1 second'
         WHERE account_id = $1 AND key = 'old'",
    )
    .bind(account)
    .execute(&app.db.pool)
    .await
    .unwrap();
    let kept: i64 =
        sqlx::query_scalar("SELECT count(*) FROM idempotency_keys WHERE account_id = $1")
            .bind(account)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(kept, 2, "the recipients' key and the expired one");

    let _worker = signet_tests::WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[("EXPIRY_SWEEP_CRON", "* * * * * *")],
    );
    let keys: Vec<String> = signet_tests::poll_until(
        std::time::Duration::from_secs(30),
        || async {
            sqlx::query_scalar("SELECT key FROM idempotency_keys WHERE account_id = $1")
                .bind(account)
                .fetch_all(&app.db.pool)
                .await
                .unwrap()
        },
        |keys: &Vec<String>| keys.len() == 1,
    )
    .await;
    assert_eq!(keys.len(), 1, "only the expired key was purged: {keys:?}");
    assert_ne!(keys[0], "old");
}

#[tokio::test]
async fn a_malformed_key_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = draft_with_signer(&app, account, &key).await;
    let path = format!("/documents/{doc}/fields");
    for bad in [
        "",
        &"k".repeat(256),
        &format!("\"{}\"", "k".repeat(254)),
        "caf\u{e9}",
    ] {
        let response = app
            .client
            .post(format!("{}/external/api/v1{path}", app.base))
            .header("X-API-KEY", &key)
            .header(
                "Idempotency-Key",
                reqwest::header::HeaderValue::from_bytes(bad.as_bytes()).unwrap(),
            )
            .header("Content-Type", "application/json")
            .body(FIELDS)
            .send()
            .await
            .unwrap();
        let answer = read(response).await;
        assert_error(
            &answer,
            400,
            "ERROR",
            "Invalid request body or validation error",
        );
        assert_eq!(answer.1["errors"][0]["field"], "Idempotency-Key", "{bad:?}");
    }
    // A quoted key (the draft's structured-field string) is the same key as the bare one.
    assert_eq!(
        post_with_key(&app, &path, &key, "\"q-1\"", FIELDS).await.1,
        None
    );
    assert_eq!(
        post_with_key(&app, &path, &key, "q-1", FIELDS)
            .await
            .1
            .as_deref(),
        Some("true")
    );
    assert_eq!(fields_on(&app, doc).await, 1);
}
