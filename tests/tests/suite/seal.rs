//! The seal (issue #17): every final PDF carries one PAdES signature by the operator's seal,
//! applied once after the last signature, which real validators that share no code with Signet
//! — poppler's `pdfsig` and pyHanko — accept, trusting the seal's root; one changed byte makes
//! all of them, and `signet-api document verify`, say so.

use std::{path::Path, process::Command};

use serde_json::Value;
use signet_tests::{Mailbox, Pki, TestApp, Tsa, WorkerProcess, binary, repo_root};

use crate::real_names::{PEOPLE, final_pdf, send_to};
use crate::signing_flow::{invitations, sign, wait_for_status};

/// A development seal's files, made by the operator command.
fn development_seal(dir: &Path) -> (String, String, String) {
    let out = Command::new(binary("signet-api"))
        .args(["seal", "create-development", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = |name: &str| files[name].as_str().unwrap().to_owned();
    (path("keyFile"), path("certFile"), path("rootFile"))
}

fn verify(file: &Path, root: &str) -> (bool, Value, String) {
    let out = Command::new(binary("signet-api"))
        .args(["document", "verify", "--file"])
        .arg(file)
        .args(["--trust", root])
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.success(),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn pdfsig(file: &Path) -> String {
    let out = Command::new("pdfsig")
        .arg(file)
        .output()
        .expect("pdfsig runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// pdfsig's report on `file`, after checking that it finds one signature and says it is valid.
fn pdfsig_one_valid_seal(file: &Path) -> String {
    let text = pdfsig(file);
    assert!(
        text.contains("Signature #1") && !text.contains("Signature #2"),
        "one seal: {text}"
    );
    assert!(
        text.contains("Signature Validation: Signature is Valid."),
        "{text}"
    );
    text
}

/// pyHanko's verdict on each signature, as `tests/support/pyhanko_validate.py` prints it,
/// trusting `roots`.
fn pyhanko(file: &Path, roots: &[&str]) -> Vec<Value> {
    pyhanko_with(&[], file, roots)
}

fn pyhanko_with(options: &[&str], file: &Path, roots: &[&str]) -> Vec<Value> {
    let out = Command::new("python3")
        .arg(repo_root().join("tests/support/pyhanko_validate.py"))
        .args(options)
        .arg(file)
        .args(roots)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "pyHanko (scripts/test.sh installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[tokio::test]
async fn the_final_pdf_is_sealed_once_and_real_validators_accept_it() {
    let seal_dir = tempfile::tempdir().unwrap();
    let (key_file, cert_file, root) = development_seal(&seal_dir.path().join("seal"));
    // The API reads the chain too: `/verify` trusts its root.
    let app =
        TestApp::spawn_with(&[("SEAL_KEY_FILE", &key_file), ("SEAL_CERT_FILE", &cert_file)]).await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[("SEAL_KEY_FILE", &key_file), ("SEAL_CERT_FILE", &cert_file)],
    );
    let (account, key) = app.account(1000).await;
    // Signers in several scripts: the seal comes once, after the last of them.
    let people: Vec<(&str, &str, &str)> = [0, 3, 5, 6].iter().map(|&i| PEOPLE[i]).collect();
    let doc = send_to(&app, account, &key, &people).await;
    let links = invitations(&mailbox, people.len()).await;
    for (name, email, value) in &people {
        assert_eq!(sign(&app, &links[*email], &[name, value]).await.0, 200);
    }
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    let file = app.files.path().join("final.pdf");
    std::fs::write(&file, &pdf).unwrap();
    let code: String = sqlx::query_scalar("SELECT code FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();

    let (ok, report, stderr) = verify(&file, &root);
    assert!(ok, "{stderr}");
    assert_eq!(report["valid"], true);
    assert_eq!(report["trusted"], true);
    assert_eq!(
        report["reason"],
        format!("Completed in Signet, document {code}")
    );
    assert!(
        report["signer"]
            .as_str()
            .unwrap()
            .contains("Signet development seal"),
        "{report}"
    );
    let text = pdfsig_one_valid_seal(&file);
    assert!(text.contains("Total document signed"), "{text}");
    assert!(text.contains("ETSI.CAdES.detached"), "{text}");
    let verdicts = pyhanko(&file, &[&root]);
    assert_eq!(verdicts[0]["signatures"], 1, "{verdicts:?}");
    assert_eq!(
        verdicts[1]["summary"], "INTACT:TRUSTED,UNTOUCHED",
        "{verdicts:?}"
    );
    assert_eq!(
        verdicts[1]["coverage"],
        "SignatureCoverageLevel.ENTIRE_FILE"
    );
    assert!(
        !worker.log().contains("BEGIN PRIVATE KEY"),
        "the key never reaches the log"
    );

    // Change one byte of the stamped document (the first revision, which holds the stamped
    // values), as an editor re-saving a changed value in place would.
    let stamped = signet_pdf::stamped_revision(&pdf)
        .expect("the stamped document")
        .len();
    let stamped_at = stamped / 2;
    let mut changed = pdf.clone();
    changed[stamped_at] ^= 0x20;
    let tampered = app.files.path().join("tampered.pdf");
    std::fs::write(&tampered, &changed).unwrap();
    let (ok, _, stderr) = verify(&tampered, &root);
    assert!(!ok, "the change is caught");
    assert!(stderr.contains("the seal does not hold"), "{stderr}");
    assert!(!pdfsig(&tampered).contains("Signature is Valid."));
    let verdicts = pyhanko(&tampered, &[&root]);
    assert_ne!(verdicts[1]["intact"], true, "{verdicts:?}");

    // The public page, without signing in: the document's details for the file it issued...
    let (status, page) = verify_page(&app, &pdf).await;
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Verified: issued by this service and unchanged"),
        "{page}"
    );
    assert!(page.contains(&code), "{page}");
    for (name, _, _) in &people {
        let escaped = name
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;");
        assert!(page.contains(&escaped), "{name}: {page}");
    }
    // ...and nothing about any document for a changed file, or for one sealed elsewhere.
    let (status, page) = verify_page(&app, &changed).await;
    assert_eq!(status, 422);
    assert!(
        page.contains("Not verified") && !page.contains(&code),
        "{page}"
    );
    let elsewhere = signet_pdf::seal::seal(
        &pdf,
        &signet_pdf::seal::SealKey::development().unwrap(),
        &signet_pdf::seal::SealDetails {
            reason: "Completed elsewhere",
            signing_time: chrono::Utc::now(),
            stamped_sha256: report["stampedSha256"].as_str().unwrap(),
        },
    )
    .unwrap();
    let (status, page) = verify_page(&app, &elsewhere).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Not issued by this service") && !page.contains(&code),
        "{page}"
    );
    let (status, page) = verify_page(&app, b"%PDF-1.4 not really").await;
    assert_eq!(status, 422);
    assert!(page.contains("Not verified"), "{page}");
    // A decompression bomb is refused within the upload's inflation budget.
    let (status, page) = verify_page(
        &app,
        &signet_tests::hostile::decompression_bomb(&[250_000_000]),
    )
    .await;
    assert_eq!(status, 422);
    assert!(page.contains("not a PDF Signet can read"), "{page}");
}

/// The public `/verify` page's answer to an uploaded PDF: its status and the page.
pub(crate) async fn verify_page(app: &TestApp, pdf: &[u8]) -> (u16, String) {
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(pdf.to_vec()).file_name("final.pdf"),
    );
    let response = app
        .client
        .post(format!("{}/verify", app.base))
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test]
async fn without_a_seal_configured_the_worker_uses_a_development_seal_and_says_so() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    worker.admin_addr().await;
    let log = worker.log();
    assert!(
        log.contains("SEAL_KEY_FILE and SEAL_CERT_FILE are not set"),
        "{log}"
    );
    // A key without its chain stops the worker, naming what is missing.
    let mut half = WorkerProcess::start(&app, &mailbox.url(), &[("SEAL_KEY_FILE", "/nonexistent")]);
    let status = half
        .wait_for_exit(std::time::Duration::from_secs(60))
        .expect("it stops");
    assert!(!status.success());
    assert!(half.log().contains("SEAL_CERT_FILE"), "{}", half.log());
}

/// With `TSA_URL`, the seal carries an RFC 3161 timestamp (PAdES B-T) from a real timestamp
/// authority, which pyHanko validates; while the authority cannot be reached, no document is
/// completed with a seal that lacks it: the completion waits and is done once it answers.
#[tokio::test]
async fn with_a_timestamp_authority_the_seal_is_timestamped_or_not_made_yet() {
    let tsa = Tsa::start().await;
    let seal_dir = tempfile::tempdir().unwrap();
    let (key_file, cert_file, root) = development_seal(&seal_dir.path().join("seal"));
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let tsa_url = tsa.url();
    let worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("SEAL_KEY_FILE", &key_file),
            ("SEAL_CERT_FILE", &cert_file),
            ("TSA_URL", &tsa_url),
        ],
    );
    let (account, key) = app.account(1000).await;
    let people: Vec<(&str, &str, &str)> = [0, 5].iter().map(|&i| PEOPLE[i]).collect();

    // The authority is down when the last signer signs.
    tsa.set_available(false);
    let doc = send_to(&app, account, &key, &people).await;
    let links = invitations(&mailbox, people.len()).await;
    for (name, email, value) in &people {
        assert_eq!(sign(&app, &links[*email], &[name, value]).await.0, 200);
    }
    let answered = signet_tests::poll_until(
        std::time::Duration::from_secs(60),
        || async { tsa.answered() },
        |answered| answered.contains(&503),
    )
    .await;
    assert!(
        answered.contains(&503),
        "the completion asked the authority"
    );
    let (status, final_key): (String, Option<String>) =
        sqlx::query_as("SELECT status, final_file_key FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(
        (status.as_str(), final_key),
        ("SENT", None),
        "not completed without its timestamp"
    );

    // Back: the completion is done, with the timestamp.
    tsa.set_available(true);
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    let file = app.files.path().join("timestamped.pdf");
    std::fs::write(&file, &pdf).unwrap();
    let (ok, report, stderr) = verify(&file, &root);
    assert!(ok, "{stderr}");
    assert_eq!(report["timestamp"]["authority"], "CN=Test TSA", "{report}");
    let verdicts = pyhanko(&file, &[&root, &tsa.root_pem()]);
    assert_eq!(
        verdicts[1]["summary"], "INTACT:TRUSTED,TIMESTAMP_TOKEN<INTACT:TRUSTED>,UNTOUCHED",
        "{verdicts:?}"
    );
    let timestamp = &verdicts[1]["timestamp"];
    assert_eq!(
        (
            &timestamp["intact"],
            &timestamp["valid"],
            &timestamp["trusted"]
        ),
        (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true)),
        "{verdicts:?}"
    );
    assert!(worker.log().contains("timestamp"), "the wait is logged");
}

