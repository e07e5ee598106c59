//! The audit trail: API order and content, the append-only trigger, and `audit verify`.

use std::process::Command;

use serde_json::{Value, json};
use signet_tests::{LETTER, TestApp, binary};

/// `signet-api audit verify` on the document: its exit code, its JSON answer and its stderr.
pub(crate) fn verify(app: &TestApp, doc: uuid::Uuid) -> (i32, Value, String) {
    let output = Command::new(binary("signet-api"))
        .args(["audit", "verify", "--document", &doc.to_string()])
        .env("DATABASE_URL", app.db.url())
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    (
        output.status.code().unwrap_or(-1),
        serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn trail_is_ordered_attributed_and_tamper_evident() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1")]).await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER]).await;
    let post = |path: String, body: Value| {
        let app = &app;
        let key = key.clone();
        async move {
            let response = app
                .client
                .post(format!("{}/external/api/v1{path}", app.base))
                .header("x-api-key", key)
                .header("user-agent", "integration-test/1.0")
                .header("x-forwarded-for", "203.0.113.9, 127.0.0.1")
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
        }
    };
    post(format!("/documents/{doc}/recipients"), json!([{"name": "Ann", "email": "ann@b.co", "role": "SIGNER"}, {"name": "Vic", "email": "vic@b.co", "role": "VIEWER"}])).await;
    post(format!("/documents/{doc}/fields"), json!([{"recipientEmail": "ann@b.co", "type": "SIGNATURE", "page": 1, "x": 0, "y": 0}, {"recipientEmail": "vic@b.co", "type": "TEXT", "page": 1, "x": 0, "y": 100}])).await;
    post(
        format!("/documents/{doc}/send"),
        json!({"message": "m", "description": "d", "expiryDate": "2099-01-01T00:00:00Z"}),
    )
    .await;

    let (status, body) = app.get(&format!("/documents/{doc}/audit"), &key).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Audit trail retrieved successfully"))
    );
    let entries = body["data"].as_array().unwrap();
    let summary: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        summary,
        [
            ("CREATED", "Document created"),
            ("UPDATED", "Recipients added: ann@b.co, vic@b.co"),
            ("UPDATED", "Fields added: 2"),
            ("SENT", "Document sent to 2 recipients"),
        ]
    );
    for entry in &entries[1..] {
        // The proxy on 127.0.0.1 is trusted, so the client is the forwarded address.
        assert_eq!(
            (entry["ipAddress"].as_str(), entry["userAgent"].as_str()),
            (Some("203.0.113.9"), Some("integration-test/1.0"))
        );
    }
    assert_eq!(
        entries[0]["userAgent"],
        format!("signet-api-cli/{}", signet_common::VERSION)
    );
    let keys: Vec<&String> = entries[0].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 6, "{keys:?}");

    let (code, report, _) = verify(&app, doc);
    assert_eq!(
        (code, &report["ok"], &report["entries"]),
        (0, &json!(true), &json!(4))
    );

    // The database refuses changes to the trail.
    for statement in [
        "UPDATE audit_entries SET message = 'x'",
        "DELETE FROM audit_entries",
        "TRUNCATE audit_entries",
    ] {
        let error = sqlx::query(statement)
            .execute(&app.db.pool)
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("append-only"),
            "{statement}: {error}"
        );
    }

    // With the trigger disabled (as an attacker with table ownership could), a change is found.
    let third_seq: i64 = sqlx::query_scalar(
        "SELECT seq FROM audit_entries WHERE document_id = $1 ORDER BY seq OFFSET 2 LIMIT 1",
    )
    .bind(doc)
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    let mut tx = app.db.pool.begin().await.unwrap();
    sqlx::query("ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_no_update_or_delete")
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("UPDATE audit_entries SET message = 'Fields added: 1' WHERE seq = $1")
        .bind(third_seq)
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_no_update_or_delete")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let (code, report, stderr) = verify(&app, doc);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(report["ok"], false);
    assert_eq!(report["firstBroken"]["seq"], third_seq);
    assert!(stderr.contains("broken"), "{stderr}");

    let (code, _, stderr) = verify(&app, uuid::Uuid::now_v7());
    assert_eq!(code, 1);
    assert!(stderr.contains("not found"), "{stderr}");
}
