//! Retention (issue #37, docs/retention.md): an account's policy set through the API, the real
//! worker's sweep removing a document's files from the store (a directory here, a bucket in
//! `suite_s3`) once the period after its end has passed, the detail and the download saying so,
//! the audit trail keeping the hashes and still verifying, and `document.files_removed`
//! reaching a real receiver.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use signet_tests::{
    LETTER, Mailbox, Receiver, TestApp, WorkerProcess, assert_error, eventually, read,
};
use uuid::Uuid;

use crate::{
    signing_flow::{invitations, send_document, sign, wait_for_status},
    webhooks::account_with_webhook,
};

/// `signet-api audit verify` on the document: its JSON answer.
pub(crate) fn verify(app: &TestApp, doc: Uuid) -> Value {
    let (code, report, stderr) = crate::audit_chain::verify(app, doc);
    assert!(!report.is_null(), "audit verify answered {code}: {stderr}");
    report
}

/// The public `/verify` page's answer to the signer's copy: a verified page.
async fn verified_page(app: &TestApp, pdf: &[u8]) -> String {
    let (status, page) = crate::seal::verify_page(app, pdf).await;
    assert_eq!(status, 200, "{page}");
    page
}

async fn put(app: &TestApp, key: &str, path: &str, body: &Value) -> (u16, Value) {
    read(app.call(Method::PUT, path, Some(key), Some(body)).await).await
}

