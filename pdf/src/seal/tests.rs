use std::process::Command;

use chrono::Utc;
use lopdf::{Document, IncrementalDocument};

use super::*;
use crate::{
    Certificate as Record, CertificateRecipient, FinalPdf, render_final,
    revisions::stamped_revision, sha256_hex,
};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/pdf/");

fn final_pdf() -> FinalPdf {
    let original = std::fs::read(format!("{FIXTURES}pdflatex-4-pages.pdf")).expect("fixture");
    let record = Record {
        language: Default::default(),
        title: "Lease".into(),
        code: "SGN-TEST".into(),
        document_id: "0197a3b2-7c1d-7e00-9f3a-4b5c6d7e8f90".into(),
        original_sha256: sha256_hex(&original),
        completed_at: "2026-11-23T06:00:00.000Z".into(),
        recipients: vec![CertificateRecipient {
            name: "Zoë Łukasiewicz".into(),
            email: "zoe@example.com".into(),
            role: "SIGNER".into(),
            status: "SIGNED".into(),
            viewed_at: None,
            signed_at: Some("2026-11-23T06:00:00.000Z".into()),
            ip_address: None,
            user_agent: None,
            consented_at: None,
            consent_ip: None,
            consent_user_agent: None,
            consent_text: None,
            auth_method: None,
            auth_passed_at: None,
            fields: Vec::new(),
        }],
        audit: Vec::new(),
    };
    render_final(&original, &[], &record).expect("rendered")
}

fn sealed() -> (Vec<u8>, FinalPdf, DevelopmentSealFiles) {
    let files = SealKey::development_files().expect("a development seal");
    let key = SealKey::from_pem(&files.key_pem, &files.chain_pem).expect("its files load");
    let rendered = final_pdf();
    let details = SealDetails {
        reason: "Completed in Signet, document SGN-TEST",
        signing_time: "2026-11-23T06:00:00Z".parse().unwrap(),
        stamped_sha256: &rendered.stamped_sha256,
    };
    let bytes = seal(&rendered.bytes, &key, &details).expect("sealed");
    (bytes, rendered, files)
}

#[test]
fn a_sealed_file_verifies_and_keeps_its_earlier_revisions() {
    let (bytes, rendered, files) = sealed();
    assert!(bytes.starts_with(&rendered.bytes), "an incremental update");
    let root = certificates_from_pem(&files.root_pem).unwrap();
    let report = verify(&bytes, &root).expect("verifies");
    assert!(report.trusted);
    assert_eq!(report.reason, "Completed in Signet, document SGN-TEST");
    assert_eq!(report.signing_time, "D:20261123060000+00'00'");
    assert_eq!(report.stamped_sha256, rendered.stamped_sha256);
    assert_eq!(report.chain.len(), 2);
    assert!(
        report.signer.contains("Signet development seal"),
        "{report:?}"
    );
    assert_eq!(
        verify(&bytes, &[]).map(|r| r.trusted),
        Ok(false),
        "not trusted without its root"
    );
    let stamped = stamped_revision(&bytes).expect("the first revision");
    assert_eq!(sha256_hex(stamped), rendered.stamped_sha256);
}

#[test]
fn a_changed_byte_or_an_added_revision_is_caught() {
    let (bytes, rendered, _) = sealed();
    // A byte of the stamped document, and a byte of the certificate pages' revision.
    for at in [rendered.bytes.len() / 3, rendered.bytes.len() - 40] {
        let mut changed = bytes.clone();
        changed[at] ^= 0x01;
        let error = verify(&changed, &[]).expect_err("caught");
        assert!(
            error.contains("changed after it was sealed") || error.contains("not a readable PDF"),
            "{error}"
        );
    }
    let mut appended = bytes.clone();
    appended.extend_from_slice(b"\n% more\n");
    let error = verify(&appended, &[]).expect_err("caught");
    assert!(error.contains("does not cover the whole file"), "{error}");
    assert!(
        verify(&rendered.bytes, &[])
            .unwrap_err()
            .contains("not sealed")
    );
}

#[test]
fn a_key_and_a_certificate_that_do_not_belong_together_are_refused() {
    let one = SealKey::development_files().unwrap();
    let other = SealKey::development_files().unwrap();
    let error = SealKey::from_pem(&one.key_pem, &other.chain_pem).unwrap_err();
    assert!(error.to_string().contains("not the key's"), "{error}");
    assert!(SealKey::from_pem("nonsense", &one.chain_pem).is_err());
    let key = SealKey::from_pem(&one.key_pem, &one.chain_pem).unwrap();
    assert!(
        !format!("{key:?}").contains("PRIVATE"),
        "the key is never printed"
    );
}

