//! Paging arithmetic, sorting with ties, search with LIKE metacharacters, status filters.

use serde_json::Value;
use signet_tests::{LETTER, TestApp};
use uuid::Uuid;

/// Every `sortBy` with the column it sorts on.
const SORTS: [(&str, &str); 3] = [
    ("dateCreated", "created_at"),
    ("dateModified", "updated_at"),
    ("documentName", "title"),
];

async fn ids(app: &TestApp, key: &str, query: &str) -> (Vec<Uuid>, Value) {
    let (status, body) = app.get(&format!("/documents?{query}"), key).await;
    assert_eq!(status, 200, "{query}: {body}");
    assert_eq!(body["message"], "Documents retrieved successfully");
    let ids = body["data"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().parse().unwrap())
        .collect();
    (ids, body["data"].clone())
}

#[tokio::test]
async fn paging_arithmetic_and_a_page_past_the_end() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    for i in 0..23 {
        app.document(account, &format!("Doc {i:02}"), &[LETTER])
            .await;
    }
    let (first, data) = ids(&app, &key, "").await;
    assert_eq!(first.len(), 10);
    assert_eq!(
        (
            &data["total"],
            &data["page"],
            &data["limit"],
            &data["totalPages"]
        ),
        (&23.into(), &1.into(), &10.into(), &3.into())
    );
    let (third, data) = ids(&app, &key, "page=3&limit=10").await;
    assert_eq!((third.len(), &data["totalPages"]), (3, &3.into()));
    let (past, data) = ids(&app, &key, "page=4").await;
    assert!(past.is_empty());
    assert_eq!(
        (&data["total"], &data["page"], &data["totalPages"]),
        (&23.into(), &4.into(), &3.into())
    );
    let (all, data) = ids(&app, &key, "limit=100").await;
    assert_eq!((all.len(), &data["totalPages"]), (23, &1.into()));
    let (_, data) = ids(&app, &key, "limit=7").await;
    assert_eq!(data["totalPages"], 4);

    let item = &ids(&app, &key, "limit=1").await.1["items"][0];
    for field in [
        "id",
        "title",
        "status",
        "filePath",
        "pages",
        "createdAt",
        "updatedAt",
        "expiryDate",
        "code",
    ] {
        assert!(item.get(field).is_some(), "list item lacks {field}: {item}");
    }
    assert!(item["code"].as_str().unwrap().len() == 8);
    let created = item["createdAt"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 24, "{created}");
}

#[tokio::test]
async fn every_sort_with_ties_pages_stably() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let titles = ["beta", "Alpha", "gamma", "beta", "alpha", "delta", "beta"];
    for title in titles {
        app.document(account, title, &[LETTER]).await;
    }
    // Force ties on both timestamps: three documents share each instant.
    sqlx::query(
        "UPDATE documents SET
            created_at = '2026-01-01T00:00:00Z'::timestamptz + (ascii(title) % 3) * interval '1 hour',
            updated_at = '2026-02-01T00:00:00Z'::timestamptz + (length(title) % 2) * interval '1 hour'",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    for (sort_by, column) in SORTS {
        for order in ["ASC", "DESC"] {
            let expected: Vec<Uuid> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT id FROM documents ORDER BY {column} {order}, id {order}"
            )))
            .fetch_all(&app.db.pool)
            .await
            .unwrap();
            let mut paged = Vec::new();
            for page in 1..=3 {
                paged.extend(
                    ids(
                        &app,
                        &key,
                        &format!("sortBy={sort_by}&sortOrder={order}&limit=3&page={page}"),
                    )
                    .await
                    .0,
                );
            }
            assert_eq!(paged, expected, "{sort_by} {order}");
        }
    }
    // Defaults: dateCreated DESC; query enums are case-insensitive.
    let (default, _) = ids(&app, &key, "limit=100").await;
    let (explicit, _) = ids(&app, &key, "limit=100&sortBy=DATECREATED&sortOrder=desc").await;
    assert_eq!(default, explicit);
}

