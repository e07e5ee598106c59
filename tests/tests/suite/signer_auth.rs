//! Signer authentication (issue #34): a recipient whose link asks for an access code or a
//! one-time code (read here from the real SMTP server or the SMS provider on loopback) sees
//! nothing of the document before giving it: not the page, the session, the file link, and no
//! action works. Passing binds the browser (a cookie), five wrong codes lock the link until the
//! sender unlocks it, resends are limited and codes expire. The real worker binary delivers.

use std::time::Duration;

use reqwest::{Response, header};
use serde_json::{Value, json};
use signet_tests::{
    LETTER, Mail, Mailbox, Receiver, SmsProvider, TestApp, WorkerProcess, eventually, read,
};
use uuid::Uuid;

use crate::{
    real_names::final_pdf,
    signing_flow::{invitations, pdftotext, wait_for_status},
    webhooks::account_with_webhook,
};

const TITLE: &str = "Confidential merger terms";
const MESSAGE: &str = "Please sign the merger terms.";
const ACCESS_CODE: &str = "blue-harbour-42";
const ANN: &str = "ann@signet.test";
const BOB: &str = "bob@signet.test";

/// A UK mobile number and its E.164.
const ANN_PHONE: (&str, &str) = ("07911 123456", "+447911123456");

/// Sends a document titled [`TITLE`] to `recipients` (each a recipient element), with a
/// signature field for each. Returns its id.
async fn send(app: &TestApp, account: Uuid, key: &str, recipients: Value) -> Uuid {
    let doc = app.document(account, TITLE, &[LETTER]).await;
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), key, &recipients)
        .await;
    assert_eq!(status, 200, "{body}");
    let fields: Vec<Value> = recipients
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({"recipientEmail": r["email"], "type": "SIGNATURE", "page": 1,
                   "x": 72, "y": 80 + 60 * i, "width": 200, "height": 40})
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
            &json!({"message": MESSAGE, "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    doc
}

/// A request on a signing link, with the browser's pass cookie when it has one.
async fn on_link(
    app: &TestApp,
    method: reqwest::Method,
    url: &str,
    pass: Option<&str>,
    body: Option<Value>,
) -> Response {
    let mut request = app.client.request(method, url);
    if let Some(pass) = pass {
        request = request.header(header::COOKIE, format!("signet_signer_pass={pass}"));
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

async fn post(app: &TestApp, url: &str, pass: Option<&str>, body: Value) -> (u16, Value) {
    read(on_link(app, reqwest::Method::POST, url, pass, Some(body)).await).await
}

async fn get_json(app: &TestApp, url: &str, pass: Option<&str>) -> (u16, Value) {
    read(on_link(app, reqwest::Method::GET, url, pass, None).await).await
}

/// The signing page as text, with its status.
async fn page(app: &TestApp, link: &str, pass: Option<&str>) -> (u16, String) {
    let response = on_link(app, reqwest::Method::GET, link, pass, None).await;
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Gives `code` on `link`; the pass cookie's value when it was right.
async fn give(app: &TestApp, link: &str, code: &str) -> (u16, Value, Option<String>) {
    let response = on_link(
        app,
        reqwest::Method::POST,
        &format!("{link}/auth"),
        None,
        Some(json!({"code": code})),
    )
    .await;
    let cookie = response
        .headers()
        .get(header::SET_COOKIE)
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = read(response).await;
    let pass = cookie.map(|cookie| {
        let token = link.rsplit('/').next().unwrap();
        for attribute in [
            "HttpOnly",
            "SameSite=Strict",
            &format!("Path=/sign/{token}"),
        ] {
            assert!(cookie.contains(attribute), "{attribute} in {cookie}");
        }
        cookie
            .split(';')
            .next()
            .unwrap()
            .strip_prefix("signet_signer_pass=")
            .expect("the pass cookie")
            .to_owned()
    });
    (status, body, pass)
}

/// Every way the link could show or change something refuses, saying only what to do; the
/// page shows the code form (or, `locked`, that the link is locked) and nothing of the document.
async fn shows_nothing(app: &TestApp, link: &str, pass: Option<&str>, method: &str, locked: bool) {
    let (status, code) = match locked {
        true => (403, "AUTHENTICATION_LOCKED"),
        false => (401, "AUTHENTICATION_REQUIRED"),
    };
    let (page_status, html) = page(app, link, pass).await;
    assert_eq!(page_status, status, "{html}");
    for secret in [TITLE, MESSAGE, "/files/", "signing-data", "sign-page.mjs"] {
        assert!(!html.contains(secret), "the page shows {secret:?}: {html}");
    }
    if locked {
        assert!(html.contains("locked"), "{html}");
        assert!(
            !html.contains("auth-code"),
            "no code form once locked: {html}"
        );
    } else {
        assert!(html.contains("id=\"auth-code\""), "the code form: {html}");
    }
    let refusals = [
        get_json(app, &format!("{link}/session"), pass).await,
        post(
            app,
            &format!("{link}/consent"),
            pass,
            json!({"language": "en"}),
        )
        .await,
        post(app, &format!("{link}/submit"), pass, json!({"fields": []})).await,
        post(
            app,
            &format!("{link}/decline"),
            pass,
            json!({"reason": "no"}),
        )
        .await,
        read(
            app.client
                .post(format!(
                    "{link}/fields/{}/attachment?name=a.pdf",
                    Uuid::new_v4()
                ))
                .body(signet_tests::pdf(&[LETTER]))
                .send()
                .await
                .unwrap(),
        )
        .await,
    ];
    for (answered, body) in refusals {
        assert_eq!(
            (answered, body["code"].as_str(), &body["data"]),
            (status, Some(code), &json!({"method": method})),
            "{body}"
        );
        let text = body.to_string();
        assert!(!text.contains(TITLE) && !text.contains("/files/"), "{text}");
    }
}

/// The detail's recipient views, by e-mail.
async fn recipient(app: &TestApp, key: &str, doc: Uuid, email: &str) -> Value {
    let (status, body) = app.get(&format!("/documents/{doc}"), key).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == email)
        .cloned()
        .unwrap()
}

async fn audit(app: &TestApp, key: &str, doc: Uuid) -> Vec<Value> {
    app.get(&format!("/documents/{doc}/audit"), key).await.1["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// The code a one-time code e-mail carries, checked to say nothing of the document.
fn code_in(mail: &Mail) -> String {
    for part in [&mail.subject, &mail.text, &mail.html] {
        assert!(
            !part.contains(TITLE),
            "the code e-mail names the document: {part}"
        );
        assert!(
            !part.contains("/sign/"),
            "the code e-mail carries no link: {part}"
        );
    }
    let code: String = mail.subject.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "{}", mail.subject);
    assert!(mail.text.contains(&code), "{}", mail.text);
    code
}

async fn code_mails(mailbox: &Mailbox, count: usize) -> Vec<Mail> {
    let mails = mailbox
        .wait_for(count, Duration::from_secs(120), |m| {
            m.subject.contains("Signet code")
        })
        .await;
    assert_eq!(mails.len(), count, "{mails:#?}");
    mails
}

/// Moves every code sent to the recipient back in time, as if `seconds` had passed.
async fn age_codes(app: &TestApp, email: &str, seconds: i64) {
    sqlx::query(
        "UPDATE signer_auth_codes c SET sent_at = sent_at - make_interval(secs => $2)
         FROM recipients r WHERE r.id = c.recipient_id AND r.email = $1",
    )
    .bind(email)
    .bind(seconds as f64)
    .execute(&app.db.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn an_access_code_opens_the_link_only_in_the_browser_that_gave_it() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let doc = send(
        &app,
        account,
        &key,
        json!([
            {"name": "Ann Example", "email": ANN, "role": "SIGNER",
             "authentication": {"method": "ACCESS_CODE", "accessCode": ACCESS_CODE}},
            {"name": "Bob Example", "email": BOB, "role": "SIGNER"},
        ]),
    )
    .await;
    let links = invitations(&mailbox, 2).await;
    let (ann, bob) = (&links[ANN], &links[BOB]);

    // The detail names the method, never the code.
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert!(!detail.to_string().contains(ACCESS_CODE), "{detail}");
    let view = recipient(&app, &key, doc, ANN).await;
    assert_eq!(
        view["authentication"],
        json!({"method": "ACCESS_CODE", "locked": false, "lockedAt": null,
               "failedAttempts": 0, "passedAt": null})
    );
    assert_eq!(
        recipient(&app, &key, doc, BOB).await["authentication"],
        Value::Null
    );

    shows_nothing(&app, ann, None, "ACCESS_CODE", false).await;
    // An access code is the sender's to give: none is sent.
    let (status, body) = post(&app, &format!("{ann}/auth/send"), None, json!({})).await;
    assert_eq!(status, 400, "{body}");

    // A wrong code is counted, and says how many are left.
    let (status, body, pass) = give(&app, ann, "blue-harbour-41").await;
    assert_eq!((status, pass), (400, None), "{body}");
    assert_eq!(body["errors"][0]["field"], "code", "{body}");
    assert_eq!(
        body["errors"][0]["reason"],
        "wrong code: 4 more wrong codes lock this link"
    );
    assert_eq!(
        recipient(&app, &key, doc, ANN).await["authentication"]["failedAttempts"],
        1
    );

    let (status, body, pass) = give(&app, ann, ACCESS_CODE).await;
    assert_eq!(status, 200, "{body}");
    let pass = pass.expect("a pass cookie");
    // The link alone is not enough: another browser (no cookie, or a made-up one) sees nothing.
    shows_nothing(&app, ann, None, "ACCESS_CODE", false).await;
    shows_nothing(&app, ann, Some("made-up"), "ACCESS_CODE", false).await;

    // With its pass, the browser sees the document and signs.
    let (status, html) = page(&app, ann, Some(&pass)).await;
    assert_eq!(status, 200);
    assert!(html.contains(TITLE) && html.contains("/files/"), "{html}");
    let (status, session) = get_json(&app, &format!("{ann}/session"), Some(&pass)).await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["data"]["document"]["title"], TITLE);
    let field = session["data"]["fields"][0]["id"].clone();
    let (status, body) = post(
        &app,
        &format!("{ann}/consent"),
        Some(&pass),
        json!({"language": "en"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        &app,
        &format!("{ann}/submit"),
        Some(&pass),
        json!({"fields": [{"id": field, "value": "Ann Example"}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // Bob's link asks for nothing.
    let (status, session) = get_json(&app, &format!("{bob}/session"), None).await;
    assert_eq!(status, 200, "{session}");
    let field = session["data"]["fields"][0]["id"].clone();
    post(
        &app,
        &format!("{bob}/consent"),
        None,
        json!({"language": "en"}),
    )
    .await;
    let (status, body) = post(
        &app,
        &format!("{bob}/submit"),
        None,
        json!({"fields": [{"id": field, "value": "Bob Example"}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The trail records the method passed, never the code; the first pass is in the detail.
    let trail = audit(&app, &key, doc).await;
    let ann_id = recipient(&app, &key, doc, ANN).await["id"].clone();
    let passed: Vec<&Value> = trail
        .iter()
        .filter(|e| e["message"] == format!("Identity of {ANN} checked: passed ACCESS_CODE"))
        .collect();
    assert_eq!(passed.len(), 1, "{trail:#?}");
    assert_eq!(passed[0]["event"], "UPDATED");
    assert!(!json!(trail).to_string().contains(ACCESS_CODE));
    let view = recipient(&app, &key, doc, ANN).await;
    assert!(view["authentication"]["passedAt"].is_string(), "{view}");
    assert_eq!(
        view["authentication"]["failedAttempts"], 0,
        "a pass forgives: {view}"
    );
    assert_eq!(view["id"], ann_id);

    // The certificate lists the check and when, per recipient.
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let text = pdftotext(&final_pdf(&app, &detail).await);
    let (_, certificate) = text.split_once('\u{c}').expect("a certificate page");
    let flat = certificate.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Identity checked: access code, at "),
        "{flat}"
    );
    assert_eq!(
        flat.matches("Identity checked").count(),
        1,
        "only Ann's: {flat}"
    );
    assert!(!flat.contains(ACCESS_CODE), "{flat}");
}

#[tokio::test]
async fn five_wrong_codes_lock_the_recipient_until_the_sender_unlocks() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let receiver = Receiver::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);
    let doc = send(
        &app,
        account,
        &key,
        json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER",
                "authentication": {"method": "EMAIL_OTP"}}]),
    )
    .await;
    let links = invitations(&mailbox, 1).await;
    let ann = &links[ANN];
    shows_nothing(&app, ann, None, "EMAIL_OTP", false).await;
    // Fetching the page sends nothing (link scanners fetch it too); the page's script asks.
    let (status, body) = post(&app, &format!("{ann}/auth/send"), None, json!({})).await;
    assert_eq!(
        (status, &body["data"]),
        (200, &json!({"method": "EMAIL_OTP"})),
        "{body}"
    );
    let code = code_in(&code_mails(&mailbox, 1).await[0]);
    let wrong = if code == "000000" { "111111" } else { "000000" };

    for left in (1..=4).rev() {
        let (status, body, _) = give(&app, ann, wrong).await;
        assert_eq!(status, 400, "{body}");
        let reason = body["errors"][0]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!("wrong code: {left} more")),
            "{reason}"
        );
    }
    let (status, body, pass) = give(&app, ann, wrong).await;
    assert_eq!((status, pass), (403, None), "{body}");
    assert_eq!(body["code"], "AUTHENTICATION_LOCKED");
    // Locked: even the right code opens nothing, and no code is sent.
    let (status, body, pass) = give(&app, ann, &code).await;
    assert_eq!((status, pass), (403, None), "{body}");
    let (status, _) = post(&app, &format!("{ann}/auth/send"), None, json!({})).await;
    assert_eq!(status, 403);
    shows_nothing(&app, ann, None, "EMAIL_OTP", true).await;

    let view = recipient(&app, &key, doc, ANN).await;
    assert_eq!(view["authentication"]["locked"], true, "{view}");
    assert_eq!(view["authentication"]["failedAttempts"], 5, "{view}");
    assert!(view["authentication"]["lockedAt"].is_string(), "{view}");
    let locked = receiver
        .wait_for(1, Duration::from_secs(60), |r| {
            r.event_type() == "recipient.auth_failed"
        })
        .await;
    let payload: Value = serde_json::from_str(&locked[0].body).unwrap();
    assert_eq!(
        payload["authentication"],
        json!({"recipientId": view["id"], "email": ANN, "method": "EMAIL_OTP", "failedAttempts": 5})
    );
    assert!(!locked[0].body.contains(&code));
    let trail = audit(&app, &key, doc).await;
    assert!(
        trail.iter().any(|e| e["message"]
            == format!("{ANN} gave 5 wrong codes (EMAIL_OTP): the signing link is locked until the sender unlocks it")),
        "{trail:#?}"
    );

    // The sender unlocks: the count starts again and the old code no longer works.
    let unlock = format!(
        "/documents/{doc}/recipients/{}/unlock",
        view["id"].as_str().unwrap()
    );
    let (status, body) = app.post(&unlock, &key, &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let unlocked = body["data"]["recipients"][0]["authentication"].clone();
    assert_eq!(
        (
            unlocked["locked"].clone(),
            unlocked["failedAttempts"].clone()
        ),
        (json!(false), json!(0))
    );
    let (status, body, _) = give(&app, ann, &code).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"][0]["reason"],
        "no code is waiting: ask for a new one"
    );
    assert!(
        audit(&app, &key, doc)
            .await
            .iter()
            .any(|e| e["message"] == format!("Signing link of {ANN} unlocked by the sender"))
    );
    // Unlocking a recipient who is not locked changes nothing; one whose link asks for no
    // code, or who is not on the document, is refused.
    assert_eq!(app.post(&unlock, &key, &json!({})).await.0, 200);
    let unknown = format!("/documents/{doc}/recipients/{}/unlock", Uuid::new_v4());
    let (status, body) = app.post(&unknown, &key, &json!({})).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (404, Some("Recipient not found"))
    );

    // A new code (a minute after the last, made to have passed) opens the link.
    age_codes(&app, ANN, 61).await;
    let (status, body) = post(&app, &format!("{ann}/auth/send"), None, json!({})).await;
    assert_eq!(status, 200, "{body}");
    let old = code;
    let code = code_mails(&mailbox, 2)
        .await
        .iter()
        .map(code_in)
        .find(|code| *code != old)
        .expect("the new code");
    let (status, body, pass) = give(&app, ann, &format!(" {} {} ", &code[..3], &code[3..])).await;
    assert_eq!(status, 200, "spaces in a typed code are ignored: {body}");
    let (status, session) = get_json(&app, &format!("{ann}/session"), pass.as_deref()).await;
    assert_eq!(status, 200, "{session}");
    // A code works once.
    let (status, _, _) = give(&app, ann, &code).await;
    assert_eq!(status, 400);
    assert!(
        audit(&app, &key, doc)
            .await
            .iter()
            .any(|e| e["message"] == format!("Identity of {ANN} checked: passed EMAIL_OTP"))
    );
}

#[tokio::test]
async fn sms_codes_expire_and_their_resends_are_limited() {
    let provider = SmsProvider::start().await;
    let settings = provider.settings();
    let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = TestApp::spawn_with(&settings).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &settings);
    let (account, key) = app.account(1000).await;

    // SMS_OTP needs the recipient's number, named at the element.
    let lone = app.document(account, TITLE, &[LETTER]).await;
    let (status, body) = app
        .post(
            &format!("/documents/{lone}/recipients"),
            &key,
            &json!([{"name": "Ann", "email": ANN, "role": "SIGNER",
                     "authentication": {"method": "SMS_OTP"}}]),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"][0]["field"], "[0].authentication.method",
        "{body}"
    );

    let doc = send(
        &app,
        account,
        &key,
        json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER",
                "countryCode": "+44", "phoneNumber": ANN_PHONE.0,
                "authentication": {"method": "SMS_OTP"}}]),
    )
    .await;
    let links = invitations(&mailbox, 1).await;
    let ann = &links[ANN];
    shows_nothing(&app, ann, None, "SMS_OTP", false).await;

    let texted_code = |count: usize| {
        let provider = &provider;
        async move {
            let texts = eventually("the code by SMS", Duration::from_secs(60), || async {
                let codes: Vec<_> = provider
                    .requests()
                    .into_iter()
                    .filter(|t| t.body.contains("is your code"))
                    .collect();
                (codes.len() >= count).then_some(codes)
            })
            .await;
            let text = &texts[count - 1];
            assert_eq!(text.to, ANN_PHONE.1);
            assert!(
                !text.body.contains(TITLE) && !text.body.contains("/sign/"),
                "{}",
                text.body
            );
            let code = text.body[..6].to_owned();
            assert!(code.chars().all(|c| c.is_ascii_digit()), "{}", text.body);
            code
        }
    };
    let send_url = format!("{ann}/auth/send");
    let send_code = || post(&app, &send_url, None, json!({}));
    assert_eq!(send_code().await.0, 200);
    let first = texted_code(1).await;

    // Another at once is refused, with when to ask again.
    let response = on_link(
        &app,
        reqwest::Method::POST,
        &format!("{ann}/auth/send"),
        None,
        None,
    )
    .await;
    let retry_after: u64 = response.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(response.status(), 429);
    assert!((1..=60).contains(&retry_after), "{retry_after}");

    // An expired code is refused without counting as a wrong one.
    sqlx::query(
        "UPDATE signer_auth_codes SET expires_at = now() - interval '1 second'
         WHERE recipient_id = (SELECT id FROM recipients WHERE email = $1)",
    )
    .bind(ANN)
    .execute(&app.db.pool)
    .await
    .unwrap();
    let (status, body, _) = give(&app, ann, &first).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"][0]["reason"],
        "this code has expired: ask for a new one"
    );
    assert_eq!(
        recipient(&app, &key, doc, ANN).await["authentication"]["failedAttempts"],
        0
    );

    // Five an hour, one a minute: the sixth within the hour waits for the first to age out.
    for sent in 2..=5 {
        age_codes(&app, ANN, 61).await;
        assert_eq!(send_code().await.0, 200, "send {sent}");
        texted_code(sent).await;
    }
    age_codes(&app, ANN, 61).await;
    let response = on_link(
        &app,
        reqwest::Method::POST,
        &format!("{ann}/auth/send"),
        None,
        None,
    )
    .await;
    assert_eq!(response.status(), 429);
    let retry_after: u64 = response.headers()[header::RETRY_AFTER]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        retry_after > 60,
        "the hour's limit, not the minute's: {retry_after}"
    );
    let codes: i64 = sqlx::query_scalar("SELECT count(*) FROM signer_auth_codes")
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(codes, 5, "refused sends store nothing");

    // An hour later, a new code opens the link, and the clear codes are not kept.
    age_codes(&app, ANN, 3600).await;
    assert_eq!(send_code().await.0, 200);
    let code = texted_code(6).await;
    let (status, body, pass) = give(&app, ann, &code).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = get_json(&app, &format!("{ann}/session"), pass.as_deref()).await;
    assert_eq!(status, 200);
    let kept: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbound_sms WHERE kind = 'CODE' AND link_token IS NOT NULL",
    )
    .fetch_one(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(kept, 0, "the clear code is dropped once sent");
    let trail = audit(&app, &key, doc).await;
    assert!(
        trail
            .iter()
            .any(|e| e["message"] == format!("One-time code sent to {} by SMS", ANN_PHONE.1))
    );
    assert!(
        trail
            .iter()
            .all(|e| !e["message"].as_str().unwrap().contains(&code))
    );
}

