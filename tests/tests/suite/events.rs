//! The event feed (issue #34, `GET /events`): every event the account's webhooks carry, in
//! order, from any cursor, whether or not a webhook URL is set; checked against what a real
//! HTTP receiver got from the real worker.

use std::{collections::HashMap, time::Duration};

use reqwest::Method;
use serde_json::Value;
use signet_common::{
    model::{AccountId, EventId, WebhookEvent},
    store::events,
};
use signet_tests::{Mailbox, Receiver, TestApp, WorkerProcess, assert_error, eventually};
use uuid::Uuid;

use crate::{
    signing_flow::{invitations, send_document, sign, wait_for_status},
    webhooks::account_with_webhook,
};

/// A page of the feed, and its raw text (to find the webhooks' bodies in it byte for byte).
async fn feed(app: &TestApp, key: &str, query: &str) -> (Value, String) {
    let response = app
        .call(Method::GET, &format!("/events{query}"), Some(key), None)
        .await;
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["code"], "DEFAULT", "{text}");
    assert_eq!(body["message"], "Events retrieved successfully");
    (body["data"].clone(), text)
}

fn items(page: &Value) -> Vec<Value> {
    page["items"].as_array().unwrap().clone()
}

/// Every event of the account, page after page of `limit`, following `nextCursor`.
async fn whole_feed(app: &TestApp, key: &str, limit: usize) -> Vec<Value> {
    let mut all = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let query = match &after {
            Some(cursor) => format!("?limit={limit}&after={cursor}"),
            None => format!("?limit={limit}"),
        };
        let (page, _) = feed(app, key, &query).await;
        let got = items(&page);
        assert!(got.len() <= limit);
        all.extend(got.iter().cloned());
        if page["hasMore"] == false {
            return all;
        }
        assert_eq!(got.len(), limit, "a page with more after it is full");
        assert_eq!(page["nextCursor"], got.last().unwrap()["cursor"]);
        after = Some(page["nextCursor"].as_str().unwrap().to_owned());
    }
}

/// The feed once it holds `count` events (an event appears once the transactions that were
/// running when it was written have ended).
async fn feed_of(app: &TestApp, key: &str, count: usize) -> Vec<Value> {
    eventually(
        format!("{count} events in the feed"),
        Duration::from_secs(60),
        || async {
            let all = whole_feed(app, key, 100).await;
            (all.len() >= count).then_some(all)
        },
    )
    .await
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_owned())
        .collect()
}

const JOURNEY: [&str; 6] = [
    "document.sent",
    "document.viewed",
    "document.signed",
    "document.viewed",
    "document.signed",
    "document.completed",
];

