//! Text drawn from user input (docs/security.md): a title, a name or a typed value holding a
//! right-to-left override is kept as stored, drawn on the legal record (the final PDF read back
//! with pdftotext) with its controls as visible escapes in stored order, isolated in e-mails,
//! and refused in e-mail addresses. Real binaries, real SMTP server, real PostgreSQL.

use std::time::Duration;

use serde_json::json;
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess, assert_error};

use crate::real_names::final_pdf;
use crate::signing_flow::{invitations, pdftotext, sign, wait_for_status};

/// Read with its override acting: "Lease exe.pdf".
const TITLE: &str = "Lease \u{202E}fdp.exe";
/// Read with its override acting: "Mallory >ceo@bank.com<".
const NAME: &str = "Mallory \u{202E}<moc.knab@oec>";
/// Read with its override acting: "$10000.00".
const AMOUNT: &str = "$\u{202E}00.00001\u{202C}";

#[tokio::test]
async fn overrides_in_a_title_a_name_and_a_value_are_shown_as_stored_on_the_final_pdf() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let doc = app.document(account, TITLE, &[LETTER]).await;
    let recipients = json!([{"name": NAME, "email": "mallory@signet.test", "role": "SIGNER"}]);
    let (status, body) = app
        .post(&format!("/documents/{doc}/recipients"), &key, &recipients)
        .await;
    assert_eq!(status, 200, "{body}");
    let fields = json!([
        {"recipientEmail": "mallory@signet.test", "type": "SIGNATURE", "page": 1, "x": 40, "y": 40, "width": 260, "height": 28},
        {"recipientEmail": "mallory@signet.test", "type": "TEXT", "page": 1, "x": 320, "y": 40, "width": 240, "height": 28},
    ]);
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

    // Stored as given.
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1["data"].clone();
    assert_eq!(detail["title"], TITLE);
    assert_eq!(detail["recipients"][0]["name"], NAME);

    // The invitation isolates the title and the name in its subject and text part, and puts
    // them in a <bdi> in its HTML part.
    let links = invitations(&mailbox, 1).await;
    let invitation = mailbox.messages().remove(0);
    let isolated_title = format!("\u{2068}{TITLE}\u{2069}");
    assert!(
        invitation.subject.contains(&isolated_title),
        "{:?}",
        invitation.subject
    );
    assert!(
        invitation
            .text
            .contains(&format!("Owner has sent you \"{isolated_title}\" to sign.")),
        "{:?}",
        invitation.text
    );
    assert!(
        invitation
            .text
            .starts_with(&format!("Hello \u{2068}{NAME}\u{2069},")),
        "{:?}",
        invitation.text
    );
    assert!(
        invitation.html.contains(&format!("<bdi>{}</bdi>", TITLE))
            && invitation
                .html
                .contains("<bdi>Mallory \u{202E}&lt;moc.knab@oec&gt;</bdi>"),
        "{:?}",
        invitation.html
    );

    let (status, body) = sign(&app, &links["mallory@signet.test"], &[NAME, AMOUNT]).await;
    assert_eq!(status, 200, "{body}");
    let detail = wait_for_status(&app, &key, doc, "COMPLETED").await;
    let text = pdftotext(&final_pdf(&app, &detail).await);
    let (stamped, certificate) = text.split_once('\u{c}').expect("a certificate page");
    // The typed value and the typed signature, stamped as stored, in stored order.
    for expected in [
        "$<U+202E>00.00001<U+202C>",
        "Mallory <U+202E><moc.knab@oec>",
    ] {
        assert!(stamped.contains(expected), "no {expected:?} in:\n{stamped}");
    }
    for expected in [
        "Title: Lease <U+202E>fdp.exe",
        "1. Mallory <U+202E><moc.knab@oec>",
    ] {
        assert!(
            certificate.contains(expected),
            "no {expected:?} in:\n{certificate}"
        );
    }
    // Never the reading the overrides were put there for.
    for spoofed in ["$10000.00", "exe.pdf", "ceo@bank.com"] {
        assert!(!text.contains(spoofed), "{spoofed:?} in:\n{text}");
    }

    // The completion notice isolates the title too.
    let done = mailbox
        .wait_for(1, Duration::from_secs(120), |m| !m.text.contains("/sign/"))
        .await;
    assert_eq!(done[0].subject, format!("\"{isolated_title}\" is complete"));
}

#[tokio::test]
async fn an_address_with_a_bidi_control_or_an_invisible_character_is_refused_by_name() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Addresses", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");
    for bad in [
        "moc.knab\u{202E}@signet.test",
        "ann\u{200B}@signet.test",
        "\u{2066}ann@signet.test\u{2069}",
        "ann@signet.test\u{FEFF}",
    ] {
        let body = json!([
            {"name": "Ann", "email": "ann@signet.test", "role": "SIGNER"},
            // A name keeps its controls: it is isolated wherever it is drawn.
            {"name": "Bob \u{202E}x", "email": bad, "role": "SIGNER"},
        ]);
        let answer = app.post(&path, &key, &body).await;
        assert_error(&answer, 400, "ERROR", crate::errors::INVALID);
        assert_eq!(
            answer.1["errors"],
            json!([{
                "field": "[1].email",
                "reason": "must not contain invisible or direction-changing characters (such as U+202E or U+200B)"
            }]),
            "{bad:?}"
        );
    }
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["recipients"], json!([]));
}
