//! Templates (issue #32, first slice): made from a DRAFT, instantiated and sent through the
//! real router, a real worker binary and a real SMTP server.

use serde_json::{Value, json};
use signet_tests::{LETTER, Mailbox, TestApp, WorkerProcess};
use uuid::Uuid;

use crate::{
    idempotency::post_with_key,
    sender_workflow::{WAIT, draft},
};

async fn documents_of(app: &TestApp, account: Uuid) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM documents WHERE account_id = $1")
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

fn people(tenant: &str, landlord: &str) -> Value {
    json!({
        "Tenant": {"name": format!("Tenant {tenant}"), "email": tenant},
        "Landlord": {"name": format!("Landlord {landlord}"), "email": landlord},
    })
}

#[tokio::test]
async fn a_template_made_from_a_draft_makes_and_sends_documents() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let source = draft(
        &app,
        account,
        &key,
        &[
            ("ann@example.com", "SIGNER", Some(1)),
            ("bob@example.com", "SIGNER", Some(1)),
        ],
    )
    .await;
    let (_, before) = app.get(&format!("/documents/{source}"), &key).await;

    let body = json!({"documentId": source, "title": "Lease",
        "roles": {"ann@example.com": "Tenant", "bob@example.com": "Landlord"}});
    let (status, made) = app.post("/templates", &key, &body).await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap().to_owned();

    let (status, detail) = app.get(&format!("/templates/{template}"), &key).await;
    assert_eq!(status, 200, "{detail}");
    let roles = &detail["data"]["roles"];
    assert_eq!(roles[0]["name"], "Tenant");
    assert_eq!(roles[0]["fields"][0]["label"], "Tenant.signature.1");
    assert_eq!(roles[1]["name"], "Landlord");
    assert_eq!(roles[1]["fields"][0]["label"], "Landlord.signature.1");
    let (_, list) = app.get("/templates", &key).await;
    assert_eq!(list["data"]["total"], 1, "{list}");

    let mut made_documents = Vec::new();
    for n in 1..=3 {
        let (tenant, landlord) = (format!("t{n}@example.com"), format!("l{n}@example.com"));
        let body = json!({"roles": people(&tenant, &landlord), "send": true,
            "message": "Please sign.", "expiryDate": "2099-01-01T00:00:00Z"});
        let (status, answer) = app
            .post(&format!("/templates/{template}/documents"), &key, &body)
            .await;
        assert_eq!(status, 200, "{answer}");
        let doc = answer["data"]["id"].as_str().unwrap().to_owned();
        let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
        assert_eq!(detail["data"]["status"], "SENT", "{detail}");
        assert_eq!(detail["data"]["title"], "Lease");
        let emails: Vec<&str> = detail["data"]["recipients"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["email"].as_str().unwrap())
            .collect();
        assert_eq!(emails, [tenant.as_str(), landlord.as_str()]);
        made_documents.push((doc, tenant, landlord));
    }
    for (doc, tenant, landlord) in &made_documents {
        for to in [tenant, landlord] {
            let mails = mailbox
                .wait_for(1, WAIT, |m| &m.to == to && m.subject.contains("sent you"))
                .await;
            assert_eq!(mails.len(), 1, "one invitation to {to} for {doc}");
        }
        let (_, trail) = app.get(&format!("/documents/{doc}/audit"), &key).await;
        let events: Vec<&str> = trail["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(events.first(), Some(&"CREATED"), "{trail}");
        assert!(events.contains(&"SENT"), "{trail}");
    }
    let (_, after) = app.get(&format!("/documents/{source}"), &key).await;
    assert_eq!(before["data"]["status"], after["data"]["status"]);
    assert_eq!(before["data"]["recipients"], after["data"]["recipients"]);

    // A retry with the same Idempotency-Key gets the first answer and makes nothing more.
    let count = documents_of(&app, account).await;
    let body = json!({"roles": people("t4@example.com", "l4@example.com")}).to_string();
    let path = format!("/templates/{template}/documents");
    let (status, replayed, first) = post_with_key(&app, &path, &key, "make-4", &body).await;
    assert_eq!((status, replayed), (200, None), "{first}");
    let (status, replayed, again) = post_with_key(&app, &path, &key, "make-4", &body).await;
    assert_eq!((status, replayed.as_deref()), (200, Some("true")));
    assert_eq!(first, again);
    assert_eq!(documents_of(&app, account).await, count + 1);
    let (_, draft_made) = app
        .get(
            &format!("/documents/{}", first["data"]["id"].as_str().unwrap()),
            &key,
        )
        .await;
    assert_eq!(
        draft_made["data"]["status"], "DRAFT",
        "without send: a DRAFT"
    );

    // A role left unmapped, or one the template does not have: 400 naming it, nothing made.
    let count = documents_of(&app, account).await;
    let body = json!({"roles": {"Tenant": {"name": "T", "email": "t9@example.com"},
        "Agent": {"name": "A", "email": "a9@example.com"}}});
    let (status, answer) = app
        .post(&format!("/templates/{template}/documents"), &key, &body)
        .await;
    assert_eq!(status, 400, "{answer}");
    let fields: Vec<&str> = answer["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert!(fields.contains(&"roles.Landlord"), "{answer}");
    assert!(fields.contains(&"roles.Agent"), "{answer}");
    assert_eq!(documents_of(&app, account).await, count);

    // Another account neither sees nor uses it.
    let (_, other_key) = app.account(1000).await;
    let (status, _) = app.get(&format!("/templates/{template}"), &other_key).await;
    assert_eq!(status, 404);
    let body = json!({"roles": people("x@example.com", "y@example.com")});
    let (status, answer) = app
        .post(
            &format!("/templates/{template}/documents"),
            &other_key,
            &body,
        )
        .await;
    assert_eq!(status, 404, "{answer}");
    let (_, list) = app.get("/templates", &other_key).await;
    assert_eq!(list["data"]["total"], 0);

    // Archived: hidden from the list, makes no more documents.
    let (status, _) = app
        .post(&format!("/templates/{template}/archive"), &key, &json!({}))
        .await;
    assert_eq!(status, 200);
    let (status, answer) = app
        .post(&format!("/templates/{template}/documents"), &key, &body)
        .await;
    assert_eq!(status, 409, "{answer}");
    assert_eq!(answer["message"], "Template is archived");
    let (_, list) = app.get("/templates", &key).await;
    assert_eq!(list["data"]["total"], 0);
}

#[tokio::test]
async fn a_template_needs_a_draft_with_recipients() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let empty = app.document(account, "Empty", &[LETTER]).await;
    let (status, answer) = app
        .post("/templates", &key, &json!({"documentId": empty}))
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["message"], "Document has no recipients");
    let (status, _) = app
        .post("/templates", &key, &json!({"documentId": Uuid::now_v7()}))
        .await;
    assert_eq!(status, 404);
    let (status, answer) = app
        .post("/templates", &key, &json!({"documentId": 7}))
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["errors"][0]["field"], "documentId", "{answer}");
}

