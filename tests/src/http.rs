//! Reading the API's answers, and serving a router of the tests' own on loopback.

use reqwest::Response;
use serde_json::Value;

/// Status and JSON body of a response (panics if the body is not JSON: every response must be).
pub async fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    let json = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("response {status} is not JSON ({e}): {text:?}"));
    (status, json)
}

/// Asserts an error envelope: status, code, message and `data: {}`.
#[track_caller]
pub fn assert_error(actual: &(u16, Value), status: u16, code: &str, message: &str) {
    let (actual_status, body) = actual;
    assert_eq!(
        (
            *actual_status,
            body["code"].as_str(),
            body["message"].as_str()
        ),
        (status, Some(code), Some(message)),
        "body: {body}"
    );
    assert_eq!(
        body["data"],
        serde_json::json!({}),
        "data must be {{}}: {body}"
    );
}

/// Serves `router` on a free loopback port until the task is aborted: the port and the task.
pub(crate) async fn serve_on_loopback(
    router: axum::Router,
    what: &str,
) -> (u16, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .unwrap_or_else(|e| panic!("bind {what}: {e}"));
    let port = listener.local_addr().expect("addr").port();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (port, task)
}
