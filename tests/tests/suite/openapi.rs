//! The OpenAPI document parses, is 3.1, and lists exactly the routes the router serves.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, read};

#[tokio::test]
async fn openapi_lists_every_route_and_every_listed_route_is_served() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;

    // Served without a key, and the same document the code generates.
    let response = app
        .client
        .get(format!("{}/external/api/v1/openapi.json", app.base))
        .send()
        .await
        .unwrap();
    let (status, served) = read(response).await;
    assert_eq!(status, 200);
    let generated: Value =
        serde_json::from_str(&signet_api::openapi_document().to_json().unwrap()).unwrap();
    assert_eq!(served, generated);
    assert!(
        served["openapi"].as_str().unwrap().starts_with("3.1"),
        "{}",
        served["openapi"]
    );
    assert_eq!(served["servers"][0]["url"], "/external/api/v1");

    let mut operations = BTreeSet::new();
    for (path, item) in served["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                operations.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    let spec: BTreeSet<(String, String)> = [
        ("GET", "/documents"),
        ("GET", "/documents/{id}"),
        ("POST", "/documents/{id}/recipients"),
        ("POST", "/documents/{id}/fields"),
        ("POST", "/documents/{id}/send"),
        ("GET", "/documents/{id}/audit"),
        // Additive (issue #21): cancel with a reason, remind now.
        ("POST", "/documents/{id}/cancel"),
        ("POST", "/documents/{id}/remind"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_owned(), p.to_owned()))
    .collect();
    assert_eq!(
        operations, spec,
        "the document lists the six endpoints of the spec and the two additive ones"
    );

    for (method, path) in &operations {
        let path = path.replace("{id}", &doc.to_string());
        let method: Method = method.parse().unwrap();
        let body = (method == Method::POST).then(|| json!([]));
        let (status, body) = read(
            app.call(method.clone(), &path, Some(&key), body.as_ref())
                .await,
        )
        .await;
        assert!(
            status != 404 && status != 405,
            "{method} {path} is documented but not routed: {status} {body}"
        );
    }
    for schema in [
        "DocumentDetail",
        "DocumentListItem",
        "RecipientInput",
        "FieldInput",
        "SendInput",
        "AuditEntryView",
    ] {
        assert!(
            served["components"]["schemas"].get(schema).is_some(),
            "schema {schema}"
        );
    }
    assert_eq!(
        served["components"]["securitySchemes"]["api_key"]["name"],
        "X-API-KEY"
    );
}

/// Issue #30 item 11: a client that builds a recipient from the document's own examples is
/// accepted (the phone example was in Ofcom's drama range, which the server's validation
/// rightly refuses).
#[tokio::test]
async fn a_recipient_made_of_the_documents_examples_is_accepted() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let served = signet_api::openapi_document().to_json().unwrap();
    let served: Value = serde_json::from_str(&served).unwrap();
    let properties = &served["components"]["schemas"]["RecipientInput"]["properties"];
    let mut recipient = serde_json::Map::new();
    for (name, property) in properties.as_object().expect("RecipientInput's properties") {
        if let Some(example) = property
            .get("example")
            .or_else(|| property["examples"].get(0))
        {
            recipient.insert(name.clone(), example.clone());
        }
    }
    for (name, fallback) in [
        ("name", "Ann Lee"),
        ("email", "ann@example.com"),
        ("role", "SIGNER"),
    ] {
        recipient.entry(name).or_insert(json!(fallback));
    }
    assert!(recipient.contains_key("phoneNumber"), "{recipient:?}");
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([recipient]),
        )
        .await;
    assert_eq!(status, 200, "{recipient:?}: {body}");
}
