//! The expiry sweep at volume (issue #35): documents expired in set-based batches get exactly
//! what the one-document path of `effects::record` gives each — the same audit entry chained
//! to the same trail, the same notices by e-mail and SMS (counted against the daily caps in the
//! same order), the same events, webhook deliveries and jobs.

use serde_json::Value;
use signet_common::{
    effects::{self, DocumentEvent, Subject},
    flows::expiry,
    infra::notify::Notifier,
    model::{AccountId, Actor, AuditEvent, DailyCaps, DocumentId, DocumentStatus},
    store::{
        audit::{self, NewEntry},
        documents, recipients,
    },
};
use signet_tests::{TestApp, TestDb};
use sqlx::PgPool;
use uuid::Uuid;

const DOCUMENTS: i32 = 500;
const ACCOUNTS: usize = 4;

/// The per-document path, as the sweep ran it before issue #35: batches of 50 claimed by the
/// same statement, then one document at a time.
async fn expire_one_by_one(pool: &PgPool, notifier: &Notifier) -> usize {
    let mut expired = 0;
    loop {
        let mut tx = pool.begin().await.unwrap();
        let due = documents::lock_due_for_expiry(&mut tx, 50).await.unwrap();
        if due.is_empty() {
            return expired;
        }
        for &(document_id, account_id) in &due {
            documents::set_status(&mut tx, document_id, DocumentStatus::Expired)
                .await
                .unwrap();
            let recipients = recipients::list(&mut tx, document_id).await.unwrap();
            let event = DocumentEvent::Expired {
                recipients: &recipients,
            };
            let subject = Subject {
                account_id,
                document_id,
            };
            effects::record(&mut tx, subject, event, &Actor::Worker, notifier)
                .await
                .unwrap();
        }
        tx.commit().await.unwrap();
        expired += due.len();
    }
}

