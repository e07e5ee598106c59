//! `filePath`: a signed, expiring link that serves the PDF without an API key.

use chrono::{Duration, Utc};
use signet_common::infra::files::FileLinks;
use signet_tests::{LETTER, TestApp, assert_error, read};

#[tokio::test]
async fn file_path_serves_the_pdf_and_refuses_tampered_or_expired_links() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", &[LETTER, LETTER]).await;
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    let url = detail["data"]["filePath"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("{}/files/{doc}?expires=", app.base)),
        "{url}"
    );

    let response = app.client.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/pdf");
    let bytes = response.bytes().await.unwrap();
    let stored = std::fs::read(
        app.files
            .path()
            .join(format!("{account}/{doc}/original.pdf")),
    )
    .unwrap();
    assert_eq!(bytes.as_ref(), stored.as_slice());

    let forbidden = "File link is invalid or has expired";
    // Change the signature's last hex digit to a different one.
    let last = if url.ends_with('0') { '1' } else { '0' };
    let tampered = format!("{}{last}", &url[..url.len() - 1]);
    assert_ne!(tampered, url);
    let other_doc = app.document(account, "Other", &[LETTER]).await;
    let swapped = url.replace(&doc.to_string(), &other_doc.to_string());
    let expired = FileLinks::new(
        &app.base,
        b"test-file-url-secret-0123456789abcdef",
        std::time::Duration::from_secs(60),
    )
    .url(doc.into(), Utc::now() - Duration::hours(2));
    let wrong_secret = FileLinks::new(&app.base, b"guess", std::time::Duration::from_secs(60))
        .url(doc.into(), Utc::now());
    let unsigned = format!("{}/files/{doc}", app.base);
    let not_uuid = format!("{}/files/nope?expires=1&sig=00", app.base);
    for bad in [tampered, swapped, expired, wrong_secret, unsigned, not_uuid] {
        let response = app.client.get(&bad).send().await.unwrap();
        assert_error(&read(response).await, 403, "ERROR", forbidden);
    }
}
