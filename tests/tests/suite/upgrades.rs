//! Upgrading a database that already holds documents: migrations that change what is stored
//! keep what was there valid.

use chrono::{SecondsFormat, SubsecRound, Utc};
use sha2::{Digest, Sha256};
use signet_common::{
    model::{Actor, AuditEvent},
    store::audit::{self, NewEntry},
};
use signet_tests::TestDb;
use sqlx::PgPool;
use uuid::Uuid;

const RECIPIENT_MIGRATION: &str =
    include_str!("../../../migrations/20261123001500_audit_entries_recipient.sql");
const AUDIT_FORMAT_3_MIGRATION: &str =
    include_str!("../../../migrations/20261127160100_audit_format_3.sql");

/// An entry as a release before migration `audit_entries_recipient` wrote it: no recipient,
/// and a hash over the eight fields of the first format (computed here independently of the
/// code under test).
async fn append_old_entry(
    pool: &PgPool,
    (account, document): (Uuid, Uuid),
    event: &str,
    message: &str,
) {
    let prev: Vec<u8> = sqlx::query_scalar(
        "SELECT hash FROM audit_entries WHERE document_id = $1 ORDER BY seq DESC LIMIT 1",
    )
    .bind(document)
    .fetch_optional(pool)
    .await
    .unwrap()
    .unwrap_or_else(|| vec![0; 32]);
    let (id, at) = (Uuid::now_v7(), Utc::now().trunc_subsecs(6));
    let canonical = serde_json::to_vec(&[
        id.to_string(),
        account.to_string(),
        document.to_string(),
        event.to_owned(),
        message.to_owned(),
        "198.51.100.7".to_owned(),
        "old-release".to_owned(),
        at.to_rfc3339_opts(SecondsFormat::Micros, true),
    ])
    .unwrap();
    let hash = Sha256::digest([prev.as_slice(), &canonical].concat()).to_vec();
    sqlx::query(
        "INSERT INTO audit_entries (id, account_id, document_id, event, message, ip_address,
                                    user_agent, created_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, '198.51.100.7', 'old-release', $6, $7, $8)",
    )
    .bind(id)
    .bind(account)
    .bind(document)
    .bind(event)
    .bind(message)
    .bind(at)
    .bind(prev)
    .bind(hash)
    .execute(pool)
    .await
    .unwrap();
}

/// Entries written before audit entries named their recipient get it from their message once,
/// keep their hashes (the chain still verifies), and the chain goes on with new entries.
#[tokio::test]
async fn audit_entries_written_before_the_recipient_column_keep_their_chain() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    // Back to the schema before the migration.
    sqlx::query("ALTER TABLE audit_entries DROP COLUMN recipient_id, DROP COLUMN format")
        .execute(pool)
        .await
        .unwrap();
    let (account, document) = (Uuid::now_v7(), Uuid::now_v7());
    let (ann, bob) = (Uuid::now_v7(), Uuid::now_v7());
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "INSERT INTO accounts (id, name, email, api_usage_limit, webhook_secret)
             VALUES ('{account}', 'Acme', 'owner@acme.test', 10, 'whsec_x');
         INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages, page_sizes)
             VALUES ('{document}', '{account}', 'UPGRADE1', 'Lease', 'SENT', 'k', 'h', 1, '[]');
         INSERT INTO recipients (id, account_id, document_id, name, email, role, color_code, position)
             VALUES ('{ann}', '{account}', '{document}', 'Ann', 'ann_1@acme.test', 'SIGNER', '#000', 0),
                    ('{bob}', '{account}', '{document}', 'Bob', 'annx1@acme.test', 'SIGNER', '#000', 1);"
    )))
    .execute(pool)
    .await
    .unwrap();
    let ids = (account, document);
    for (event, message) in [
        ("CREATED", "Document created"),
        (
            "UPDATED",
            "Recipients added: ann_1@acme.test, annx1@acme.test",
        ),
        ("VIEWED", "Document viewed by ann_1@acme.test"),
        ("SIGNED", "Document signed by annx1@acme.test"),
        // A reason that names the other signer's address must not confuse the two.
        (
            "DECLINED",
            "Document declined by ann_1@acme.test: ask Document declined by annx1@acme.test",
        ),
    ] {
        append_old_entry(pool, ids, event, message).await;
    }

    sqlx::raw_sql(RECIPIENT_MIGRATION)
        .execute(pool)
        .await
        .unwrap();
    sqlx::raw_sql(AUDIT_FORMAT_3_MIGRATION)
        .execute(pool)
        .await
        .unwrap();

    let rows: Vec<(String, Option<Uuid>, i16)> = sqlx::query_as(
        "SELECT event, recipient_id, format FROM audit_entries WHERE document_id = $1 ORDER BY seq",
    )
    .bind(document)
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        [
            ("CREATED".into(), None, 1),
            ("UPDATED".into(), None, 1),
            ("VIEWED".into(), Some(ann), 1),
            ("SIGNED".into(), Some(bob), 1),
            ("DECLINED".into(), Some(ann), 1),
        ]
    );
    let verified = audit::verify(pool, document.into()).await.unwrap();
    assert!(verified.ok, "{verified:?}");

    let mut conn = pool.acquire().await.unwrap();
    let entry = NewEntry {
        event: AuditEvent::Updated,
        message: "Invitation to ann_1@acme.test sent again".into(),
        recipient_id: Some(ann.into()),
    };
    let appended = audit::append(
        &mut conn,
        account.into(),
        document.into(),
        &entry,
        &Actor::Operator,
    )
    .await
    .unwrap();
    assert_eq!(
        (appended.format, appended.recipient_id),
        (audit::FORMAT, Some(ann.into()))
    );
    let verified = audit::verify(pool, document.into()).await.unwrap();
    assert!(verified.ok && verified.entries == 6, "{verified:?}");

    // Issue #37: an entry of the first format, erased, keeps its place in the chain (its
    // hash covered the values, which cannot be checked any more); the current format's
    // entry, erased, still has its hash checked.
    let entries = audit::list(pool, account.into(), document.into())
        .await
        .unwrap();
    let erased: Vec<audit::Erased> = [&entries[2], &entries[5]]
        .into_iter()
        .map(|e| audit::Erased {
            id: e.id,
            message: e.message.replace("ann_1@acme.test", audit::TOMBSTONE),
            ip_address: audit::TOMBSTONE.into(),
            user_agent: audit::TOMBSTONE.into(),
        })
        .collect();
    audit::erase(&mut conn, &erased).await.unwrap();
    let verified = audit::verify(pool, document.into()).await.unwrap();
    assert!(
        verified.ok && verified.entries == 6 && verified.erased == 2,
        "{verified:?}"
    );
    // An erasure may not touch what the hash covers directly.
    let error =
        sqlx::query("UPDATE audit_entries SET event = 'SIGNED', erased_at = now() WHERE id = $1")
            .bind(entries[5].id)
            .execute(pool)
            .await
            .unwrap_err();
    assert!(error.to_string().contains("append-only"), "{error}");
}

