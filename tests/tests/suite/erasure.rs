//! Erasure of a person's personal data on request (issue #37, GDPR Art. 17, docs/retention.md):
//! through the API, against documents a real worker delivered and a real signer acted on
//! (names in several scripts, a phone number, their own IP address and browser); afterwards no
//! table holds the person's name, address, number, IP address or user agent, every audit chain
//! still verifies, a real receiver got `document.personal_data_erased`, a second erasure
//! changes nothing, and bad requests are refused and change nothing. And (issue #48) it erases
//! that one person: values a signer chose never take anything out of anyone else's entries.

use std::time::Duration;

use serde_json::{Value, json};
use signet_tests::{LETTER, Mail, Mailbox, Receiver, TestApp, WorkerProcess, assert_error, read};
use uuid::Uuid;

use crate::{
    retention::verify,
    signing_flow::{link, wait_for_status},
    webhooks::account_with_webhook,
};

const ZOE_EMAIL: &str = "zoe.papadopoulou@erasure.test";
const ZOE_GREEK: &str = "Ζωή Παπαδοπούλου";
const ZOE_ARABIC: &str = "زوي بابادوبولو";
const ZOE_CHINESE: &str = "帕帕佐伊";
const ZOE_PHONE: &str = "+447911123456";
const ZOE_IP: &str = "198.51.100.77";
const ZOE_AGENT: &str = "ZoeBrowser/7.1 (erasure test)";
const BOB_EMAIL: &str = "bob@erasure.test";
const BOB_NAME: &str = "Бобр Бобров";

/// Every text a table holds that mentions one of these, as `table: row`.
async fn traces(app: &TestApp, needles: &[&str]) -> Vec<String> {
    let patterns: Vec<String> = needles.iter().map(|n| format!("%{n}%")).collect();
    let mut found = Vec::new();
    for table in [
        "recipients",
        "audit_entries",
        "outbound_emails",
        "outbound_sms",
        "sms_daily_counts",
        "events",
        "webhook_deliveries",
        "bulk_send_rows",
        "signer_attachments",
        "embedded_sessions",
    ] {
        let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT t::text FROM {table} t WHERE t::text ILIKE ANY($1)"
        )))
        .bind(&patterns)
        .fetch_all(&app.db.pool)
        .await
        .unwrap();
        found.extend(rows.into_iter().map(|row| format!("{table}: {row}")));
    }
    found
}

async fn add_and_send(app: &TestApp, key: &str, doc: Uuid, people: Value) {
    let fields: Vec<Value> = people
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| json!({"recipientEmail": p["email"], "type": "SIGNATURE", "page": 1, "x": 72, "y": 80 + 60 * i}))
        .collect();
    for (path, body) in [
        (format!("/documents/{doc}/recipients"), people),
        (format!("/documents/{doc}/fields"), json!(fields)),
        (
            format!("/documents/{doc}/send"),
            json!({"message": "Please sign", "description": "d", "expiryDate": "2099-01-01T00:00:00Z"}),
        ),
    ] {
        let (status, answer) = app.post(&path, key, &body).await;
        assert_eq!(status, 200, "{path}: {answer}");
    }
}

/// The newest invitation link to `to` that is not one of `seen`.
async fn new_link(mailbox: &Mailbox, to: &str, seen: &mut Vec<String>) -> String {
    let count = seen.len() + 1;
    let mails: Vec<Mail> = mailbox
        .wait_for(count, Duration::from_secs(120), |m| {
            m.to == to && m.text.contains("/sign/")
        })
        .await;
    let fresh = mails
        .iter()
        .map(link)
        .find(|l| !seen.contains(l))
        .expect("a new invitation");
    seen.push(fresh.clone());
    fresh
}