/// `DOCUMENTS` SENT documents past their expiry, spread over the accounts, each expiring a
/// second after the one before; their recipients vary in every way the notices depend on (see
/// below), and each document's trail already has an entry.
async fn seed(app: &TestApp, accounts: &[Uuid]) {
    let template = app
        .document(accounts[0], "Template", &[(612.0, 792.0)])
        .await;
    let pool = &app.db.pool;
    sqlx::query(
        "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                                page_sizes, sent_at, expiry_date, send_message)
         SELECT gen_random_uuid(), ($2::uuid[])[1 + i % cardinality($2::uuid[])],
                'E' || lpad(i::text, 7, '0'), 'Expiring ' || i, 'SENT', file_key, sha256, pages,
                page_sizes, now() - interval '2 days',
                now() - interval '1 day' + i * interval '1 second', 'Please sign'
         FROM documents, generate_series(0, $3 - 1) i WHERE id = $1",
    )
    .bind(template)
    .bind(accounts)
    .bind(DOCUMENTS)
    .execute(pool)
    .await
    .unwrap();
    // Position 0, every document: a signer who was invited, PENDING or VIEWED; a third have a
    // number of their own, a third share one of two numbers per account with many others
    // (so the per-number cap refuses some), a third have none.
    // Position 1, even documents: a signer who signed (an e-mail, no SMS).
    // Position 2, one in four: a signer of a later group, never invited (nothing).
    // Position 3, one in seven: an invited viewer with a number (an e-mail, no SMS).
    // Position 4, one in nine: an embedded signer with a number (an e-mail, no SMS).
    sqlx::query(
        "WITH d AS (SELECT id, account_id, sent_at, substr(code, 2)::int AS i FROM documents
                   WHERE code LIKE 'E%')
         INSERT INTO recipients (id, account_id, document_id, name, email, role, status,
                                 color_code, position, phone_e164, invited_at, signing_order,
                                 embedded, signed_at)
         SELECT gen_random_uuid(), account_id, id, 'Recipient ' || p, 'r' || p || '-' || i || '@example.com',
                CASE p WHEN 3 THEN 'VIEWER' ELSE 'SIGNER' END,
                CASE WHEN p = 1 THEN 'SIGNED' WHEN p = 0 AND i % 5 = 4 THEN 'VIEWED' ELSE 'PENDING' END,
                '#3366ff', p,
                CASE WHEN p = 0 AND i % 3 = 0 THEN '+4479' || lpad(i::text, 8, '0')
                     WHEN p = 0 AND i % 3 = 1 THEN '+44790000000' || (i / 12 % 2)
                     WHEN p IN (2, 3, 4) THEN '+4478' || lpad((i * 10 + p)::text, 8, '0') END,
                CASE WHEN p = 2 THEN NULL ELSE sent_at END,
                CASE WHEN p = 2 THEN 2 END,
                p = 4,
                CASE WHEN p = 1 THEN sent_at END
         FROM d, generate_series(0, 4) p
         WHERE p = 0 OR (p = 1 AND i % 2 = 0) OR (p = 2 AND i % 4 = 1) OR (p = 3 AND i % 7 = 0)
            OR (p = 4 AND i % 9 = 0)",
    )
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO fields (id, account_id, document_id, recipient_id, type, page, x, y, width, height)
         SELECT gen_random_uuid(), account_id, document_id, id, 'SIGNATURE', 1, 50, 60, 200, 50
         FROM recipients WHERE role = 'SIGNER'",
    )
    .execute(pool)
    .await
    .unwrap();
    // Half the accounts have a webhook URL: their events are also deliveries.
    sqlx::query(
        "UPDATE accounts SET webhook_url = 'https://hooks.example.com/signet' WHERE id = ANY($1)",
    )
    .bind(&accounts[..ACCOUNTS / 2])
    .execute(pool)
    .await
    .unwrap();
    let due: Vec<(DocumentId, AccountId)> =
        sqlx::query_as("SELECT id, account_id FROM documents WHERE code LIKE 'E%' ORDER BY code")
            .fetch_all(pool)
            .await
            .unwrap();
    let mut conn = pool.acquire().await.unwrap();
    for (document_id, account_id) in due {
        let entry = NewEntry {
            event: AuditEvent::Sent,
            message: "Document sent".into(),
            recipient_id: None,
        };
        audit::append(&mut conn, account_id, document_id, &entry, &Actor::Operator)
            .await
            .unwrap();
    }
}

/// Copies the seeded rows, ids and hashes included, into another database.
async fn copy(from: &PgPool, to: &PgPool) {
    for table in [
        "accounts",
        "documents",
        "recipients",
        "fields",
        "audit_entries",
    ] {
        let rows: Value = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT json_agg(t) FROM {table} t"
        )))
        .fetch_one(from)
        .await
        .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO {table} SELECT * FROM jsonb_populate_recordset(NULL::{table}, $1)"
        )))
        .bind(rows)
        .execute(to)
        .await
        .unwrap();
    }
    sqlx::query(
        "SELECT setval(pg_get_serial_sequence('audit_entries', 'seq'), (SELECT max(seq) FROM audit_entries))",
    )
    .execute(to)
    .await
    .unwrap();
}

/// An entry: its document, event, message, recipient, address, user agent and format.
type AuditRow = (Uuid, String, String, Option<Uuid>, String, String, i16);
/// An e-mail: its document, account, recipient, kind, status, signing token and whether its
/// `Message-ID` is made from its id.
type EmailRow = (Uuid, Uuid, Uuid, String, String, Option<String>, bool);
/// An SMS: its document, recipient, kind, number, status, error and whether it holds no token.
type SmsRow = (Uuid, Uuid, String, String, String, Option<String>, bool);

/// Everything an expiry writes, in a form that does not depend on row ids chosen at random,
/// on the time or on the order of transactions.
#[derive(Debug, PartialEq)]
struct Written {
    statuses: Vec<(Uuid, String)>,
    audit: Vec<AuditRow>,
    emails: Vec<EmailRow>,
    sms: Vec<SmsRow>,
    sms_counts: Vec<(Uuid, String, i32)>,
    events: Vec<(Uuid, Uuid, String, Value)>,
    deliveries: Vec<(Uuid, Uuid, String, i64)>,
    counts: Vec<(Uuid, String, i64)>,
}

