//! The README's bring-up command, run as a new user would: scripts/up.sh, then every curl
//! command it prints, in order, each answering 200 with code DEFAULT.

use std::process::Command;

use signet_tests::{TestDb, repo_root};

#[tokio::test]
async fn bring_up_prints_curl_commands_that_work() {
    let db = TestDb::new().await;
    let data = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let env = [
        // scripts/test.sh built the binaries; rebuilding here would replace them under the
        // tests running beside this one.
        ("SIGNET_SKIP_BUILD", "1".to_owned()),
        ("DATABASE_URL", db.url()),
        ("SIGNET_DATA_DIR", data.path().display().to_string()),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("PUBLIC_URL", format!("http://127.0.0.1:{port}")),
        (
            "WORKER_ADMIN_ADDR",
            format!("127.0.0.1:{}", signet_tests::free_port()),
        ),
    ];
    let up = Command::new("bash")
        .arg(repo_root().join("scripts/up.sh"))
        .current_dir(repo_root())
        .envs(env.clone())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&up.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&up.stderr).into_owned();
    let result = std::panic::catch_unwind(|| {
        assert!(up.status.success(), "scripts/up.sh failed:\n{stderr}");
        assert!(stdout.contains("API key:     sk_"), "{stdout}");
        let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("curl ")).collect();
        assert_eq!(commands.len(), 6, "{stdout}");
        for command in commands {
            let output = Command::new("bash").args(["-c", command]).output().unwrap();
            let body = String::from_utf8_lossy(&output.stdout);
            let json: serde_json::Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("{command}\nanswered non-JSON ({e}): {body}"));
            assert_eq!(json["code"], "DEFAULT", "{command}\nanswered {json}");
        }
    });
    let result = match result {
        Ok(()) => std::panic::catch_unwind(|| sign_the_demo_document(&stdout, data.path(), port)),
        failed => failed,
    };
    let down = Command::new("bash")
        .arg(repo_root().join("scripts/down.sh"))
        .current_dir(repo_root())
        .envs(env)
        .output()
        .unwrap();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    assert!(
        down.status.success(),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
}

/// The README's walkthrough: the worker writes the invitations into the local mailbox
/// (`data/mail`) and Alice's SMS into `data/sms`, Alice's link signs, the document completes, and the detail's `filePath`
/// serves the final PDF with its certificate page.
fn sign_the_demo_document(stdout: &str, data: &std::path::Path, port: u16) {
    let value = |label: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| panic!("no {label} in {stdout}"))
    };
    let (key, document) = (value("API key:"), value("Document id:"));
    let get = |url: &str| {
        let out = Command::new("curl")
            .args(["-sS", "-H", &format!("X-API-KEY: {key}"), url])
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap_or(serde_json::Value::Null)
    };
    let link = (0..900)
        .find_map(|_| {
            let found = std::fs::read_dir(data.join("mail"))
                .ok()?
                .flatten()
                .find_map(|entry| {
                    let text = std::fs::read_to_string(entry.path()).ok()?;
                    let at = text.find("to sign:")?;
                    text[at..].lines().nth(1).map(|l| l.trim().to_owned())
                });
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            found
        })
        .expect("Alice's invitation in the local mailbox");
    assert!(
        link.starts_with(&format!("http://127.0.0.1:{port}/sign/")),
        "{link}"
    );
    // Alice has a phone number: the same link came by SMS, a file in `data/sms`.
    let sms = (0..900)
        .find_map(|_| {
            let found = std::fs::read_dir(data.join("sms"))
                .ok()?
                .flatten()
                .find(|entry| entry.path().extension().is_some_and(|e| e == "txt"))
                .and_then(|entry| std::fs::read_to_string(entry.path()).ok());
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            found
        })
        .expect("Alice's SMS in data/sms");
    assert!(sms.starts_with("To: +447911123456\n"), "{sms}");
    assert!(sms.trim_end().ends_with(&link), "{sms}");
    let session: serde_json::Value = serde_json::from_slice(
        &Command::new("curl")
            .args(["-sS", &format!("{link}/session")])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let fields: Vec<serde_json::Value> = session["data"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let value = if f["type"] == "DATE" {
                "2026-11-21"
            } else {
                "Alice Signer"
            };
            serde_json::json!({"id": f["id"], "value": value})
        })
        .collect();
    let consent = Command::new("curl")
        .args([
            "-sS",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-d",
            "{}",
            &format!("{link}/consent"),
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&consent.stdout).contains("Consent recorded"));
    let body = serde_json::json!({ "fields": fields }).to_string();
    let submit = Command::new("curl")
        .args([
            "-sS",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-d",
            &body,
            &format!("{link}/submit"),
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&submit.stdout).contains("Document signed successfully"));
    let detail_url = format!("http://127.0.0.1:{port}/external/api/v1/documents/{document}");
    // Generous: this runs beside the rest of the suite on a 2-core machine.
    let detail = (0..900)
        .map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            get(&detail_url)
        })
        .find(|d| d["data"]["status"] == "COMPLETED")
        .expect("the demo document completes");
    let file = detail["data"]["filePath"].as_str().unwrap();
    let pdf = Command::new("curl")
        .args(["-sS", file])
        .output()
        .unwrap()
        .stdout;
    // Sealed with up.sh's development seal, whose root is kept beside it.
    let root = signet_pdf::seal::certificates_from_pem(
        &std::fs::read_to_string(data.join("seal/seal-root.pem")).expect("up.sh kept the root"),
    )
    .unwrap();
    let report = signet_pdf::seal::verify(&pdf, &root).expect("the final PDF is sealed");
    assert!(report.trusted, "{report:?}");
    let inspected = signet_pdf::inspect(&pdf).expect("the final PDF opens");
    assert!(
        inspected.pages >= 3,
        "the 2-page demo plus its certificate, got {}",
        inspected.pages
    );
}