#[tokio::test]
async fn the_feed_holds_exactly_the_delivered_webhooks_in_order_from_any_cursor() {
    let app = TestApp::spawn().await;
    let receiver = Receiver::start().await;
    let mailbox = Mailbox::start().await;
    let (hooked, hooked_key, _) = account_with_webhook(&app, &receiver.url()).await;
    let (plain, plain_key) = app.account(10_000).await;
    let (_, stranger_key) = app.account(10_000).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &[("WEBHOOK_ALLOW_PRIVATE", "true")]);

    // The same journey for an account with a webhook URL and for one without: recipients,
    // fields, send, each signer opens and signs in turn, completion.
    let signers = |domain: &str| {
        [
            (format!("ann@{domain}"), "SIGNER"),
            (format!("bob@{domain}"), "SIGNER"),
        ]
    };
    let mut docs = Vec::new();
    for (account, key, domain) in [
        (hooked, &hooked_key, "hooked.test"),
        (plain, &plain_key, "plain.test"),
    ] {
        let people = signers(domain);
        let recipients: Vec<(&str, &str)> = people.iter().map(|(e, r)| (e.as_str(), *r)).collect();
        let fields: Vec<(&str, &str)> = people
            .iter()
            .map(|(e, _)| (e.as_str(), "SIGNATURE"))
            .collect();
        docs.push(
            send_document(
                &app,
                account,
                key,
                &recipients,
                &fields,
                "2099-01-01T00:00:00Z",
            )
            .await,
        );
    }
    let links = invitations(&mailbox, 4).await;
    for (doc, key, domain) in [
        (docs[0], &hooked_key, "hooked.test"),
        (docs[1], &plain_key, "plain.test"),
    ] {
        for signer in ["ann", "bob"] {
            let link = &links[&format!("{signer}@{domain}")];
            assert_eq!(sign(&app, link, &["Signed"]).await.0, 200);
        }
        wait_for_status(&app, key, doc, "COMPLETED").await;
    }

    // What the receiver got, by webhook-id (a receiver may see one twice after a crash).
    let received = receiver
        .wait_for(6, Duration::from_secs(60), |_| true)
        .await;
    let delivered: HashMap<String, String> = received
        .iter()
        .map(|r| (r.headers["webhook-id"].clone(), r.body.clone()))
        .collect();
    assert_eq!(delivered.len(), 6, "{received:#?}");

    let hooked_feed = feed_of(&app, &hooked_key, 6).await;
    assert_eq!(types(&hooked_feed), JOURNEY, "in the order they happened");
    let (_, raw) = feed(&app, &hooked_key, "?limit=100").await;
    for event in &hooked_feed {
        let id = event["id"].as_str().unwrap();
        let body = delivered
            .get(id)
            .unwrap_or_else(|| panic!("{id} was delivered: {delivered:#?}"));
        assert!(
            raw.contains(body.as_str()),
            "the feed carries the webhook's body byte for byte: {body}"
        );
        assert_eq!(
            event["payload"],
            serde_json::from_str::<Value>(body).unwrap()
        );
        assert_eq!(event["payload"]["type"], event["type"]);
        assert_eq!(event["payload"]["data"]["id"], docs[0].to_string());
        assert!(event["createdAt"].as_str().unwrap().ends_with('Z'));
    }
    let timestamps: Vec<&str> = hooked_feed
        .iter()
        .map(|e| e["payload"]["timestamp"].as_str().unwrap())
        .collect();
    assert!(
        timestamps.windows(2).all(|w| w[0] <= w[1]),
        "{timestamps:?}"
    );
    let delivery_ids: Vec<String> =
        sqlx::query_scalar("SELECT event_id FROM webhook_deliveries ORDER BY event_id")
            .fetch_all(&app.db.pool)
            .await
            .unwrap();
    let mut feed_ids: Vec<String> = hooked_feed
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    feed_ids.sort();
    assert_eq!(delivery_ids, feed_ids, "one delivery per event, of its id");

    // Resumable from every cursor: what follows an event is the rest of the feed.
    for (i, event) in hooked_feed.iter().enumerate() {
        let cursor = event["cursor"].as_str().unwrap();
        let (page, _) = feed(&app, &hooked_key, &format!("?after={cursor}&limit=100")).await;
        assert_eq!(items(&page), hooked_feed[i + 1..], "after event {i}");
        assert_eq!(page["hasMore"], false);
        let expected_next = hooked_feed.last().unwrap()["cursor"].clone();
        assert_eq!(page["nextCursor"], expected_next, "after event {i}");
    }
    // One at a time, and in pages of four, the same events.
    assert_eq!(whole_feed(&app, &hooked_key, 1).await, hooked_feed);
    assert_eq!(whole_feed(&app, &hooked_key, 4).await, hooked_feed);
    // By type, in the same order.
    let (signed, _) = feed(
        &app,
        &hooked_key,
        "?type=document.signed,document.completed",
    )
    .await;
    let wanted: Vec<Value> = hooked_feed
        .iter()
        .filter(|e| e["type"] != "document.sent" && e["type"] != "document.viewed")
        .cloned()
        .collect();
    assert_eq!(items(&signed), wanted);
    let (page, _) = feed(&app, &hooked_key, "?limit=2").await;
    assert_eq!(
        (items(&page).len(), &page["hasMore"]),
        (2, &Value::Bool(true))
    );

    // Without a webhook URL: the same events, and no delivery.
    let plain_feed = feed_of(&app, &plain_key, 6).await;
    assert_eq!(types(&plain_feed), JOURNEY);
    assert!(
        plain_feed
            .iter()
            .all(|e| e["payload"]["data"]["id"] == docs[1].to_string())
    );
    let plain_deliveries: i64 =
        sqlx::query_scalar("SELECT count(*) FROM webhook_deliveries WHERE account_id = $1")
            .bind(plain)
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(plain_deliveries, 0);

    // Another account sees none of it, and a cursor of theirs is not one of its own.
    let (page, _) = feed(&app, &stranger_key, "").await;
    assert_eq!(
        page,
        serde_json::json!({"items": [], "nextCursor": null, "hasMore": false})
    );
    let cursor = hooked_feed[0]["cursor"].as_str().unwrap();
    let answer = app
        .get(&format!("/events?after={cursor}"), &stranger_key)
        .await;
    assert_error(&answer, 400, "ERROR", "Invalid query parameter: after");
    // Its own last cursor: an empty page hands the cursor back, to poll again with.
    let last = hooked_feed.last().unwrap()["cursor"].as_str().unwrap();
    let (page, _) = feed(&app, &hooked_key, &format!("?after={last}")).await;
    assert_eq!(
        page,
        serde_json::json!({"items": [], "nextCursor": last, "hasMore": false}),
    );
}

