//! A real HTTP server on loopback that receives webhooks.

use std::collections::HashMap;

use serde_json::Value;

use crate::{eventually::wait_for_matching, process::free_port};

/// A real HTTP server on loopback that receives webhooks: it records every request and answers
/// the statuses it was told to, in order (then 200). A 3xx answer points at `/redirected`.
pub struct Receiver {
    pub port: u16,
    received: std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
    answered: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    plan: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
    /// True while requests are held unanswered.
    holding: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: HashMap<String, String>,
    pub body: String,
    /// The status it was answered (`None` while held).
    pub answered: Option<u16>,
}

impl Receiver {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    pub async fn start_on(port: u16) -> Self {
        use axum::{extract::State, http::StatusCode, response::IntoResponse};
        type Shared = (
            std::sync::Arc<std::sync::Mutex<Vec<Received>>>,
            std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
            tokio::sync::watch::Receiver<bool>,
            std::sync::Arc<std::sync::atomic::AtomicUsize>,
        );
        async fn receive(
            State((received, plan, mut holding, answered)): State<Shared>,
            request: axum::extract::Request,
        ) -> axum::response::Response {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, 10 << 20)
                .await
                .unwrap_or_default();
            let index = {
                let mut requests = received.lock().unwrap();
                requests.push(Received {
                    path: parts.uri.path().to_owned(),
                    headers: parts
                        .headers
                        .iter()
                        .map(|(k, v)| {
                            (
                                k.as_str().to_owned(),
                                v.to_str().unwrap_or_default().to_owned(),
                            )
                        })
                        .collect(),
                    body: String::from_utf8_lossy(&body).into_owned(),
                    answered: None,
                });
                requests.len() - 1
            };
            let _ = holding.wait_for(|held| !held).await;
            answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let status = plan.lock().unwrap().pop_front().unwrap_or(200);
            received.lock().unwrap()[index].answered = Some(status);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            if status.is_redirection() {
                (status, [("location", "/redirected")], "moved").into_response()
            } else {
                (status, format!("answered {}", status.as_u16())).into_response()
            }
        }
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let plan = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
        let (holding, held) = tokio::sync::watch::channel(false);
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let router = axum::Router::new().fallback(receive).with_state((
            received.clone(),
            plan.clone(),
            held,
            answered.clone(),
        ));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind the receiver");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self {
            port,
            received,
            answered,
            plan,
            holding,
            task,
        }
    }

    /// Requests arriving from now on are recorded but not answered until `release`.
    pub fn hold(&self) {
        self.holding.send_replace(true);
    }

    pub fn release(&self) {
        self.holding.send_replace(false);
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hooks", self.port)
    }

    /// How many requests it has answered (a held request is not answered until `release`).
    pub fn answered(&self) -> usize {
        self.answered.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn respond_with(&self, statuses: &[u16]) {
        self.plan.lock().unwrap().extend(statuses);
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits until at least `count` requests matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Received) -> bool,
    ) -> Vec<Received> {
        wait_for_matching(|| self.requests(), count, timeout, filter).await
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Received {
    /// The `type` of a webhook body.
    pub fn event_type(&self) -> String {
        serde_json::from_str::<Value>(&self.body)
            .ok()
            .and_then(|b| b["type"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }
}
