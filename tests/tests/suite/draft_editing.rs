//! Fixing mistakes in a DRAFT from the console: the placement page shows the saved fields,
//! which can be moved, resized and removed; recipients can be removed. The API's six endpoints
//! are untouched; these go through the domain functions.

use reqwest::{StatusCode, header};
use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, assert_error};
use uuid::Uuid;

use crate::console::Browser;

/// The value of the HTML attribute `data-<name>="…"`, unescaped.
pub(crate) fn data_attribute(html: &str, name: &str) -> String {
    let marker = format!("data-{name}=\"");
    let start = html.find(&marker).expect("the attribute") + marker.len();
    let raw = &html[start..start + html[start..].find('"').unwrap()];
    raw.replace("&quot;", "\"").replace("&amp;", "&")
}

async fn fields(app: &TestApp, doc: Uuid) -> Vec<(Uuid, String, f64, f64, f64, f64)> {
    sqlx::query_as(
        "SELECT f.id, r.email, f.x, f.y, f.width, f.height FROM fields f
         JOIN recipients r ON r.id = f.recipient_id WHERE f.document_id = $1 ORDER BY f.created_at",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn saved_fields_are_shown_moved_resized_and_removed_and_recipients_removed() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app
        .document(account, "Draft to fix", &[LETTER, LETTER])
        .await;
    let people = json!([
        {"name": "Ann", "email": "ann@signet.test", "role": "SIGNER"},
        {"name": "Wrong Person", "email": "wrong@signet.test", "role": "SIGNER"},
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &people)
            .await
            .0,
        200
    );
    let placed = json!([
        {"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1, "x": 72, "y": 100, "width": 200, "height": 50},
        {"recipientEmail": "ann@signet.test", "type": "DATE", "page": 2, "x": 72, "y": 300},
        {"recipientEmail": "wrong@signet.test", "type": "SIGNATURE", "page": 1, "x": 72, "y": 400},
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), &key, &placed)
            .await
            .0,
        200
    );
    let before = fields(&app, doc).await;

    let mut browser = Browser::signed_in_as(&app, account).await;

    // Reopening the placement page shows the saved fields, each with its id and box.
    let place = browser.get(&format!("/app/documents/{doc}/place")).await;
    assert_eq!(place.status, StatusCode::OK);
    let shown: Value = serde_json::from_str(&data_attribute(&place.body, "fields")).unwrap();
    assert_eq!(shown.as_array().unwrap().len(), 3);
    assert_eq!(shown[0]["id"], before[0].0.to_string());
    assert_eq!(
        (
            shown[1]["type"].as_str(),
            shown[1]["page"].as_i64(),
            shown[1]["y"].as_f64()
        ),
        (Some("DATE"), Some(2), Some(300.0))
    );
    let csrf = data_attribute(&place.body, "csrf");
    let cookie: Vec<String> = browser
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let cookie = cookie.join("; ");
    let save = |body: Value| {
        app.client
            .post(format!("{}/app/documents/{doc}/fields", app.base))
            .header(header::COOKIE, cookie.clone())
            .header("x-csrf-token", csrf.clone())
            .json(&body)
            .send()
    };
    let keep = |id: Uuid, x: f64, y: f64, width: f64, height: f64| json!({"id": id, "x": x, "y": y, "width": width, "height": height});

    // Moving a field off its page is refused and changes nothing.
    let refused = signet_tests::read(
        save(json!({"keep": [keep(before[0].0, 500.0, 100.0, 200.0, 50.0)]}))
            .await
            .unwrap(),
    )
    .await;
    assert_error(
        &refused,
        400,
        "ERROR",
        "Field is outside the bounds of page 1",
    );
    assert_eq!(fields(&app, doc).await, before);

    // Move and resize the first, drop the date, keep the third, add one.
    let (status, body) = signet_tests::read(
        save(json!({
            "keep": [
                keep(before[0].0, 100.0, 120.0, 150.0, 40.0),
                keep(before[2].0, 72.0, 400.0, 200.0, 50.0),
            ],
            "add": [{"recipientEmail": "ann@signet.test", "type": "INITIALS", "page": 2, "x": 10, "y": 10, "width": 60, "height": 30}],
        }))
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Fields saved")),
        "{body}"
    );
    let after = fields(&app, doc).await;
    assert_eq!(after.len(), 3);
    assert_eq!(
        after[0],
        (
            before[0].0,
            "ann@signet.test".into(),
            100.0,
            120.0,
            150.0,
            40.0
        )
    );
    assert_eq!(after[1], before[2]);
    assert_eq!(
        (after[2].2, after[2].3, after[2].4, after[2].5),
        (10.0, 10.0, 60.0, 30.0)
    );

    // Remove a recipient: their fields go too.
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    let wrong: Uuid =
        sqlx::query_scalar("SELECT id FROM recipients WHERE email = 'wrong@signet.test'")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    let action = format!("/app/documents/{doc}/recipients/{wrong}/remove");
    assert!(page.body.contains(&action), "{}", page.body);
    let removed = browser.post(&action, &[("csrf", &page.csrf())]).await;
    assert_eq!(removed.status, StatusCode::SEE_OTHER);
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    let emails: Vec<&str> = detail["data"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["email"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["ann@signet.test"]);
    assert_eq!(fields(&app, doc).await.len(), 2);

    // A new recipient after a removal gets a free position and colour.
    let again = json!([{"name": "Right Person", "email": "right@signet.test", "role": "SIGNER"}]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &again)
            .await
            .0,
        200
    );

    let trail = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
    let messages: Vec<&str> = trail
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"Fields changed: 1 added, 1 moved or resized, 1 removed"),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"Recipient removed: wrong@signet.test"),
        "{messages:?}"
    );

    // Once sent, nothing of it is allowed.
    let fields_now = fields(&app, doc).await;
    let right_field = json!([{"recipientEmail": "right@signet.test", "type": "SIGNATURE", "page": 1, "x": 300, "y": 600}]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), &key, &right_field)
            .await
            .0,
        200
    );
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let late = signet_tests::read(save(json!({"keep": []})).await.unwrap()).await;
    assert_error(&late, 400, "ERROR", "Document is not in DRAFT status");
    assert_eq!(fields(&app, doc).await.len(), fields_now.len() + 1);
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    assert!(!page.body.contains("/remove\""));
    let ann: Uuid = sqlx::query_scalar("SELECT id FROM recipients WHERE email = 'ann@signet.test'")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let late = browser
        .post(
            &format!("/app/documents/{doc}/recipients/{ann}/remove"),
            &[("csrf", &page.csrf())],
        )
        .await;
    assert_eq!(late.status, StatusCode::BAD_REQUEST);
}