#[tokio::test]
async fn search_is_a_literal_case_insensitive_substring() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mut by_title = std::collections::HashMap::new();
    for title in [
        "100% done",
        "100 percent",
        "a_b plan",
        "axb plan",
        "Back\\slash",
        "NDA Acme",
    ] {
        by_title.insert(title, app.document(account, title, &[LETTER]).await);
    }
    for (term, expected) in [
        ("%", vec!["100% done"]),
        ("_", vec!["a_b plan"]),
        ("A_B", vec!["a_b plan"]),
        ("\\", vec!["Back\\slash"]),
        ("nda acme", vec!["NDA Acme"]),
        ("plan", vec!["a_b plan", "axb plan"]),
        ("nothing", vec![]),
    ] {
        let query = format!("search={}&limit=100", urlencode(term));
        let (mut found, data) = ids(&app, &key, &query).await;
        let mut want: Vec<Uuid> = expected.iter().map(|t| by_title[t]).collect();
        found.sort();
        want.sort();
        assert_eq!(found, want, "search {term:?}");
        assert_eq!(data["total"], want.len());
    }
}

fn urlencode(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

#[tokio::test]
async fn status_filters_including_trash() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let mut by_status = Vec::new();
    for status in [
        "DRAFT",
        "SENT",
        "COMPLETED",
        "DECLINED",
        "EXPIRED",
        "CANCELLED",
    ] {
        let id = app.document(account, status, &[LETTER]).await;
        sqlx::query("UPDATE documents SET status = $2 WHERE id = $1")
            .bind(id)
            .bind(status)
            .execute(&app.db.pool)
            .await
            .unwrap();
        by_status.push((status, id));
    }
    let pick = |wanted: &[&str]| {
        let mut ids: Vec<Uuid> = by_status
            .iter()
            .filter(|(s, _)| wanted.contains(s))
            .map(|(_, id)| *id)
            .collect();
        ids.sort();
        ids
    };
    for (filter, expected) in [
        ("DRAFT", pick(&["DRAFT"])),
        ("sent", pick(&["SENT"])),
        ("COMPLETED", pick(&["COMPLETED"])),
        ("TRASH", pick(&["DECLINED", "EXPIRED", "CANCELLED"])),
    ] {
        let (mut found, data) = ids(&app, &key, &format!("status={filter}")).await;
        found.sort();
        assert_eq!(found, expected, "status={filter}");
        assert_eq!(data["total"], expected.len());
    }
    let (all, _) = ids(&app, &key, "").await;
    assert_eq!(all.len(), 6);
    // Statuses beyond the filter's are reported as they are.
    let (_, data) = ids(&app, &key, "status=TRASH&sortBy=documentName&sortOrder=ASC").await;
    let statuses: Vec<&str> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["CANCELLED", "DECLINED", "EXPIRED"]);
}

/// TRASH is three statuses, each read in order from its own index and merged: pages across the
/// seams must come out in one order, with every sort and with a search on top.
#[tokio::test]
async fn trash_pages_merge_three_statuses_in_order() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    for i in 0..12 {
        let status = ["DECLINED", "EXPIRED", "CANCELLED", "SENT"][i % 4];
        let title = format!("{} contract {i:02}", ["beta", "Alpha", "gamma"][i % 3]);
        let id = app.document(account, &title, &[LETTER]).await;
        sqlx::query("UPDATE documents SET status = $2 WHERE id = $1")
            .bind(id)
            .bind(status)
            .execute(&app.db.pool)
            .await
            .unwrap();
    }
    for (sort_by, column) in SORTS {
        for order in ["ASC", "DESC"] {
            for (search, like) in [("", "%"), ("&search=ALPHA", "%alpha%")] {
                let expected: Vec<Uuid> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT id FROM documents
                     WHERE status IN ('DECLINED', 'EXPIRED', 'CANCELLED') AND title ILIKE $1
                     ORDER BY {column} {order}, id {order}"
                )))
                .bind(like)
                .fetch_all(&app.db.pool)
                .await
                .unwrap();
                let mut paged = Vec::new();
                for page in 1..=5 {
                    let query = format!(
                        "status=TRASH&sortBy={sort_by}&sortOrder={order}&limit=2&page={page}{search}"
                    );
                    let (found, data) = ids(&app, &key, &query).await;
                    assert_eq!(data["total"], expected.len(), "{query}");
                    paged.extend(found);
                }
                assert_eq!(paged, expected, "TRASH {sort_by} {order}{search}");
            }
        }
    }
}

