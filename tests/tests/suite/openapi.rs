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
        // Additive (issue #34): unlock a recipient locked by wrong codes.
        ("POST", "/documents/{id}/recipients/{recipientId}/unlock"),
        // Additive (issue #32): templates.
        ("POST", "/templates"),
        ("GET", "/templates"),
        ("GET", "/templates/{id}"),
        ("PATCH", "/templates/{id}"),
        ("POST", "/templates/{id}/archive"),
        ("POST", "/templates/{id}/documents"),
        // Additive (issue #32): bulk send.
        ("POST", "/templates/{id}/bulk-sends"),
        ("GET", "/bulk-sends/{id}"),
        ("POST", "/bulk-sends/{id}/cancel"),
        // Additive (issue #34): embedded signing.
        (
            "POST",
            "/documents/{id}/recipients/{recipientId}/signing-session",
        ),
        ("GET", "/account/embedding"),
        ("PUT", "/account/embedding"),
        // Additive (issue #34): the event feed.
        ("GET", "/events"),
        // Additive (issue #37): the retention policy and erasure on request.
        ("GET", "/account/retention"),
        ("PUT", "/account/retention"),
        ("POST", "/erasures"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_owned(), p.to_owned()))
    .collect();
    assert_eq!(
        operations, spec,
        "the document lists the six endpoints of the spec and the additive ones"
    );

    let template = template_for(&app, account, &key).await;
    let body = json!({"rows": [{"Ann.name": "Ann", "Ann.email": "ann@example.com"}],
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, accepted) = app
        .post(&format!("/templates/{template}/bulk-sends"), &key, &body)
        .await;
    assert_eq!(status, 202, "{accepted}");
    let bulk_send: uuid::Uuid = accepted["data"]["id"].as_str().unwrap().parse().unwrap();
    // A recipient of the document, for the routes under one (an unknown one is a 404 too).
    let added = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(added.0, 200, "{}", added.1);
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    let recipient_id = detail["data"]["recipients"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (method, path) in &operations {
        let id = if path.starts_with("/templates/") {
            template
        } else if path.starts_with("/bulk-sends/") {
            bulk_send
        } else {
            doc
        };
        let path = path
            .replace("{id}", &id.to_string())
            .replace("{recipientId}", &recipient_id);
        let method: Method = method.parse().unwrap();
        let body = (method == Method::POST).then(|| json!([]));
        let (status, body) = read(
            app.call(method.clone(), &path, Some(&key), body.as_ref())
                .await,
        )
        .await;
        // The recipient is the document's: no route under one answers 404 (unlock refuses a
        // recipient who asks for no code with a 400).
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

/// Issue #30 item 11: a client that builds its requests from the document's own examples is
/// answered 200. Every example the served document gives is sent, each to a document in the
/// state its operation needs: a schema's own example, and the value made of its properties'
/// examples (nested schemas included), for every request body; and every parameter's example.
/// (The phone example was once in Ofcom's drama range, which the server rightly refuses.)
#[tokio::test]
async fn every_example_in_the_document_is_accepted() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1_000_000).await;
    let served = signet_api::openapi_document().to_json().unwrap();
    let served: Value = serde_json::from_str(&served).unwrap();
    let schema = |name: &str| served["components"]["schemas"][name].clone();
    let recipient = schema("RecipientInput")["example"].clone();
    let field = schema("FieldInput")["example"].clone();
    assert!(recipient.is_object() && field.is_object(), "{served}");

    let mut sent = BTreeSet::new();
    for (path, item) in served["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                let examples = examples(&served, parameter)
                    .into_iter()
                    .chain(examples(&served, &parameter["schema"]));
                for example in examples {
                    assert_eq!(
                        parameter["in"], "query",
                        "{name}: only query parameters' examples are sent here; send this one too"
                    );
                    let value = example.as_str().map_or(example.to_string(), str::to_owned);
                    let url = format!("{path}?{name}={}", urlencode(&value));
                    let (status, body) =
                        read(app.call(Method::GET, &url, Some(&key), None).await).await;
                    assert_eq!(
                        status, 200,
                        "{method} {path} with {name} = {example}: {body}"
                    );
                    sent.insert(format!("{method} {path}?{name}"));
                }
            }
            for mut body in request_examples(&served, operation) {
                let doc = state_for(&app, account, &key, path, &recipient, &field).await;
                if path == "/templates" {
                    body["documentId"] = json!(doc);
                }
                let method_of_operation =
                    Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                // A signing session is for the document's recipient (the example's).
                let recipient_id = if path.contains("{recipientId}") {
                    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
                    detail["data"]["recipients"][0]["id"]
                        .as_str()
                        .unwrap()
                        .to_owned()
                } else {
                    String::new()
                };
                let (status, answer) = read(
                    app.call(
                        method_of_operation,
                        &path
                            .replace("{id}", &doc.to_string())
                            .replace("{recipientId}", &recipient_id),
                        Some(&key),
                        Some(&body),
                    )
                    .await,
                )
                .await;
                // A bulk send is accepted to be made by the workers.
                let accepted = if path.ends_with("/bulk-sends") {
                    202
                } else {
                    200
                };
                assert_eq!(status, accepted, "{method} {path} with {body}: {answer}");
                sent.insert(format!("{method} {path}"));
            }
        }
    }
    let bodies =
        ["recipients", "fields", "send", "cancel"].map(|o| format!("post /documents/{{id}}/{o}"));
    assert!(bodies.iter().all(|b| sent.contains(b)), "{sent:?}");
    assert!(sent.contains("patch /templates/{id}"), "{sent:?}");
}

