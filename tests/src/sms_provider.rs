//! A real HTTP server on loopback that speaks the shape of Twilio's Messages API.

use std::collections::HashMap;

use reqwest::Client;
use uuid::Uuid;

use crate::{eventually::wait_for_matching, http::serve_on_loopback};

/// A real HTTP server on loopback that speaks the shape of Twilio's Messages API:
/// `POST /2010-04-01/Accounts/{sid}/Messages.json`, form-encoded `To`, `From`, `Body` (and
/// `StatusCallback`), HTTP basic auth with the account SID and token. It answers the statuses
/// it was told to, in order (then 201), with Twilio's JSON bodies, and can post delivery
/// reports back to the callback URL as Twilio does.
pub struct SmsProvider {
    pub port: u16,
    received: std::sync::Arc<std::sync::Mutex<Vec<Texted>>>,
    plan: std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
    holding: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

/// One request the provider received, with what it answered (`None` while held).
#[derive(Debug, Clone)]
pub struct Texted {
    pub to: String,
    pub from: String,
    pub body: String,
    pub status_callback: Option<String>,
    pub answered: Option<u16>,
    /// The `sid` given in a 201 answer.
    pub sid: Option<String>,
}

pub const TWILIO_SID: &str = "ACtest0123456789";
pub const TWILIO_TOKEN: &str = "twilio-test-token-not-a-secret";

impl SmsProvider {
    pub async fn start() -> Self {
        use axum::{
            extract::{Path, State},
            http::{HeaderMap, StatusCode},
            response::IntoResponse,
        };
        type Shared = (
            std::sync::Arc<std::sync::Mutex<Vec<Texted>>>,
            std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<u16>>>,
            tokio::sync::watch::Receiver<bool>,
        );
        async fn messages(
            State((received, plan, mut holding)): State<Shared>,
            Path(sid): Path<String>,
            headers: HeaderMap,
            axum::Form(form): axum::Form<HashMap<String, String>>,
        ) -> axum::response::Response {
            use base64::Engine;
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{TWILIO_SID}:{TWILIO_TOKEN}"))
            );
            let authorised = sid == TWILIO_SID
                && headers.get("authorization").and_then(|v| v.to_str().ok())
                    == Some(expected.as_str());
            if !authorised {
                let body =
                    serde_json::json!({"code": 20003, "message": "Authenticate", "status": 401});
                return (StatusCode::UNAUTHORIZED, axum::Json(body)).into_response();
            }
            let index = {
                let mut received = received.lock().unwrap();
                received.push(Texted {
                    to: form.get("To").cloned().unwrap_or_default(),
                    from: form.get("From").cloned().unwrap_or_default(),
                    body: form.get("Body").cloned().unwrap_or_default(),
                    status_callback: form.get("StatusCallback").cloned(),
                    answered: None,
                    sid: None,
                });
                received.len() - 1
            };
            let _ = holding.wait_for(|held| !held).await;
            let status = plan.lock().unwrap().pop_front().unwrap_or(201);
            let sid = format!("SM{}", Uuid::new_v4().simple());
            {
                let mut received = received.lock().unwrap();
                received[index].answered = Some(status);
                if status == 201 {
                    received[index].sid = Some(sid.clone());
                }
            }
            let body = match status {
                201 => serde_json::json!({"sid": sid, "status": "queued", "to": form.get("To")}),
                429 => {
                    serde_json::json!({"code": 20429, "message": "Too Many Requests", "status": 429})
                }
                400 => serde_json::json!({
                    "code": 21211,
                    "message": format!("The 'To' number {} is not a valid phone number.", form.get("To").cloned().unwrap_or_default()),
                    "status": 400
                }),
                other => {
                    serde_json::json!({"code": 20500, "message": "Internal Server Error", "status": other})
                }
            };
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::CREATED);
            (status, axum::Json(body)).into_response()
        }
        let received = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let plan = std::sync::Arc::new(std::sync::Mutex::new(std::collections::VecDeque::new()));
        let (holding, held) = tokio::sync::watch::channel(false);
        let router = axum::Router::new()
            .route(
                "/2010-04-01/Accounts/{sid}/Messages.json",
                axum::routing::post(messages),
            )
            .with_state((received.clone(), plan.clone(), held));
        let (port, task) = serve_on_loopback(router, "the SMS provider").await;
        Self {
            port,
            received,
            plan,
            holding,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The settings of an API and a worker that send SMS through this provider.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        vec![
            ("SMS_PROVIDER", "twilio".into()),
            ("SMS_TWILIO_BASE_URL", self.base_url()),
            ("TWILIO_ACCOUNT_SID", TWILIO_SID.into()),
            ("TWILIO_AUTH_TOKEN", TWILIO_TOKEN.into()),
            ("SMS_FROM", "+15005550006".into()),
            ("SMS_PROVIDER_ALLOW_PRIVATE", "true".into()),
        ]
    }

    pub fn respond_with(&self, statuses: &[u16]) {
        self.plan.lock().unwrap().extend(statuses);
    }

    /// Requests arriving from now on are recorded but not answered until `release`.
    pub fn hold(&self) {
        self.holding.send_replace(true);
    }

    pub fn release(&self) {
        self.holding.send_replace(false);
    }

    pub fn requests(&self) -> Vec<Texted> {
        self.received.lock().unwrap().clone()
    }

    /// The messages it accepted (answered 201).
    pub fn accepted(&self) -> Vec<Texted> {
        self.requests()
            .into_iter()
            .filter(|t| t.answered == Some(201))
            .collect()
    }

    /// Waits until at least `count` requests matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Texted) -> bool,
    ) -> Vec<Texted> {
        wait_for_matching(|| self.requests(), count, timeout, filter).await
    }

    /// Posts a delivery report for `message` to its callback URL, as Twilio does; the status
    /// the callback answered.
    pub async fn report(&self, message: &Texted, status: &str, error_code: Option<&str>) -> u16 {
        let url = message
            .status_callback
            .as_ref()
            .expect("the message asked for delivery reports");
        let mut form = vec![
            ("MessageSid", message.sid.clone().unwrap_or_default()),
            ("MessageStatus", status.to_owned()),
            ("To", message.to.clone()),
        ];
        if let Some(code) = error_code {
            form.push(("ErrorCode", code.to_owned()));
        }
        Client::new()
            .post(url)
            .form(&form)
            .send()
            .await
            .expect("the callback answers")
            .status()
            .as_u16()
    }
}

impl Drop for SmsProvider {
    fn drop(&mut self) {
        self.task.abort();
    }
}
