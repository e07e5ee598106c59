//! Tenant isolation: another account's document is indistinguishable from a missing one.

use reqwest::Method;
use serde_json::json;
use signet_tests::{LETTER, TestApp, assert_error, read};

#[tokio::test]
async fn another_accounts_key_sees_nothing() {
    let app = TestApp::spawn().await;
    let (account_a, key_a) = app.account(1000).await;
    let (account_b, key_b) = app.account(1000).await;
    let doc_a = app.document(account_a, "A's contract", &[LETTER]).await;
    let doc_b = app.document(account_b, "B's contract", &[LETTER]).await;
    app.post(
        &format!("/documents/{doc_a}/recipients"),
        &key_a,
        &json!([{"name": "Ann", "email": "ann@a.co", "role": "SIGNER"}]),
    )
    .await;

    for (method, path, body) in [
        (Method::GET, format!("/documents/{doc_a}"), None),
        (
            Method::POST,
            format!("/documents/{doc_a}/recipients"),
            Some(json!([{"name": "Eve", "email": "eve@b.co", "role": "SIGNER"}])),
        ),
        (
            Method::POST,
            format!("/documents/{doc_a}/fields"),
            Some(
                json!([{"recipientEmail": "ann@a.co", "type": "TEXT", "page": 1, "x": 0, "y": 0}]),
            ),
        ),
        (
            Method::POST,
            format!("/documents/{doc_a}/send"),
            Some(json!({"message": "m", "description": "d", "expiryDate": "2099-01-01T00:00:00Z"})),
        ),
        (Method::GET, format!("/documents/{doc_a}/audit"), None),
    ] {
        let response = read(
            app.call(method.clone(), &path, Some(&key_b), body.as_ref())
                .await,
        )
        .await;
        assert_error(&response, 404, "ERROR", "Document not found");
    }

    let list_a = app.get("/documents?limit=100", &key_a).await.1;
    let ids_a: Vec<&str> = list_a["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids_a, [doc_a.to_string()]);
    assert_eq!(list_a["data"]["total"], 1);
    let list_b = app.get("/documents?limit=100", &key_b).await.1;
    assert_eq!(list_b["data"]["items"][0]["id"], doc_b.to_string());
    assert_eq!(list_b["data"]["total"], 1);

    // B's attempts changed nothing on A's document.
    let detail = app.get(&format!("/documents/{doc_a}"), &key_a).await.1;
    assert_eq!(detail["data"]["status"], "DRAFT");
    assert_eq!(detail["data"]["recipients"].as_array().unwrap().len(), 1);
    assert_eq!(detail["data"]["recipients"][0]["fields"], json!([]));
}