/// The totals come from counts kept beside the documents: however many sessions create and
/// move documents at once, every total equals the documents that are really there.
#[tokio::test]
async fn totals_stay_exact_under_concurrent_writers() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let (other, _) = app.account(1000).await;
    let uploads = (0..24).map(|i| {
        let app = &app;
        async move {
            let owner = if i % 3 == 0 { other } else { account };
            app.document(owner, &format!("Doc {i}"), &[LETTER]).await
        }
    });
    let ids_created = futures::future::join_all(uploads).await;
    // Status changes from several sessions at once, some rolled back.
    let moves = ids_created.iter().enumerate().map(|(i, id)| {
        let pool = app.db.pool.clone();
        let id = *id;
        async move {
            let mut tx = pool.begin().await.unwrap();
            for status in ["SENT", ["COMPLETED", "DECLINED", "EXPIRED"][i % 3]] {
                sqlx::query("UPDATE documents SET status = $2 WHERE id = $1")
                    .bind(id)
                    .bind(status)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
            if i % 4 == 0 {
                tx.rollback().await.unwrap();
            } else {
                tx.commit().await.unwrap();
            }
        }
    });
    futures::future::join_all(moves).await;
    // One statement moving many documents of both accounts at once.
    sqlx::query("UPDATE documents SET status = 'CANCELLED' WHERE status = 'SENT'")
        .execute(&app.db.pool)
        .await
        .unwrap();
    for filter in [
        "",
        "status=DRAFT",
        "status=SENT",
        "status=COMPLETED",
        "status=TRASH",
    ] {
        let statuses = match filter {
            "" => vec![
                "DRAFT",
                "SENT",
                "COMPLETED",
                "DECLINED",
                "EXPIRED",
                "CANCELLED",
            ],
            "status=TRASH" => vec!["DECLINED", "EXPIRED", "CANCELLED"],
            f => vec![f.trim_start_matches("status=")],
        };
        let really: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM documents WHERE account_id = $1 AND status = ANY($2)",
        )
        .bind(account)
        .bind(&statuses)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
        let (_, data) = ids(&app, &key, filter).await;
        assert_eq!(data["total"], really, "{filter:?}");
    }
}

// --- Search totals (issue #35) -----------------------------------------------------------------

/// Every filter a search can be combined with, and the statuses it stands for.
const FILTERS: [(&str, &[&str]); 5] = [
    (
        "",
        &[
            "DRAFT",
            "SENT",
            "COMPLETED",
            "DECLINED",
            "EXPIRED",
            "CANCELLED",
        ],
    ),
    ("&status=DRAFT", &["DRAFT"]),
    ("&status=SENT", &["SENT"]),
    ("&status=COMPLETED", &["COMPLETED"]),
    ("&status=TRASH", &["DECLINED", "EXPIRED", "CANCELLED"]),
];

/// `n` documents of the account written straight into the table (an upload each would take
/// minutes): enough matches for a term's counts to be kept. Titles are `title` with `%s` the
/// number; statuses go round all six.
async fn seed(pool: &sqlx::PgPool, account: Uuid, n: i64, title: &str) {
    sqlx::query(
        "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                                page_sizes)
         SELECT gen_random_uuid(), $1, substr(md5(gen_random_uuid()::text), 1, 8),
                format($3, i),
                (ARRAY['DRAFT', 'SENT', 'COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED'])[1 + i % 6],
                'seeded.pdf', repeat('0', 64), 1, '[{\"width\": 612, \"height\": 792}]'
         FROM generate_series(1, $2) i",
    )
    .bind(account)
    .bind(n)
    .bind(title)
    .execute(pool)
    .await
    .unwrap();
}

/// The documents really matching `term` (no LIKE metacharacters in the tests' terms).
async fn really(pool: &sqlx::PgPool, account: Uuid, term: &str, statuses: &[&str]) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM documents
         WHERE account_id = $1 AND status = ANY($2) AND title ILIKE '%' || $3 || '%'",
    )
    .bind(account)
    .bind(statuses)
    .bind(term)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Every search total the API gives for `terms`, with every filter, on the first page and on a
