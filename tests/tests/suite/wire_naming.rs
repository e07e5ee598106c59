//! One naming rule on the wire (issue #49 item 4): every JSON property is camelCase, in the
//! OpenAPI document (every schema, request and response, and every query parameter) and in
//! what the binaries really answer: the API's responses along a whole journey, the signing
//! JSON, which the document does not describe, and the worker's health answer. The keys of a map (a property the document
//! gives `additionalProperties`, such as a template's roles by label) are data, not names.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, read};

use crate::signing_flow::{consent, invitations, send_document, session};

fn camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

fn document() -> Value {
    serde_json::from_str(&signet_api::openapi_document().to_json().unwrap()).unwrap()
}

/// Walks every schema of the document (`$ref`s are walked where they are defined), calling
/// `property` with each property's name and schema.
fn each_property(schema: &Value, property: &mut impl FnMut(&str, &Value)) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                for (name, inner) in properties {
                    property(name, inner);
                }
            }
            for (key, inner) in object {
                // Examples are data (a map's example keys are labels).
                if key != "example" && key != "examples" {
                    each_property(inner, property);
                }
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|inner| each_property(inner, property)),
        _ => {}
    }
}

/// The properties whose value is a map: its keys are the caller's data.
fn map_properties(doc: &Value) -> BTreeSet<String> {
    let resolve = |schema: &Value| -> Value {
        match schema["$ref"].as_str() {
            Some(reference) => {
                let name = reference.rsplit('/').next().unwrap();
                doc["components"]["schemas"][name].clone()
            }
            None => schema.clone(),
        }
    };
    let mut maps = BTreeSet::new();
    each_property(doc, &mut |name, schema| {
        let mut candidates = vec![resolve(schema)];
        for union in ["oneOf", "anyOf", "allOf"] {
            if let Some(Value::Array(parts)) = schema.get(union) {
                candidates.extend(parts.iter().map(&resolve));
            }
        }
        let items = resolve(&schema["items"]);
        candidates.push(items);
        if candidates
            .iter()
            .any(|c| c.get("additionalProperties").is_some_and(|a| a != false))
        {
            maps.insert(name.to_owned());
        }
    });
    maps
}

/// The keys of `value` (and of everything in it) that are not camelCase, by their path.
fn misnamed(value: &Value, path: &str, maps: &BTreeSet<String>, found: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            for (key, inner) in object {
                let here = format!("{path}.{key}");
                if !camel_case(key) {
                    found.push(here.clone());
                }
                if maps.contains(key) {
                    // A map: its keys are data, its values are not.
                    if let Value::Object(entries) = inner {
                        for (entry, value) in entries {
                            misnamed(value, &format!("{here}[{entry}]"), maps, found);
                        }
                        continue;
                    }
                }
                misnamed(inner, &here, maps, found);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                misnamed(inner, &format!("{path}[{i}]"), maps, found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_property_and_query_parameter_the_document_names_is_camel_case() {
    let doc = document();
    let mut wrong = Vec::new();
    let mut named = 0;
    each_property(&doc, &mut |name, _| {
        named += 1;
        if !camel_case(name) {
            wrong.push(name.to_owned());
        }
    });
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap();
                if parameter["in"] == "query" && !camel_case(name) {
                    wrong.push(format!("{method} {path} ?{name}"));
                }
            }
        }
    }
    assert!(
        named > 100,
        "the walk found the document's properties: {named}"
    );
    assert!(wrong.is_empty(), "not camelCase: {wrong:?}");
    // The check can fail: the walk sees a misnamed property where one would be.
    let mut planted = Vec::new();
    let sample = json!({"components": {"schemas": {"X": {"properties": {"consented_at": {}}}}}});
    each_property(&sample, &mut |name, _| {
        if !camel_case(name) {
            planted.push(name.to_owned());
        }
    });
    assert_eq!(planted, ["consented_at"]);
}

