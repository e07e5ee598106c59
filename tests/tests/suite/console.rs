//! The console's API settings: sign-in, sessions, CSRF, keys, usage, webhook settings.

use std::{collections::HashMap, io::Write, process::Command};

use reqwest::{StatusCode, header};
use signet_tests::{Mailbox, TestApp, WorkerProcess, assert_error, binary};
use uuid::Uuid;

use crate::signing_flow::{invitations, sign, wait_for_status};

const PASSWORD: &str = "correct horse battery staple";

/// A browser: keeps the cookies the console sets.
pub(crate) struct Browser<'a> {
    pub(crate) app: &'a TestApp,
    pub(crate) cookies: HashMap<String, String>,
}

pub(crate) struct Page {
    pub(crate) status: StatusCode,
    pub(crate) location: Option<String>,
    pub(crate) set_cookies: Vec<String>,
    pub(crate) body: String,
}

impl Page {
    /// The value of the first hidden `csrf` input.
    /// The `class` of the button whose text is `text` (`""` for none; `None`: no such button).
    pub(crate) fn button_class(&self, text: &str) -> Option<String> {
        let end = self.body.find(&format!(">{text}</button>"))?;
        let tag = &self.body[self.body[..end].rfind("<button")?..end];
        Some(
            tag.split_once(r#"class=""#)
                .map_or(String::new(), |(_, rest)| {
                    rest[..rest.find('"').unwrap()].to_owned()
                }),
        )
    }

    pub(crate) fn csrf(&self) -> String {
        let at = self
            .body
            .find(r#"name="csrf" value=""#)
            .expect("a form with a CSRF token");
        let rest = &self.body[at + r#"name="csrf" value=""#.len()..];
        rest[..rest.find('"').unwrap()].to_owned()
    }
}

impl<'a> Browser<'a> {
    pub(crate) fn new(app: &'a TestApp) -> Self {
        Self {
            app,
            cookies: HashMap::new(),
        }
    }

    async fn request(
        &mut self,
        method: reqwest::Method,
        path: &str,
        form: &[(&str, &str)],
    ) -> Page {
        let cookie: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut request = self
            .app
            .client
            .request(method, format!("{}{path}", self.app.base))
            .header(header::COOKIE, cookie.join("; "));
        if !form.is_empty() {
            request = request.form(form);
        }
        let response = request.send().await.unwrap();
        let set_cookies: Vec<String> = response
            .headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect();
        for set in &set_cookies {
            let (pair, _) = set.split_once(';').unwrap_or((set, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        Page {
            status: response.status(),
            location: response
                .headers()
                .get(header::LOCATION)
                .map(|v| v.to_str().unwrap().to_owned()),
            set_cookies,
            body: response.text().await.unwrap(),
        }
    }

    pub(crate) async fn get(&mut self, path: &str) -> Page {
        self.request(reqwest::Method::GET, path, &[]).await
    }

    pub(crate) async fn post(&mut self, path: &str, form: &[(&str, &str)]) -> Page {
        self.request(reqwest::Method::POST, path, form).await
    }

    /// A browser signed in to the console as `account` (an API account: it is given a password).
    pub(crate) async fn signed_in_as(app: &'a TestApp, account: Uuid) -> Self {
        const PASSWORD: &str = "a long enough password";
        let email: String = sqlx::query_scalar("SELECT email FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
        signet_common::flows::sign_in::set_password(&app.db.pool, account.into(), PASSWORD)
            .await
            .unwrap();
        let mut browser = Self::new(app);
        browser.sign_in(&email, PASSWORD).await;
        browser
    }

    pub(crate) async fn sign_in(&mut self, email: &str, password: &str) -> Page {
        let form = self.get("/app/sign-in").await;
        let csrf = form.csrf();
        self.post(
            "/app/sign-in",
            &[("csrf", &csrf), ("email", email), ("password", password)],
        )
        .await
    }
}

async fn account_with_password(app: &TestApp) -> (Uuid, String) {
    app.console_account(PASSWORD).await
}

#[tokio::test]
async fn api_settings_in_the_browser() {
    let app = TestApp::spawn().await;
    let (account, email) = account_with_password(&app).await;
    let mut browser = Browser::new(&app);

    let away = browser.get("/app/settings/api").await;
    assert_eq!(
        (away.status, away.location.as_deref()),
        (StatusCode::SEE_OTHER, Some("/app/sign-in"))
    );
    let wrong = browser.sign_in(&email, "not the password").await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);
    assert!(wrong.body.contains("Wrong e-mail or password."));
    assert!(!browser.cookies.contains_key("signet_session"));
    let unknown = browser.sign_in("nobody@example.com", PASSWORD).await;
    assert!(
        unknown.body.contains("Wrong e-mail or password."),
        "unknown e-mails look the same"
    );

    let signed_in = browser.sign_in(&email.to_uppercase(), PASSWORD).await;
    assert_eq!(
        (signed_in.status, signed_in.location.as_deref()),
        (StatusCode::SEE_OTHER, Some("/app/documents"))
    );
    let session_cookie = signed_in
        .set_cookies
        .iter()
        .find(|c| c.starts_with("signet_session="))
        .unwrap();
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/app"] {
        assert!(session_cookie.contains(attribute), "{session_cookie}");
    }
    assert!(!session_cookie.contains("Secure"), "plain http in tests");

    let settings = browser.get("/app/settings/api").await;
    assert_eq!(settings.status, StatusCode::OK);
    assert!(settings.body.contains("No active key."));
    // The page's main actions are primary buttons.
    for action in ["Generate a key", "Save"] {
        assert_eq!(
            settings.button_class(action).as_deref(),
            Some("primary"),
            "{action}"
        );
    }
    let csrf = settings.csrf();

    // A form without its token is refused and changes nothing.
    let forged = browser.post("/app/settings/api/key/generate", &[]).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let forged = browser
        .post("/app/settings/api/key/generate", &[("csrf", "guess")])
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(
        signet_common::store::api_keys::active(&app.db.pool, account.into())
            .await
            .unwrap()
            .is_none()
    );

    let generated = browser
        .post("/app/settings/api/key/generate", &[("csrf", &csrf)])
        .await;
    assert_eq!(generated.status, StatusCode::OK);
    let at = generated.body.find("sk_").expect("the new key is shown");
    let key: String = generated.body[at..].chars().take(46).collect();
    assert!(generated.body.contains("It will not be shown again."));
    for _ in 0..3 {
        assert_eq!(app.get("/documents", &key).await.0, 200);
    }
    let later = browser.get("/app/settings/api").await;
    assert!(!later.body.contains(&key), "shown once, then only masked");
    assert!(
        later
            .body
            .contains(&signet_common::store::api_keys::mask(&key))
    );
    assert!(
        later
            .body
            .contains(r#"<strong id="usage-count">3</strong>"#),
        "usage count"
    );
    assert!(
        later
            .body
            .contains(r#"<strong id="usage-limit">1000</strong>"#)
    );
    assert!(later.body.contains("The window resets at"));
    // Regenerating breaks every integration using the key at once: a danger button, like
    // revoking (issue #30 item 10), not the primary style of an action to take lightly.
    for action in ["Regenerate", "Revoke"] {
        assert_eq!(
            later.button_class(action).as_deref(),
            Some("danger"),
            "{action}"
        );
    }
    assert_eq!(later.button_class("Save").as_deref(), Some("primary"));

    let regenerated = browser
        .post("/app/settings/api/key/generate", &[("csrf", &csrf)])
        .await;
    let at =
        regenerated.body.find(r#"<code id="new-key">"#).unwrap() + r#"<code id="new-key">"#.len();
    let new_key: String = regenerated.body[at..].chars().take(46).collect();
    assert_ne!(new_key, key);
    assert_error(
        &app.get("/documents", &key).await,
        401,
        "UNAUTHENTICATED",
        "Invalid API key",
    );
    assert_eq!(app.get("/documents", &new_key).await.0, 200);
    browser
        .post("/app/settings/api/key/revoke", &[("csrf", &csrf)])
        .await;
    assert_error(
        &app.get("/documents", &new_key).await,
        401,
        "UNAUTHENTICATED",
        "Invalid API key",
    );

    // Webhook URL: the SSRF guard refuses internal targets with the reason.
    let refused = browser
        .post(
            "/app/settings/api/webhook",
            &[("csrf", &csrf), ("url", "http://169.254.169.254/latest")],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused.body.contains("internal address"),
        "{}",
        refused.body
    );
    let saved = browser
        .post(
            "/app/settings/api/webhook",
            &[("csrf", &csrf), ("url", "https://93.184.216.34/hooks")],
        )
        .await;
    assert!(saved.body.contains("Webhook URL saved."));
    assert!(
        saved
            .body
            .contains(r#"value="https://93.184.216.34/hooks""#)
    );

    let old_secret: String =
        sqlx::query_scalar("SELECT webhook_secret FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert!(
        !saved.body.contains(&old_secret),
        "the secret is hidden until revealed"
    );
    let revealed = browser
        .post(
            "/app/settings/api/webhook/secret/reveal",
            &[("csrf", &csrf)],
        )
        .await;
    assert!(revealed.body.contains(&old_secret));
    let rotated = browser
        .post(
            "/app/settings/api/webhook/secret/rotate",
            &[("csrf", &csrf)],
        )
        .await;
    let new_secret: String =
        sqlx::query_scalar("SELECT webhook_secret FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_ne!(new_secret, old_secret);
    assert!(rotated.body.contains(&new_secret));

    // Another account's delivery cannot be replayed from here.
    let replay = browser
        .post(
            &format!("/app/settings/api/deliveries/{}/replay", Uuid::now_v7()),
            &[("csrf", &csrf)],
        )
        .await;
    assert_eq!(replay.status, StatusCode::NOT_FOUND);

    let out = browser.post("/app/sign-out", &[("csrf", &csrf)]).await;
    assert_eq!(out.location.as_deref(), Some("/app/sign-in"));
    browser.cookies.insert(
        "signet_session".into(),
        session_cookie
            .split(';')
            .next()
            .unwrap()
            .split_once('=')
            .unwrap()
            .1
            .to_owned(),
    );
    let after = browser.get("/app/settings/api").await;
    assert_eq!(
        after.location.as_deref(),
        Some("/app/sign-in"),
        "the old session cookie no longer works"
    );
}

#[tokio::test]
async fn repeated_failures_slow_sign_in_down() {
    // A first wait longer than the attempts take: with the default second, the sixth attempt
    // on a busy machine could come after the wait.
    let app = TestApp::spawn_with(&[("SIGN_IN_FIRST_DELAY_SECS", "600")]).await;
    let (_, email) = account_with_password(&app).await;
    let mut browser = Browser::new(&app);
    for _ in 0..5 {
        assert_eq!(
            browser.sign_in(&email, "wrong password!").await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    let throttled = browser.sign_in(&email, PASSWORD).await;
    assert_eq!(
        throttled.status,
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password waits"
    );
    assert!(
        throttled
            .body
            .contains("Too many failed sign-ins. Try again in")
    );
    // A sign-in form posted without its cookie is a forgery.
    let forged = app
        .client
        .post(format!("{}/app/sign-in", app.base))
        .form(&[
            ("csrf", "x"),
            ("email", email.as_str()),
            ("password", PASSWORD),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn operators_set_passwords_from_standard_input() {
    let app = TestApp::spawn().await;
    let run = |args: &[&str], input: &str| {
        let mut child = Command::new(binary("signet-api"))
            .args(args)
            .env("DATABASE_URL", app.db.url())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, stderr) = run(
        &[
            "account",
            "create",
            "--name",
            "Ops",
            "--email",
            "ops@example.com",
            "--password-stdin",
        ],
        "short\n",
    );
    assert_eq!(code, Some(1));
    assert!(stderr.contains("password: must have 10"), "{stderr}");
    let (code, stdout, stderr) = run(
        &[
            "account",
            "create",
            "--name",
            "Ops",
            "--email",
            "ops@example.com",
            "--password-stdin",
        ],
        &format!("{PASSWORD}\n"),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let id: String = serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut browser = Browser::new(&app);
    assert_eq!(
        browser.sign_in("ops@example.com", PASSWORD).await.status,
        StatusCode::SEE_OTHER
    );
    let (code, _, stderr) = run(
        &["account", "set-password", "--id", &id],
        "another long password\n",
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        browser.get("/app/settings/api").await.location.as_deref(),
        Some("/app/sign-in"),
        "a new password ends sessions"
    );
    assert_eq!(
        browser
            .sign_in("ops@example.com", "another long password")
            .await
            .status,
        StatusCode::SEE_OTHER
    );
}

impl Browser<'_> {
    pub(crate) async fn upload(
        &mut self,
        csrf: Option<&str>,
        title: &str,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Page {
        self.upload_form(csrf, title, file_name, bytes, false).await
    }

    /// The upload form, with "Find fields in the PDF" ticked or not.
    pub(crate) async fn upload_form(
        &mut self,
        csrf: Option<&str>,
        title: &str,
        file_name: &str,
        bytes: Vec<u8>,
        find_fields: bool,
    ) -> Page {
        let cookie: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let mut form = reqwest::multipart::Form::new().text("title", title.to_owned());
        if let Some(csrf) = csrf {
            form = form.text("csrf", csrf.to_owned());
        }
        if find_fields {
            form = form.text("find_fields", "1");
        }
        let form = form.part(
            "file",
            reqwest::multipart::Part::bytes(bytes)
                .file_name(file_name.to_owned())
                .mime_str("application/pdf")
                .unwrap(),
        );
        let response = self
            .app
            .client
            .post(format!("{}/app/documents", self.app.base))
            .header(header::COOKIE, cookie.join("; "))
            .multipart(form)
            .send()
            .await
            .unwrap();
        Page {
            status: response.status(),
            location: response
                .headers()
                .get(header::LOCATION)
                .map(|v| v.to_str().unwrap().to_owned()),
            set_cookies: Vec::new(),
            body: response.text().await.unwrap(),
        }
    }
}

#[tokio::test]
async fn documents_in_the_browser() {
    let app = TestApp::spawn().await;
    let (_, email) = account_with_password(&app).await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&email, PASSWORD).await;
    let list = browser.get("/app/documents").await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(list.body.contains("0 documents"));
    let csrf = list.csrf();
    let fixture = std::fs::read(signet_tests::fixtures_dir().join("pdflatex-4-pages.pdf")).unwrap();

    let forged = browser
        .upload(None, "Forged", "a.pdf", fixture.clone())
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let encrypted =
        std::fs::read(signet_tests::fixtures_dir().join("libreoffice-writer-password.pdf"))
            .unwrap();
    let refused = browser
        .upload(Some(&csrf), "Secret", "secret.pdf", encrypted)
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert!(
        refused.body.contains("encrypted"),
        "the CLI's refusal, in the page"
    );
    let refused = browser
        .upload(Some(&csrf), "Notes", "notes.pdf", b"plain text".to_vec())
        .await;
    assert!(refused.body.contains("not a PDF"));
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM documents")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(count, 0, "refused uploads store nothing");

    let uploaded = browser
        .upload(Some(&csrf), "", "Quarterly report.pdf", fixture.clone())
        .await;
    assert_eq!(uploaded.status, StatusCode::SEE_OTHER);
    let location = uploaded.location.unwrap();
    let id: Uuid = location.rsplit('/').next().unwrap().parse().unwrap();
    let detail = browser.get(&location).await;
    assert!(
        detail.body.contains("Quarterly report"),
        "the title defaults to the file name"
    );
    assert!(detail.body.contains("4 pages"));
    assert!(detail.body.contains("Document created"), "the audit trail");
    let original = detail
        .body
        .split("href=\"")
        .find(|s| s.contains("original=1"))
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .replace("&amp;", "&");
    let pdf = app
        .client
        .get(&original)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(pdf.as_ref(), fixture.as_slice());

    // The list counts in words that agree ("1 document") and shows times a person reads: UTC,
    // to the minute, said so; never RFC 3339.
    let list = browser.get("/app/documents").await;
    assert!(list.body.contains("<p>1 document</p>"), "{}", list.body);
    let created: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT created_at FROM documents WHERE id = $1")
            .bind(id)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    let shown = created.format("%-d %b %Y, %H:%M UTC").to_string();
    assert!(list.body.contains(&shown), "{shown} in {}", list.body);
    let rfc3339 = created.format("%Y-%m-%dT%H:%M").to_string();
    assert!(!list.body.contains(&rfc3339), "{}", list.body);
    assert!(
        detail.body.contains(&format!("Created {shown}")),
        "{}",
        detail.body
    );

    // The list: filters, search and the document.
    assert!(
        browser
            .get("/app/documents?status=DRAFT&search=quarterly")
            .await
            .body
            .contains("Quarterly report")
    );
    assert!(
        !browser
            .get("/app/documents?status=SENT")
            .await
            .body
            .contains("Quarterly report")
    );
    assert_eq!(
        browser.get("/app/documents?limit=500").await.status,
        StatusCode::BAD_REQUEST
    );

    // Another account's document is not found; cancel needs the token and works.
    let (other, _) = app.account(1000).await;
    let theirs = app.document(other, "Theirs", &[signet_tests::LETTER]).await;
    assert_eq!(
        browser
            .get(&format!("/app/documents/{theirs}"))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        browser.get("/app/documents/not-a-uuid").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        browser
            .post(
                &format!("/app/documents/{theirs}/cancel"),
                &[("csrf", &csrf)]
            )
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        browser
            .post(&format!("/app/documents/{id}/cancel"), &[])
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let cancelled = browser
        .post(&format!("/app/documents/{id}/cancel"), &[("csrf", &csrf)])
        .await;
    assert_eq!(cancelled.status, StatusCode::SEE_OTHER);
    let after = browser.get(&format!("/app/documents/{id}")).await;
    assert!(after.body.contains("CANCELLED") && after.body.contains("Document cancelled"));
}

#[tokio::test]
async fn a_draft_is_prepared_and_sent_from_the_console() {
    let app = TestApp::spawn().await;
    // The worker sends the invitation, and completes the document once it is signed.
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, email) = account_with_password(&app).await;
    let doc = app
        .document(account, "Console draft", &[signet_tests::LETTER])
        .await;
    let mut browser = Browser::new(&app);
    browser.sign_in(&email, PASSWORD).await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    assert!(
        page.body.contains(r#"id="add-recipient""#) && !page.body.contains(r#"id="send""#),
        "send appears once there are recipients"
    );
    let csrf = page.csrf();

    // Recipients: the API's rules, shown on the page.
    let added = browser
        .post(
            &format!("/app/documents/{doc}/recipients"),
            &[
                ("csrf", &csrf),
                ("name", "Sam Signer"),
                ("email", "sam@example.com"),
                ("role", "SIGNER"),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER);
    let duplicate = browser
        .post(
            &format!("/app/documents/{doc}/recipients"),
            &[
                ("csrf", &csrf),
                ("name", "Sam"),
                ("email", "SAM@example.com"),
                ("role", "SIGNER"),
            ],
        )
        .await;
    assert_eq!(duplicate.status, StatusCode::BAD_REQUEST);
    assert!(
        duplicate
            .body
            .contains("Recipient with this email already exists")
    );
    let forged = browser
        .post(
            &format!("/app/documents/{doc}/recipients"),
            &[("name", "Eve"), ("email", "eve@example.com")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);

    // The placement page loads pdf.js from cacheable, release-named assets.
    let place = browser.get(&format!("/app/documents/{doc}/place")).await;
    assert_eq!(place.status, StatusCode::OK);
    let script = place
        .body
        .split("src=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    assert!(script.ends_with("/place-fields.mjs"), "{script}");
    for asset in [
        script.clone(),
        script.replace("place-fields.mjs", "pdf.min.mjs"),
        script.replace("place-fields.mjs", "pdf.worker.min.mjs"),
    ] {
        let response = app
            .client
            .get(format!("{}{asset}", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{asset}");
        assert_eq!(response.headers()["content-type"], "text/javascript");
        assert!(
            response.headers()["cache-control"]
                .to_str()
                .unwrap()
                .contains("immutable")
        );
    }

    // Fields, as the placement script saves them: JSON, the CSRF token in a header.
    let cookie: Vec<String> = browser
        .cookies
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let save = |token: &'static str, body: serde_json::Value| {
        app.client
            .post(format!("{}/app/documents/{doc}/fields", app.base))
            .header(header::COOKIE, cookie.join("; "))
            .header(
                "x-csrf-token",
                if token.is_empty() {
                    csrf.clone()
                } else {
                    token.to_owned()
                },
            )
            .json(&body)
            .send()
    };
    let field = |x: i64| serde_json::json!({"keep": [], "add": [{"recipientEmail": "sam@example.com", "type": "SIGNATURE", "page": 1, "x": x, "y": 100, "width": 200, "height": 50}]});
    assert_error(
        &signet_tests::read(save("forged", field(10)).await.unwrap()).await,
        403,
        "ERROR",
        "This form has expired; reload the page and try again",
    );
    assert_error(
        &signet_tests::read(save("", field(500)).await.unwrap()).await,
        400,
        "ERROR",
        "Field is outside the bounds of page 1",
    );
    let (status, body) = signet_tests::read(save("", field(10)).await.unwrap()).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Fields saved"))
    );

    // Send: the form needs what the API needs (a description may be empty, but is given), and
    // every problem is shown at once; nothing is sent.
    let send = format!("/app/documents/{doc}/send");
    let status = || async {
        sqlx::query_scalar::<_, String>("SELECT status::text FROM documents WHERE id = $1")
            .bind(doc)
            .fetch_one(&app.db.pool)
            .await
            .unwrap()
    };
    let without_description = browser
        .post(
            &send,
            &[
                ("csrf", &csrf),
                ("message", "Please sign"),
                ("expiry", "2099-01-01T10:00"),
            ],
        )
        .await;
    assert_eq!(without_description.status, StatusCode::BAD_REQUEST);
    assert!(
        without_description
            .body
            .contains("<li>description: is required</li>"),
        "{}",
        without_description.body
    );
    assert_eq!(status().await, "DRAFT");
    let incomplete = browser
        .post(
            &send,
            &[("csrf", &csrf), ("message", " "), ("expiry", "2099-01-01")],
        )
        .await;
    assert_eq!(incomplete.status, StatusCode::BAD_REQUEST);
    for problem in [
        "<li>description: is required</li>",
        "<li>message: must not be empty</li>",
        "<li>expiryDate: expected an RFC 3339 timestamp",
    ] {
        assert!(
            incomplete.body.contains(problem),
            "{problem} in {}",
            incomplete.body
        );
    }
    assert_eq!(status().await, "DRAFT");
    // A past expiry and a recipient without a field: the API's message, and both problems.
    browser
        .post(
            &format!("/app/documents/{doc}/recipients"),
            &[
                ("csrf", &csrf),
                ("name", "Ola"),
                ("email", "ola@example.com"),
                ("role", "VIEWER"),
            ],
        )
        .await;
    let past = browser
        .post(
            &send,
            &[
                ("csrf", &csrf),
                ("message", "Please sign"),
                ("description", ""),
                ("expiry", "2020-01-01T10:00"),
            ],
        )
        .await;
    assert_eq!(past.status, StatusCode::BAD_REQUEST);
    for shown in [
        "Every recipient must have at least one field",
        "<li>recipients[1]: ola@example.com has no field</li>",
        "<li>expiryDate: must be in the future</li>",
    ] {
        assert!(past.body.contains(shown), "{shown} in {}", past.body);
    }
    assert_eq!(status().await, "DRAFT");
    let ola: Uuid = sqlx::query_scalar("SELECT id FROM recipients WHERE email = 'ola@example.com'")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    browser
        .post(
            &format!("/app/documents/{doc}/recipients/{ola}/remove"),
            &[("csrf", &csrf)],
        )
        .await;
    let sent = browser
        .post(
            &format!("/app/documents/{doc}/send"),
            &[
                ("csrf", &csrf),
                ("message", "Please sign"),
                ("description", "Thanks"),
                ("expiry", "2099-01-01T10:00"),
                ("reminders", "on"),
                ("reminder_first_after_days", "2"),
                ("reminder_every_days", "3"),
            ],
        )
        .await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER);
    let key = signet_common::store::api_keys::generate(&app.db.pool, account.into())
        .await
        .unwrap()
        .key;
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["status"], "SENT");
    assert_eq!(
        detail["data"]["expiryDate"], "2099-01-01T10:00:00.000Z",
        "the form's time is UTC"
    );
    assert_eq!(detail["data"]["recipients"][0]["fields"][0]["x"], 10);

    // The reminder schedule is what will happen: on the page while the document is SENT, gone
    // once it is COMPLETED, when no reminder will ever be sent (issue #30 item 10).
    const SCHEDULE: &str =
        "Reminders to signers who have not signed: first after 2 days, then every 3 days";
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    assert!(page.body.contains(SCHEDULE), "{}", page.body);
    let link = invitations(&mailbox, 1)
        .await
        .remove("sam@example.com")
        .unwrap();
    assert_eq!(sign(&app, &link, &["Sam Signer"]).await.0, 200);
    wait_for_status(&app, &key, doc, "COMPLETED").await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    assert!(page.body.contains(r#"id="final-pdf""#), "{}", page.body);
    assert!(
        !page
            .body
            .contains("Reminders to signers who have not signed:")
            && !page.body.contains(r#"id="reminder-schedule""#),
        "{}",
        page.body
    );
}