#[tokio::test]
async fn authentication_is_checked_where_it_is_given() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, TITLE, &[LETTER]).await;
    let auth = |value: Value| json!([{"name": "Ann", "email": ANN, "role": "SIGNER", "authentication": value}]);
    for (authentication, field, reason) in [
        (
            json!({"method": "ACCESS_CODE"}),
            "[0].authentication.accessCode",
            "required: an ACCESS_CODE recipient is given the code to type",
        ),
        (
            json!({"method": "ACCESS_CODE", "accessCode": "abc"}),
            "[0].authentication.accessCode",
            "must have 4 to 64 characters",
        ),
        (
            json!({"method": "ACCESS_CODE", "accessCode": "two words"}),
            "[0].authentication.accessCode",
            "must not contain white space or control characters",
        ),
        (
            json!({"method": "EMAIL_OTP", "accessCode": "1234"}),
            "[0].authentication.accessCode",
            "only an ACCESS_CODE recipient takes an access code, not EMAIL_OTP",
        ),
    ] {
        let (status, body) = app
            .post(
                &format!("/documents/{doc}/recipients"),
                &key,
                &auth(authentication),
            )
            .await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(
            body["errors"],
            json!([{"field": field, "reason": reason}]),
            "{body}"
        );
    }
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &auth(json!({"method": "PASSPORT"})),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"][0]["field"], "[0].authentication.method",
        "{body}"
    );
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["recipients"],
        json!([]),
        "bad input changes nothing"
    );

    // A recipient without authentication cannot be unlocked.
    let (status, _) = app
        .post(
            &format!("/documents/{doc}/recipients"),
            &key,
            &json!([{"name": "Bob", "email": BOB, "role": "SIGNER"}]),
        )
        .await;
    assert_eq!(status, 200);
    let bob = recipient(&app, &key, doc, BOB).await;
    let (status, body) = app
        .post(
            &format!(
                "/documents/{doc}/recipients/{}/unlock",
                bob["id"].as_str().unwrap()
            ),
            &key,
            &json!({}),
        )
        .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (400, Some("This signing link asks for no code"))
    );
}

