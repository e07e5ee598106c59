//! The signing page on a phone, in English and in Arabic, in Debian's Chromium driven by
//! playwright-core (tests/browser/signing.mjs) with axe-core run in the page, against the real
//! API, worker and SMTP server.

use serde_json::{Value, json};
use signet_i18n::Language;
use signet_tests::{BrowserScript, Mailbox, TestApp, WorkerProcess, fixtures_dir, screenshots_dir};

use crate::signing_flow::invitations;

const ANN: &str = "ann@signet.test";
const LAILA: &str = "laila@signet.test";
const DANA: &str = "dana@signet.test";

#[tokio::test]
async fn signers_tap_each_field_on_a_phone_in_english_and_in_arabic() {
    // And in Hebrew (issue #34), the other right-to-left language.
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let pdf = std::fs::read(fixtures_dir().join("pdflatex-4-pages.pdf")).unwrap();
    let doc = app.document_from(account, "Tenancy agreement", pdf).await;
    let people = json!([
        {"name": "Ann Lee", "email": ANN, "role": "SIGNER"},
        {"name": "ليلى حداد", "email": LAILA, "role": "SIGNER"},
        {"name": "דנה כהן", "email": DANA, "role": "SIGNER"},
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/recipients"), &key, &people)
            .await
            .0,
        200
    );
    let field = |email: &str, kind: &str, x: u32, y: u32, width: u32, height: u32| json!({"recipientEmail": email, "type": kind, "page": 1, "x": x, "y": y, "width": width, "height": height});
    let fields = json!([
        field(ANN, "SIGNATURE", 72, 560, 200, 50),
        field(ANN, "INITIALS", 300, 560, 70, 40),
        field(ANN, "TEXT", 72, 630, 200, 30),
        field(ANN, "DATE", 300, 630, 110, 30),
        field(LAILA, "SIGNATURE", 72, 690, 200, 50),
        field(LAILA, "DATE", 300, 690, 110, 30),
        field(DANA, "SIGNATURE", 72, 740, 200, 40),
        field(DANA, "DATE", 300, 740, 110, 30),
    ]);
    assert_eq!(
        app.post(&format!("/documents/{doc}/fields"), &key, &fields)
            .await
            .0,
        200
    );
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "Please sign the tenancy agreement.", "description": "Flat 2", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let links = invitations(&mailbox, 3).await;

    let kinds = |l: Language| {
        json!({
            "SIGNATURE": l.text("sign-field-signature"),
            "INITIALS": l.text("sign-field-initials"),
            "TEXT": l.text("sign-field-text"),
        })
    };
    let signers = json!([
        {
            "name": ANN, "link": links[ANN], "locale": "en-GB", "shot": "07-signing-page-phone-en",
            "kinds": kinds(Language::English),
            "values": {"SIGNATURE": "draw", "INITIALS": "AL", "TEXT": "Flat 2, 3rd floor"},
        },
        {
            "name": LAILA, "link": links[LAILA], "locale": "ar-EG", "shot": "08-signing-page-phone-ar",
            "kinds": kinds(Language::Arabic),
            "values": {"SIGNATURE": "ليلى حداد"},
        },
        {
            "name": DANA, "link": links[DANA], "locale": "he-IL", "shot": "10-signing-page-phone-he",
            "kinds": kinds(Language::Hebrew),
            "values": {"SIGNATURE": "דנה כהן"},
        },
    ]);
    let shots = screenshots_dir();
    let findings = BrowserScript::new("signing.mjs")
        .env("SIGNERS", signers.to_string())
        .env("SHOTS", &shots)
        .findings()
        .await;
    println!("screenshots in {}", shots.display());
    assert!(findings.get("error").is_none(), "{}", findings["error"]);
    assert_eq!(findings["consoleErrors"], json!([]), "{findings}");
    let [ann, laila, dana] = [0, 1, 2].map(|i| &findings["signers"][i]);
    // Each person's page recorded their view once, from the browser that drew the document
    // (the HTML fetch alone records nothing: signing_flow::fetching_the_page_is_not_viewing_it).
    let views: Vec<(String, String)> = sqlx::query_as(
        "SELECT message, user_agent FROM audit_entries WHERE document_id = $1 AND event = 'VIEWED' ORDER BY seq",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(views.len(), 3, "{views:?}");
    assert!(
        views.iter().all(|(_, agent)| agent.contains("Chrome")),
        "{views:?}"
    );

    let ann_fields = [
        "sign-field-signature",
        "sign-field-initials",
        "sign-field-text",
    ];
    for (seen, language, kinds) in [
        (ann, Language::English, &ann_fields[..]),
        (laila, Language::Arabic, &ann_fields[..1]),
        (dana, Language::Hebrew, &ann_fields[..1]),
    ] {
        let to_fill = kinds.len();
        // axe-core: no serious or critical WCAG 2.1 A/AA violation at any step.
        assert_eq!(seen["violations"], json!([]), "{}", seen["name"]);
        assert_eq!(seen["lang"], language.tag());
        assert_eq!(seen["dir"], language.direction());
        // Pages drawn at the screen's density: 2 device pixels per CSS pixel.
        let (pixels, css) = (
            seen["canvas"]["pixels"].as_f64().unwrap(),
            seen["canvas"]["css"].as_f64().unwrap(),
        );
        assert!((pixels - 2.0 * css).abs() <= 2.0, "{}", seen["canvas"]);
        assert_eq!(seen["fieldsDisabledBeforeConsent"], true);
        // The language picker takes one line of the phone's screen until it is opened (its
        // fifteen links took ~130 px); no CJK font is fetched for it meanwhile.
        let picker = seen["pickerHeight"].as_f64().unwrap();
        assert!(picker <= 40.0, "the folded picker is {picker} px high");
        let status = |faces: &Value, code: &str| {
            faces
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["unicodeRange"].as_str().unwrap().contains(code))
                .map(|f| f["status"].clone())
        };
        let folded = &seen["cjkFacesFolded"];
        assert_eq!(
            status(folded, "U+7B80"),
            Some(json!("unloaded")),
            "{folded}"
        );
        // Opened: every language's link, and "简体中文" from the small CJK font of the page's
        // own words; with no other CJK text on the page, the whole CJK face (1.1 MiB) is not
        // fetched.
        assert_eq!(seen["pickerLinks"], Language::ALL.len(), "{}", seen["name"]);
        let faces = &seen["cjkFaces"];
        assert_eq!(status(faces, "U+7B80"), Some(json!("loaded")), "{faces}");
        assert_eq!(
            status(faces, "U+AC00-D7AF"),
            Some(json!("unloaded")),
            "{faces}"
        );
        assert_eq!(
            seen["consentMissing"],
            language.text("sign-consent-missing")
        );
        let progress = |done: usize| {
            language.format(
                "sign-progress",
                &[("done", done.into()), ("total", to_fill.into())],
            )
        };
        assert_eq!(seen["progressBefore"], progress(0));
        assert_eq!(seen["progressAfter"], progress(to_fill));
        // Each field is named by its kind and page, in reading order, and Sign with nothing
        // filled names every empty one.
        let names: Vec<String> = kinds
            .iter()
            .map(|kind| {
                language.format(
                    "sign-field-name",
                    &[("kind", language.text(kind).into()), ("page", 1.into())],
                )
            })
            .collect();
        let shown_names: Vec<&str> = seen["fieldNames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(shown_names.len(), to_fill);
        for (shown, name) in shown_names.iter().zip(&names) {
            assert!(shown.starts_with(name.as_str()), "{shown} / {name}");
        }
        let errors: Vec<String> = names
            .iter()
            .map(|name| language.format("sign-error-empty", &[("field", name.as_str().into())]))
            .collect();
        assert_eq!(seen["emptyErrors"], json!(errors));
        let names = shown_names;
        // The guide: after consent the first field, after the last one Sign.
        assert_eq!(seen["focusAfterConsent"], names[0]);
        assert_eq!(seen[format!("focusAfter{}", to_fill - 1)], "sign");
        // The DATE field shows the date and cannot be tapped; the server sets it.
        let shown = seen["dateShown"][0].as_str().unwrap();
        assert!(
            chrono::NaiveDate::parse_from_str(shown, "%Y-%m-%d").is_ok(),
            "{shown}"
        );
        // Signed, the page shows the PDF alone with the state, in the signer's language.
        assert_eq!(seen["fieldsAfterSigning"], 0);
    }
    assert_eq!(
        ann["state"],
        Language::English.format("sign-state-waiting", &[("count", 2.into())])
    );
    assert_eq!(
        laila["state"],
        Language::Arabic.format("sign-state-waiting", &[("count", 1.into())])
    );
    let hebrew_state = dana["state"].as_str().unwrap();
    assert!(
        [
            Language::Hebrew.text("sign-state-all-signed"),
            Language::Hebrew.text("sign-state-completed")
        ]
        .contains(&hebrew_state.to_owned()),
        "{hebrew_state}"
    );
    assert_eq!(dana["typedPreview"]["text"], "דנה כהן");
    assert_eq!(ann["typedPreview"], Value::Null, "Ann drew");
    assert_eq!(laila["typedPreview"]["text"], "ليلى حداد");
    assert!(
        laila["typedPreview"]["font"]
            .as_str()
            .unwrap()
            .contains("Signet Text")
    );
    for shot in [
        "07-signing-page-phone-en",
        "07-signing-page-phone-en-signed",
        "08-signing-page-phone-ar",
        "08-signing-page-phone-ar-signed",
        "10-signing-page-phone-he",
        "10-signing-page-phone-he-signed",
    ] {
        assert!(shots.join(format!("{shot}.png")).exists(), "{shot}");
    }

    // What the page sent, as the database recorded it.
    let values: Vec<(String, String, Option<String>, String)> = sqlx::query_as(
        "SELECT r.email, f.type, f.value, to_char(r.signed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')
         FROM fields f JOIN recipients r ON r.id = f.recipient_id
         WHERE f.document_id = $1 ORDER BY r.email, f.type",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    let value = |email: &str, kind: &str| {
        values
            .iter()
            .find(|(e, k, _, _)| e == email && k == kind)
            .and_then(|(_, _, v, _)| v.clone())
            .unwrap_or_else(|| panic!("{email} {kind}: {values:?}"))
    };
    assert!(value(ANN, "SIGNATURE").starts_with("data:image/png;base64,"));
    assert_eq!(value(ANN, "INITIALS"), "AL");
    assert_eq!(value(ANN, "TEXT"), "Flat 2, 3rd floor");
    assert_eq!(value(LAILA, "SIGNATURE"), "ليلى حداد");
    assert_eq!(value(DANA, "SIGNATURE"), "דנה כהן");
    for (email, _, date, signed) in values.iter().filter(|(_, k, _, _)| k == "DATE") {
        assert_eq!(
            date.as_ref(),
            Some(signed),
            "{email}'s DATE is the signing date"
        );
    }
    // Each consent is kept with the words shown, in the page's language.
    let consents: Vec<(String, Option<String>)> = sqlx::query_as(
        "SELECT email, consent_text FROM recipients WHERE document_id = $1 ORDER BY email",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert_eq!(
        consents,
        [
            (
                ANN.to_owned(),
                Some(Language::English.text("sign-consent-text"))
            ),
            (
                DANA.to_owned(),
                Some(Language::Hebrew.text("sign-consent-text"))
            ),
            (
                LAILA.to_owned(),
                Some(Language::Arabic.text("sign-consent-text"))
            ),
        ]
    );
}

/// Issue #30 item 8: on a device with no CJK font (Chromium with a fontconfig that finds DejaVu
/// alone), the page's CJK text is drawn with the final PDF's CJK face, served as WOFF2 that the
/// browser's font sanitiser accepts: the language picker's "简体中文" (and "日本語", "한국어")
/// from the small page font, a Chinese title and a Korean name from the whole face.
#[tokio::test]
async fn cjk_text_is_drawn_with_the_shipped_font_where_the_device_has_none() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let pdf = std::fs::read(fixtures_dir().join("pdflatex-4-pages.pdf")).unwrap();
    let title = "房屋租赁合同";
    let name = "김민준";
    let doc = app.document_from(account, title, pdf).await;
    let people = json!([{"name": name, "email": ANN, "role": "SIGNER", "language": "en"}]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), &key, &people)
        .await;
    assert_eq!(status, 200, "{body}");
    let fields = json!([{"recipientEmail": ANN, "type": "SIGNATURE", "page": 1, "x": 72, "y": 560, "width": 200, "height": 50}]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/fields"), &key, &fields)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let links = invitations(&mailbox, 1).await;
    let shots = screenshots_dir();

    // A fontconfig that knows DejaVu alone, which has no CJK glyph.
    let dejavu = std::path::Path::new("/usr/share/fonts/truetype/dejavu");
    assert!(
        dejavu.is_dir(),
        "DejaVu (Debian's fonts-dejavu-core) is missing"
    );
    let fonts_conf = app.files.path().join("fonts.conf");
    std::fs::write(
        &fonts_conf,
        format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"urn:fontconfig:fonts.dtd\">\n\
             <fontconfig><dir>{}</dir><cachedir>{}</cachedir></fontconfig>\n",
            dejavu.display(),
            app.files.path().join("fontconfig-cache").display()
        ),
    )
    .unwrap();
    let findings = BrowserScript::new("cjk-font.mjs")
        .env("LINK", &links[ANN])
        .env("FONTCONFIG_FILE", &fonts_conf)
        .env("SHOTS", &shots)
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{}", findings["error"]);

    // The browser took every font it was given: no sanitiser ("OTS parsing error") or decoding
    // refusal, and no other error.
    let console: Vec<&str> = findings["console"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        !console
            .iter()
            .any(|m| m.contains("OTS") || m.contains("downloaded font") || m.starts_with("error")),
        "{console:#?}"
    );
    // The device draws "简体中文" with no CJK glyph (boxes), so what follows is the page's font.
    let widths = &findings["widths"];
    let (page_width, device_width) = (
        widths["page"].as_f64().unwrap(),
        widths["device"].as_f64().unwrap(),
    );
    let custom = |fonts: &Value| {
        fonts
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["isCustomFont"] == true)
            .map(|f| {
                (
                    f["postScriptName"].as_str().unwrap().to_owned(),
                    f["glyphCount"].as_u64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(custom(&findings["deviceFonts"]), [], "{findings}");
    assert!((device_width - 80.0).abs() > 4.0, "{widths}");
    // In the page's font each ideograph is one em wide, as the final PDF draws it.
    assert!((page_width - 80.0).abs() <= 0.5, "{widths}");

    let wqy = "WenQuanYiMicroHei".to_owned();
    assert_eq!(findings["pickerText"], "简体中文");
    assert_eq!(
        custom(&findings["pickerFonts"]),
        [(wqy.clone(), 4)],
        "{findings}"
    );
    // Japanese and Korean (issue #34) name themselves in the same face.
    for (tag, name) in [("ja", "日本語"), ("ko", "한국어")] {
        let picker = &findings["otherPickers"][tag];
        assert_eq!(picker["text"], name);
        assert_eq!(custom(&picker["fonts"]), [(wqy.clone(), 3)], "{findings}");
    }
    assert_eq!(findings["titleText"], title);
    assert_eq!(
        custom(&findings["titleFonts"]),
        [(wqy.clone(), 6)],
        "{findings}"
    );
    assert_eq!(findings["nameText"], name);
    assert_eq!(custom(&findings["nameFonts"]), [(wqy, 3)], "{findings}");

    // Both CJK faces loaded: the page's (for the picker) and the whole face (for the title and
    // the name, which have characters the page's words lack).
    let faces = findings["faces"].as_array().unwrap();
    let face = |code: &str| {
        faces
            .iter()
            .find(|f| {
                f["unicodeRange"]
                    .as_str()
                    .unwrap()
                    .to_uppercase()
                    .contains(code)
            })
            .unwrap_or_else(|| panic!("no face declared for {code}: {faces:?}"))
    };
    assert_eq!(face("U+7B80")["status"], "loaded", "{faces:?}");
    assert_eq!(face("U+AC00-D7AF")["status"], "loaded", "{faces:?}");
}

/// Issue #30 item 1: when the browser cannot draw the document's PDF (pdf.js refuses the stored
/// original, overwritten here with bytes that are no PDF), the placement page and the signing
/// page say so in plain words where the pages would be, in the signer's language, and offer
/// nothing that needs the pages: no field to tap, no consent leading to fields, no Save that
/// would remove the saved fields it cannot show.
#[tokio::test]
async fn pages_the_browser_cannot_draw_are_explained_in_place_of_fields() {
    const BEA: &str = "bea@signet.test";
    const PASSWORD: &str = "a long enough password";
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    signet_common::flows::sign_in::set_password(&app.db.pool, account.into(), PASSWORD)
        .await
        .unwrap();
    let email: String = sqlx::query_scalar("SELECT email FROM accounts WHERE id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    let pdf = std::fs::read(fixtures_dir().join("pdflatex-4-pages.pdf")).unwrap();
    let doc = app.document_from(account, "Lease", pdf).await;
    let people = json!([
        {"name": "Ann Lee", "email": ANN, "role": "SIGNER", "language": "en"},
        {"name": "Bea Roth", "email": BEA, "role": "SIGNER", "language": "de"},
    ]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), &key, &people)
        .await;
    assert_eq!(status, 200, "{body}");
    let field = |email: &str, y: u32| json!({"recipientEmail": email, "type": "SIGNATURE", "page": 1, "x": 72, "y": y, "width": 200, "height": 50});
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/fields"),
            &key,
            &json!([field(ANN, 560), field(BEA, 640)]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "Please sign.", "description": "", "expiryDate": "2099-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let links = invitations(&mailbox, 2).await;
    // Bea agreed earlier, so her page opens with the fields' toolbar rather than the consent.
    let consented = app
        .client
        .post(format!("{}/consent", links[BEA]))
        .json(&json!({"language": "de"}))
        .send()
        .await
        .unwrap();
    assert_eq!(consented.status(), 200);
    let file_key: String = sqlx::query_scalar("SELECT file_key FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    app.store()
        .put(
            &file_key,
            b"This is no PDF: pdf.js cannot draw it.".to_vec().into(),
        )
        .await
        .unwrap();

    let signers = json!([
        {"name": ANN, "link": links[ANN], "locale": "en-GB"},
        {"name": BEA, "link": links[BEA], "locale": "de-DE"},
    ]);
    let findings = BrowserScript::new("undrawable.mjs")
        .env("BASE", &app.base)
        .env("EMAIL", &email)
        .env("PASSWORD", PASSWORD)
        .env("PLACE", format!("{}/app/documents/{doc}/place", app.base))
        .env("SIGNERS", signers.to_string())
        .findings()
        .await;
    assert!(findings.get("error").is_none(), "{findings}");

    let placement = &findings["placement"];
    assert_eq!(
        placement["note"],
        json!({
            "text": "This document's pages cannot be shown here, so fields cannot be placed on them. Reload the page; if it stays empty, upload the PDF again.",
            "visible": true,
            "role": "alert",
        }),
        "{findings}"
    );
    assert_eq!(placement["pages"], 0, "{findings}");
    assert_eq!(placement["hint"], false, "no 'Click a page': {findings}");
    assert_eq!(placement["save"], false, "no Save: {findings}");

    for (seen, language) in [
        (&findings["signers"][0], Language::English),
        (&findings["signers"][1], Language::German),
    ] {
        assert_eq!(seen["lang"], language.tag(), "{seen}");
        assert_eq!(
            seen["note"],
            json!({"text": language.text("sign-pages-failed"), "visible": true, "role": "alert"}),
            "{seen}"
        );
        assert_eq!((&seen["pages"], &seen["fields"]), (&json!(0), &json!(0)));
        // Nothing that leads to a field that is not there; the download and declining stay.
        assert_eq!(seen["consent"], false, "{seen}");
        assert_eq!(seen["toolbar"], false, "{seen}");
        let text = seen["text"].as_str().unwrap();
        for id in ["sign-consent-agree", "sign-next-field", "sign-submit"] {
            assert!(!text.contains(&language.text(id)), "{id}: {text}");
        }
        assert_eq!(seen["download"], true, "{seen}");
        assert_eq!(seen["decline"], true, "{seen}");
    }
}
