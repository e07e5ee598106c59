//! The signing page with one field of every kind issue #33 adds (docs/fields.md), signed with
//! the keyboard in Debian's Chromium (tests/browser/field-kinds.mjs) with axe-core in the page,
//! against the real API, worker and SMTP server; the final PDF shows the values (pdftotext) and
//! embeds the attached file (`pdfdetach -list`).

use std::process::Command;

use serde_json::json;
use signet_tests::{BrowserScript, LETTER, Mailbox, TestApp, WorkerProcess, screenshots_dir};

use crate::signing_flow::{invitations, pdftotext, wait_for_status};

const ANN: &str = "ann@signet.test";

#[tokio::test]
async fn a_signer_fills_every_new_kind_of_field_with_the_keyboard() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Membership form", &[LETTER]).await;
    let people = json!([{"name": "Ann Lee", "email": ANN, "role": "SIGNER"}]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &people)
            .await
            .0,
        200
    );
    let at = |kind: &str, y: u32, extra: serde_json::Value| {
        let mut field = json!({"recipientEmail": ANN, "type": kind, "page": 1, "x": 72, "y": y, "width": 240, "height": 24});
        field
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        field
    };
    let fields = json!([
        at(
            "CHECKBOX",
            60,
            json!({"label": "Agree to the rules", "width": 24})
        ),
        at(
            "RADIO",
            100,
            json!({"label": "Plan", "options": ["Monthly", "Yearly"]})
        ),
        at(
            "DROPDOWN",
            140,
            json!({"label": "Branch", "options": ["North", "South", "West"]})
        ),
        at(
            "NUMBER",
            180,
            json!({"label": "Guests", "min": 0, "max": 10, "decimals": 1})
        ),
        at("EMAIL", 220, json!({})),
        at("NAME", 260, json!({})),
        at("COMPANY", 300, json!({})),
        at(
            "TEXT",
            340,
            json!({"label": "Member code", "maxLength": 8, "pattern": "[A-Z]{2}[0-9]{3}"})
        ),
        at("ATTACHMENT", 380, json!({"label": "Proof of address"})),
        at("TEXT", 420, json!({"label": "Notes", "required": false})),
        at(
            "TEXT",
            460,
            json!({"label": "Fee", "value": "EUR 40", "readOnly": true})
        ),
        at("SIGNATURE", 500, json!({"height": 40})),
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &fields)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), &key, &send_body())
        .await;
    assert_eq!(status, 200, "{body}");
    let links = invitations(&mailbox, 1).await;

    let attachment = app.files.path().join("utility-bill.pdf");
    std::fs::write(&attachment, signet_tests::pdf(&[LETTER])).unwrap();
    let values = json!({
        "NUMBER": "2.5",
        "EMAIL": "ann.lee@example.com",
        "NAME": "Ann B. Lee",
        "COMPANY": "Lee & Daughters",
        "TEXT": "AB123",
        "SIGNATURE": "Ann Lee",
    });
    let findings = BrowserScript::new("field-kinds.mjs")
        .env("LINK", &links[ANN])
        .env("VALUES", values.to_string())
        .env("FILE", &attachment)
        .env("SHOTS", screenshots_dir())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");
    // axe-core: no serious or critical WCAG 2.1 A/AA violation at any step.
    assert_eq!(findings["violations"], json!([]), "{findings}");
    // Optional fields are named so and left out of the count: 10 required (the read-only and
    // the optional one are not), NAME filled from the start with the recipient's name.
    let names = findings["names"].to_string();
    assert!(names.contains("Text (Notes), page 1 (optional)"), "{names}");
    assert!(
        names.contains("Checkbox (Agree to the rules), page 1"),
        "{names}"
    );
    assert_eq!(findings["progressBefore"], "1 of 10 fields completed");
    assert_eq!(findings["progressAfter"], "10 of 10 fields completed");
    assert_eq!(findings["namePrefilled"], "Ann Lee");
    assert_eq!(findings["checkboxTicked"], true);
    assert_eq!(
        findings["shown"]["ATTACHMENT"], "utility-bill.pdf",
        "{findings}"
    );
    // The guide took the keyboard through every required field in reading order, then to Sign.
    let steps: Vec<String> = findings["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["type"].as_str().unwrap_or("-").to_owned())
        .collect();
    assert_eq!(
        steps,
        [
            "CHECKBOX",
            "RADIO",
            "DROPDOWN",
            "NUMBER",
            "EMAIL",
            "COMPANY",
            "TEXT",
            "ATTACHMENT",
            "SIGNATURE",
            "-"
        ],
        "{findings}"
    );

    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let url = detail["filePath"].as_str().expect("filePath").to_owned();
    let final_pdf = app
        .client
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let text = pdftotext(&final_pdf);
    for shown in [
        "Yearly",
        "South",
        "2.5",
        "ann.lee@example.com",
        "Ann B. Lee",
        "Lee & Daughters",
        "AB123",
        "utility-bill.pdf",
        "EUR 40",
    ] {
        assert!(text.contains(shown), "{shown} in {text}");
    }
    let path = app.files.path().join("final.pdf");
    std::fs::write(&path, &final_pdf).unwrap();
    let listed = Command::new("pdfdetach")
        .arg("-list")
        .arg(&path)
        .output()
        .expect("pdfdetach (poppler-utils; scripts/test.sh installs it)");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("1 embedded files"), "{listed}");
    assert!(listed.contains("utility-bill.pdf"), "{listed}");
}

/// What the contract requires of a send.
fn send_body() -> serde_json::Value {
    json!({"message": "Please sign.", "description": "With the files asked for.", "expiryDate": "2099-01-01T00:00:00Z"})
}