/// A document in the state `path`'s operation needs, made through the API with the document's
/// own examples of a recipient and a field.
async fn state_for(
    app: &TestApp,
    account: uuid::Uuid,
    key: &str,
    path: &str,
    recipient: &Value,
    field: &Value,
) -> uuid::Uuid {
    let operation = path.rsplit('/').next().unwrap();
    let doc = app.document(account, "Lease", &[LETTER, LETTER]).await;
    let steps: &[(&str, Value)] = &[
        ("recipients", json!([recipient])),
        ("fields", json!([field])),
        (
            "send",
            json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        ),
    ];
    let needed = match operation {
        "recipients" => 0,
        "fields" => 1,
        "send" => 2,
        "cancel" | "remind" => 3,
        // A SENT document, and the origin its example's returnUrl and parentOrigin are on.
        "signing-session" => {
            let origins = json!({"allowedOrigins": ["https://app.example.com"]});
            let (status, answer) = read(
                app.call(Method::PUT, "/account/embedding", Some(key), Some(&origins))
                    .await,
            )
            .await;
            assert_eq!(status, 200, "{answer}");
            3
        }
        // The account's settings need no document; nor does an erasure (of an address no
        // recipient of this account has: nothing to erase).
        "embedding" | "retention" | "erasures" => 0,
        // `POST /templates` takes the DRAFT in its body; `…/{id}/documents`,
        // `…/{id}/bulk-sends` and `PATCH /templates/{id}`, a template made from it with the role its example names.
        "templates" | "documents" | "bulk-sends" | "{id}" => 2,
        other => panic!("no state is known for POST …/{other}: say here what it needs"),
    };
    for (step, body) in &steps[..needed] {
        let (status, answer) = app
            .post(&format!("/documents/{doc}/{step}"), key, body)
            .await;
        assert_eq!(status, 200, "{step}: {answer}");
    }
    if ["documents", "bulk-sends", "{id}"].contains(&operation) {
        let body =
            json!({"documentId": doc, "roles": {recipient["email"].as_str().unwrap(): "Tenant"}});
        let (status, answer) = app.post("/templates", key, &body).await;
        assert_eq!(status, 200, "template: {answer}");
        return answer["data"]["id"].as_str().unwrap().parse().unwrap();
    }
    doc
}

/// A template made from a DRAFT with one signer and a field.
pub(crate) async fn template_for(app: &TestApp, account: uuid::Uuid, key: &str) -> uuid::Uuid {
    let doc = app.document(account, "Lease", &[LETTER]).await;
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
            .post(&format!("/documents/{doc}/{step}"), key, body)
            .await;
        assert_eq!(status, 200, "{step}: {answer}");
    }
    let (status, answer) = app
        .post("/templates", key, &json!({"documentId": doc}))
        .await;
    assert_eq!(status, 200, "{answer}");
    answer["data"]["id"].as_str().unwrap().parse().unwrap()
}

/// The request bodies `operation`'s examples make: the media type's and the schema's own
/// examples, and the value made of every property's example.
fn request_examples(doc: &Value, operation: &Value) -> Vec<Value> {
    let media = &operation["requestBody"]["content"]["application/json"];
    if media.is_null() {
        return Vec::new();
    }
    let schema = resolve(doc, &media["schema"]);
    let mut bodies = examples(doc, media);
    if schema["type"] == "array" {
        bodies.extend(
            examples(doc, &schema["items"])
                .into_iter()
                .map(|item| json!([item])),
        );
    } else {
        bodies.extend(examples(doc, &schema));
    }
    bodies
}

/// A schema's (or parameter's, or media type's) examples: its own, and for an object the one
/// made of its properties' examples where that differs.
fn examples(doc: &Value, schema: &Value) -> Vec<Value> {
    let schema = resolve(doc, schema);
    let mut found: Vec<Value> = schema
        .get("example")
        .into_iter()
        .chain(schema["examples"].as_array().into_iter().flatten())
        .chain(
            schema["examples"]
                .as_object()
                .into_iter()
                .flat_map(|named| named.values().map(|e| &e["value"])),
        )
        .filter(|e| !e.is_null())
        .cloned()
        .collect();
    let members = schema["allOf"].as_array().cloned().unwrap_or_default();
    let properties: serde_json::Map<String, Value> = std::iter::once(&schema)
        .chain(&members)
        .filter_map(|member| member["properties"].as_object())
        .flatten()
        .map(|(name, property)| (name.clone(), property.clone()))
        .collect();
    if !properties.is_empty() {
        let mut made = found
            .first()
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for (name, property) in &properties {
            if let Some(example) = property_example(doc, property) {
                made.insert(name.clone(), example);
            }
        }
        let made = Value::Object(made);
        if !made.as_object().unwrap().is_empty() && !found.contains(&made) {
            found.push(made);
        }
    }
    found
}

/// A property's example: its own, else its schema's (through `$ref` and the non-null branch
/// of a `oneOf`), else the first value of an enumeration.
fn property_example(doc: &Value, property: &Value) -> Option<Value> {
    let property = resolve(doc, property);
    if let Some(example) = property.get("example").filter(|e| !e.is_null()) {
        return Some(example.clone());
    }
    if let Some(first) = property["enum"]
        .as_array()
        .and_then(|values| values.first())
    {
        return Some(first.clone());
    }
    if let Some(branches) = property["oneOf"].as_array() {
        return branches
            .iter()
            .filter(|branch| branch["type"] != "null")
            .find_map(|branch| property_example(doc, branch));
    }
    examples(doc, &property).into_iter().last()
}

fn resolve(doc: &Value, schema: &Value) -> Value {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let pointer = reference.trim_start_matches('#');
            resolve(
                doc,
                doc.pointer(pointer)
                    .expect("a reference the document holds"),
            )
        }
        None => schema.clone(),
    }
}

fn urlencode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
