//! The README's bring-up command, run as a new user would: scripts/up.sh, then every curl
//! command it prints, in order, each answering 200 with code DEFAULT; the demo's fields stand
//! on the demo PDF's own lines; running it again keeps the key and the console session.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use signet_tests::{TestDb, eventually_blocking, repo_root};

/// scripts/up.sh or scripts/down.sh with the test's environment and `extra`.
fn script(name: &str, env: &[(&str, String)], extra: &[(&str, &str)]) -> Output {
    Command::new("bash")
        .arg(repo_root().join("scripts").join(name))
        .current_dir(repo_root())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .envs(extra.iter().copied())
        .output()
        .unwrap()
}

/// What scripts/up.sh printed after `label` on its line.
fn printed(stdout: &str, label: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .map(|v| v.trim().to_owned())
        .unwrap_or_else(|| panic!("no {label} in {stdout}"))
}

/// The key up.sh printed: `API key:     sk_…  (kept in …)`.
fn printed_key(stdout: &str) -> String {
    let line = printed(stdout, "API key:");
    let key = line.split_whitespace().next().unwrap().to_owned();
    assert!(key.starts_with("sk_"), "{stdout}");
    key
}

fn curl(args: &[&str]) -> String {
    let out = Command::new("curl").arg("-sS").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The HTTP status of a GET with the API key.
fn key_status(base: &str, key: &str) -> String {
    curl(&[
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-H",
        &format!("X-API-KEY: {key}"),
        &format!("{base}/external/api/v1/documents?limit=1"),
    ])
}

#[tokio::test]
async fn bring_up_prints_curl_commands_that_work() {
    let db = TestDb::new().await;
    let data = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let base = format!("http://127.0.0.1:{port}");
    let env = [
        // scripts/test.sh built the binaries; rebuilding here would replace them under the
        // tests running beside this one.
        ("SIGNET_SKIP_BUILD", "1".to_owned()),
        ("DATABASE_URL", db.url()),
        ("SIGNET_DATA_DIR", data.path().display().to_string()),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("PUBLIC_URL", base.clone()),
        (
            "WORKER_ADMIN_ADDR",
            format!("127.0.0.1:{}", signet_tests::free_port()),
        ),
    ];
    let result = std::panic::catch_unwind(|| {
        let first = script("up.sh", &env, &[]);
        let stdout = String::from_utf8_lossy(&first.stdout).into_owned();
        assert!(
            first.status.success(),
            "scripts/up.sh failed:\n{}",
            String::from_utf8_lossy(&first.stderr)
        );
        let key = printed_key(&stdout);
        let key_file = data.path().join("demo-api-key");
        assert_eq!(std::fs::read_to_string(&key_file).unwrap().trim(), key);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the kept key is the owner's alone");

        // Signed in to the console with the printed password, then up.sh again: the key in use
        // and the session both still work, and the same key and password are printed.
        let jar = data.path().join("cookies");
        sign_in(&base, &jar, &stdout);
        assert_eq!(console_status(&base, &jar), "200");
        let again = script("up.sh", &env, &[]);
        let stdout_again = String::from_utf8_lossy(&again.stdout).into_owned();
        assert!(
            again.status.success(),
            "scripts/up.sh (again) failed:\n{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(printed_key(&stdout_again), key, "the same key, reused");
        assert_eq!(key_status(&base, &key), "200", "the key in use still works");
        assert_eq!(
            console_status(&base, &jar),
            "200",
            "the console session survives a second run"
        );
        assert_eq!(
            printed(&stdout_again, "Console:"),
            printed(&stdout, "Console:")
        );
        assert_ne!(
            printed(&stdout_again, "Document id:"),
            printed(&stdout, "Document id:"),
            "a new demo document to send"
        );

        run_printed_commands(&stdout_again);
        let document = printed(&stdout_again, "Document id:");
        let detail: Value = serde_json::from_str(&curl(&[
            "-H",
            &format!("X-API-KEY: {key}"),
            &format!("{base}/external/api/v1/documents/{document}"),
        ]))
        .unwrap();
        let boxes = fields_stand_on_the_lines(&detail);
        sign_the_demo_document(&stdout_again, data.path(), port, &boxes);

        // Asked for, a new key: the old one stops working; the console session stays.
        let third = script("up.sh", &env, &[("SIGNET_NEW_KEY", "1")]);
        let stdout_third = String::from_utf8_lossy(&third.stdout).into_owned();
        assert!(
            third.status.success(),
            "{}",
            String::from_utf8_lossy(&third.stderr)
        );
        let new_key = printed_key(&stdout_third);
        assert_ne!(new_key, key);
        assert_eq!(
            key_status(&base, &key),
            "401",
            "SIGNET_NEW_KEY=1 replaced it"
        );
        assert_eq!(key_status(&base, &new_key), "200");
        assert_eq!(console_status(&base, &jar), "200");
    });
    let down = script("down.sh", &env, &[]);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    assert!(
        down.status.success(),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
}

/// Every printed curl command, in order, alone in a shell: each answers code DEFAULT.
fn run_printed_commands(stdout: &str) {
    let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("curl ")).collect();
    assert_eq!(commands.len(), 6, "{stdout}");
    for command in commands {
        let output = Command::new("bash").args(["-c", command]).output().unwrap();
        let body = String::from_utf8_lossy(&output.stdout);
        let json: Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("{command}\nanswered non-JSON ({e}): {body}"));
        assert_eq!(json["code"], "DEFAULT", "{command}\nanswered {json}");
    }
}

/// Signs in to the console as a person would, with the password up.sh printed, keeping the
/// cookies in `jar`.
fn sign_in(base: &str, jar: &Path, stdout: &str) {
    let console = printed(stdout, "Console:");
    let credentials = console
        .split_once("(sign in as ")
        .and_then(|(_, rest)| rest.split_once(';'))
        .map(|(creds, _)| creds)
        .unwrap_or_else(|| panic!("{console}"));
    let (email, password) = credentials.split_once(" / ").unwrap();
    let jar = jar.display().to_string();
    let form = curl(&["-c", &jar, &format!("{base}/app/sign-in")]);
    let csrf = form
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no csrf in {form}"));
    let status = curl(&[
        "-b",
        &jar,
        "-c",
        &jar,
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "--data-urlencode",
        &format!("csrf={csrf}"),
        "--data-urlencode",
        &format!("email={email}"),
        "--data-urlencode",
        &format!("password={password}"),
        &format!("{base}/app/sign-in"),
    ]);
    assert_eq!(status, "303", "the printed password signs in");
}

/// 200 while the session in `jar` is signed in; a redirect to the sign-in page once it is not.
fn console_status(base: &str, jar: &Path) -> String {
    curl(&[
        "-b",
        &jar.display().to_string(),
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        &format!("{base}/app/documents"),
    ])
}

/// A box in PDF points from the page's top-left corner, as the API and pdftotext give them.
#[derive(Debug, Clone, Copy)]
struct Area {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Area {
    fn of_field(field: &Value) -> Self {
        let n = |k: &str| field[k].as_f64().unwrap();
        Self {
            x0: n("x"),
            y0: n("y"),
            x1: n("x") + n("width"),
            y1: n("y") + n("height"),
        }
    }

    fn overlaps(&self, other: &Area) -> bool {
        self.x0 < other.x1 && other.x0 < self.x1 && self.y0 < other.y1 && other.y0 < self.y1
    }

    fn holds(&self, inner: &Area) -> bool {
        inner.x0 >= self.x0 - 1.0
            && inner.x1 <= self.x1 + 1.0
            && inner.y0 >= self.y0 - 1.0
            && inner.y1 <= self.y1 + 1.0
    }
}

/// The words of one page of a PDF with their boxes, read by poppler's pdftotext.
fn words(pdf: &Path, page: u32) -> Vec<(String, Area)> {
    let out = Command::new("pdftotext")
        .args(["-bbox", "-f", &page.to_string(), "-l", &page.to_string()])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils; scripts/test.sh installs it)");
    let html = String::from_utf8_lossy(&out.stdout).into_owned();
    html.split("<word ")
        .skip(1)
        .map(|word| {
            let attr = |name: &str| -> f64 {
                word.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|rest| rest.split('"').next())
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let text = word.split('>').nth(1).unwrap().split('<').next().unwrap();
            (
                text.to_owned(),
                Area {
                    x0: attr("xMin"),
                    y0: attr("yMin"),
                    x1: attr("xMax"),
                    y1: attr("yMax"),
                },
            )
        })
        .collect()
}

/// The boxes the demo placed: Alice's signature and date, Victor's field.
struct Boxes {
    signature: Area,
    date: Area,
    viewer: Area,
}

/// The signature and date boxes stand on the demo PDF's "Signature: ____" and "Date: ____"
/// lines, as pdftotext finds them: over the line's length, their bottom edge on it. The viewer's
/// field (the contract requires one) covers neither line.
fn fields_stand_on_the_lines(detail: &Value) -> Boxes {
    let demo = repo_root().join("demo/demo-agreement.pdf");
    let page = words(&demo, 2);
    let line_after = |label: &str| {
        let at = page
            .iter()
            .position(|(text, _)| text == label)
            .unwrap_or_else(|| panic!("{label} on page 2 of the demo PDF"));
        let (line, area) = &page[at + 1];
        assert!(line.starts_with("___"), "{line}");
        *area
    };
    let (signature_line, date_line) = (line_after("Signature:"), line_after("Date:"));
    let recipients = detail["data"]["recipients"].as_array().unwrap();
    let of = |email: &str| -> Vec<Value> {
        recipients
            .iter()
            .find(|r| r["email"] == email)
            .unwrap_or_else(|| panic!("{email} in {detail}"))["fields"]
            .as_array()
            .unwrap()
            .clone()
    };
    let alice = of("alice@example.com");
    let field = |kind: &str| {
        let field = alice
            .iter()
            .find(|f| f["type"] == kind)
            .unwrap_or_else(|| panic!("Alice's {kind} in {detail}"));
        assert_eq!(field["page"], 2, "{field}");
        Area::of_field(field)
    };
    for (area, line, kind) in [
        (field("SIGNATURE"), signature_line, "signature"),
        (field("DATE"), date_line, "date"),
    ] {
        // The underscores' glyph box runs from the text's ascent down past the baseline; the
        // drawn line lies at its bottom, within its last 3 points.
        assert!(
            area.y1 >= line.y1 - 3.0 && area.y1 <= line.y1 + 1.0,
            "the {kind} box's bottom {area:?} on the line {line:?}"
        );
        assert!(area.y0 < line.y0, "the {kind} box stands above its line");
        assert!(
            area.x0 >= line.x0 - 1.0 && area.x1 <= line.x1 + 1.0,
            "the {kind} box {area:?} within the line {line:?}"
        );
        assert!(
            area.x1 - area.x0 >= 0.9 * (line.x1 - line.x0),
            "the {kind} box spans its line"
        );
    }
    let victor = of("victor@example.com");
    assert_eq!(
        victor.len(),
        1,
        "the viewer's one field, which the contract requires"
    );
    let viewer = Area::of_field(&victor[0]);
    for (text, area) in &page {
        assert!(
            !viewer.overlaps(area),
            "the viewer's field {viewer:?} covers {text:?}"
        );
    }
    Boxes {
        signature: field("SIGNATURE"),
        date: field("DATE"),
        viewer,
    }
}

/// The signing link in the first `.eml` of the local mailbox addressed to `email`, found as
/// the README's command finds it: the `To:` line and the first `/sign/` line of each file.
fn link_for(mail: &Path, email: &str) -> String {
    eventually_blocking(
        format!("{email}'s invitation in the local mailbox"),
        Duration::from_secs(90),
        || {
            std::fs::read_dir(mail).ok()?.flatten().find_map(|entry| {
                let text = std::fs::read_to_string(entry.path()).ok()?;
                let to = text.lines().find(|l| l.starts_with("To:"))?;
                if !to.contains(email) {
                    return None;
                }
                // The first line with a link: the text part's (the HTML part follows, quoted).
                text.lines()
                    .find(|l| l.contains("/sign/"))
                    .map(|l| l.trim().to_owned())
            })
        },
    )
}

/// The README's walkthrough: the worker writes the invitations into the local mailbox
/// (`data/mail`) and Alice's SMS into `data/sms`, Alice's link signs, the document completes,
/// and the detail's `filePath` serves the final PDF with its certificate page, its values
/// stamped in their boxes on the lines.
fn sign_the_demo_document(stdout: &str, data: &Path, port: u16, boxes: &Boxes) {
    let key = printed_key(stdout);
    let document = printed(stdout, "Document id:");
    let get = |url: &str| {
        serde_json::from_str::<Value>(&curl(&["-H", &format!("X-API-KEY: {key}"), url]))
            .unwrap_or(Value::Null)
    };
    let link = link_for(&data.join("mail"), "alice@example.com");
    assert!(
        link.starts_with(&format!("http://127.0.0.1:{port}/sign/")),
        "{link}"
    );
    // Alice has a phone number: the same link came by SMS, a file in `data/sms`.
    let sms = eventually_blocking("Alice's SMS in data/sms", Duration::from_secs(90), || {
        std::fs::read_dir(data.join("sms"))
            .ok()?
            .flatten()
            .find(|entry| entry.path().extension().is_some_and(|e| e == "txt"))
            .and_then(|entry| std::fs::read_to_string(entry.path()).ok())
    });
    assert!(sms.starts_with("To: +447911123456\n"), "{sms}");
    assert!(sms.trim_end().ends_with(&link), "{sms}");

    // Victor, the viewer, has nothing to fill: his page says so and draws no field.
    let victor = link_for(&data.join("mail"), "victor@example.com");
    let session: Value = serde_json::from_str(&curl(&[&format!("{victor}/session")])).unwrap();
    assert_eq!(session["data"]["canSign"], false, "{session}");
    let page = curl(&[&victor]);
    assert!(page.contains("there is nothing to sign"), "{page}");

    let session: Value = serde_json::from_str(&curl(&[&format!("{link}/session")])).unwrap();
    let fields: Vec<Value> = session["data"]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["type"] != "DATE")
        .map(|f| serde_json::json!({"id": f["id"], "value": "Alice Signer"}))
        .collect();
    let post = |path: &str, body: &str| {
        curl(&[
            "-X",
            "POST",
            "-H",
            "Content-Type: application/json",
            "-d",
            body,
            &format!("{link}/{path}"),
        ])
    };
    assert!(post("consent", "{}").contains("Consent recorded"));
    let body = serde_json::json!({ "fields": fields }).to_string();
    let submit = post("submit", &body);
    assert!(submit.contains("Document signed successfully"), "{submit}");
    let detail_url = format!("http://127.0.0.1:{port}/external/api/v1/documents/{document}");
    // Generous: this runs beside the rest of the suite on a 2-core machine.
    let detail = eventually_blocking(
        "the demo document to complete",
        Duration::from_secs(90),
        || Some(get(&detail_url)).filter(|d| d["data"]["status"] == "COMPLETED"),
    );
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

    // On the final PDF's page 2, the typed name sits in the signature box, the date the server
    // set in the date box, and nothing in the viewer's.
    let final_pdf = data.join("final.pdf");
    std::fs::write(&final_pdf, &pdf).unwrap();
    let stamped = words(&final_pdf, 2);
    let inside = |area: &Area| -> Vec<String> {
        stamped
            .iter()
            .filter(|(_, word)| area.holds(word))
            .map(|(text, _)| text.clone())
            .collect()
    };
    assert_eq!(
        inside(&boxes.signature).join(" "),
        "Alice Signer",
        "{stamped:?}"
    );
    // The server's signing date, YYYY-MM-DD in UTC (docs/signing.md).
    let date = inside(&boxes.date);
    assert!(
        date.len() == 1
            && date[0].len() == 10
            && date[0]
                .chars()
                .enumerate()
                .all(|(i, c)| if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }),
        "{date:?} in {stamped:?}"
    );
    assert!(inside(&boxes.viewer).is_empty(), "{stamped:?}");
}

/// Issue #30 item 7: a port already taken stops `scripts/up.sh` before it builds, migrates or
/// creates anything, naming the address, where it used to fail after making a demo account,
/// a key and a document.
#[tokio::test]
async fn bring_up_stops_at_once_when_a_port_is_taken() {
    let db = TestDb::new().await;
    let data = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken_addr = taken.local_addr().unwrap().to_string();
    let env = [
        ("SIGNET_SKIP_BUILD", "1".to_owned()),
        ("DATABASE_URL", db.url()),
        ("SIGNET_DATA_DIR", data.path().display().to_string()),
        (
            "BIND_ADDR",
            format!("127.0.0.1:{}", signet_tests::free_port()),
        ),
        ("WORKER_ADMIN_ADDR", taken_addr.clone()),
    ];
    let run = script("up.sh", &env, &[]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("something already listens on {taken_addr}")),
        "{stderr}"
    );
    assert!(
        !stderr.contains("migrating"),
        "nothing done before: {stderr}"
    );
    // The test database is a migrated template's copy: up.sh added no demo account to it.
    let accounts: i64 = sqlx::query_scalar("SELECT count(*) FROM accounts")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(accounts, 0, "no demo account");
    drop(taken);
}