const PHONE_MIGRATION: &str =
    include_str!("../../../migrations/20261123001600_recipients_phone_e164.sql");

/// Numbers stored before `phone_e164` existed get one only where concatenation is certainly
/// their E.164 form; the rest stay NULL.
#[tokio::test]
async fn phone_numbers_stored_before_e164_are_converted_only_when_safe() {
    let db = TestDb::new().await;
    let pool = &db.pool;
    sqlx::query("ALTER TABLE recipients DROP COLUMN phone_e164")
        .execute(pool)
        .await
        .unwrap();
    let (account, document) = (Uuid::now_v7(), Uuid::now_v7());
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "INSERT INTO accounts (id, name, email, api_usage_limit, webhook_secret)
             VALUES ('{account}', 'Acme', 'owner@acme.test', 10, 'whsec_x');
         INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages, page_sizes)
             VALUES ('{document}', '{account}', 'UPGRADE2', 'Lease', 'DRAFT', 'k', 'h', 1, '[]');"
    )))
    .execute(pool)
    .await
    .unwrap();
    let rows: [(Option<&str>, Option<&str>, Option<&str>); 7] = [
        (Some("+1"), Some("(201) 555-0123"), Some("+12015550123")),
        (Some("+49"), Some("30.123.456"), Some("+4930123456")),
        (Some("+44"), Some("020 7946 0958"), None), // trunk prefix: only the library knows
        (Some("+1"), Some("1 201 555 0123"), None), // NANP trunk prefix
        (Some("+44"), None, None),
        (None, Some("2079460958"), None),
        (None, None, None),
    ];
    for (i, (code, phone, _)) in rows.iter().enumerate() {
        sqlx::query(
            "INSERT INTO recipients (id, account_id, document_id, name, email, role,
                                     country_code, phone_number, color_code, position)
             VALUES ($1, $2, $3, 'R', $4, 'SIGNER', $5, $6, '#000', $7)",
        )
        .bind(Uuid::now_v7())
        .bind(account)
        .bind(document)
        .bind(format!("r{i}@acme.test"))
        .bind(code)
        .bind(phone)
        .bind(i as i32)
        .execute(pool)
        .await
        .unwrap();
    }
    sqlx::raw_sql(PHONE_MIGRATION).execute(pool).await.unwrap();
    let after: Vec<Option<String>> =
        sqlx::query_scalar("SELECT phone_e164 FROM recipients ORDER BY position")
            .fetch_all(pool)
            .await
            .unwrap();
    let expected: Vec<Option<String>> = rows.iter().map(|r| r.2.map(str::to_owned)).collect();
    assert_eq!(after, expected);
}