/// Every JSON answer of a journey, from the document to the signed and declined ends: the API's
/// (each operation the document lists, with a real body) and the signer's.
#[tokio::test]
async fn every_answer_of_a_journey_is_camel_case() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let mut maps = map_properties(&document());
    assert!(maps.contains("roles"), "the document's maps: {maps:?}");
    // The worker's health answer (not in the document): its workers by job label.
    maps.insert("workers".to_owned());
    let mut answers: Vec<(String, Value)> = Vec::new();

    let signed = send_document(
        &app,
        account,
        &key,
        &[("ann@signet.test", "SIGNER"), ("vic@signet.test", "VIEWER")],
        &[
            ("ann@signet.test", "TEXT"),
            ("ann@signet.test", "DATE"),
            ("vic@signet.test", "TEXT"),
        ],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let declined = send_document(
        &app,
        account,
        &key,
        &[("bob@signet.test", "SIGNER")],
        &[("bob@signet.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let links = invitations(&mailbox, 3).await;

    // The signer's JSON: the session before and after consent, a refused submission, the
    // submission, and a decline.
    let ann = &links["ann@signet.test"];
    answers.push(("session".into(), session(&app, ann).await));
    consent(&app, ann).await;
    let opened = session(&app, ann).await;
    answers.push(("session after consent".into(), opened.clone()));
    let signer_post = |url: String, body: Value| {
        let app = &app;
        async move { read(app.client.post(url).json(&body).send().await.unwrap()).await }
    };
    let refused = signer_post(format!("{ann}/submit"), json!({"fields": []})).await;
    assert_eq!(refused.0, 400, "{}", refused.1);
    answers.push(("submit refused".into(), refused.1));
    let values: Vec<Value> = opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| json!({"id": f["id"], "value": if f["type"] == "DATE" { "2026-12-02" } else { "Ann" }}))
        .collect();
    let submitted = signer_post(format!("{ann}/submit"), json!({"fields": values})).await;
    assert_eq!(submitted.0, 200, "{}", submitted.1);
    answers.push(("submit".into(), submitted.1));
    let bob = &links["bob@signet.test"];
    consent(&app, bob).await;
    let decline = signer_post(format!("{bob}/decline"), json!({"reason": "Wrong address"})).await;
    assert_eq!(decline.0, 200, "{}", decline.1);
    answers.push(("decline".into(), decline.1));

    // The API's answers: each GET the document lists, on the documents of this journey, a
    // template and a bulk send made from it, and an error envelope with problems.
    let template_id = crate::openapi::template_for(&app, account, &key).await;
    let rows = json!({"rows": [{"Ann.name": "Ann", "Ann.email": "ann@example.com"}],
        "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, checked) = app
        .post(
            &format!("/templates/{template_id}/bulk-sends?dryRun=true"),
            &key,
            &rows,
        )
        .await;
    assert_eq!(status, 200, "{checked}");
    answers.push(("a bulk send's dry run".into(), checked));
    let draft = app.document(account, "Draft", &[LETTER]).await;
    let bad = app
        .post(
            &format!("/documents/{draft}/recipients"),
            &key,
            &json!([{"name": "", "email": "x", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(bad.0, 400, "{}", bad.1);
    answers.push(("an error with problems".into(), bad.1));
    let origins = json!({"allowedOrigins": ["https://app.example.com"]});
    let (status, embedding) = read(
        app.call(
            Method::PUT,
            "/account/embedding",
            Some(&key),
            Some(&origins),
        )
        .await,
    )
    .await;
    assert_eq!(status, 200, "{embedding}");
    answers.push(("PUT /account/embedding".into(), embedding));
    let detail = app.get(&format!("/documents/{signed}"), &key).await.1;
    // Vic, the viewer: the document is still SENT for them.
    let recipient = detail["data"]["recipients"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in [
        "/documents".to_owned(),
        format!("/documents/{signed}"),
        format!("/documents/{signed}/audit"),
        format!("/documents/{declined}"),
        "/templates".to_owned(),
        format!("/templates/{template_id}"),
        "/events".to_owned(),
        "/account/retention".to_owned(),
        "/account/embedding".to_owned(),
    ] {
        let (status, body) = app.get(&path, &key).await;
        assert_eq!(status, 200, "{path}: {body}");
        answers.push((format!("GET {path}"), body));
    }
    let session_path = format!("/documents/{signed}/recipients/{recipient}/signing-session");
    let embedded = app
        .post(
            &session_path,
            &key,
            &json!({"returnUrl": "https://app.example.com/done"}),
        )
        .await;
    answers.push((format!("POST {session_path}"), embedded.1));

    // The worker's health answer, which operators' probes read.
    let health = crate::job_kinds::ready(&worker).await;
    assert_eq!(health["listenerConnected"], true, "{health}");
    answers.push(("the worker's /readyz".into(), health));

    let mut wrong = Vec::new();
    for (what, answer) in &answers {
        let mut found = Vec::new();
        misnamed(answer, "", &maps, &mut found);
        wrong.extend(found.into_iter().map(|path| format!("{what}: {path}")));
    }
    assert!(wrong.is_empty(), "not camelCase: {wrong:#?}");
    // The check can fail: the old name of the consent's time would be found.
    let mut planted = Vec::new();
    misnamed(
        &json!({"data": {"recipient": {"consented_at": null}}}),
        "",
        &maps,
        &mut planted,
    );
    assert_eq!(planted, [".data.recipient.consented_at"]);
}
