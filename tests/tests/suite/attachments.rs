//! ATTACHMENT fields (docs/fields.md): a signer uploads a file on their signing link; refusals
//! name the field and record nothing; a signature holds only a file uploaded on that link for
//! that field; the final PDF embeds each signed file (`pdfdetach -list`), stamps its name in the
//! field's box and lists it on the certificate.

use std::{collections::HashMap, process::Command, time::Duration};

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, poll_until, read};

use crate::signing_flow::{consent, invitations, pdftotext, session, wait_for_status};

/// A small PNG image, as a camera or scanner would not make it, but a valid one.
fn png() -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, 4, 2);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&[0, 0, 128, 255].repeat(8))
            .unwrap();
    }
    bytes
}

async fn upload(
    app: &TestApp,
    link: &str,
    field: &str,
    name: &str,
    bytes: Vec<u8>,
) -> (u16, Value) {
    read(
        app.client
            .post(
                reqwest::Url::parse_with_params(
                    &format!("{link}/fields/{field}/attachment"),
                    [("name", name)],
                )
                .unwrap(),
            )
            .header("content-type", "image/png")
            .body(bytes)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn submit(app: &TestApp, link: &str, fields: Value) -> (u16, Value) {
    read(
        app.client
            .post(format!("{link}/submit"))
            .json(&json!({ "fields": fields }))
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn attachment_rows(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM signer_attachments")
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

/// The field ids of a signer's session by type, in the order placed.
fn ids(session: &Value, kind: &str) -> Vec<String> {
    session["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["type"] == kind)
        .map(|f| f["id"].as_str().unwrap().to_owned())
        .collect()
}

fn refused_naming(answer: &(u16, Value), field: &str, reason: &str) {
    assert_eq!(answer.0, 400, "{}", answer.1);
    let errors = answer.1["errors"].as_array().expect("errors");
    assert!(
        errors.iter().any(
            |e| e["field"].as_str().unwrap_or_default().starts_with(field)
                && e["reason"].as_str().unwrap_or_default().contains(reason)
        ),
        "expected {field}: …{reason}… in {}",
        answer.1
    );
}

#[tokio::test]
async fn attachments_are_checked_held_by_their_field_and_embedded_in_the_final_pdf() {
    let app = TestApp::spawn_with(&[("ATTACHMENT_MAX_MIB", "1")]).await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = app.document(account, "Lease with proofs", &[LETTER]).await;
    let people = json!([
        {"name": "Ann Example", "email": "ann@signet.test", "role": "SIGNER"},
        {"name": "Bob Example", "email": "bob@signet.test", "role": "SIGNER"},
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &people)
            .await
            .0,
        200
    );
    let field = |email: &str, kind: &str, y: i32| json!({"recipientEmail": email, "type": kind, "page": 1, "x": 72, "y": y, "width": 260, "height": 30});
    let placed = json!([
        field("ann@signet.test", "ATTACHMENT", 80),
        field("ann@signet.test", "ATTACHMENT", 130),
        field("ann@signet.test", "SIGNATURE", 180),
        field("bob@signet.test", "ATTACHMENT", 230),
        field("bob@signet.test", "SIGNATURE", 280),
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &placed)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), &key, &send_body())
        .await;
    assert_eq!(status, 200, "{body}");
    let links = invitations(&mailbox, 2).await;
    let (ann, bob) = (&links["ann@signet.test"], &links["bob@signet.test"]);
    let ann_session = session(&app, ann).await;
    let bob_session = session(&app, bob).await;
    let [proof, passport] = <[String; 2]>::try_from(ids(&ann_session, "ATTACHMENT")).unwrap();
    let ann_signature = ids(&ann_session, "SIGNATURE").remove(0);
    let bob_proof = ids(&bob_session, "ATTACHMENT").remove(0);
    let bob_signature = ids(&bob_session, "SIGNATURE").remove(0);

    // Before consent, as for every field: refused.
    let before = upload(&app, ann, &proof, "proof.png", png()).await;
    assert_eq!(before.0, 400, "{}", before.1);
    consent(&app, ann).await;
    consent(&app, bob).await;

    // Refusals, each naming the field, none recorded.
    let mut too_large = png();
    too_large.resize(1024 * 1024 + 1, 0);
    refused_naming(
        &upload(&app, ann, &proof, "big.png", too_large).await,
        &format!("fields.{proof}"),
        "larger than the 1 MiB",
    );
    refused_naming(
        &upload(
            &app,
            ann,
            &proof,
            "proof.gif",
            b"GIF89a\x01\x00\x01\x00".to_vec(),
        )
        .await,
        &format!("fields.{proof}"),
        "not a PDF, PNG or JPEG",
    );
    // Named .png and sent as image/png, but text: the bytes decide.
    refused_naming(
        &upload(&app, ann, &proof, "proof.png", b"just some text".to_vec()).await,
        &format!("fields.{proof}"),
        "not a PDF, PNG or JPEG",
    );
    // A PDF is read in the sandbox like an upload: a broken one is refused.
    refused_naming(
        &upload(
            &app,
            ann,
            &proof,
            "broken.pdf",
            b"%PDF-1.7\nnot really".to_vec(),
        )
        .await,
        &format!("fields.{proof}"),
        "the PDF cannot be taken",
    );
    refused_naming(
        &upload(&app, ann, &bob_proof, "proof.png", png()).await,
        &format!("fields.{bob_proof}"),
        "not one of your fields",
    );
    refused_naming(
        &upload(&app, ann, &ann_signature, "proof.png", png()).await,
        &format!("fields.{ann_signature}"),
        "not an ATTACHMENT field",
    );
    refused_naming(
        &upload(&app, ann, &proof, "", png()).await,
        &format!("fields.{proof}.name"),
        "missing",
    );
    assert_eq!(attachment_rows(&app).await, 0);

    // Accepted: the answer gives the id and the file's SHA-256.
    let image = png();
    let (status, uploaded) = upload(&app, ann, &proof, "proof of address.png", image.clone()).await;
    assert_eq!(status, 200, "{uploaded}");
    let proof_id = uploaded["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(uploaded["data"]["contentType"], "image/png");
    assert_eq!(uploaded["data"]["size"], image.len());
    assert_eq!(uploaded["data"]["sha256"], signet_pdf::sha256_hex(&image));
    let letter = signet_tests::pdf(&[LETTER]);
    let (status, uploaded) = upload(&app, ann, &passport, "passport.pdf", letter.clone()).await;
    assert_eq!(status, 200, "{uploaded}");
    assert_eq!(uploaded["data"]["contentType"], "application/pdf");
    let passport_id = uploaded["data"]["id"].as_str().unwrap().to_owned();
    let (status, uploaded) = upload(&app, bob, &bob_proof, "bob.png", png()).await;
    assert_eq!(status, 200, "{uploaded}");
    let bob_id = uploaded["data"]["id"].as_str().unwrap().to_owned();

    // At signing, a field holds only a file uploaded on this link for this very field.
    let signed_with = |first: &str, second: &str| {
        json!([
            {"id": proof, "value": first},
            {"id": passport, "value": second},
            {"id": ann_signature, "value": "Ann Example"},
        ])
    };
    refused_naming(
        &submit(&app, ann, signed_with(&passport_id, &passport_id)).await,
        "fields[0].value",
        "another field",
    );
    refused_naming(
        &submit(&app, ann, signed_with(&bob_id, &passport_id)).await,
        "fields[0].value",
        "not a file you uploaded on this link",
    );
    refused_naming(
        &submit(&app, ann, signed_with("not-an-id", &passport_id)).await,
        "fields[0].value",
        "",
    );
    assert_eq!(session(&app, ann).await["recipient"]["status"], "VIEWED");

    let (status, body) = submit(&app, ann, signed_with(&proof_id, &passport_id)).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = submit(
        &app,
        bob,
        json!([{"id": bob_proof, "value": bob_id}, {"id": bob_signature, "value": "Bob Example"}]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    wait_for_status(&app, &key, doc, "COMPLETED").await;

    let final_pdf = download(&app, &key, doc).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("final.pdf");
    std::fs::write(&path, &final_pdf).unwrap();
    let listed = Command::new("pdfdetach")
        .arg("-list")
        .arg(&path)
        .output()
        .expect("pdfdetach (poppler-utils; scripts/test.sh installs it)");
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("3 embedded files"), "{listed}");
    for name in ["proof of address.png", "passport.pdf", "bob.png"] {
        assert!(listed.contains(name), "{name} in {listed}");
    }
    // The embedded file is the file uploaded, byte for byte.
    let saved = dir.path().join("saved.png");
    let number = listed
        .lines()
        .find_map(|line| line.strip_suffix(": proof of address.png"))
        .expect("listed with its number");
    let out = Command::new("pdfdetach")
        .arg("-save")
        .arg(number.trim())
        .arg("-o")
        .arg(&saved)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&saved).unwrap(), image);
    let text = pdftotext(&final_pdf);
    assert!(text.contains("proof of address.png"), "{text}");
    assert!(
        text.contains(&signet_pdf::sha256_hex(&image)[..16]),
        "the certificate lists the SHA-256: {text}"
    );
}

async fn download(app: &TestApp, key: &str, doc: uuid::Uuid) -> Vec<u8> {
    let detail = app.get(&format!("/documents/{doc}"), key).await.1;
    let url = detail["data"]["filePath"]
        .as_str()
        .expect("filePath")
        .to_owned();
    app.client
        .get(url)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

/// A sent document of a new account whose signer, Ann, has an ATTACHMENT field (a proof)
/// and a SIGNATURE field; the signing links its invitations carry, by address.
async fn sent_proofs(app: &TestApp, mailbox: &Mailbox) -> HashMap<String, String> {
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Proofs", &[LETTER]).await;
    let people = json!([{"name": "Ann Example", "email": "ann@signet.test", "role": "SIGNER"}]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &people)
            .await
            .0,
        200
    );
    let placed = json!([
        {"recipientEmail": "ann@signet.test", "type": "ATTACHMENT", "page": 1, "x": 72, "y": 80, "width": 260, "height": 30},
        {"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1, "x": 72, "y": 140, "width": 260, "height": 30},
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), &key, &placed)
            .await
            .0,
        200
    );
    assert_eq!(
        app.post(&format!("/documents/{doc}/send"), &key, &send_body())
            .await
            .0,
        200
    );
    let worker = WorkerProcess::start(app, &mailbox.url(), &[]);
    let links = invitations(mailbox, 1).await;
    drop(worker);
    links
}

/// A replaced upload is removed by the file sweep with its row; the signed one stays.
#[tokio::test]
async fn replaced_uploads_are_swept_and_signed_ones_kept() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let links = sent_proofs(&app, &mailbox).await;
    let ann = &links["ann@signet.test"];
    let opened = session(&app, ann).await;
    let proof = ids(&opened, "ATTACHMENT").remove(0);
    let signature = ids(&opened, "SIGNATURE").remove(0);
    consent(&app, ann).await;
    let first = upload(&app, ann, &proof, "first.png", png()).await;
    let second = upload(&app, ann, &proof, "second.png", png()).await;
    assert_eq!((first.0, second.0), (200, 200));
    let second_id = second.1["data"]["id"].as_str().unwrap().to_owned();
    let (status, body) = submit(
        &app,
        ann,
        json!([{"id": proof, "value": second_id}, {"id": signature, "value": "Ann Example"}]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let keys_before = app.file_store.keys().await;
    assert_eq!(
        keys_before
            .iter()
            .filter(|k| k.contains("/attachments/"))
            .count(),
        2,
        "{keys_before:?}"
    );

    let (_worker, _) = WorkerProcess::sweeping_pending_files(&app, &mailbox.url()).await;
    let left: Vec<String> = poll_until(
        Duration::from_secs(60),
        || async {
            sqlx::query_scalar("SELECT id::text FROM signer_attachments")
                .fetch_all(&app.db.pool)
                .await
                .unwrap()
        },
        |left: &Vec<String>| left.len() == 1,
    )
    .await;
    assert_eq!(left, vec![second_id.clone()]);
    let keys = app.file_store.keys().await;
    let attachments: Vec<&String> = keys
        .iter()
        .filter(|k| k.contains("/attachments/"))
        .collect();
    assert_eq!(attachments.len(), 1, "{keys:?}");
    assert!(attachments[0].ends_with(&second_id), "{attachments:?}");
}

/// What the contract requires of a send.
fn send_body() -> serde_json::Value {
    json!({"message": "Please sign.", "description": "With the files asked for.", "expiryDate": "2099-01-01T00:00:00Z"})
}

/// A JPEG of `width` × `height`, as a camera would make it (smaller).
fn jpeg(width: u16, height: u16) -> Vec<u8> {
    let mut bytes = Vec::new();
    jpeg_encoder::Encoder::new(&mut bytes, 85)
        .encode(
            &[30, 120, 200].repeat(usize::from(width) * usize::from(height)),
            width,
            height,
            jpeg_encoder::ColorType::Rgb,
        )
        .unwrap();
    bytes
}

/// A small PNG whose header (with a valid CRC) claims 65,535 × 65,535 pixels.
fn png_claiming_65535_squared() -> Vec<u8> {
    let mut bytes = png();
    bytes[16..24].copy_from_slice(&[0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF]);
    let crc = crc32fast::hash(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

/// Issue #48: the kind of an image is read from its first bytes, but the whole file must be
/// one. The PNG signature followed by zeros, a PNG whose header claims 65,535² pixels and a
/// JPEG cut in half are each refused naming the field, and nothing is stored; a real PNG and
/// JPEG are taken as before.
#[tokio::test]
async fn an_image_is_decoded_whole_before_it_is_taken() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let links = sent_proofs(&app, &mailbox).await;
    let ann = &links["ann@signet.test"];
    let proof = ids(&session(&app, ann).await, "ATTACHMENT").remove(0);
    consent(&app, ann).await;
    let at = format!("fields.{proof}");

    let mut signature_and_zeros = b"\x89PNG\r\n\x1a\n".to_vec();
    signature_and_zeros.extend([0; 40]);
    refused_naming(
        &upload(&app, ann, &proof, "scan.png", signature_and_zeros).await,
        &at,
        "the file is not a valid PNG image: ",
    );
    let claiming = png_claiming_65535_squared();
    assert!(claiming.len() < 600, "{} bytes", claiming.len());
    refused_naming(
        &upload(&app, ann, &proof, "huge.png", claiming).await,
        &at,
        "the image is 65535 × 65535 pixels; an attachment may have at most 40000000 pixels",
    );
    let whole = jpeg(64, 48);
    refused_naming(
        &upload(
            &app,
            ann,
            &proof,
            "cut.jpg",
            whole[..whole.len() / 2].to_vec(),
        )
        .await,
        &at,
        "the file is not a valid JPEG image: ",
    );
    assert_eq!(attachment_rows(&app).await, 0);
    let stored = app.file_store.keys().await;
    assert!(
        !stored.iter().any(|k| k.contains("/attachments/")),
        "{stored:?}"
    );

    let (status, taken) = upload(&app, ann, &proof, "photo.jpg", whole.clone()).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["data"]["contentType"], "image/jpeg");
    assert_eq!(taken["data"]["size"], whole.len());
    let (status, taken) = upload(&app, ann, &proof, "proof.png", png()).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["data"]["contentType"], "image/png");
    assert_eq!(attachment_rows(&app).await, 2);
}
