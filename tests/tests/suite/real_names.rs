//! Real people's names: every accepted recipient is reached with a correct `To:` header, and
//! every name and typed value reads back exactly from the signed PDF, in any script.

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, assert_error};
use uuid::Uuid;

use crate::signing_flow::{invitations, pdftotext, sign, wait_for_status};

/// (name, e-mail, a typed text value in the same script).
pub(crate) const PEOPLE: [(&str, &str, &str); 12] = [
    ("O'Brien, \"Bob\"", "obrien@signet.test", "Approved"),
    (
        "Legal team (legal@acme)",
        "legal@signet.test",
        "Reviewed; no changes",
    ),
    ("José Müller; CFO", "jose@signet.test", "Genehmigt: Größe"),
    (
        "Zoë Ærøskøbing-Łukasiewicz",
        "zoe@signet.test",
        "Zatwierdzono",
    ),
    ("王芳", "wang@signet.test", "同意"),
    ("Юлия Соколова", "yulia@signet.test", "Согласовано"),
    ("محمد الأحمد", "mohammed@signet.test", "موافق"),
    ("דוד כהן", "david@signet.test", "מאושר"),
    ("प्रिया शर्मा", "priya@signet.test", "स्वीकृत"),
    ("Ελένη Παπαδοπούλου", "eleni@signet.test", "Εγκρίθηκε"),
    ("김민준 <admin> [CEO]", "minjun@signet.test", "승인"),
    ("山田 さくら 🌸", "sakura@signet.test", "承認"),
];

/// Adds `people` as signers of a new one-page document, each with a signature and a text
/// field, and sends it.
pub(crate) async fn send_to(
    app: &TestApp,
    account: Uuid,
    key: &str,
    people: &[(&str, &str, &str)],
) -> Uuid {
    let doc = app.document(account, "Names agreement", &[LETTER]).await;
    let recipients: Vec<Value> = people
        .iter()
        .map(|(name, email, _)| json!({"name": name, "email": email, "role": "SIGNER"}))
        .collect();
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            key,
            &json!(recipients),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let fields: Vec<Value> = people
        .iter()
        .enumerate()
        .flat_map(|(i, (_, email, _))| {
            let y = 30 + 60 * i;
            [
                json!({"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 40, "y": y, "width": 260, "height": 28}),
                json!({"recipientEmail": email, "type": "TEXT", "page": 1, "x": 320, "y": y, "width": 240, "height": 28}),
            ]
        })
        .collect();
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), key, &json!(fields))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            key,
            &json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    doc
}

/// Each raw message's `To:` header line and its decoded (name, address).
fn to_headers(mailbox: &Mailbox) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for sub in ["new", "cur"] {
        let Ok(entries) = std::fs::read_dir(mailbox.dir.path().join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let raw = std::fs::read(entry.path()).unwrap();
            let header = String::from_utf8_lossy(&raw)
                .split("\r\n\r\n")
                .next()
                .unwrap()
                .replace("\r\n ", " ")
                .replace("\r\n\t", " ")
                .lines()
                .find(|line| line.to_ascii_lowercase().starts_with("to:"))
                .unwrap_or_default()
                .to_owned();
            let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
            let to = parsed
                .to()
                .and_then(|to| to.first())
                .expect("a To: mailbox");
            found.push((
                header,
                to.name().unwrap_or_default().to_owned(),
                to.address().unwrap_or_default().to_owned(),
            ));
        }
    }
    found
}

pub(crate) async fn final_pdf(app: &TestApp, detail: &Value) -> Vec<u8> {
    app.client
        .get(detail["filePath"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}

#[tokio::test]
async fn every_name_is_mailed_signed_and_written_exactly() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send_to(&app, account, &key, &PEOPLE).await;

    // Every invitation arrives, addressed to the name as given.
    let links = invitations(&mailbox, PEOPLE.len()).await;
    let headers = to_headers(&mailbox);
    for (name, email, _) in PEOPLE {
        let (header, decoded_name, address) = headers
            .iter()
            .find(|(_, _, address)| address == email)
            .unwrap_or_else(|| panic!("no invitation to {email}: {headers:#?}"));
        assert_eq!((decoded_name.as_str(), address.as_str()), (name, email));
        assert!(header.is_ascii(), "the header is encoded: {header}");
    }

    for (name, email, value) in PEOPLE {
        let (status, body) = sign(&app, &links[email], &[name, value]).await;
        assert_eq!(status, 200, "{email}: {body}");
    }
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    let text = pdftotext(&pdf);
    for (name, _, value) in PEOPLE {
        // Once stamped as the typed signature, once in the certificate.
        assert!(
            text.matches(name).count() >= 2,
            "{name:?} is not stamped and certified:\n{text}"
        );
        assert!(text.contains(value), "{value:?} is not stamped:\n{text}");
    }
    assert!(!text.contains('?'), "nothing is drawn as '?':\n{text}");
}

#[tokio::test]
async fn five_signers_in_five_scripts_make_a_small_final_pdf() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let five: Vec<(&str, &str, &str)> = [3, 4, 5, 6, 8].iter().map(|&i| PEOPLE[i]).collect();
    let doc = send_to(&app, account, &key, &five).await;
    let links = invitations(&mailbox, five.len()).await;
    for (name, email, value) in &five {
        assert_eq!(sign(&app, &links[*email], &[name, value]).await.0, 200);
    }
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    eprintln!(
        "final PDF, 1 page, 5 signers in 5 scripts: {} bytes ({:.1} KiB)",
        pdf.len(),
        pdf.len() as f64 / 1024.0
    );
    assert!(pdf.len() < 400 * 1024, "{} bytes", pdf.len());
    let text = pdftotext(&pdf);
    for (name, _, value) in &five {
        assert!(
            text.contains(name) && text.contains(value),
            "{name}:\n{text}"
        );
    }
}

#[tokio::test]
async fn an_address_the_mail_layer_cannot_use_is_refused_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Addresses", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    for (bad, reason) in [
        ("josé@bücher.example", "internationalised"),
        ("用户@例子.广告", "internationalised"),
        ("ann@[127.0.0.1]", "not a valid e-mail address"),
        ("ann smith@signet.test", "not a valid e-mail address"),
    ] {
        let body = json!([
            {"name": "O'Brien, \"Bob\"", "email": "bob@signet.test", "role": "SIGNER"},
            {"name": "Ann", "email": "ann@signet.test", "role": "SIGNER"},
            {"name": "Bad", "email": bad, "role": "SIGNER"},
        ]);
        let answer = app.post(&path, &key, &body).await;
        assert_error(&answer, 400, "ERROR", crate::errors::INVALID);
        let errors = answer.1["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 1, "{answer:?}");
        assert_eq!(errors[0]["field"], "[2].email");
        assert!(
            errors[0]["reason"].as_str().unwrap().contains(reason),
            "{bad}: {answer:?}"
        );
    }
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["recipients"], json!([]));
    let (status, _) = app
        .post(
            &path,
            &key,
            &json!([{"name": "O'Brien, \"Bob\"", "email": "bob@signet.test", "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200);
}