/// page past the end, equals the documents really there.
async fn assert_search_totals(app: &TestApp, key: &str, account: Uuid, terms: &[&str], when: &str) {
    for term in terms {
        for (filter, statuses) in FILTERS {
            let expected = really(&app.db.pool, account, term, statuses).await;
            for page in ["", "&page=100000"] {
                let query = format!("search={}{filter}{page}", urlencode(term));
                let (_, data) = ids(app, key, &query).await;
                assert_eq!(data["total"], expected, "{when}: {query}");
            }
        }
    }
}

async fn kept_terms(app: &TestApp, account: Uuid) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT pattern FROM document_search_terms WHERE account_id = $1 ORDER BY pattern",
    )
    .bind(account)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

/// A term matching many documents keeps its counts; inserts, uploads, status changes, trash,
/// deletes, title edits, moves between accounts and rolled-back transactions all keep every
/// search total exact, with every status filter.
#[tokio::test]
async fn search_totals_stay_exact_through_every_kind_of_write() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (account, key) = app.account(100_000).await;
    let (other, other_key) = app.account(100_000).await;
    seed(pool, account, 1500, "Invoice %s").await;
    seed(pool, account, 300, "Lease %s").await;
    seed(pool, other, 1200, "Invoice %s").await;
    // "invoice" and "VOIC" match 1,500 (kept), "lease" 300 and "invoice 1" 611 (counted).
    let terms = ["invoice", "VOIC", "lease", "invoice 1"];
    assert_search_totals(&app, &key, account, &terms, "seeded").await;
    assert_eq!(kept_terms(&app, account).await, ["%VOIC%", "%invoice%"]);
    assert_search_totals(&app, &other_key, other, &["invoice"], "other account").await;

    // Inserts: uploads through the API's flow, and many in one statement.
    app.document(account, "Invoice uploaded", &[LETTER]).await;
    app.document(account, "Lease uploaded", &[LETTER]).await;
    seed(pool, account, 40, "INVOICE batch %s").await;
    assert_search_totals(&app, &key, account, &terms, "inserts").await;

    // Status changes, one document and many in one statement, into trash and out of it.
    let one: Uuid = sqlx::query_scalar(
        "SELECT id FROM documents WHERE account_id = $1 AND title = 'Invoice uploaded'",
    )
    .bind(account)
    .fetch_one(pool)
    .await
    .unwrap();
    for status in ["SENT", "COMPLETED", "DECLINED", "SENT"] {
        sqlx::query("UPDATE documents SET status = $2, updated_at = now() WHERE id = $1")
            .bind(one)
            .bind(status)
            .execute(pool)
            .await
            .unwrap();
    }
    for (from, to) in [
        ("SENT", "CANCELLED"),
        ("DRAFT", "SENT"),
        ("EXPIRED", "COMPLETED"),
    ] {
        sqlx::query(
            "UPDATE documents SET status = $3
             WHERE account_id = $1 AND status = $2 AND title LIKE '%1%'",
        )
        .bind(account)
        .bind(from)
        .bind(to)
        .execute(pool)
        .await
        .unwrap();
    }
    // An update that changes neither status nor title.
    sqlx::query("UPDATE documents SET updated_at = now() WHERE account_id = $1")
        .bind(account)
        .execute(pool)
        .await
        .unwrap();
    assert_search_totals(&app, &key, account, &terms, "status changes").await;

    // Deletes.
    sqlx::query(
        "DELETE FROM documents WHERE account_id = $1 AND file_key = 'seeded.pdf'
         AND (title LIKE 'Invoice 2%' OR title LIKE 'Lease 2%')",
    )
    .bind(account)
    .execute(pool)
    .await
    .unwrap();
    assert_search_totals(&app, &key, account, &terms, "deletes").await;

    // Title edits: out of a term, into one, within one (with a status change), case only.
    for (edit, which) in [
        ("'Renamed ' || code", "title LIKE 'Invoice 3%'"),
        ("'Lease and invoice ' || code", "title LIKE 'Lease 1%'"),
        ("'Invoice 1 again ' || code", "title LIKE 'Invoice 4%'"),
        ("upper(title)", "title LIKE 'Invoice 5%'"),
    ] {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE documents SET title = {edit},
                 status = CASE WHEN status = 'DRAFT' THEN 'SENT' ELSE status END
             WHERE account_id = $1 AND {which}"
        )))
        .bind(account)
        .execute(pool)
        .await
        .unwrap();
    }
    assert_search_totals(&app, &key, account, &terms, "title edits").await;

    // Documents moved to another account take their matches with them.
    sqlx::query(
        "UPDATE documents SET account_id = $2 WHERE account_id = $1 AND title LIKE 'Invoice 6%'",
    )
    .bind(account)
    .bind(other)
    .execute(pool)
    .await
    .unwrap();
    assert_search_totals(&app, &key, account, &terms, "moved out").await;
    assert_search_totals(&app, &other_key, other, &["invoice"], "moved in").await;

    // A transaction that writes every way and rolls back changes nothing.
    let mut tx = pool.begin().await.unwrap();
    for sql in [
        "UPDATE documents SET status = 'CANCELLED' WHERE account_id = $1 AND title LIKE 'Invoice 7%'",
        "UPDATE documents SET title = 'gone' WHERE account_id = $1 AND title LIKE 'Invoice 8%'",
        "DELETE FROM documents WHERE account_id = $1 AND title LIKE 'Invoice 9%'",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(account)
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    sqlx::query(
        "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                                page_sizes)
         VALUES (gen_random_uuid(), $1, 'rolledbk', 'Invoice rolled back', 'SENT', 'seeded.pdf',
                 repeat('0', 64), 1, '[]')",
    )
    .bind(account)
    .execute(&mut *tx)
    .await
    .unwrap();
    tx.rollback().await.unwrap();
    assert_search_totals(&app, &key, account, &terms, "rolled back").await;
}

