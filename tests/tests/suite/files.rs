//! `filePath`: a signed, expiring link that serves the PDF without an API key.

use chrono::{Duration, Utc};
use signet_common::infra::files::FileLinks;
use signet_tests::{LETTER, TestApp, assert_error, read, s3_under_test};

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
    let stored = app
        .store()
        .get(&format!("{account}/{doc}/original.pdf"))
        .await
        .unwrap();
    assert_eq!(bytes, stored);

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

/// A new document of `pages`: its id, its `filePath` and its stored bytes.
async fn linked_document(app: &TestApp, pages: &[(f64, f64)]) -> (uuid::Uuid, String, Vec<u8>) {
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Contract", pages).await;
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    let url = detail["data"]["filePath"].as_str().unwrap().to_owned();
    let whole = app
        .store()
        .get(&format!("{account}/{doc}/original.pdf"))
        .await
        .unwrap()
        .to_vec();
    (doc, url, whole)
}

/// The link answers as a file server does: its length, a strong `ETag` (the file's SHA-256),
/// `304` for a copy the client has, one byte range (`206`, `416` when out of the file), and
/// the whole file for several ranges or a stale `If-Range`.
#[tokio::test]
async fn file_links_serve_lengths_etags_and_byte_ranges() {
    let app = TestApp::spawn().await;
    let (doc, url, whole) = linked_document(&app, &[LETTER, LETTER]).await;
    let sha256: String = sqlx::query_scalar("SELECT sha256 FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let etag = format!("\"{sha256}\"");
    let get = |headers: Vec<(&'static str, String)>| {
        let mut request = app.client.get(&url);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        async move { request.send().await.unwrap() }
    };

    let response = get(vec![]).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["etag"], etag.as_str());
    assert_eq!(response.headers()["accept-ranges"], "bytes");
    assert_eq!(
        response.headers()["content-length"],
        whole.len().to_string().as_str()
    );
    assert_eq!(response.bytes().await.unwrap(), whole);

    let response = get(vec![("if-none-match", etag.clone())]).await;
    assert_eq!(response.status(), 304);
    assert!(response.bytes().await.unwrap().is_empty());

    let response = get(vec![("range", "bytes=0-7".into())]).await;
    assert_eq!(response.status(), 206);
    assert_eq!(
        response.headers()["content-range"],
        format!("bytes 0-7/{}", whole.len()).as_str()
    );
    assert_eq!(response.bytes().await.unwrap(), &whole[..8]);
    assert_eq!(&whole[..5], b"%PDF-");

    let response = get(vec![("range", "bytes=-6".into())]).await;
    assert_eq!(response.status(), 206);
    assert_eq!(response.bytes().await.unwrap(), &whole[whole.len() - 6..]);

    let response = get(vec![("range", format!("bytes={}-", whole.len() + 10))]).await;
    assert_eq!(
        response.headers()["content-range"],
        format!("bytes */{}", whole.len()).as_str()
    );
    assert_error(
        &read(response).await,
        416,
        "ERROR",
        "Requested range is not satisfiable",
    );

    for whole_again in [
        vec![("range", "bytes=0-1,4-5".into())],
        vec![
            ("range", "bytes=0-7".into()),
            ("if-range", "\"stale\"".into()),
        ],
    ] {
        let response = get(whole_again).await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.bytes().await.unwrap(), whole);
    }
}

/// `FILE_DOWNLOADS=redirect`: with a bucket, the link answers `307` to a presigned URL that
/// serves the file by itself (and the bucket refuses the same URL unsigned); with a local
/// directory there is nothing to presign and the API streams the file as before.
#[tokio::test]
async fn in_redirect_mode_a_bucket_serves_the_file_through_a_presigned_url() {
    let app = TestApp::spawn_with(&[("FILE_DOWNLOADS", "redirect")]).await;
    let (doc, url, whole) = linked_document(&app, &[LETTER]).await;
    let response = app.client.get(&url).send().await.unwrap();
    if !s3_under_test() {
        assert_eq!(response.status(), 200);
        assert_eq!(response.bytes().await.unwrap(), whole);
        return;
    }
    assert_eq!(response.status(), 307);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.contains("X-Amz-Signature="), "{location}");
    // The file's name and type are asked of the bucket in the signed query (AWS, MinIO, R2
    // and GCS answer with them; moto ignores `response-*` overrides, so only the stored type
    // is checked on its answer).
    let code: String = sqlx::query_scalar("SELECT code FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let query: Vec<(String, String)> = reqwest::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert!(
        query.contains(&(
            "response-content-disposition".into(),
            format!("inline; filename=\"{code}.pdf\"")
        )),
        "{query:?}"
    );
    let presigned = app.client.get(&location).send().await.unwrap();
    assert_eq!(presigned.status(), 200);
    assert_eq!(presigned.headers()["content-type"], "application/pdf");
    assert_eq!(presigned.bytes().await.unwrap(), whole);
    let unsigned = location.split('?').next().unwrap().to_owned();
    assert_eq!(
        app.client.get(&unsigned).send().await.unwrap().status(),
        403
    );
}

/// A file written for a document that was never committed (its pending row left behind, as a
/// failed insert or a crash leaves it) is removed by the worker's sweep once older than
/// `FILE_ORPHAN_GRACE_SECS`; a pending row whose file a document does refer to loses only the
/// row.
#[tokio::test]
async fn the_sweep_removes_files_no_document_refers_to() {
    use signet_common::{model::DocumentId, store::pending_files};
    let app = TestApp::spawn().await;
    let mailbox = signet_tests::Mailbox::start().await;
    let (account, _) = app.account(1000).await;
    let doc = app.document(account, "Kept", &[LETTER]).await;
    let kept = format!("{account}/{doc}/original.pdf");
    let never_created = DocumentId::new();
    let orphan = format!("{account}/{never_created}/original.pdf");
    let store = app.store();
    store
        .put(&orphan, signet_tests::pdf(&[LETTER]).into())
        .await
        .unwrap();
    pending_files::record(&app.db.pool, &orphan, never_created)
        .await
        .unwrap();
    pending_files::record(&app.db.pool, &kept, DocumentId(doc))
        .await
        .unwrap();
    assert_eq!(store.keys().await.unwrap().len(), 2);

    let (_worker, pending) =
        signet_tests::WorkerProcess::sweeping_pending_files(&app, &mailbox.url()).await;
    assert_eq!(pending, 0, "both rows were swept");
    assert_eq!(store.keys().await.unwrap(), vec![kept]);
}