/// The feed's cursor as it was before cursors were signed (format 1): the format byte, the
/// transaction id and the position, base64url.
fn unsigned_cursor(place: events::FeedPosition) -> String {
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    let mut bytes = vec![1];
    bytes.extend_from_slice(&place.txid.to_be_bytes());
    bytes.extend_from_slice(&place.position.to_be_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The place of an event the feed showed, as the database holds it.
async fn place_of(app: &TestApp, event: &Value) -> events::FeedPosition {
    let id = event["id"].as_str().unwrap().trim_start_matches("msg_");
    let (txid, position): (String, i64) =
        sqlx::query_as("SELECT txid::text, position FROM events WHERE id = $1")
            .bind(Uuid::parse_str(id).unwrap())
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    events::FeedPosition {
        txid: txid.parse().unwrap(),
        position,
    }
}

/// Issue #48: a cursor is the feed's own, for the account it was given to. Another account's
/// cursor, one with a character changed and a made-up one far ahead (format 1, position 2^62)
/// are each refused with the documented 400 and nothing of the feed; a real cursor resumes
/// exactly where it was; a format-1 cursor an integrator kept is taken where it names one of
/// the account's events, and refused anywhere else.
#[tokio::test]
async fn a_cursor_is_the_feeds_own_for_its_account() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(10_000).await;
    let (other, other_key) = app.account(10_000).await;
    let mut conn = app.db.pool.acquire().await.unwrap();
    for n in 0..3 {
        record(&mut conn, account, n).await;
        record(&mut conn, other, n).await;
    }
    drop(conn);
    let own = feed_of(&app, &key, 3).await;
    let theirs = feed_of(&app, &other_key, 3).await;
    let cursor = |event: &Value| event["cursor"].as_str().unwrap().to_owned();

    let mut changed = cursor(&own[0]).into_bytes();
    let middle = changed.len() / 2;
    changed[middle] = if changed[middle] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    let far_ahead = unsigned_cursor(events::FeedPosition {
        txid: 1 << 62,
        position: 1 << 62,
    });
    let their_unsigned = unsigned_cursor(place_of(&app, &theirs[0]).await);
    for (what, given) in [
        ("another account's cursor", cursor(&theirs[0])),
        ("a cursor with one character changed", changed),
        ("a made-up cursor far ahead", far_ahead),
        ("another account's event, unsigned", their_unsigned),
    ] {
        let answer = app.get(&format!("/events?after={given}"), &key).await;
        assert_error(&answer, 400, "ERROR", "Invalid query parameter: after");
        assert_eq!(
            answer.1,
            serde_json::json!({"code": "ERROR", "message": "Invalid query parameter: after",
                "data": {}, "errors": [{"field": "after", "reason": "must be a cursor this feed returned"}]}),
            "{what}: {given}"
        );
    }

    // Its own cursors resume exactly after their event.
    let (page, _) = feed(&app, &key, &format!("?after={}", cursor(&own[0]))).await;
    assert_eq!(items(&page), own[1..]);
    assert_eq!(page["nextCursor"], own[2]["cursor"]);
    // A format-1 cursor of one of its events: taken, and what follows is in format 2.
    let kept = unsigned_cursor(place_of(&app, &own[1]).await);
    assert_eq!(kept.len(), 23);
    let (page, _) = feed(&app, &key, &format!("?after={kept}")).await;
    assert_eq!(items(&page), own[2..]);
    let kept_last = unsigned_cursor(place_of(&app, &own[2]).await);
    let (page, _) = feed(&app, &key, &format!("?after={kept_last}")).await;
    assert_eq!(
        page,
        serde_json::json!({"items": [], "nextCursor": own[2]["cursor"], "hasMore": false}),
        "an empty page hands the place back as a cursor of today's format"
    );
}

#[tokio::test]
async fn bad_parameters_are_refused_naming_each() {
    let app = TestApp::spawn().await;
    let (_, key) = app.account(1_000).await;
    let type_reason = format!(
        "must be one or more of {}, separated by commas",
        signet_common::wire::events::every_type()
    );
    assert!(type_reason.contains("document.sent, document.viewed, document.signed"));
    for (query, name, reason) in [
        ("after=nope", "after", "must be a cursor this feed returned"),
        ("after=", "after", "must be a cursor this feed returned"),
        (
            "after=BQAAAAAAAAPpAAAAAAAAACo",
            "after",
            "must be a cursor this feed returned",
        ),
        ("limit=0", "limit", "must be between 1 and 100"),
        ("limit=101", "limit", "must be between 1 and 100"),
        ("limit=ten", "limit", "must be between 1 and 100"),
        ("type=document.archived", "type", type_reason.as_str()),
        ("type=document.sent,", "type", type_reason.as_str()),
        ("type=", "type", type_reason.as_str()),
        (
            "type=document.sent&type=document.signed",
            "type",
            "must be given once",
        ),
        ("limit=5&limit=5", "limit", "must be given once"),
    ] {
        let answer = app.get(&format!("/events?{query}"), &key).await;
        assert_error(
            &answer,
            400,
            "ERROR",
            &format!("Invalid query parameter: {name}"),
        );
        assert_eq!(
            answer.1["errors"],
            serde_json::json!([{"field": name, "reason": reason}]),
            "{query}"
        );
    }
    let (status, _) = app.get("/events", "not-a-key").await;
    assert_eq!(status, 401);
}

/// Records an event as `effects::publish` does, on the caller's transaction.
async fn record(conn: &mut sqlx::PgConnection, account: Uuid, n: usize) -> EventId {
    let id = EventId::new();
    let body = serde_json::json!({"type": "document.sent", "n": n}).to_string();
    events::insert(
        conn,
        id,
        AccountId(account),
        None,
        WebhookEvent::Sent,
        &body,
    )
    .await
    .unwrap();
    id
}

/// A sequence number alone would commit out of order: a transaction that began first can
/// write its event after a later one has committed its own. The feed holds the later event
/// back until the earlier transaction ends, and then gives both in transaction order, so a
/// reader never moves past an event that is still to appear.
#[tokio::test]
async fn an_event_is_never_shown_before_one_that_can_still_appear_ahead_of_it() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(10_000).await;

    let mut earlier = app.db.pool.begin().await.unwrap();
    // The earlier transaction has its id (as any transaction that changed a row has).
    sqlx::query("SELECT pg_current_xact_id()")
        .execute(&mut *earlier)
        .await
        .unwrap();
    let mut later = app.db.pool.begin().await.unwrap();
    let second = record(&mut later, account, 2).await;
    later.commit().await.unwrap();
    // The earlier transaction writes its event after the later one committed: its position
    // in the sequence is after the later event's.
    let first = record(&mut earlier, account, 1).await;

    let (page, _) = feed(&app, &key, "").await;
    assert_eq!(
        items(&page),
        Vec::<Value>::new(),
        "the committed event waits while an earlier transaction runs"
    );

    earlier.commit().await.unwrap();
    let shown = feed_of(&app, &key, 2).await;
    let ids: Vec<&str> = shown.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [first.wire(), second.wire()]);
    let positions: Vec<i64> = sqlx::query_scalar(
        "SELECT position FROM events WHERE account_id = $1 ORDER BY txid, position",
    )
    .bind(account)
    .fetch_all(&app.db.pool)
    .await
    .unwrap();
    assert!(
        positions[0] > positions[1],
        "the first event in the feed has the later sequence number: {positions:?}"
    );
    let cursor = shown[0]["cursor"].as_str().unwrap();
    let (page, _) = feed(&app, &key, &format!("?after={cursor}")).await;
    assert_eq!(items(&page), shown[1..]);
}