/// A first search of a common term counts its matches while a writer's transaction is open: it
/// waits for the writer, so the writer's documents are counted whether it commits or rolls
/// back; and many writers and first searches at once leave every total exact.
#[tokio::test]
async fn search_totals_stay_exact_under_concurrent_writers() {
    use sqlx::Connection;
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (account, key) = app.account(100_000).await;
    seed(pool, account, 1500, "Invoice %s").await;
    seed(pool, account, 1500, "Receipt %s").await;

    for commit in [true, false] {
        let term = if commit { "invoice" } else { "receipt" };
        let mut writer = sqlx::PgConnection::connect(&app.db.url()).await.unwrap();
        let mut tx = writer.begin().await.unwrap();
        sqlx::query(
            "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256, pages,
                                    page_sizes)
             SELECT gen_random_uuid(), $1, substr(md5(gen_random_uuid()::text), 1, 8),
                    'Invoice and receipt ' || i, 'SENT', 'seeded.pdf', repeat('0', 64), 1, '[]'
             FROM generate_series(1, 3) i",
        )
        .bind(account)
        .execute(&mut *tx)
        .await
        .unwrap();
        sqlx::query("UPDATE documents SET status = 'EXPIRED' WHERE title = 'Invoice 6'")
            .execute(&mut *tx)
            .await
            .unwrap();
        let query = format!("search={term}");
        let search = ids(&app, &key, &query);
        let finish = async {
            // The first search waits for the writer's transaction...
            let waited = signet_tests::poll_until(
                std::time::Duration::from_secs(10),
                || async {
                    sqlx::query_scalar::<_, i64>(
                        "SELECT count(*) FROM pg_stat_activity
                         WHERE datname = current_database()
                           AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
                    )
                    .fetch_one(pool)
                    .await
                    .unwrap()
                },
                |waiting| *waiting > 0,
            )
            .await
                > 0;
            // ... which then ends.
            if commit {
                tx.commit().await.unwrap();
            } else {
                tx.rollback().await.unwrap();
            }
            waited
        };
        let ((_, data), waited) = tokio::join!(search, finish);
        // Had the machine been too slow to see the search waiting within its bound, it would
        // have counted every match instead, before the writer ended (the next test): exact
        // then, and the kept counts are checked below either way.
        if waited {
            let expected = really(pool, account, term, FILTERS[0].1).await;
            assert_eq!(data["total"], expected, "commit {commit}");
        }
        assert_search_totals(&app, &key, account, &[term], "after the writer").await;
    }

    // Writers in their own sessions, each transaction changing documents in every way (some
    // rolled back), while searches of new terms make their counts.
    let writers = (0..6).map(|w| {
        let url = app.db.url();
        async move {
            let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
            for round in 0..8 {
                let mut tx = conn.begin().await.unwrap();
                let pick = format!("Invoice {w}{round}%");
                for sql in [
                    "INSERT INTO documents (id, account_id, code, title, status, file_key, sha256,
                                           pages, page_sizes)
                     SELECT gen_random_uuid(), $1, substr(md5(gen_random_uuid()::text), 1, 8),
                            'Invoice new ' || $2, 'DRAFT', 'seeded.pdf', repeat('0', 64), 1, '[]'",
                    "UPDATE documents SET status = 'SENT' WHERE account_id = $1 AND title LIKE $2
                     AND status = 'DRAFT'",
                    "UPDATE documents SET title = 'Receipt ' || title
                     WHERE account_id = $1 AND title LIKE $2 AND status = 'COMPLETED'",
                    "UPDATE documents SET title = 'Renamed' WHERE account_id = $1 AND title LIKE $2
                     AND status = 'DECLINED'",
                    "DELETE FROM documents WHERE account_id = $1 AND title LIKE $2
                     AND status = 'EXPIRED'",
                ] {
                    sqlx::query(sqlx::AssertSqlSafe(sql))
                        .bind(account)
                        .bind(&pick)
                        .execute(&mut *tx)
                        .await
                        .unwrap();
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
                if round % 3 == 2 {
                    tx.rollback().await.unwrap();
                } else {
                    tx.commit().await.unwrap();
                }
            }
        }
    });
    let terms = ["nvoice", "INVOIC", "eceipt", "ceip", "e"];
    let searches = terms.iter().map(|term| {
        let app = &app;
        let key = &key;
        async move {
            for filter in ["", "&status=SENT", "&status=TRASH"] {
                ids(app, key, &format!("search={term}{filter}")).await;
            }
        }
    });
    tokio::join!(
        futures::future::join_all(writers),
        futures::future::join_all(searches)
    );
    assert_search_totals(&app, &key, account, &terms, "after concurrent writers").await;
}