/// An operator's seal as a PKCS#12 file (made here with `openssl pkcs12 -export` from a
/// development seal), its password in a file: the worker opens it and seals with it; a wrong
/// password stops the worker at start, and the password is never printed.
#[tokio::test]
async fn a_pkcs12_seal_is_opened_with_its_password_and_a_wrong_one_stops_the_worker() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let dir = app.files.path().join("p12");
    let (key_file, cert_file, _) = development_seal(&dir);
    let p12 = dir.join("seal.p12");
    let out = Command::new("openssl")
        .args([
            "pkcs12", "-export", "-inkey", &key_file, "-in", &cert_file, "-out",
        ])
        .arg(&p12)
        .args(["-passout", "pass:a long seal password"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let password_file = dir.join("password");
    std::fs::write(&password_file, "a long seal password\n").unwrap();
    let p12 = p12.display().to_string();
    let password_file = password_file.display().to_string();
    let worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("SEAL_PKCS12_FILE", &p12),
            ("SEAL_PKCS12_PASSWORD_FILE", &password_file),
        ],
    );
    worker.admin_addr().await;
    let log = worker.log();
    assert!(
        log.contains("final PDFs are sealed") && log.contains("Signet development seal"),
        "{log}"
    );
    let mut wrong = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("SEAL_PKCS12_FILE", &p12),
            ("SEAL_PKCS12_PASSWORD", "wrong-password-7391"),
        ],
    );
    let status = wrong
        .wait_for_exit(std::time::Duration::from_secs(60))
        .expect("it stops");
    assert!(!status.success());
    let log = wrong.log();
    assert!(log.contains("cannot open the PKCS#12 file"), "{log}");
    assert!(
        !log.contains("not it") && !log.contains("a long seal password"),
        "{log}"
    );
}