#[tokio::test]
async fn ten_thousand_events_page_to_the_end_one_index_range_per_page() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1_000_000).await;
    let (other, _) = app.account(1_000).await;
    const TOTAL: i64 = 10_000;
    // In ten transactions of 1,000, next to another account's events.
    for chunk in 0..10 {
        for (who, n) in [(account, 1_000), (other, 100)] {
            sqlx::query(
                "INSERT INTO events (id, account_id, event_type, payload)
                 SELECT gen_random_uuid(), $1, 'document.signed',
                        json_build_object('type', 'document.signed', 'n', $2 * $3 + i)::text
                 FROM generate_series(0, $3 - 1) i ORDER BY i",
            )
            .bind(who)
            .bind(chunk)
            .bind(n)
            .execute(&app.db.pool)
            .await
            .unwrap();
        }
    }
    sqlx::query("ANALYZE events")
        .execute(&app.db.pool)
        .await
        .unwrap();
    eventually("every event visible", Duration::from_secs(60), || async {
        let visible: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM events WHERE account_id = $1
             AND txid < pg_snapshot_xmin(pg_current_snapshot())",
        )
        .bind(account)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
        (visible == TOTAL).then_some(())
    })
    .await;

    let all = whole_feed(&app, &key, 100).await;
    assert_eq!(all.len(), TOTAL as usize);
    for (i, event) in all.iter().enumerate() {
        assert_eq!(event["payload"]["n"], i as i64, "event {i} in its place");
    }

    // Each page, the first as the last, is one range read of the feed's index that stops
    // after the page (the cost of a page does not grow with the account), planned for its
    // values or, as a prepared statement may be after a few runs, for any.
    let mut conn = app.db.pool.acquire().await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "PREPARE feed_page AS {}",
        events::PAGE
    )))
    .execute(&mut *conn)
    .await
    .unwrap();
    for (mode, from) in ["force_custom_plan", "force_generic_plan"]
        .into_iter()
        .flat_map(|mode| [0, 5_000, 9_900].map(|from| (mode, from)))
    {
        let after = if from == 0 {
            events::FeedPosition::default()
        } else {
            place_of(&app, &all[from - 1]).await
        };
        // Internal values only (a UUID and numbers), written into the statement.
        let plan: Value = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "SET plan_cache_mode = {mode};
             EXPLAIN (ANALYZE, FORMAT JSON)
             EXECUTE feed_page('{account}', '{}', {}, NULL, 101)",
            after.txid, after.position
        )))
        .fetch_all(&mut *conn)
        .await
        .unwrap()
        .last()
        .map(|row| sqlx::Row::get::<Value, _>(row, 0))
        .unwrap();
        let from = format!("{from} ({mode})");
        let mut nodes = Vec::new();
        plan_nodes(&plan[0]["Plan"], &mut nodes);
        let index = nodes
            .iter()
            .find(|node| node["Index Name"] == "events_feed")
            .unwrap_or_else(|| panic!("from {from}, through the feed's index: {plan:#}"));
        assert!(
            index["Actual Rows"].as_f64().unwrap() <= 101.0,
            "from {from}, at most a page and one read: {plan:#}"
        );
        for node in &nodes {
            assert_ne!(node["Node Type"], "Seq Scan", "from {from}: {plan:#}");
            assert_eq!(
                node.get("Rows Removed by Filter")
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0),
                0.0,
                "from {from}: {plan:#}"
            );
        }
    }
}