/// A first search that cannot have the account's lock within its bound (a long transaction is
/// writing the account's documents) counts every match instead: still exact, nothing kept;
/// the next search after the writer keeps the term.
#[tokio::test]
async fn a_first_search_behind_a_long_writer_still_answers_exactly() {
    use sqlx::Connection;
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (account, key) = app.account(100_000).await;
    seed(pool, account, 1500, "Invoice %s").await;
    let mut writer = sqlx::PgConnection::connect(&app.db.url()).await.unwrap();
    let mut tx = writer.begin().await.unwrap();
    sqlx::query("UPDATE documents SET status = 'EXPIRED' WHERE title = 'Invoice 6'")
        .execute(&mut *tx)
        .await
        .unwrap();
    let expected = really(pool, account, "invoice", FILTERS[0].1).await;
    let (_, data) = ids(&app, &key, "search=invoice").await;
    assert_eq!(data["total"], expected);
    assert!(kept_terms(&app, account).await.is_empty());
    tx.commit().await.unwrap();
    assert_search_totals(&app, &key, account, &["invoice"], "after the writer").await;
    assert_eq!(kept_terms(&app, account).await, ["%invoice%"]);
}

/// At most 32 terms are kept per account, the least recently searched dropped; a dropped
/// term's next search counts it afresh, exactly.
#[tokio::test]
async fn kept_search_terms_are_bounded_per_account() {
    let app = TestApp::spawn().await;
    let pool = &app.db.pool;
    let (account, key) = app.account(100_000).await;
    seed(pool, account, 1100, "Invoice 1%s").await;
    // 36 substrings of "Invoice 1", each in every title.
    let text: Vec<char> = "invoice 1".chars().collect();
    let mut terms = Vec::new();
    for start in 0..text.len() {
        for end in start + 1..=text.len() {
            let term: String = text[start..end].iter().collect();
            if !term.trim().is_empty() && !terms.contains(&term) {
                terms.push(term);
            }
        }
    }
    assert!(terms.len() > 32, "{}", terms.len());
    for term in &terms {
        ids(&app, &key, &format!("search={}", urlencode(term))).await;
    }
    assert_eq!(kept_terms(&app, account).await.len(), 32);
    seed(pool, account, 7, "Invoice 2%s").await;
    let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
    assert_search_totals(&app, &key, account, &terms, "after dropping terms").await;
}
