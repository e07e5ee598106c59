//! The OpenAPI document against the real binary, by schemathesis (PyPI, pinned and installed by
//! `scripts/test.sh`): every check, positive and negative data, and the stateful phase that
//! follows the document's links from a listed document to its recipients, fields, sending and
//! audit trail. Settings and the one added check: `tests/schemathesis/`.

use signet_tests::{ApiProcess, LETTER, TestApp, repo_root};

#[tokio::test]
async fn schemathesis_finds_nothing_the_document_does_not_say() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1_000_000).await;
    // A DRAFT with the recipient the document's examples name, so that the examples reach the
    // rules behind the body checks.
    let seeded = app.document(account, "Seeded", &[LETTER, LETTER]).await;
    let recipient = serde_json::json!([{"name": "Zoë Ñúñez-O'Brien", "email": "zoe@example.com", "role": "SIGNER"}]);
    let (status, body) = app
        .post(&format!("/documents/{seeded}/recipients"), &key, &recipient)
        .await;
    assert_eq!(status, 200, "{body}");
    let api = ApiProcess::start(&app, &[]).await;

    let settings = repo_root().join("tests/schemathesis");
    let output = tokio::process::Command::new("schemathesis")
        .arg("--config-file")
        .arg(settings.join("schemathesis.toml"))
        .args([
            "run",
            &format!("{}/external/api/v1/openapi.json", api.base),
            "--url",
            &format!("{}/external/api/v1", api.base),
            "--header",
            &format!("X-API-KEY:{key}"),
            "--checks",
            "all",
            "--no-color",
        ])
        .env("PYTHONPATH", &settings)
        .env("SIGNET_SEED_DOCUMENT", seeded.to_string())
        // Its example database and reports go to a directory of this test's own.
        .current_dir(app.files.path())
        .output()
        .await
        .expect("schemathesis runs (scripts/test.sh installs it)");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "schemathesis found problems:\n{report}"
    );
    assert!(
        report.contains("Stateful") && !report.contains("Stateful (not applicable)"),
        "the stateful phase ran over the document's links:\n{report}"
    );
}