/// Every node of a plan.
fn plan_nodes<'a>(node: &'a Value, into: &mut Vec<&'a Value>) {
    into.push(node);
    for child in node["Plans"].as_array().into_iter().flatten() {
        plan_nodes(child, into);
    }
}

#[tokio::test]
async fn the_sweep_removes_events_past_the_retention() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let (account, key) = app.account(1_000).await;
    let mut conn = app.db.pool.acquire().await.unwrap();
    let old = record(&mut conn, account, 1).await;
    let kept = record(&mut conn, account, 2).await;
    sqlx::query("UPDATE events SET created_at = now() - interval '3 days' WHERE id = $1")
        .bind(old)
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::query("UPDATE events SET created_at = now() - interval '1 day' WHERE id = $1")
        .bind(kept)
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    let _worker = WorkerProcess::start_with_args(
        &app,
        &mailbox.url(),
        &["--jobs", "sweep"],
        &[
            ("EVENT_RETENTION_DAYS", "2"),
            ("EXPIRY_SWEEP_CRON", "* * * * * *"),
        ],
    );
    let left = eventually(
        "the sweep to remove the event past two days",
        Duration::from_secs(60),
        || async {
            let all = whole_feed(&app, &key, 100).await;
            (all.len() == 1).then_some(all)
        },
    )
    .await;
    assert_eq!(left[0]["id"], kept.wire());
}
