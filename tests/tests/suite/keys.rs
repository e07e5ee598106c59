//! API key lifecycle and the header's case-insensitivity.

use reqwest::Method;
use signet_common::store::api_keys;
use signet_tests::{TestApp, assert_error, read};

#[tokio::test]
async fn regenerate_and_revoke_take_effect_at_once() {
    let app = TestApp::spawn().await;
    let (account, old_key) = app.account(1000).await;
    assert!(
        old_key.starts_with("sk_") && old_key.len() == 46,
        "{old_key}"
    );
    for header in ["X-API-KEY", "x-api-key", "X-Api-Key"] {
        let response = app
            .client
            .get(format!("{}/external/api/v1/documents", app.base))
            .header(header, &old_key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{header}");
    }
    let new_key = api_keys::generate(&app.db.pool, account.into())
        .await
        .unwrap();
    assert_ne!(new_key.key, old_key);
    assert_eq!(new_key.display, api_keys::mask(&new_key.key));
    assert_error(
        &app.get("/documents", &old_key).await,
        401,
        "UNAUTHENTICATED",
        "Invalid API key",
    );
    assert_eq!(app.get("/documents", &new_key.key).await.0, 200);

    assert!(
        api_keys::revoke(&app.db.pool, account.into())
            .await
            .unwrap()
    );
    assert_error(
        &app.get("/documents", &new_key.key).await,
        401,
        "UNAUTHENTICATED",
        "Invalid API key",
    );
    assert!(
        !api_keys::revoke(&app.db.pool, account.into())
            .await
            .unwrap(),
        "nothing left to revoke"
    );
    assert!(
        api_keys::active(&app.db.pool, account.into())
            .await
            .unwrap()
            .is_none()
    );

    let fresh = api_keys::generate(&app.db.pool, account.into())
        .await
        .unwrap();
    let response = read(
        app.call(Method::GET, "/documents", Some(&fresh.key), None)
            .await,
    )
    .await;
    assert_eq!(response.0, 200);
    let active = api_keys::active(&app.db.pool, account.into())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(active.display, fresh.display);
    assert!(active.last_used_at.is_some(), "use is recorded");
}

#[tokio::test]
async fn concurrent_regenerations_leave_exactly_one_working_key() {
    let app = TestApp::spawn().await;
    let (account, _) = app.account(1000).await;
    let keys =
        futures::future::join_all((0..8).map(|_| api_keys::generate(&app.db.pool, account.into())))
            .await;
    let mut working = 0;
    for key in keys {
        if app.get("/documents", &key.unwrap().key).await.0 == 200 {
            working += 1;
        }
    }
    assert_eq!(working, 1);
}