/// A payload without what names the moment it was made.
fn timeless(payload: &str) -> Value {
    let mut body: Value = serde_json::from_str(payload).unwrap();
    body["timestamp"] = Value::Null;
    body["data"]["updatedAt"] = Value::Null;
    body["data"]["filePath"] = Value::Null;
    body
}

async fn written(pool: &PgPool, message_id_domain: &str) -> Written {
    let events: Vec<(Uuid, Uuid, String, String)> = sqlx::query_as(
        "SELECT document_id, account_id, event_type, payload FROM events ORDER BY document_id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    Written {
        statuses: sqlx::query_as("SELECT id, status FROM documents ORDER BY id")
            .fetch_all(pool)
            .await
            .unwrap(),
        audit: sqlx::query_as(
            "SELECT document_id, event, message, recipient_id, ip_address, user_agent, format
             FROM audit_entries ORDER BY document_id, seq",
        )
        .fetch_all(pool)
        .await
        .unwrap(),
        emails: sqlx::query_as(
            "SELECT document_id, account_id, recipient_id, kind, status, link_token,
                    message_id = '<' || id || '@' || $1 || '>'
             FROM outbound_emails ORDER BY document_id, recipient_id, kind",
        )
        .bind(message_id_domain)
        .fetch_all(pool)
        .await
        .unwrap(),
        sms: sqlx::query_as(
            "SELECT document_id, recipient_id, kind, to_e164, status, last_error,
                    link_token IS NULL
             FROM outbound_sms ORDER BY document_id, recipient_id, kind",
        )
        .fetch_all(pool)
        .await
        .unwrap(),
        sms_counts: sqlx::query_as(
            "SELECT account_id, number, queued FROM sms_daily_counts ORDER BY account_id, number",
        )
        .fetch_all(pool)
        .await
        .unwrap(),
        events: events
            .into_iter()
            .map(|(document, account, kind, payload)| (document, account, kind, timeless(&payload)))
            .collect(),
        // Each delivery carries its event's id and exact body.
        deliveries: sqlx::query_as(
            "SELECT w.document_id, w.account_id, w.event_type,
                    (SELECT count(*) FROM events e
                     WHERE 'msg_' || replace(e.id::text, '-', '') = w.event_id
                       AND e.payload = w.payload AND e.document_id = w.document_id)
             FROM webhook_deliveries w ORDER BY w.document_id",
        )
        .fetch_all(pool)
        .await
        .unwrap(),
        counts: sqlx::query_as(
            "SELECT account_id, status, sum(documents)::bigint FROM document_counts
             GROUP BY account_id, status HAVING sum(documents) <> 0 ORDER BY account_id, status",
        )
        .fetch_all(pool)
        .await
        .unwrap(),
    }
}