/// Zoe acts on her link from her own address and browser (through the trusted proxy).
async fn as_zoe(app: &TestApp, url: String, body: Value) -> (u16, Value) {
    read(
        app.client
            .post(url)
            .header("user-agent", ZOE_AGENT)
            .header("x-forwarded-for", ZOE_IP)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

async fn zoe_opens(app: &TestApp, link: &str) -> Value {
    let (status, body) = read(
        app.client
            .get(format!("{link}/session"))
            .header("user-agent", ZOE_AGENT)
            .header("x-forwarded-for", ZOE_IP)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

async fn audit_count(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM audit_entries")
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn erasure_replaces_a_person_everywhere_and_the_trail_still_verifies() {
    let app = TestApp::spawn_with(&[("TRUSTED_PROXIES", "127.0.0.1")]).await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);
    let mut zoe_links = Vec::new();
    let mut bob_links = Vec::new();

    // A: Zoe (Greek name, a phone number) and Bob sign: COMPLETED.
    let signed = app.document(account, "Lease", &[LETTER]).await;
    add_and_send(
        &app,
        &key,
        signed,
        json!([
            {"name": ZOE_GREEK, "email": ZOE_EMAIL, "role": "SIGNER", "countryCode": "+44", "phoneNumber": "7911 123456"},
            {"name": BOB_NAME, "email": BOB_EMAIL, "role": "SIGNER"},
        ]),
    )
    .await;
    let zoe = new_link(&mailbox, ZOE_EMAIL, &mut zoe_links).await;
    let opened = zoe_opens(&app, &zoe).await;
    assert_eq!(
        as_zoe(&app, format!("{zoe}/consent"), json!({"language": "en"}))
            .await
            .0,
        200
    );
    let fields: Vec<Value> = opened["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| json!({"id": f["id"], "value": "Signed"}))
        .collect();
    let (status, body) = as_zoe(&app, format!("{zoe}/submit"), json!({"fields": fields})).await;
    assert_eq!(status, 200, "{body}");
    let bob = new_link(&mailbox, BOB_EMAIL, &mut bob_links).await;
    assert_eq!(
        crate::signing_flow::sign(&app, &bob, &["Signed"]).await.0,
        200
    );
    wait_for_status(&app, &key, signed, "COMPLETED").await;

    // B: Zoe, her name in Arabic, declines with a reason that names her: DECLINED.
    let declined = app.document(account, "Offer", &[LETTER]).await;
    add_and_send(
        &app,
        &key,
        declined,
        json!([{"name": ZOE_ARABIC, "email": ZOE_EMAIL, "role": "SIGNER"}]),
    )
    .await;
    let zoe = new_link(&mailbox, ZOE_EMAIL, &mut zoe_links).await;
    zoe_opens(&app, &zoe).await;
    let (status, body) = as_zoe(
        &app,
        format!("{zoe}/decline"),
        json!({"reason": format!("{ZOE_ARABIC} does not accept")}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // C: Zoe, her name in Chinese, on a document out for signing.
    let open = app.document(account, "Annex", &[LETTER]).await;
    add_and_send(
        &app,
        &key,
        open,
        json!([{"name": ZOE_CHINESE, "email": ZOE_EMAIL, "role": "SIGNER"}]),
    )
    .await;
    let zoe_needles = [
        ZOE_EMAIL,
        ZOE_GREEK,
        ZOE_ARABIC,
        ZOE_CHINESE,
        ZOE_PHONE,
        "7911 123456",
        ZOE_IP,
        ZOE_AGENT,
    ];
    assert!(!traces(&app, &zoe_needles).await.is_empty());

    // Refused, and nothing changes: bad bodies, an unknown recipient, a document out for
    // signing.
    let before = (
        audit_count(&app).await,
        traces(&app, &zoe_needles).await.len(),
    );
    for (body, field) in [
        (json!({}), ""),
        (
            json!({"email": ZOE_EMAIL, "recipientId": Uuid::now_v7()}),
            "",
        ),
        (json!({"email": "not an address"}), "email"),
        (json!({"recipientId": "not-a-uuid"}), "recipientId"),
        (json!({"email": 42}), "email"),
    ] {
        let answer = app.post("/erasures", &key, &body).await;
        assert_error(
            &answer,
            400,
            "ERROR",
            "Invalid request body or validation error",
        );
        assert_eq!(
            answer.1["errors"][0]["field"], field,
            "{body}: {}",
            answer.1
        );
    }
    assert_error(
        &app.post("/erasures", &key, &json!({"recipientId": Uuid::now_v7()}))
            .await,
        404,
        "ERROR",
        "Recipient not found",
    );
    assert_error(
        &app.post("/erasures", &key, &json!({"email": ZOE_EMAIL}))
            .await,
        409,
        "ERROR",
        &format!(
            "The person is a recipient of document {open}, which is out for signing: cancel it or let it end before erasing their data"
        ),
    );
    // Another account cannot reach Zoe's rows.
    let (_, stranger) = app.account(100).await;
    let (status, body) = app
        .post("/erasures", &stranger, &json!({"email": ZOE_EMAIL}))
        .await;
    assert_eq!((status, &body["data"]["recipientIds"]), (200, &json!([])));
    assert_eq!(
        (
            audit_count(&app).await,
            traces(&app, &zoe_needles).await.len()
        ),
        before
    );

    // Once C is cancelled, an erasure by address (in another case) takes Zoe out of all three.
    assert_eq!(
        app.post(&format!("/documents/{open}/cancel"), &key, &json!({}))
            .await
            .0,
        200
    );
    let (status, body) = app
        .post(
            "/erasures",
            &key,
            &json!({"email": "Zoe.Papadopoulou@ERASURE.test"}),
        )
        .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (200, Some("Personal data erased successfully")),
        "{body}"
    );
    assert_eq!(body["data"]["recipientIds"].as_array().unwrap().len(), 3);
    let mut documents: Vec<String> = body["data"]["documentIds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap().to_owned())
        .collect();
    documents.sort();
    let mut expected = vec![signed.to_string(), declined.to_string(), open.to_string()];
    expected.sort();
    assert_eq!(documents, expected);

    let left = traces(&app, &zoe_needles).await;
    assert!(left.is_empty(), "Zoe is still there: {left:#?}");
    assert!(
        !traces(&app, &[BOB_NAME, BOB_EMAIL]).await.is_empty(),
        "Bob's data is not his to lose"
    );
    for doc in [signed, declined, open] {
        let verification = verify(&app, doc);
        assert_eq!(verification["ok"], true, "{doc}: {verification}");
        assert!(
            verification["erased"].as_u64().unwrap() > 0,
            "{verification}"
        );
        let trail = app.get(&format!("/documents/{doc}/audit"), &key).await.1;
        let last = &trail["data"].as_array().unwrap().last().unwrap()["message"];
        assert!(
            last.as_str()
                .unwrap()
                .contains("erased on request (GDPR Art. 17)"),
            "{last}"
        );
    }
    let detail = app.get(&format!("/documents/{signed}"), &key).await.1["data"].clone();
    let erased = &detail["recipients"][0];
    assert_eq!(erased["name"], "[erased]");
    assert!(
        erased["email"]
            .as_str()
            .unwrap()
            .ends_with("@erased.invalid"),
        "{erased}"
    );
    assert_eq!(detail["recipients"][1]["name"], BOB_NAME);

    // The receiver is told, once per document, with nothing of Zoe in the body.
    let told = receiver
        .wait_for(3, Duration::from_secs(60), |r| {
            r.event_type() == "document.personal_data_erased"
        })
        .await;
    assert_eq!(told.len(), 3);
    for request in &told {
        for needle in zoe_needles {
            assert!(!request.body.contains(needle), "{}", request.body);
        }
    }

    // Again, by address or by recipient: nothing left to erase, nothing changes.
    let after = audit_count(&app).await;
    let (status, body) = app
        .post("/erasures", &key, &json!({"email": ZOE_EMAIL}))
        .await;
    assert_eq!(
        (
            status,
            &body["data"]["recipientIds"],
            &body["data"]["documentIds"]
        ),
        (200, &json!([]), &json!([]))
    );
    let (status, body) = app
        .post("/erasures", &key, &json!({"recipientId": erased["id"]}))
        .await;
    assert_eq!((status, &body["data"]["recipientIds"]), (200, &json!([])));
    assert_eq!(audit_count(&app).await, after);
}

const ANN_EMAIL: &str = "ann.decliner@erasure.test";
const ANN_NAME: &str = "Ann Decliner";
const BEA_EMAIL: &str = "bea.signer@erasure.test";
const BEA_NAME: &str = "Bea Signer";

/// Ann acts on her link with a user agent of her choosing, from the same address as Bea.
async fn as_ann(request: reqwest::RequestBuilder, agent: &str) {
    let (status, body) = read(request.header("user-agent", agent).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
}

/// The account's event feed, by event id.
async fn feed_by_id(app: &TestApp, key: &str) -> std::collections::HashMap<String, Value> {
    let (status, body) = app.get("/events?limit=100", key).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["hasMore"], false, "{body}");
    body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap().to_owned(),
                item["payload"].clone(),
            )
        })
        .collect()
}

/// The stored webhook deliveries' bodies of `documents`, by delivery id.
async fn deliveries_by_id(app: &TestApp, documents: &[Uuid]) -> Vec<(Uuid, Value)> {
    let rows: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, payload FROM webhook_deliveries WHERE document_id = ANY($1) ORDER BY id",
    )
    .bind(documents)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(id, payload)| (id, serde_json::from_str(&payload).unwrap()))
        .collect()
}

/// A stored body as the erasure of Ann must leave it: her recipient object's name and address
/// tombstoned, and not one other character changed.
fn without_ann(body: &Value, ann: &[String]) -> Value {
    let mut body = body.clone();
    if let Some(recipients) = body["data"]["recipients"].as_array_mut() {
        for recipient in recipients
            .iter_mut()
            .filter(|r| ann.iter().any(|id| r["id"] == id.as_str()))
        {
            recipient["name"] = json!("[erased]");
            recipient["email"] = json!("[erased]");
        }
    }
    body
}

/// Issue #48 (attack 4): the erasure of one person takes nothing of anyone else. Bea signs; Ann
/// declines from the same address as Bea, once with Bea's address as her user agent and a
/// reason naming Bea, once with the user agent `by` and the reason `signed`. Erasing Ann leaves
/// every entry that is not Ann's exactly as it was (Bea's signature with her address, her IP
/// address and browser; "signed" and "by" everywhere) but for Ann's address in the list of
/// recipients, in the API's audit trail, the event feed and the stored webhook bodies; Ann's
/// entries lose her address, what she chose, her IP address and user agent; the chains verify.
#[tokio::test]
async fn erasing_one_person_leaves_everyone_elses_entries_as_they_were() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (account, key, _) = account_with_webhook(&app, &receiver.url()).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);
    let mut ann_links = Vec::new();
    let mut bea_links = Vec::new();
    let chosen = [
        (BEA_EMAIL.to_owned(), format!("{BEA_NAME} signed, not me")),
        ("by".to_owned(), "signed".to_owned()),
    ];
    let mut documents = Vec::new();
    for (agent, reason) in &chosen {
        let doc = app
            .document(account, "Signed by both parties", &[LETTER])
            .await;
        add_and_send(
            &app,
            &key,
            doc,
            json!([
                {"name": ANN_NAME, "email": ANN_EMAIL, "role": "SIGNER"},
                {"name": BEA_NAME, "email": BEA_EMAIL, "role": "SIGNER"},
            ]),
        )
        .await;
        let bea = new_link(&mailbox, BEA_EMAIL, &mut bea_links).await;
        assert_eq!(
            crate::signing_flow::sign(&app, &bea, &["Signed"]).await.0,
            200
        );
        let ann = new_link(&mailbox, ANN_EMAIL, &mut ann_links).await;
        as_ann(app.client.get(format!("{ann}/session")), agent).await;
        as_ann(
            app.client
                .post(format!("{ann}/decline"))
                .json(&json!({"reason": reason})),
            agent,
        )
        .await;
        wait_for_status(&app, &key, doc, "DECLINED").await;
        documents.push(doc);
    }

    let mut ann_ids: Vec<String> = Vec::new();
    let mut trails = Vec::new();
    for doc in &documents {
        let detail = app.get(&format!("/documents/{doc}"), &key).await.1;
        let ann = detail["data"]["recipients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["email"] == ANN_EMAIL)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        ann_ids.push(ann);
        trails.push(app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone());
    }
    let ann_uuids: Vec<Uuid> = ann_ids.iter().map(|id| id.parse().unwrap()).collect();
    let ann_entries: Vec<String> =
        sqlx::query_scalar::<_, Uuid>("SELECT id FROM audit_entries WHERE recipient_id = ANY($1)")
            .bind(&ann_uuids)
            .fetch_all(&app.db.pool)
            .await
            .unwrap()
            .iter()
            .map(Uuid::to_string)
            .collect();
    let feed = feed_by_id(&app, &key).await;
    let stored = deliveries_by_id(&app, &documents).await;
    assert!(!stored.is_empty(), "the account has a webhook URL");

    let (status, body) = app
        .post("/erasures", &key, &json!({"email": ANN_EMAIL}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["recipientIds"].as_array().unwrap().len(), 2);

    // The audit trail through the API: every entry that is not Ann's is as it was, but for her
    // address where the entry lists it among others'.
    for (doc, before) in documents.iter().zip(&trails) {
        let after = app.get(&format!("/documents/{doc}/audit"), &key).await.1["data"].clone();
        let before = before.as_array().unwrap();
        let after = after.as_array().unwrap();
        assert_eq!(after.len(), before.len() + 1, "{after:#?}");
        let mut bea_signed = false;
        for (was, is) in before.iter().zip(after) {
            assert_eq!(was["id"], is["id"]);
            let message = is["message"].as_str().unwrap();
            if ann_entries.iter().any(|id| was["id"] == id.as_str()) {
                for gone in [ANN_EMAIL, ANN_NAME, "signed, not me"] {
                    assert!(!message.contains(gone), "{is}");
                }
                assert_eq!(
                    (&is["ipAddress"], &is["userAgent"]),
                    (&json!("[erased]"), &json!("[erased]")),
                    "Ann opened and declined on her link: {is}"
                );
                match was["event"].as_str().unwrap() {
                    "VIEWED" => assert_eq!(message, "Document viewed by [erased]"),
                    "DECLINED" => assert_eq!(message, "Document declined by [erased]: [erased]"),
                    other => panic!(
                        "an entry of Ann's that is neither her view nor her decline: {other}"
                    ),
                }
                continue;
            }
            let mut expected = was.clone();
            expected["message"] = json!(
                was["message"]
                    .as_str()
                    .unwrap()
                    .replace(ANN_EMAIL, "[erased]")
            );
            assert_eq!(is, &expected, "an entry that is not Ann's changed");
            if was["event"] == "SIGNED" {
                bea_signed = true;
                assert!(
                    message.starts_with(&format!("Document signed by {BEA_EMAIL}, who agreed"))
                        && message.ends_with(" from 127.0.0.1 (signet-e2e/1.0)"),
                    "{message}"
                );
            }
            if message.starts_with("Recipients added") {
                assert_eq!(message, format!("Recipients added: [erased], {BEA_EMAIL}"));
            }
        }
        assert!(bea_signed, "Bea's signature is in the trail");
        let verification = verify(&app, *doc);
        assert_eq!(verification["ok"], true, "{doc}: {verification}");
    }

    // The event feed and the stored webhook bodies: Ann's recipient object loses her name and
    // address, and nothing else changes.
    let feed_after = feed_by_id(&app, &key).await;
    for (id, was) in &feed {
        let is = &feed_after[id];
        assert_eq!(is, &without_ann(was, &ann_ids), "event {id}");
        let bea = is["data"]["recipients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["email"] == BEA_EMAIL)
            .unwrap_or_else(|| panic!("Bea is in event {id}: {is}"));
        assert_eq!(bea["name"], BEA_NAME);
        assert_eq!(is["data"]["title"], "Signed by both parties");
    }
    let stored_after = deliveries_by_id(&app, &documents).await;
    for (id, was) in &stored {
        let (_, is) = stored_after.iter().find(|(i, _)| i == id).unwrap();
        assert_eq!(is, &without_ann(was, &ann_ids), "delivery {id}");
    }

    let left = traces(&app, &[ANN_EMAIL, ANN_NAME, "signed, not me"]).await;
    assert!(left.is_empty(), "Ann is still there: {left:#?}");
}
