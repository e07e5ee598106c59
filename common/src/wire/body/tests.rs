use serde_json::json;

use super::*;
use crate::wire::inputs::{FieldInput, RecipientInput, SendInput};

fn problems<T: DeserializeOwned>(body: Value) -> Vec<(String, String)> {
    let bytes = serde_json::to_vec(&body).unwrap();
    let problems = match parse::<T>(&bytes) {
        Ok(parsed) => parsed.problems,
        Err(problems) => problems,
    };
    problems.into_iter().map(|p| (p.field, p.reason)).collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect()
}

#[test]
fn serde_wording_becomes_the_validators_with_the_field_named() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Send {
        message: String,
        description: String,
        page: i32,
        role: Role,
        items: Vec<Item>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    enum Role {
        #[serde(rename = "SIGNER")]
        Signer,
        #[serde(rename = "VIEWER")]
        Viewer,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        x: f64,
    }
    let problem = |body: &str| {
        let mut deserializer = serde_json::Deserializer::from_str(body);
        let error =
            serde_path_to_error::deserialize::<_, Send>(&mut deserializer).expect_err("refused");
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let problem = body_problem(&path, error.inner());
        (problem.field, problem.reason)
    };
    let full = r#""message":"m","description":"d","page":1,"role":"SIGNER""#;
    assert_eq!(
        problem(r#"{"message":"m"}"#),
        ("description".into(), "is required".into())
    );
    assert_eq!(
        problem(&format!(r#"{{{full},"items":[{{}}]}}"#)),
        ("items[0].x".into(), "is required".into())
    );
    assert_eq!(
        problem(&format!(r#"{{{full},"items":[{{"x":"far"}}]}}"#)),
        ("items[0].x".into(), "must be a number".into())
    );
    assert_eq!(
        problem(r#"{"message":"m","description":"d","page":"one"}"#),
        ("page".into(), "must be a whole number".into())
    );
    assert_eq!(
        problem(r#"{"message":"m","description":"d","page":1,"role":"OWNER"}"#),
        ("role".into(), "must be one of SIGNER, VIEWER".into())
    );
    assert_eq!(
        problem(&format!(r#"{{{full},"items":{{}}}}"#)),
        ("items".into(), "must be an array".into())
    );
    assert_eq!(
        problem(r#"{"message":"#),
        ("message".into(), "is not valid JSON".into())
    );
    assert_eq!(problem("1"), (String::new(), "must be an object".into()));
}

#[test]
fn every_unreadable_property_is_named() {
    assert_eq!(
        problems::<SendInput>(json!({"message": 5, "reminders": {"everyDays": "x"}})),
        pairs(&[
            ("message", "must be a string"),
            ("reminders.everyDays", "must be a whole number"),
            ("description", "is required"),
            ("expiryDate", "is required"),
        ])
    );
    assert_eq!(
        problems::<Vec<RecipientInput>>(json!([
            {"name": "A", "role": "SIGNER"},
            {"name": "B", "email": "b@b.co", "role": "SIGNER"},
            {"name": 5, "email": "c@b.co", "role": "OWNER", "signingOrder": 1.5},
        ])),
        pairs(&[
            ("[0].email", "is required"),
            ("[2].name", "must be a string"),
            ("[2].role", "must be one of SIGNER, VIEWER"),
            ("[2].signingOrder", "must be a whole number"),
        ])
    );
    assert_eq!(
        problems::<Vec<FieldInput>>(json!([
            {"recipientEmail": "a@b.co", "type": "TEXT", "page": "1", "x": 0},
            {"recipientEmail": "a@b.co", "type": "TEXT", "page": 2.0, "x": 0, "y": 0},
            {"type": "STAMP", "page": 1, "x": null, "y": 0},
        ])),
        pairs(&[
            ("[0].page", "must be a whole number"),
            ("[0].y", "is required"),
            (
                "[2].type",
                "must be one of SIGNATURE, TEXT, DATE, INITIALS, CHECKBOX, RADIO, DROPDOWN, NUMBER, EMAIL, NAME, COMPANY, ATTACHMENT"
            ),
            ("[2].x", "must be a number"),
            ("[2].recipientEmail", "is required"),
        ])
    );
}

#[test]
fn what_holds_a_problem_holds_its_parts() {
    assert_eq!(
        problems::<SendInput>(
            json!({"message": "m", "description": "d", "expiryDate": "e", "reminders": 3})
        ),
        pairs(&[("reminders", "must be an object")])
    );
    assert_eq!(
        problems::<Vec<FieldInput>>(json!([[], "x", {"x": 1}])),
        pairs(&[
            ("[0]", "must be an object"),
            ("[1]", "must be an object"),
            ("[2].recipientEmail", "is required"),
            ("[2].type", "is required"),
            ("[2].page", "is required"),
            ("[2].y", "is required"),
        ])
    );
    assert_eq!(
        problems::<Vec<RecipientInput>>(json!({"name": "A"})),
        pairs(&[("", "must be an array")])
    );
}

#[test]
fn a_readable_body_has_no_problems_and_its_values() {
    let parsed = parse::<Vec<FieldInput>>(
        br#"[{"recipientEmail": "a@b.co", "type": "DATE", "page": 3.0, "x": 1, "y": 2}]"#,
    )
    .unwrap();
    assert!(parsed.problems.is_empty());
    assert_eq!(parsed.value[0].page, 3);
    assert_eq!(
        parse::<SendInput>(b"{").unwrap_err(),
        [Problem::new("", "is not valid JSON")]
    );
    assert_eq!(
        parse::<SendInput>(br#"{"message": "m", "description": "", "expiryDate": "e"} []"#)
            .unwrap_err(),
        [Problem::new(
            "",
            "must be one JSON value with nothing after it"
        )]
    );
}

#[test]
fn a_value_its_type_refuses_after_taking_it_is_named() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Placement {
        at: f64,
        id: uuid::Uuid,
    }
    let found = problems::<Vec<Placement>>(json!([{"at": "far", "id": "nope"}, {"at": "near"}]));
    let fields: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
    // No stand-in is a UUID: the reading ends there.
    assert_eq!(fields, ["[0].at", "[0].id"], "{found:?}");
    assert!(found[1].1.starts_with("UUID parsing failed"), "{found:?}");
}
