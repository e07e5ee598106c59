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