/// The code form in a real browser (Chromium, driven by tests/browser/sign-auth.mjs), used with
/// the keyboard alone, in English and in Hebrew (right to left): it shows nothing of the
/// document, axe-core finds nothing serious, a wrong code is announced as an alert, and the
/// right code, sent with Enter, opens the document's signing page at its consent step.
#[tokio::test]
async fn the_code_form_works_with_the_keyboard_in_a_real_browser() {
    use signet_i18n::Language;

    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let doc = send(
        &app,
        account,
        &key,
        json!([{"name": "Ann Example", "email": ANN, "role": "SIGNER", "language": "en",
                "authentication": {"method": "ACCESS_CODE", "accessCode": ACCESS_CODE}}]),
    )
    .await;
    let link = &invitations(&mailbox, 1).await[ANN];

    let wrong = "blue-harbour-41";
    let runs = json!([
        {"name": "en", "link": link, "locale": "en-GB", "code": ACCESS_CODE, "wrong": wrong,
         "shot": "11-signer-auth-en"},
        {"name": "he", "link": format!("{link}?lang=he"), "locale": "he-IL", "code": ACCESS_CODE,
         "wrong": wrong, "shot": "12-signer-auth-he"},
    ]);
    let findings = signet_tests::BrowserScript::new("sign-auth.mjs")
        .env("RUNS", runs.to_string())
        .env("TITLE", TITLE)
        .env("SHOTS", signet_tests::screenshots_dir())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    // Only the answers the form is meant to get: the page's 401 and the wrong codes' 400.
    for error in findings["consoleErrors"].as_array().unwrap() {
        let error = error.as_str().unwrap();
        assert!(
            error.contains("Failed to load resource")
                && (error.contains("401") || error.contains("400")),
            "{findings}"
        );
    }

    for (seen, language) in [
        (&findings["runs"][0], Language::English),
        (&findings["runs"][1], Language::Hebrew),
    ] {
        let heading = language.text("sign-auth-heading");
        assert_eq!(seen["violations"], json!([]), "{seen}");
        assert_eq!(seen["status"], 401, "{seen}");
        assert_eq!(seen["lang"], language.tag(), "{seen}");
        assert_eq!(seen["dir"], language.direction(), "{seen}");
        // Nothing of the document: its title is the form's heading.
        let title = seen["titleBefore"].as_str().unwrap();
        assert!(title.contains(&heading) && !title.contains(TITLE), "{seen}");
        assert_eq!(seen["headingBefore"], heading.as_str(), "{seen}");
        assert_eq!(seen["textShowsTitle"], false, "{seen}");
        assert_eq!(seen["pagesBefore"], 0, "{seen}");
        assert_eq!(
            seen["codeLabel"],
            language.text("sign-auth-code-label").as_str()
        );
        // Keyboard: Tab reaches the box, then the button; Enter sends.
        assert_eq!(seen["focusOnSubmit"], "auth-submit", "{seen}");
        // The wrong code is announced, and the box is marked, emptied and focused again.
        let wrong_text = language.text("sign-auth-wrong");
        assert_eq!(
            seen["error"],
            json!({"text": wrong_text, "role": "alert", "visible": true}),
            "{seen}"
        );
        assert!(
            seen["alerts"]
                .as_array()
                .unwrap()
                .contains(&json!(wrong_text)),
            "{seen}"
        );
        assert_eq!(
            seen["afterWrong"],
            json!({"focus": "auth-code", "invalid": "true",
                   "describedBy": "auth-explained auth-error", "value": ""}),
            "{seen}"
        );
        // The right code opens the document, in the same language, at its consent step.
        assert_eq!(seen["langAfter"], language.tag(), "{seen}");
        assert_eq!(seen["dirAfter"], language.direction(), "{seen}");
        assert!(
            seen["titleAfter"].as_str().unwrap().contains(TITLE),
            "{seen}"
        );
        assert_eq!(seen["headingAfter"], TITLE, "{seen}");
        assert_eq!(seen["consentVisible"], true, "{seen}");
        assert_eq!(seen["codeFormAfter"], 0, "{seen}");
        assert_eq!(seen["pagesShown"], 1, "{seen}");
    }

    // Each browser gave one wrong code, then the right one, which starts the count again.
    let view = recipient(&app, &key, doc, ANN).await;
    assert_eq!(view["authentication"]["failedAttempts"], 0, "{view}");
    assert!(view["authentication"]["passedAt"].is_string(), "{view}");
}