/// A seal whose chain names revocation services — an OCSP responder for the seal certificate,
/// a CRL for its intermediate CA, both OpenSSL's own on loopback — gets their answers embedded
/// in a DSS after the seal (PAdES B-LT), with its timestamp (B-T): once the services are gone,
/// pyHanko still validates the seal with strict revocation checking and no network, which it
/// cannot do for the same file without its DSS. A seal certificate the CA has revoked seals
/// nothing: the document waits, SENT, and the worker says why.
#[tokio::test]
async fn a_seal_with_revocation_services_embeds_their_answers_for_offline_validation() {
    let mut pki = Pki::start().await;
    let tsa = Tsa::start().await;
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (seal_key, seal_chain, root, tsa_url) =
        (pki.seal_key(), pki.seal_chain(), pki.root_pem(), tsa.url());
    let worker = WorkerProcess::start(
        &app,
        &mailbox.url(),
        &[
            ("SEAL_KEY_FILE", &seal_key),
            ("SEAL_CERT_FILE", &seal_chain),
            ("TSA_URL", &tsa_url),
        ],
    );
    let (account, key) = app.account(1000).await;
    let people: Vec<(&str, &str, &str)> = [2, 4].iter().map(|&i| PEOPLE[i]).collect();
    let doc = send_to(&app, account, &key, &people).await;
    let links = invitations(&mailbox, people.len()).await;
    for (name, email, value) in &people {
        assert_eq!(sign(&app, &links[*email], &[name, value]).await.0, 200);
    }
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let pdf = final_pdf(&app, &detail).await;
    // Each rendering asks the seal certificate's OCSP responder and the intermediate's CRL.
    // There may be more than one rendering (a completion renders again when the trail grew
    // meanwhile, and a queued duplicate renders before it finds the document completed), and
    // they may overlap, so their questions interleave: only the kinds asked are certain.
    let asked = pki.asked();
    assert!(
        asked.iter().any(|q| q == "ocsp")
            && asked.iter().any(|q| q == "crl")
            && asked.iter().all(|q| q == "ocsp" || q == "crl"),
        "{asked:?}"
    );

    // Revoked: the next document is not sealed with it.
    pki.revoke_seal();
    let (name, email, value) = PEOPLE[1];
    let next = send_to(&app, account, &key, &[(name, email, value)]).await;
    let link = invitations(&mailbox, people.len() + 1).await[email].clone();
    assert_eq!(sign(&app, &link, &[name, value]).await.0, 200);
    let log = worker.wait_for_log("revoked").await;
    assert!(
        log.contains("CN=Test seal with revocation services: revoked at"),
        "the worker says why: {log}"
    );
    let status: String = sqlx::query_scalar("SELECT status FROM documents WHERE id = $1")
        .bind(next)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(status, "SENT", "not completed with a revoked seal");

    // Years later: the services are gone.
    pki.stop();
    let file = app.files.path().join("long-term.pdf");
    std::fs::write(&file, &pdf).unwrap();
    let (ok, report, stderr) = verify(&file, &root);
    assert!(ok, "{stderr}");
    assert_eq!(report["trusted"], true, "{report}");
    assert_eq!(report["timestamp"]["authority"], "CN=Test TSA", "{report}");
    assert_eq!(
        report["longTermValidation"],
        serde_json::json!([
            {"certificate": "CN=Test seal with revocation services", "status": "good (OCSP)"},
            {"certificate": "CN=Test CA intermediate", "status": "good (CRL)"},
        ]),
        "{report}"
    );
    pdfsig_one_valid_seal(&file);

    let roots = [root.as_str(), &tsa.root_pem()];
    let offline = pyhanko_with(&["--offline-ltv"], &file, &roots);
    assert_eq!(offline[0]["signatures"], 1, "{offline:?}");
    assert_eq!(
        (
            &offline[1]["intact"],
            &offline[1]["valid"],
            &offline[1]["trusted"]
        ),
        (&Value::Bool(true), &Value::Bool(true), &Value::Bool(true)),
        "{offline:?}"
    );
    assert_eq!(offline[1]["timestamp"]["trusted"], true, "{offline:?}");
    // The seal's own revision, without the DSS after it, cannot be validated so.
    let without_dss = app.files.path().join("without-dss.pdf");
    std::fs::write(&without_dss, &pdf[..signed_length(&pdf)]).unwrap();
    let without = pyhanko_with(&["--offline-ltv"], &without_dss, &roots);
    assert_eq!(
        (&without[1]["intact"], &without[1]["trusted"]),
        (&Value::Bool(true), &Value::Bool(false)),
        "{without:?}"
    );
}

/// Where the seal's signed bytes end: the end of its `/ByteRange`'s second part.
fn signed_length(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    let at = text.find("/ByteRange").expect("a seal") + "/ByteRange".len();
    let numbers: Vec<usize> = text[at..]
        .trim_start()
        .trim_start_matches('[')
        .split_whitespace()
        .take(4)
        .map(|n| n.trim_end_matches(']').parse().expect("an offset"))
        .collect();
    let end = numbers[2] + numbers[3];
    assert!(end < pdf.len(), "the DSS follows the seal");
    end
}