/// The sweep keeps a file a template refers to, even when the pending row names no document
/// that does.
#[tokio::test]
async fn the_sweep_keeps_a_file_a_template_refers_to() {
    use signet_common::{model::DocumentId, store::pending_files};
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(1000).await;
    let source = draft(&app, account, &key, &[("ann@example.com", "SIGNER", None)]).await;
    let (status, made) = app
        .post("/templates", &key, &json!({"documentId": source}))
        .await;
    assert_eq!(status, 200, "{made}");
    let shared = format!("{account}/{source}/original.pdf");
    pending_files::record(&app.db.pool, &shared, DocumentId::new())
        .await
        .unwrap();
    let (_worker, pending) = WorkerProcess::sweeping_pending_files(&app, &mailbox.url()).await;
    assert_eq!(pending, 0, "the row was swept");
    assert_eq!(app.store().keys().await.unwrap(), vec![shared]);
}

/// The expiry's date, `days` from today give or take one (the date, not the timing).
fn about_days_ahead(expiry: &Value, days: i64) -> bool {
    let expiry = chrono::DateTime::parse_from_rfc3339(expiry.as_str().unwrap())
        .unwrap()
        .date_naive();
    let today = chrono::Utc::now().date_naive();
    (days - 1..=days + 1).contains(&(expiry - today).num_days())
}

#[tokio::test]
async fn a_template_keeps_defaults_for_the_send() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    let (account, key) = app.account(1000).await;
    let source = draft(&app, account, &key, &[("ann@example.com", "SIGNER", None)]).await;

    for days in [0, 366] {
        let body = json!({"documentId": source, "expiryDays": days});
        let (status, answer) = app.post("/templates", &key, &body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["errors"][0]["field"], "expiryDays", "{answer}");
    }
    let body = json!({"documentId": source, "roles": {"ann@example.com": "Tenant"},
        "message": "Sign the lease from the template.", "description": "Flat 2",
        "expiryDays": 10, "reminders": {"firstAfterDays": 2, "everyDays": 3}, "language": "de"});
    let (status, made) = app.post("/templates", &key, &body).await;
    assert_eq!(status, 200, "{made}");
    let template = made["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/templates/{template}"), &key).await;
    let data = &detail["data"];
    assert_eq!(
        data["message"], "Sign the lease from the template.",
        "{detail}"
    );
    assert_eq!(data["description"], "Flat 2");
    assert_eq!(data["expiryDays"], 10);
    assert_eq!(data["reminders"]["firstAfterDays"], 2);
    assert_eq!(data["language"], "de");

    let path = format!("/templates/{template}/documents");
    let body = json!({"roles": {"Tenant": {"name": "T One", "email": "t1@example.com"}},
        "send": true});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 200, "{answer}");
    let doc = answer["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(detail["data"]["status"], "SENT", "{detail}");
    assert!(
        about_days_ahead(&detail["data"]["expiryDate"], 10),
        "{detail}"
    );
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.to == "t1@example.com")
        .await;
    assert!(
        mails[0].text.contains("Sign the lease from the template."),
        "{}",
        mails[0].text
    );

    // The request's values win over the template's.
    let body = json!({"roles": {"Tenant": {"name": "T Two", "email": "t2@example.com"}},
        "send": true, "message": "Sign this one instead.", "expiryDate": "2099-01-01T00:00:00Z"});
    let (status, answer) = app.post(&path, &key, &body).await;
    assert_eq!(status, 200, "{answer}");
    let doc = answer["data"]["id"].as_str().unwrap().to_owned();
    let (_, detail) = app.get(&format!("/documents/{doc}"), &key).await;
    assert_eq!(
        detail["data"]["expiryDate"], "2099-01-01T00:00:00.000Z",
        "{detail}"
    );
    let mails = mailbox
        .wait_for(1, WAIT, |m| m.to == "t2@example.com")
        .await;
    assert!(
        mails[0].text.contains("Sign this one instead."),
        "{}",
        mails[0].text
    );
    assert!(!mails[0].text.contains("from the template"));
}
