//! Real concurrent requests: the usage limit under contention, and concurrent sends.

use futures::future::join_all;
use serde_json::json;
use signet_tests::{ApiProcess, LETTER, TestApp};

#[tokio::test]
async fn two_hundred_concurrent_requests_against_a_limit_of_one_hundred() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(100).await;
    let responses = join_all((0..200).map(|_| app.get("/documents", &key))).await;
    let ok = responses.iter().filter(|(s, _)| *s == 200).count();
    let limited: Vec<_> = responses.iter().filter(|(s, _)| *s == 429).collect();
    assert_eq!(
        (ok, limited.len()),
        (100, 100),
        "every request is either served or refused"
    );
    assert!(
        limited
            .iter()
            .all(|(_, b)| b["message"] == "API rate limit exceeded" && b["data"] == json!({}))
    );
    let used: i32 = sqlx::query_scalar("SELECT api_usage_count FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(used, 100, "refused requests are not counted");
}

#[tokio::test]
async fn usage_window_resets() {
    // An hour's window, ended by moving its start back rather than by waiting: with a window
    // of a second, the second request on a busy machine could land in a new window.
    let app = TestApp::spawn_with(&[("API_USAGE_WINDOW_SECS", "3600")]).await;
    let (account, key) = app.account(1).await;
    assert_eq!(app.get("/documents", &key).await.0, 200);
    assert_eq!(app.get("/documents", &key).await.0, 429);
    sqlx::query(
        "UPDATE accounts SET usage_window_start = usage_window_start - interval '3600 seconds'
         WHERE id = $1",
    )
    .bind(account)
    .execute(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        app.get("/documents", &key).await.0,
        200,
        "a new window starts"
    );
}

/// `RATELIMIT` and `RATELIMIT-POLICY` (draft-ietf-httpapi-ratelimit-headers) of a response.
fn rate_limit(response: &reqwest::Response) -> (String, String) {
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    (header("ratelimit-policy"), header("ratelimit"))
}

/// The remaining count and the reset of a `RateLimit` value `"account";r=R;t=T`.
fn remaining_and_reset(value: &str) -> (i64, i64) {
    let param = |name: &str| -> i64 {
        value
            .split(';')
            .find_map(|p| p.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("{name} in {value:?}"))
            .parse()
            .unwrap()
    };
    (param("r"), param("t"))
}

/// Every authenticated answer says the account's quota and what is left of it, from the one
/// statement that counts the request, so two API processes on one database count down one
/// window together; a refusal says nothing is left and when that changes, as `Retry-After`
/// does. Answers that are not for an account (no key, a wrong key) carry neither header.
#[tokio::test]
async fn every_authenticated_answer_carries_its_rate_limit() {
    let app = TestApp::spawn_with(&[("API_USAGE_WINDOW_SECS", "3600")]).await;
    let other = ApiProcess::start(&app, &[("API_USAGE_WINDOW_SECS", "3600")]).await;
    let (_, key) = app.account(4).await;
    let client = reqwest::Client::new();
    let mut remaining = Vec::new();
    for (i, path) in [
        "/documents",
        "/documents/not-a-document",
        "/documents?limit=0",
        "/documents",
    ]
    .iter()
    .enumerate()
    {
        let base = if i % 2 == 0 { &app.base } else { &other.base };
        let response = client
            .get(format!("{base}/external/api/v1{path}"))
            .header("X-API-KEY", &key)
            .send()
            .await
            .unwrap();
        let (policy, state) = rate_limit(&response);
        assert_eq!(policy, r#""account";q=4;w=3600"#, "{path}");
        let (left, reset) = remaining_and_reset(&state);
        assert!((1..=3600).contains(&reset), "{state}");
        remaining.push(left);
    }
    assert_eq!(remaining, [3, 2, 1, 0], "one count across both processes");

    let refused = client
        .get(format!("{}/external/api/v1/documents", other.base))
        .header("X-API-KEY", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 429);
    let retry_after: i64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let (policy, state) = rate_limit(&refused);
    assert_eq!(policy, r#""account";q=4;w=3600"#);
    assert_eq!(remaining_and_reset(&state), (0, retry_after));

    for key in [None, Some("sk_wrong")] {
        let mut request = client.get(format!("{}/external/api/v1/documents", app.base));
        if let Some(key) = key {
            request = request.header("X-API-KEY", key);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401);
        assert_eq!(rate_limit(&response), (String::new(), String::new()));
    }
}

#[tokio::test]
async fn twenty_concurrent_sends_of_one_document() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    app.post(
        &format!("/documents/{doc}/recipients"),
        &key,
        &json!([
            {"name": "Ann", "email": "ann@b.co", "role": "SIGNER"},
            {"name": "Bob", "email": "bob@b.co", "role": "SIGNER"},
            {"name": "Vic", "email": "vic@b.co", "role": "VIEWER"},
        ]),
    )
    .await;
    app.post(
        &format!("/documents/{doc}/fields"),
        &key,
        &json!([
            {"recipientEmail": "ann@b.co", "type": "SIGNATURE", "page": 1, "x": 50, "y": 600},
            {"recipientEmail": "bob@b.co", "type": "SIGNATURE", "page": 1, "x": 300, "y": 600},
            {"recipientEmail": "vic@b.co", "type": "TEXT", "page": 1, "x": 50, "y": 100},
        ]),
    )
    .await;
    let body = json!({"message": "Please sign", "description": "Q3", "expiryDate": "2099-01-01T00:00:00Z"});
    let path = format!("/documents/{doc}/send");
    let responses = join_all((0..20).map(|_| app.post(&path, &key, &body))).await;
    let ok = responses.iter().filter(|(s, _)| *s == 200).count();
    assert_eq!(ok, 1, "exactly one send wins");
    assert!(
        responses
            .iter()
            .filter(|(s, _)| *s != 200)
            .all(|(s, b)| *s == 400 && b["message"] == "Document is not in DRAFT status")
    );

    let (sent_entries, emails, tokens): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM audit_entries WHERE document_id = $1 AND event = 'SENT'),
                (SELECT count(*) FROM outbound_emails WHERE document_id = $1 AND kind = 'INVITATION'),
                (SELECT count(DISTINCT signing_token_hash) FROM recipients WHERE document_id = $1)",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!((sent_entries, emails, tokens), (1, 3, 3));

    // Every e-mail row is queued: PENDING, due, and held by no worker.
    let queued: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_emails
         WHERE document_id = $1 AND status = 'PENDING' AND due_at <= now() AND lease_owner IS NULL",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(queued, 3);

    let audit = app.get(&format!("/documents/{doc}/audit"), &key).await.1;
    let sent = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event"] == "SENT")
        .unwrap();
    assert_eq!(sent["message"], "Document sent to 3 recipients");
}

#[tokio::test]
async fn concurrent_recipient_additions_keep_emails_unique_and_positions_distinct() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    let bodies: Vec<_> = (0..10)
        .map(|i| json!([{"name": "Same", "email": "same@b.co", "role": "SIGNER"}, {"name": "N", "email": format!("n{i}@b.co"), "role": "VIEWER"}]))
        .collect();
    let responses = join_all(bodies.iter().map(|b| app.post(&path, &key, b))).await;
    assert_eq!(responses.iter().filter(|(s, _)| *s == 200).count(), 1);
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    let colors: Vec<&str> = detail["data"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["colorCode"].as_str().unwrap())
        .collect();
    assert_eq!(colors, ["#E6194B", "#3CB44B"]);
}
