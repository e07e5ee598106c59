//! Languages (docs/languages.md): each recipient's e-mails in their own language, else the
//! document's; the certificate of completion in the document's; a tag Signet does not speak is
//! a `400` naming the property. Real worker, real SMTP server, real PDF read back by pdftotext.

use std::time::Duration;

use serde_json::{Value, json};
use signet_tests::{LETTER, Mail, Mailbox, TestApp, WorkerProcess, assert_error};
use uuid::Uuid;

use crate::real_names::final_pdf;
use crate::signing_flow::{invitations, pdftotext, sign, wait_for_status};

const LANGUAGES: &str =
    "must be one of en, de, fr, es, pt, zh-Hans, ar, it, nl, pl, ru, tr, ja, ko, he";

/// A new one-page document with `people` (name, e-mail, language) as signers, each with a
/// signature field, sent with `language` as the document's. Returns its id.
async fn send(
    app: &TestApp,
    account: Uuid,
    key: &str,
    title: &str,
    people: &[(&str, &str, Option<&str>)],
    language: Option<&str>,
) -> Uuid {
    let doc = app.document(account, title, &[LETTER]).await;
    let recipients: Vec<Value> = people
        .iter()
        .map(|(name, email, language)| {
            let mut recipient = json!({"name": name, "email": email, "role": "SIGNER"});
            if let Some(language) = language {
                recipient["language"] = json!(language);
            }
            recipient
        })
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
        .map(|(i, (_, email, _))| {
            json!({"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 72, "y": 80 + 60 * i, "width": 220, "height": 40})
        })
        .collect();
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), key, &json!(fields))
        .await;
    assert_eq!(status, 200, "{body}");
    let mut request = json!({"message": "Bitte unterschreiben / please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"});
    if let Some(language) = language {
        request["language"] = json!(language);
    }
    let (status, body) = app
        .post(&format!("/documents/{doc}/send"), key, &request)
        .await;
    assert_eq!(status, 200, "{body}");
    doc
}

fn to<'a>(mails: &'a [Mail], email: &str) -> &'a Mail {
    mails
        .iter()
        .find(|m| m.to == email)
        .unwrap_or_else(|| panic!("no e-mail to {email}: {mails:#?}"))
}