async fn keys_of(app: &TestApp, doc: Uuid) -> (String, Option<String>) {
    sqlx::query_as("SELECT file_key, final_file_key FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn files_are_removed_after_the_retention_period_and_the_trail_still_verifies() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("WEBHOOK_ALLOW_PRIVATE", "true"),
            ("EXPIRY_SWEEP_CRON", "* * * * * *"),
        ],
    );

    // Off by default; bad values are refused and change nothing.
    let (status, body) = app.get("/account/retention", &key).await;
    assert_eq!((status, &body["data"]), (200, &json!({"days": null})));
    for bad in [
        json!({"days": 0}),
        json!({"days": 36501}),
        json!({"days": "thirty"}),
    ] {
        let answer = put(&app, &key, "/account/retention", &bad).await;
        assert_error(
            &answer,
            400,
            "ERROR",
            "Invalid request body or validation error",
        );
        assert_eq!(answer.1["errors"][0]["field"], "days", "{}", answer.1);
    }
    assert_eq!(
        app.get("/account/retention", &key).await.1["data"],
        json!({"days": null})
    );
    let (status, body) = put(&app, &key, "/account/retention", &json!({"days": 30})).await;
    assert_eq!(
        (status, body["message"].as_str(), &body["data"]),
        (
            200,
            Some("Retention policy updated successfully"),
            &json!({"days": 30})
        )
    );

    // A completed document, and a cancelled one that ended just now.
    let doc = send_document(
        &app,
        account,
        &key,
        &[("ann@retention.test", "SIGNER")],
        &[("ann@retention.test", "SIGNATURE")],
        "2099-01-01T00:00:00Z",
    )
    .await;
    let links = invitations(&mailbox, 1).await;
    assert_eq!(
        sign(&app, &links["ann@retention.test"], &["Ann"]).await.0,
        200
    );
    let completed = wait_for_status(&app, &key, doc, "COMPLETED").await;
    assert_eq!(completed["filesRemovedAt"], Value::Null);
    let recent = app.document(account, "Recent", &[LETTER]).await;
    assert_eq!(
        app.post(&format!("/documents/{recent}/cancel"), &key, &json!({}))
            .await
            .0,
        200
    );
    let (original, final_pdf) = keys_of(&app, doc).await;
    let final_pdf = final_pdf.expect("a final PDF");
    let store = app.store();
    assert!(store.get(&original).await.is_ok());
    // The signer's copy of the final PDF, which outlives the service's.
    let signers_copy = store.get(&final_pdf).await.expect("the final PDF").to_vec();
    let verified = verified_page(&app, &signers_copy).await;
    assert!(
        verified.contains("Verified: issued by this service")
            && !verified.contains("files-removed"),
        "{verified}"
    );
    let final_sha256: String =
        sqlx::query_scalar("SELECT final_sha256 FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();

    // The completed document ended 31 days ago: past the period.
    sqlx::query("UPDATE documents SET ended_at = now() - interval '31 days' WHERE id = $1")
        .bind(doc)
        .execute(&app.db.pool)
        .await
        .unwrap();
    let detail = eventually(
        "the sweep to remove the document's files",
        Duration::from_secs(60),
        || async {
            let detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
            (!detail["filesRemovedAt"].is_null()).then_some(detail)
        },
    )
    .await;
    assert_eq!(detail["filesRemovedReason"], "RETENTION_POLICY");
    assert_eq!(detail["status"], "COMPLETED");
    eventually(
        "the files to be gone from the store",
        Duration::from_secs(60),
        || async {
            let left: i64 = sqlx::query_scalar("SELECT count(*) FROM file_deletions")
                .fetch_one(&app.db.pool)
                .await
                .unwrap();
            (left == 0).then_some(())
        },
    )
    .await;
    for key in [&original, &final_pdf] {
        assert!(
            store.get(key).await.is_err(),
            "{key} is no longer in the store"
        );
    }

    // The download says why, in the envelope; with `original=1` too.
    let file_path = detail["filePath"].as_str().unwrap().to_owned();
    for url in [file_path.clone(), format!("{file_path}&original=1")] {
        let answer = read(app.client.get(&url).send().await.unwrap()).await;
        assert_error(
            &answer,
            410,
            "ERROR",
            "The document's files were removed under the account's retention policy",
        );
    }

    // The hashes stay, in the row and in the trail, which still verifies.
    let kept: Option<String> =
        sqlx::query_scalar("SELECT final_sha256 FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(kept.as_deref(), Some(final_sha256.as_str()));
    let trail = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
    let last = trail.as_array().unwrap().last().unwrap().clone();
    let message = last["message"].as_str().unwrap();
    assert!(
        message.starts_with("Files removed under the account's retention policy (30 days")
            && message.contains(&final_sha256),
        "{last}"
    );
    let verification = verify(&app, doc);
    assert_eq!(verification["ok"], true, "{verification}");
    // The public verification page still knows the signer's copy, and says the service's own
    // copies are gone under the policy.
    let verified = verified_page(&app, &signers_copy).await;
    assert!(
        verified.contains("Verified: issued by this service")
            && verified.contains("id=\"files-removed\"")
            && verified.contains("under the account's retention policy"),
        "{verified}"
    );

    // The receiver was told, with the detail as it now is.
    let told = receiver
        .wait_for(1, Duration::from_secs(60), |r| {
            r.event_type() == "document.files_removed"
        })
        .await;
    let payload: Value = serde_json::from_str(&told[0].body).unwrap();
    assert_eq!(payload["data"]["id"], doc.to_string());
    assert_eq!(payload["data"]["filesRemovedReason"], "RETENTION_POLICY");

    // The document that ended within the period keeps its file; a second sweep changes nothing.
    let (recent_original, _) = keys_of(&app, recent).await;
    assert!(store.get(&recent_original).await.is_ok());
    let recent_detail = app.get(&format!("/documents/{recent}"), &key).await.1;
    assert_eq!(recent_detail["data"]["filesRemovedAt"], Value::Null);
    let entries = trail.as_array().unwrap().len();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let again = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
    assert_eq!(again.as_array().unwrap().len(), entries, "removed once");

    // Turned off, the policy removes nothing more.
    let (status, body) = put(&app, &key, "/account/retention", &json!({"days": null})).await;
    assert_eq!((status, &body["data"]), (200, &json!({"days": null})));
}
