//! A permanently failed invitation is visible: in the detail, on the console's document page
//! (which can send it again to a corrected address), as a signed webhook and in the audit trail.

use std::{path::Path, time::Duration};

use serde_json::Value;
use signet_tests::{TestApp, WorkerProcess, eventually, wait_for_listener};
use uuid::Uuid;

use crate::{
    console::Browser,
    signing_flow::send_document,
    webhooks::{account_with_webhook, verify},
};

/// An SMTP server (aiosmtpd) that answers `550` to any recipient whose address starts with
/// "bounce" and delivers the rest into a Maildir.
const BOUNCING_SMTP: &str = r#"
import sys, time
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox

class Bouncing(Mailbox):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("bounce"):
            return "550 5.1.1 <%s>: mailbox unavailable" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"

controller = Controller(Bouncing(sys.argv[2]), hostname="127.0.0.1", port=int(sys.argv[1]))
controller.start()
while True:
    time.sleep(3600)
"#;

pub(crate) struct BouncingSmtp {
    port: u16,
    dir: tempfile::TempDir,
    child: std::process::Child,
}

impl BouncingSmtp {
    pub(crate) async fn start() -> Self {
        let port = signet_tests::free_port();
        let dir = tempfile::tempdir().unwrap();
        let child = std::process::Command::new("python3")
            .args(["-c", BOUNCING_SMTP, &port.to_string()])
            .arg(dir.path().join("maildir"))
            .spawn()
            .expect("start aiosmtpd");
        let server = Self { port, dir, child };
        wait_for_listener("the bouncing SMTP server to start", port).await;
        server
    }

    pub(crate) fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// The addresses the server accepted mail for.
    fn delivered_to(&self) -> Vec<String> {
        let new = self.dir.path().join("maildir").join("new");
        std::fs::read_dir(Path::new(&new))
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|entry| {
                        let raw = std::fs::read(entry.path()).ok()?;
                        let parsed = mail_parser::MessageParser::default().parse(&raw)?;
                        Some(parsed.to()?.first()?.address()?.to_owned())
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl Drop for BouncingSmtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) async fn recipient_where(
    app: &TestApp,
    key: &str,
    doc: Uuid,
    email: &str,
    status: &str,
) -> Value {
    eventually(
        format!("{email}'s invitation to become {status}"),
        Duration::from_secs(30),
        || async {
            let detail = app.get(&format!("/documents/{doc}"), key).await.1;
            let recipient = detail["data"]["recipients"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["email"] == email)
                .cloned()
                .unwrap();
            (recipient["deliveryStatus"] == status).then_some(recipient)
        },
    )
    .await
}

#[tokio::test]
async fn a_bounced_invitation_is_shown_announced_audited_and_can_be_sent_again() {
    let app = TestApp::spawn().await;
    let receiver = signet_tests::Receiver::start().await;
    let smtp = BouncingSmtp::start().await;
    let (account, key, secret) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &smtp.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);
    let doc = send_document(
        &app,
        account,
        &key,
        &[
            ("ann@signet.test", "SIGNER"),
            ("bounce@signet.test", "SIGNER"),
        ],
        &[
            ("ann@signet.test", "SIGNATURE"),
            ("bounce@signet.test", "SIGNATURE"),
        ],
        "2099-01-01T00:00:00Z",
    )
    .await;

    // The detail: one invitation sent, the other failed for good with the server's answer.
    let ann = recipient_where(&app, &key, doc, "ann@signet.test", "SENT").await;
    assert_eq!(ann["deliveryError"], Value::Null);
    let bounced = recipient_where(&app, &key, doc, "bounce@signet.test", "FAILED").await;
    let reason = bounced["deliveryError"].as_str().unwrap().to_owned();
    assert!(reason.contains("550"), "{reason}");
    let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
    assert_eq!(detail["data"]["status"], "SENT");

    // The webhook, signed, says who and why.
    let events = receiver
        .wait_for(1, Duration::from_secs(30), |r| {
            r.event_type() == "recipient.delivery_failed"
        })
        .await;
    assert_eq!(events.len(), 1);
    assert!(verify(&secret, &events[0]), "a valid signature");
    let body: Value = serde_json::from_str(&events[0].body).unwrap();
    assert_eq!(body["delivery"]["email"], "bounce@signet.test");
    assert_eq!(body["delivery"]["emailKind"], "INVITATION");
    assert_eq!(body["delivery"]["recipientId"], bounced["id"]);
    assert!(body["delivery"]["reason"].as_str().unwrap().contains("550"));
    assert_eq!(body["data"]["id"], doc.to_string());

    // The audit trail records it as UPDATED.
    let trail = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
    let failure = trail
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["message"]
                .as_str()
                .unwrap()
                .starts_with("The invitation e-mail to bounce@signet.test could not be delivered: ")
        })
        .unwrap_or_else(|| panic!("no failure in {trail:#}"));
    assert_eq!(failure["event"], "UPDATED");

    // A reminder now goes to Ann alone: one to the bounced address would bounce again.
    let (status, reminded) = app
        .post(
            &format!("/documents/{doc}/remind"),
            &key,
            &serde_json::json!({}),
        )
        .await;
    assert_eq!(status, 200, "{reminded}");
    assert_eq!(
        reminded["data"]["reminded"],
        serde_json::json!(["ann@signet.test"])
    );

    // The console shows it, and sends it again to the corrected address.
    let mut browser = Browser::signed_in_as(&app, account).await;
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    assert!(
        page.body.contains("The invitation could not be delivered") && page.body.contains("550"),
        "{}",
        page.body
    );
    let action = format!(
        "/app/documents/{doc}/recipients/{}/resend",
        bounced["id"].as_str().unwrap()
    );
    assert!(page.body.contains(&action));

    // A bad correction is refused on the page and changes nothing.
    let refused = browser
        .post(
            &action,
            &[("csrf", &page.csrf()), ("email", "josé@bücher.example")],
        )
        .await;
    assert_eq!(refused.status, 400);
    assert!(
        refused.body.contains("internationalised"),
        "{}",
        refused.body
    );

    let sent = browser
        .post(
            &action,
            &[("csrf", &page.csrf()), ("email", "bob@signet.test")],
        )
        .await;
    assert_eq!(sent.status, 303, "{}", sent.body);
    let bob = recipient_where(&app, &key, doc, "bob@signet.test", "SENT").await;
    assert_eq!(bob["id"], bounced["id"]);
    assert!(smtp.delivered_to().contains(&"bob@signet.test".to_owned()));
    let trail = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
    assert!(
        trail.as_array().unwrap().iter().any(|e| e["message"]
            == "Recipient address corrected from bounce@signet.test to bob@signet.test; invitation sent again"),
        "{trail:#}"
    );

    // Sent again to a working address, Bob is reminded like anyone else (Ann, reminded a
    // moment ago, waits for REMINDER_MIN_INTERVAL_HOURS).
    let (_, reminded) = app
        .post(
            &format!("/documents/{doc}/remind"),
            &key,
            &serde_json::json!({}),
        )
        .await;
    assert_eq!(
        reminded["data"]["reminded"],
        serde_json::json!(["bob@signet.test"])
    );
    assert_eq!(reminded["data"]["skipped"][0]["email"], "ann@signet.test");

    // Only a failed invitation can be sent again.
    let page = browser.get(&format!("/app/documents/{doc}")).await;
    let again = browser
        .post(&action, &[("csrf", &page.csrf()), ("email", "")])
        .await;
    assert_eq!(again.status, 400);
}