#[tokio::test]
async fn each_recipient_is_written_to_in_their_language_else_the_documents() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send(
        &app,
        account,
        &key,
        "Mietvertrag",
        &[
            ("Dora Example", "dora@signet.test", Some("de")),
            ("محمد الأحمد", "mohammed@signet.test", Some("ar")),
            ("Elena Example", "elena@signet.test", None),
        ],
        Some("es"),
    )
    .await;

    // The detail shows what was given, and null where nothing was.
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
    assert_eq!(detail["language"], "es");
    let languages: Vec<&Value> = detail["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["language"])
        .collect();
    assert_eq!(languages, [&json!("de"), &json!("ar"), &Value::Null]);

    let links = invitations(&mailbox, 3).await;
    let mails = mailbox.messages();

    let german = to(&mails, "dora@signet.test");
    assert_eq!(
        german.subject,
        "Owner hat Ihnen „Mietvertrag“ zum Unterschreiben gesendet"
    );
    for line in [
        "Guten Tag Dora Example,",
        "Owner hat Ihnen „Mietvertrag“ zum Unterschreiben gesendet.",
        "Bitte unterschreiben / please sign.",
        // A time for people, in German (issue #30 item 9), not RFC 3339.
        "Der Link ist bis 1. Jan 2099, 00:00 (UTC) gültig.",
        "Dokument öffnen und unterschreiben:",
        "Gesendet von Signet im Auftrag von Owner",
    ] {
        assert!(german.text.contains(line), "{line:?} in {german:#?}");
    }
    assert!(
        german.html.contains(r#"<html lang="de" dir="ltr">"#),
        "{german:#?}"
    );
    assert!(!german.text.contains("Hello"), "{german:#?}");

    let arabic = to(&mails, "mohammed@signet.test");
    // Names, titles and times are isolated from the Arabic around them (U+2068 … U+2069).
    assert_eq!(
        arabic.subject,
        "أرسل إليك \u{2068}Owner\u{2069} «\u{2068}Mietvertrag\u{2069}» لتوقيعه"
    );
    assert!(
        arabic.text.contains(
            "يظل الرابط صالحًا حتى \u{2068}1 يناير 2099، 00:00\u{2069} (بالتوقيت العالمي المنسق)."
        ),
        "{arabic:#?}"
    );
    for line in [
        "مرحبًا \u{2068}محمد الأحمد\u{2069}،",
        "افتح المستند لتوقيعه:",
        "أرسلته خدمة Signet نيابةً عن \u{2068}Owner\u{2069}",
    ] {
        assert!(arabic.text.contains(line), "{line:?} in {arabic:#?}");
    }
    assert!(
        arabic.html.contains(r#"<html lang="ar" dir="rtl">"#)
            && arabic.html.contains(r#"<body dir="rtl""#),
        "{arabic:#?}"
    );
    assert!(arabic.html.contains(&links["mohammed@signet.test"]));

    // Without a language of her own, Elena reads the document's.
    let spanish = to(&mails, "elena@signet.test");
    assert_eq!(
        spanish.subject,
        "Owner le ha enviado «Mietvertrag» para firmar"
    );
    assert!(
        spanish.text.starts_with("Hola, Elena Example:"),
        "{spanish:#?}"
    );
    assert!(spanish.html.contains(r#"lang="es""#), "{spanish:#?}");
}

/// Two of the languages added by issue #34 through the real worker and SMTP server: Russian,
/// and Hebrew, right to left like Arabic (every value isolated in the subject and text).
#[tokio::test]
async fn russian_and_hebrew_e_mails_are_written_in_their_readers_words() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    send(
        &app,
        account,
        &key,
        "Договор аренды",
        &[
            ("Иван Петров", "ivan@signet.test", Some("ru")),
            ("דנה כהן", "dana@signet.test", Some("he")),
        ],
        None,
    )
    .await;
    invitations(&mailbox, 2).await;
    let mails = mailbox.messages();

    let russian = to(&mails, "ivan@signet.test");
    assert_eq!(
        russian.subject,
        "Owner приглашает вас подписать «Договор аренды»"
    );
    for line in [
        "Здравствуйте, Иван Петров!",
        "Owner приглашает вас подписать «Договор аренды».",
        "Ссылка действует до 1 января 2099, 00:00 (UTC).",
        "Открыть документ для подписания:",
        "Отправлено сервисом Signet от имени: Owner",
    ] {
        assert!(russian.text.contains(line), "{line:?} in {russian:#?}");
    }
    assert!(
        russian.html.contains(r#"<html lang="ru" dir="ltr">"#),
        "{russian:#?}"
    );

    let hebrew = to(&mails, "dana@signet.test");
    assert_eq!(
        hebrew.subject,
        "בקשה לחתימה על „\u{2068}Договор аренды\u{2069}” מאת \u{2068}Owner\u{2069}"
    );
    for line in [
        "שלום \u{2068}דנה כהן\u{2069},",
        "הקישור תקף עד \u{2068}1 בינואר 2099, 00:00\u{2069} (UTC).",
        "פתיחת המסמך לחתימה:",
        "נשלח על ידי Signet בשם \u{2068}Owner\u{2069}",
    ] {
        assert!(hebrew.text.contains(line), "{line:?} in {hebrew:#?}");
    }
    assert!(
        hebrew.html.contains(r#"<html lang="he" dir="rtl">"#)
            && hebrew.html.contains(r#"<body dir="rtl""#),
        "{hebrew:#?}"
    );
    assert!(!hebrew.text.contains("Hello"), "{hebrew:#?}");
}

#[tokio::test]
async fn a_language_signet_does_not_speak_is_refused_by_name_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Tags", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    for bad in [
        json!("xx"),
        json!("DE"),
        json!("de-AT"),
        json!("zh"),
        json!(""),
    ] {
        let body = json!([
            {"name": "Ann", "email": "ann@signet.test", "role": "SIGNER", "language": "fr"},
            {"name": "Bob", "email": "bob@signet.test", "role": "SIGNER", "language": bad},
        ]);
        let answer = app.post(&path, &key, &body).await;
        assert_error(&answer, 400, "ERROR", crate::errors::INVALID);
        assert_eq!(
            answer.1["errors"],
            json!([{"field": "[1].language", "reason": LANGUAGES}]),
            "{bad}"
        );
    }
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["recipients"], json!([]));

    // A recipient, a field, and a send that names a language Signet does not speak.
    let (status, _) = app
        .post(
            &path,
            &key,
            &json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER", "language": null}]),
        )
        .await;
    assert_eq!(status, 200);
    let field = json!([{"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1, "x": 72, "y": 72}]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), &key, &field)
            .await
            .0,
        200
    );
    let answer = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "Sign", "description": "", "expiryDate": "2099-01-01T00:00:00Z", "language": "klingon"}),
        )
        .await;
    assert_error(&answer, 400, "ERROR", crate::errors::INVALID);
    assert_eq!(
        answer.1["errors"],
        json!([{"field": "language", "reason": LANGUAGES}])
    );
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
    assert_eq!(detail["status"], "DRAFT");
    assert_eq!(detail["language"], Value::Null);
    assert_eq!(detail["recipients"][0]["language"], Value::Null);
    let audit = app.get(&format!("/documents/{doc}/audit"), &key).await.1;
    assert!(
        audit["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["event"] != "SENT"),
        "{audit}"
    );
}

/// Signs every invitation, waits for completion and returns the certificate's text.
async fn complete(
    app: &TestApp,
    key: &str,
    mailbox: &Mailbox,
    doc: Uuid,
    signers: &[&str],
) -> String {
    let links = invitations(mailbox, signers.len()).await;
    for email in signers {
        let (status, body) = sign(app, &links[*email], &["Signed"]).await;
        assert_eq!(status, 200, "{email}: {body}");
    }
    let detail = wait_for_status(app, key, doc, "COMPLETED").await;
    let text = pdftotext(&final_pdf(app, &detail).await);
    // Page 1 is the original; the rest is the certificate.
    text.split('\u{c}')
        .skip(1)
        .collect::<Vec<_>>()
        .join("\u{c}")
}

#[tokio::test]
async fn the_certificate_is_in_the_documents_language_with_each_signers_consent() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send(
        &app,
        account,
        &key,
        "采购合同",
        &[
            ("王芳", "wang@signet.test", None),
            ("Dora Example", "dora@signet.test", Some("de")),
        ],
        Some("zh-Hans"),
    )
    .await;
    // What the signing page records when a signer agrees to electronic records, set here with
    // known values to see them printed exactly (the first agreement stands); Dora agrees
    // through her link, in English, when she signs.
    sqlx::query(
        "UPDATE recipients SET consented_at = '2026-11-23T09:30:00Z', consent_ip = '198.51.100.7',
             consent_user_agent = 'Consent-Agent/2.0',
             consent_text = 'I agree to use electronic records and signatures.' || chr(10) ||
                            'I may withdraw this consent at any time.'
         WHERE email = 'wang@signet.test'",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let text = complete(
        &app,
        &key,
        &mailbox,
        doc,
        &["wang@signet.test", "dora@signet.test"],
    )
    .await;
    for expected in [
        "完成证书",
        "收件人（2）",
        "电子邮件：wang@signet.test",
        "角色：签署人",
        "签署时间：",
        "审计记录",
        "同意使用电子记录：于",
        "2026-11-23T09:30:00.000Z",
        "198.51.100.7（Consent-Agent/2.0）",
        "所同意的文本：",
        "I may withdraw this consent at any time.",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
    assert_eq!(text.matches("同意使用电子记录").count(), 2, "{text}");
    assert!(
        text.contains("You are asked to sign"),
        "Dora's consent text:\n{text}"
    );
    for english in [
        "Certificate of completion",
        "Recipients (",
        "Audit trail",
        "Signed at",
    ] {
        assert!(!text.contains(english), "{english:?} in:\n{text}");
    }

    // The completion notices: Dora's in German, Wang's in the document's Chinese.
    let done = mailbox
        .wait_for(2, Duration::from_secs(120), |m| !m.text.contains("/sign/"))
        .await;
    assert_eq!(
        to(&done, "dora@signet.test").subject,
        "„采购合同“ ist abgeschlossen"
    );
    assert_eq!(
        to(&done, "wang@signet.test").subject,
        "“采购合同”已完成签署"
    );
}

#[tokio::test]
async fn an_arabic_certificate_reads_right_to_left() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = send(
        &app,
        account,
        &key,
        "عقد إيجار",
        &[("محمد الأحمد", "mohammed@signet.test", None)],
        Some("ar"),
    )
    .await;
    let text = complete(&app, &key, &mailbox, doc, &["mohammed@signet.test"]).await;
    for expected in [
        "شهادة",
        "الإتمام",
        "المستلمون",
        "البريد",
        "الإلكتروني",
        "mohammed@signet.test",
        "التدقيق",
        "محمد الأحمد",
        "عقد إيجار",
    ] {
        assert!(text.contains(expected), "no {expected:?} in:\n{text}");
    }
    assert!(!text.contains("Certificate of completion"), "{text}");
    assert!(!text.contains('?'), "{text}");
}

/// Certificates in Japanese and Korean (CJK, drawn in WenQuanYi Micro Hei) and in Hebrew (right
/// to left, Noto Sans Hebrew), read back with pdftotext.
#[tokio::test]
async fn japanese_korean_and_hebrew_certificates() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let cases: [(&str, &str, &str, &str, &[&str]); 3] = [
        (
            "ja",
            "賃貸借契約書",
            "山田太郎",
            "taro@signet.test",
            &[
                "完了証明書",
                "受信者（1）",
                "メールアドレス：taro@signet.test",
                "役割：署名者",
                "状況：署名済み",
                "監査証跡",
                "山田太郎",
                "賃貸借契約書",
            ],
        ),
        (
            "ko",
            "임대차 계약서",
            "김민준",
            "minjun@signet.test",
            &[
                "완료 증명서",
                "수신자(1)",
                "이메일: minjun@signet.test",
                "역할: 서명자",
                "상태: 서명함",
                "감사 기록",
                "김민준",
                "임대차 계약서",
            ],
        ),
        (
            "he",
            "חוזה שכירות",
            "דנה כהן",
            "dana@signet.test",
            &[
                "אישור",
                "השלמה",
                "נמענים",
                "dana@signet.test",
                "חותם",
                "ביקורת",
                "דנה",
                "שכירות",
            ],
        ),
    ];
    let mut docs = Vec::new();
    for (language, title, name, email, _) in &cases {
        let doc = send(
            &app,
            account,
            &key,
            title,
            &[(name, email, None)],
            Some(language),
        )
        .await;
        docs.push(doc);
    }
    let links = invitations(&mailbox, cases.len()).await;
    for ((language, _, _, email, expected), doc) in cases.iter().zip(docs) {
        let (status, body) = sign(&app, &links[*email], &["Signed"]).await;
        assert_eq!(status, 200, "{email}: {body}");
        let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
        let text = pdftotext(&final_pdf(&app, &detail).await);
        let certificate = text
            .split('\u{c}')
            .skip(1)
            .collect::<Vec<_>>()
            .join("\u{c}");
        for expected in *expected {
            assert!(
                certificate.contains(expected),
                "{language}: no {expected:?} in:\n{certificate}"
            );
        }
        for english in ["Certificate of completion", "Recipients (", "Audit trail"] {
            assert!(!certificate.contains(english), "{language}: {certificate}");
        }
        // Every character drawn from a font that has it: no missing-glyph replacement.
        assert!(!certificate.contains('?'), "{language}: {certificate}");
    }
}

/// The signing page speaks what the reader asks for (`?lang=`, then `Accept-Language`), else
/// the language their e-mails are in.
#[tokio::test]
async fn the_signing_page_speaks_the_readers_language() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = send(
        &app,
        account,
        &key,
        "Mietvertrag",
        &[("Dora Example", "dora@signet.test", Some("de"))],
        Some("es"),
    )
    .await;
    let token = crate::security::invitation_tokens(&app, doc)
        .await
        .remove(0);
    let link = format!("{}/sign/{token}", app.base);
    let page = |url: String, accept: Option<&'static str>| {
        let mut request = app.client.get(url);
        if let Some(accept) = accept {
            request = request.header("accept-language", accept);
        }
        async move { request.send().await.unwrap().text().await.unwrap() }
    };
    let html = page(link.clone(), None).await;
    assert!(html.contains(r#"<html lang="de" dir="ltr">"#), "{html}");
    assert!(html.contains(&signet_i18n::Language::German.text("sign-consent-heading")));
    let html = page(link.clone(), Some("fr-CA,fr;q=0.9,en;q=0.5")).await;
    assert!(html.contains(r#"<html lang="fr" dir="ltr">"#));
    let html = page(format!("{link}?lang=ar"), Some("fr")).await;
    assert!(html.contains(r#"<html lang="ar" dir="rtl">"#));
    // Hebrew is right to left too, in its own words.
    let html = page(format!("{link}?lang=he"), None).await;
    assert!(html.contains(r#"<html lang="he" dir="rtl">"#), "{html}");
    assert!(html.contains("לפני החתימה"), "{html}");
    let html = page(link.clone(), Some("ja-JP,ja;q=0.9,en;q=0.5")).await;
    assert!(html.contains(r#"<html lang="ja" dir="ltr">"#), "{html}");
    assert!(html.contains("署名の前に"), "{html}");
    let html = page(link.clone(), Some("pl-PL")).await;
    assert!(html.contains(r#"<html lang="pl" dir="ltr">"#), "{html}");
    // The language links offer every language, each named in itself.
    for language in signet_i18n::Language::ALL {
        let link = format!(
            r#"<a href="?lang={tag}" lang="{tag}" hreflang="{tag}""#,
            tag = language.tag()
        );
        assert!(html.contains(&link), "{link} in {html}");
        assert!(html.contains(language.name()), "{}", language.name());
    }
    let html = page(format!("{}/sign/not-a-token", app.base), Some("zh-CN")).await;
    assert!(
        html.contains(r#"<html lang="zh-Hans" dir="ltr">"#),
        "{html}"
    );
}