/// poppler's `pdfsig`, a validator Signet does not share code with.
#[test]
fn pdfsig_finds_one_valid_signature_covering_the_whole_file() {
    let Ok(_) = Command::new("pdfsig").arg("-v").output() else {
        panic!("pdfsig (poppler-utils) is needed: scripts/test.sh installs it");
    };
    let (bytes, _, _) = sealed();
    let dir = std::env::temp_dir().join(format!("signet-seal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sealed.pdf");
    std::fs::write(&path, &bytes).unwrap();
    let out = Command::new("pdfsig").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Signature #1"), "{text}");
    assert!(!text.contains("Signature #2"), "{text}");
    assert!(
        text.contains("Signature Validation: Signature is Valid."),
        "{text}"
    );
    assert!(
        text.contains("Total document signed"),
        "the whole file is covered: {text}"
    );
    assert!(text.contains("ETSI.CAdES.detached"), "{text}");
    let mut changed = bytes.clone();
    changed[bytes.len() / 3] ^= 0x01;
    std::fs::write(&path, &changed).unwrap();
    let out = Command::new("pdfsig").arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!text.contains("Signature is Valid"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An operator's RSA seal, made as with any certificate authority: here `openssl`, a root and
/// a seal certificate it issued.
#[test]
fn an_rsa_seal_made_with_openssl_seals_and_verifies() {
    let dir = std::env::temp_dir().join(format!("signet-rsa-seal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("openssl (Debian's) is installed");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "root.key",
        "-out",
        "root.pem",
        "-days",
        "30",
        "-subj",
        "/CN=Acme root",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "seal.key",
        "-out",
        "seal.csr",
        "-subj",
        "/CN=Acme seal/O=Acme",
    ]);
    std::fs::write(
        dir.join("ext.cnf"),
        "keyUsage=critical,digitalSignature,nonRepudiation\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "seal.csr",
        "-CA",
        "root.pem",
        "-CAkey",
        "root.key",
        "-CAcreateserial",
        "-out",
        "seal.pem",
        "-days",
        "30",
        "-sha256",
        "-extfile",
        "ext.cnf",
    ]);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let chain = format!("{}{}", read("seal.pem"), read("root.pem"));
    let key = SealKey::from_pem(&read("seal.key"), &chain).expect("an RSA seal loads");
    assert_eq!(key.subject(), "O=Acme,CN=Acme seal");

    let rendered = final_pdf();
    let details = SealDetails {
        reason: "Completed in Signet, document SGN-TEST",
        signing_time: "2026-11-23T06:00:00Z".parse().unwrap(),
        stamped_sha256: &rendered.stamped_sha256,
    };
    let bytes = seal(&rendered.bytes, &key, &details).expect("sealed");
    let root = certificates_from_pem(&read("root.pem")).unwrap();
    let report = verify(&bytes, &root).expect("verifies");
    assert!(report.trusted, "{report:?}");
    assert_eq!(report.chain, ["O=Acme,CN=Acme seal", "CN=Acme root"]);
    std::fs::write(dir.join("sealed.pdf"), &bytes).unwrap();
    let out = Command::new("pdfsig")
        .arg(dir.join("sealed.pdf"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("Signature is Valid."), "{text}");
    // The same seal as a PKCS#12 file with a password, as an operator gets it from a CA.
    run(&[
        "pkcs12",
        "-export",
        "-inkey",
        "seal.key",
        "-in",
        "seal.pem",
        "-certfile",
        "root.pem",
        "-out",
        "seal.p12",
        "-passout",
        "pass:correct horse",
    ]);
    let p12 = std::fs::read(dir.join("seal.p12")).unwrap();
    let from_p12 = SealKey::from_pkcs12(&p12, "correct horse").expect("the PKCS#12 file opens");
    assert_eq!(from_p12.subject(), "O=Acme,CN=Acme seal");
    let bytes = seal(&rendered.bytes, &from_p12, &details).expect("sealed");
    assert!(verify(&bytes, &root).expect("verifies").trusted);
    let wrong = SealKey::from_pkcs12(&p12, "wrong").unwrap_err();
    assert!(
        wrong.to_string().contains("cannot open the PKCS#12 file"),
        "{wrong}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A DSS added after the seal (PAdES B-LT) leaves it valid; an update that adds one and
/// changes anything else with it does not.
#[test]
fn only_long_term_validation_data_may_follow_the_seal() {
    let (bytes, _, files) = sealed();
    let key = SealKey::from_pem(&files.key_pem, &files.chain_pem).unwrap();
    let plan = ValidationPlan::new(&key, None).unwrap();
    assert!(
        plan.is_empty(),
        "a development seal names no revocation service"
    );
    let with_dss = plan.embed(&bytes, &[], Utc::now()).expect("a DSS");
    assert!(with_dss.starts_with(&bytes), "an incremental update");
    let report = verify(&with_dss, &[]).expect("still verifies");
    assert_eq!(report.long_term.map(|data| data.statuses), Some(Vec::new()));

    let doc = Document::load_mem(&with_dss).unwrap();
    let page = *doc.get_pages().values().next().unwrap();
    let mut changed_page = doc.get_dictionary(page).unwrap().clone();
    changed_page.set("Rotate", 90);
    let mut update = IncrementalDocument::create_from(with_dss.clone(), doc);
    update
        .new_document
        .objects
        .insert(page, changed_page.into());
    let mut tampered = Vec::new();
    update.save_to(&mut tampered).unwrap();
    let error = verify(&tampered, &[]).expect_err("a page changed after the seal");
    assert!(error.contains("does not cover the whole file"), "{error}");
}

/// Issue #30 item 10: the signature's place is outside the digest, so a byte changed in its
/// zero padding used to verify as valid; the file is not what was sealed, and says so.
#[test]
fn a_byte_changed_inside_the_signatures_padding_is_caught() {
    let (bytes, _, _) = sealed();
    let open = bytes
        .windows(10)
        .rposition(|window| window == b"/Contents<" || window == b"/Contents ")
        .expect("the signature's place");
    let start = open + bytes[open..].iter().position(|&b| b == b'<').unwrap() + 1;
    let end = start + bytes[start..].iter().position(|&b| b == b'>').unwrap();
    // The last hex digit of the place: padding, far past the signature's own DER.
    let mut changed = bytes.clone();
    assert_eq!(changed[end - 1], b'0');
    changed[end - 1] = b'1';
    let error = verify(&changed, &[]).expect_err("caught");
    assert!(
        error.contains("bytes inside the signature's place differ from what was sealed"),
        "{error}"
    );
}