/// The PENDING rows of an outbox table, and of those the ones queued: due and held by no
/// worker (the rows are the queue, `store::outbox`).
async fn pending_and_queued(pool: &PgPool, table: &str) -> (i64, i64) {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*), count(*) FILTER (WHERE due_at <= now() AND lease_owner IS NULL)
         FROM {table} WHERE status = 'PENDING'"
    )))
    .fetch_one(pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_batch_of_expiries_writes_what_one_expiry_at_a_time_writes() {
    let app = TestApp::spawn().await;
    let mut accounts = Vec::new();
    for _ in 0..ACCOUNTS {
        accounts.push(app.account(1000).await.0);
    }
    seed(&app, &accounts).await;
    let batched = TestDb::new().await;
    copy(&app.db.pool, &batched.pool).await;

    let mut notifier = Notifier::from_config(&app.config);
    // Small caps, so that both refuse some of the notices.
    notifier.sms_caps = Some(DailyCaps {
        per_number: 2,
        per_account: 40,
    });
    assert_eq!(
        expire_one_by_one(&app.db.pool, &notifier).await,
        DOCUMENTS as usize
    );
    // Batches that are not a multiple of the old ones, and span accounts.
    assert_eq!(
        expiry::expire_due_in_batches(&batched.pool, &notifier, 120, 1)
            .await
            .unwrap(),
        DOCUMENTS as usize
    );

    let one_by_one = written(&app.db.pool, &notifier.message_id_domain).await;
    let in_batches = written(&batched.pool, &notifier.message_id_domain).await;
    // Compared part by part, so that a failure names the part.
    assert_eq!(in_batches.statuses, one_by_one.statuses);
    assert_eq!(in_batches.audit, one_by_one.audit);
    assert_eq!(in_batches.emails, one_by_one.emails);
    assert_eq!(in_batches.sms, one_by_one.sms);
    assert_eq!(in_batches.sms_counts, one_by_one.sms_counts);
    assert_eq!(in_batches.events, one_by_one.events);
    assert_eq!(in_batches.deliveries, one_by_one.deliveries);
    assert_eq!(in_batches.counts, one_by_one.counts);

    // And what that is, explicitly.
    let seeded = in_batches.statuses.len() - 1; // the template stays a DRAFT
    assert_eq!(seeded, DOCUMENTS as usize);
    assert!(
        in_batches
            .statuses
            .iter()
            .filter(|(_, status)| status == "EXPIRED")
            .count()
            == seeded
    );
    let expired_entries = in_batches
        .audit
        .iter()
        .filter(|e| (e.1.as_str(), e.2.as_str(), e.3) == ("EXPIRED", "Document expired", None))
        .count();
    assert_eq!(expired_entries, seeded);
    for entry in in_batches.audit.iter().filter(|e| e.1 == "EXPIRED") {
        assert_eq!((entry.4.as_str(), entry.6), ("0.0.0.0", audit::FORMAT));
    }
    let capped = in_batches
        .audit
        .iter()
        .filter(|e| e.2.contains("SMS to") && e.2.contains("cap"))
        .count();
    let refused = in_batches.sms.iter().filter(|s| s.4 == "FAILED").count();
    let pending = in_batches.sms.iter().filter(|s| s.4 == "PENDING").count();
    assert!(
        capped > 0 && pending > 0,
        "{capped} capped, {pending} queued"
    );
    assert_eq!(
        capped, refused,
        "each refused SMS is in its document's trail"
    );
    assert!(in_batches.sms.iter().all(|s| s.2 == "EXPIRED" && s.6));
    // An e-mail to everyone invited: the signer, the one who signed, the viewer, the embedded
    // signer; none to the signer who was never invited.
    let invited: usize = (0..DOCUMENTS)
        .map(|i| 1 + usize::from(i % 2 == 0) + usize::from(i % 7 == 0) + usize::from(i % 9 == 0))
        .sum();
    assert_eq!(in_batches.emails.len(), invited);
    assert!(
        in_batches
            .emails
            .iter()
            .all(|e| e.3 == "EXPIRED" && e.4 == "PENDING" && e.5.is_none() && e.6)
    );
    assert_eq!(in_batches.events.len(), seeded);
    assert!(
        in_batches
            .events
            .iter()
            .all(|e| e.2 == "document.expired" && e.3["data"]["status"] == "EXPIRED")
    );
    let with_url = in_batches
        .events
        .iter()
        .filter(|e| accounts[..ACCOUNTS / 2].contains(&e.1))
        .count();
    assert_eq!(in_batches.deliveries.len(), with_url);
    assert!(in_batches.deliveries.iter().all(|d| d.3 == 1));
    for (doc, _) in &in_batches.statuses {
        let verified = audit::verify(&batched.pool, DocumentId(*doc))
            .await
            .unwrap();
        assert!(verified.ok, "{doc}: {verified:?}");
    }
    // Every e-mail, queued SMS and delivery is in its queue: PENDING and due.
    for table in ["outbound_emails", "outbound_sms", "webhook_deliveries"] {
        let (pending, queued) = pending_and_queued(&batched.pool, table).await;
        assert_eq!(pending, queued, "{table}");
        assert!(pending > 0, "{table}");
    }
}
