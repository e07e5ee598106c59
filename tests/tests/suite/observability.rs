//! Operators and SREs: traces from API to workers over OTLP, Prometheus metrics, readiness.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use opentelemetry_proto::tonic::{
    collector::trace::v1::ExportTraceServiceRequest, common::v1::any_value::Value as AnyValue,
};
use prost::Message;
use serde_json::json;
use signet_tests::{
    ApiProcess, LETTER, Mailbox, TcpProxy, TestApp, WorkerProcess, free_port, poll_until,
};

/// One exported span, flattened.
#[derive(Debug, Clone)]
struct Span {
    service: String,
    name: String,
    trace_id: String,
    span_id: String,
    parent_span_id: String,
    attributes: HashMap<String, String>,
}

/// A real OTLP/HTTP listener: decodes each protobuf export with the opentelemetry-proto types.
struct OtlpListener {
    port: u16,
    spans: Arc<Mutex<Vec<Span>>>,
    task: tokio::task::JoinHandle<()>,
}

impl OtlpListener {
    async fn start() -> Self {
        let spans: Arc<Mutex<Vec<Span>>> = Arc::default();
        let collected = spans.clone();
        let router = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(move |body: axum::body::Bytes| {
                let collected = collected.clone();
                async move {
                    let request =
                        ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf export");
                    let mut spans = collected.lock().unwrap();
                    for resource in request.resource_spans {
                        let service = resource
                            .resource
                            .iter()
                            .flat_map(|r| &r.attributes)
                            .find(|a| a.key == "service.name")
                            .and_then(|a| a.value.as_ref()?.value.as_ref())
                            .map(text)
                            .unwrap_or_default();
                        for span in resource.scope_spans.into_iter().flat_map(|s| s.spans) {
                            spans.push(Span {
                                service: service.clone(),
                                name: span.name,
                                trace_id: hex(&span.trace_id),
                                span_id: hex(&span.span_id),
                                parent_span_id: hex(&span.parent_span_id),
                                attributes: span
                                    .attributes
                                    .iter()
                                    .filter_map(|a| {
                                        Some((
                                            a.key.clone(),
                                            text(a.value.as_ref()?.value.as_ref()?),
                                        ))
                                    })
                                    .collect(),
                            });
                        }
                    }
                    axum::http::StatusCode::OK
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { port, spans, task }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn wait_for(&self, timeout: Duration, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
        poll_until(
            timeout,
            || async { self.spans.lock().unwrap().clone() },
            |spans: &Vec<Span>| done(spans),
        )
        .await
    }
}

impl Drop for OtlpListener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn text(value: &AnyValue) -> String {
    match value {
        AnyValue::StringValue(s) => s.clone(),
        AnyValue::IntValue(i) => i.to_string(),
        AnyValue::BoolValue(b) => b.to_string(),
        AnyValue::DoubleValue(d) => d.to_string(),
        other => format!("{other:?}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn one_trace_from_the_send_request_to_each_smtp_and_sms_send() {
    let app = TestApp::spawn().await;
    let otlp = OtlpListener::start().await;
    let mailbox = Mailbox::start().await;
    let otel = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
    ];
    let otel: Vec<(&str, &str)> = otel.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let api = ApiProcess::start(&app, &otel).await;
    let _worker = WorkerProcess::start(&app, &mailbox.url(), &otel);
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Traced", &[LETTER]).await;
    let client = reqwest::Client::new();
    let post = |path: String, body: serde_json::Value, traceparent: Option<&'static str>| {
        let mut request = client
            .post(format!("{}/external/api/v1{path}", api.base))
            .header("x-api-key", &key)
            .json(&body);
        if let Some(traceparent) = traceparent {
            request = request.header("traceparent", traceparent);
        }
        request.send()
    };
    assert!(post(format!("/documents/{doc}/recipients"), json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER", "countryCode": "+44", "phoneNumber": "07911 123456"}, {"name": "Bob", "email": "bob@signet.test", "role": "SIGNER"}]), None).await.unwrap().status().is_success());
    assert!(post(format!("/documents/{doc}/fields"), json!([{"recipientEmail": "ann@signet.test", "type": "SIGNATURE", "page": 1, "x": 10, "y": 10}, {"recipientEmail": "bob@signet.test", "type": "SIGNATURE", "page": 1, "x": 10, "y": 100}]), None).await.unwrap().status().is_success());
    // The caller's trace: the send must continue it.
    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const CALLER_SPAN: &str = "00f067aa0ba902b7";
    let sent = post(
        format!("/documents/{doc}/send"),
        json!({"message": "m", "description": "d", "expiryDate": "2099-01-01T00:00:00Z"}),
        Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    )
    .await
    .unwrap();
    assert_eq!(sent.status(), 200);
    assert_eq!(
        mailbox
            .wait_for(2, Duration::from_secs(30), |_| true)
            .await
            .len(),
        2
    );

    let spans = otlp
        .wait_for(Duration::from_secs(30), |spans| {
            // Children end (and may be exported) before their parents: wait for all of them.
            let count = |name: &str| {
                spans
                    .iter()
                    .filter(|s| s.trace_id == TRACE && s.name == name)
                    .count()
            };
            count("smtp.send") >= 2
                && count("DispatchEmail") >= 2
                && count("sms.send") >= 1
                && count("DispatchSms") >= 1
                && count("POST /external/api/v1/documents/{id}/send") >= 1
                && every_job_chain_exported(spans, CALLER_SPAN)
        })
        .await;
    let in_trace: Vec<&Span> = spans.iter().filter(|s| s.trace_id == TRACE).collect();
    let names: Vec<String> = in_trace
        .iter()
        .map(|s| format!("{}:{}", s.service, s.name))
        .collect();
    let request = in_trace
        .iter()
        .find(|s| {
            s.service == "signet-api" && s.name == "POST /external/api/v1/documents/{id}/send"
        })
        .unwrap_or_else(|| panic!("no request span in {names:?}"));
    assert_eq!(
        request.parent_span_id, CALLER_SPAN,
        "the request continues the incoming traceparent"
    );
    assert_eq!(
        request
            .attributes
            .get("http.response.status_code")
            .map(String::as_str),
        Some("200")
    );
    assert_eq!(
        request.attributes.get("account.id"),
        Some(&account.to_string())
    );
    assert!(
        spans
            .iter()
            .all(|s| s.attributes.values().all(|v| !v.contains(&key))),
        "the API key is never recorded"
    );

    let by_id: HashMap<&str, &Span> = in_trace.iter().map(|s| (s.span_id.as_str(), *s)).collect();
    let descends_from = |span: &Span, ancestor: &str| {
        let mut current = span.parent_span_id.as_str();
        for _ in 0..20 {
            if current == ancestor {
                return true;
            }
            match by_id.get(current) {
                Some(parent) => current = parent.parent_span_id.as_str(),
                None => return false,
            }
        }
        false
    };
    let dispatches: Vec<&&Span> = in_trace
        .iter()
        .filter(|s| s.service == "signet-worker" && s.name == "DispatchEmail")
        .collect();
    assert_eq!(
        dispatches.len(),
        2,
        "one DispatchEmail per recipient in {names:?}"
    );
    for dispatch in &dispatches {
        assert!(
            descends_from(dispatch, &request.span_id),
            "DispatchEmail continues the request's trace: {names:?}"
        );
        let smtp: Vec<&&Span> = in_trace
            .iter()
            .filter(|s| s.name == "smtp.send" && s.parent_span_id == dispatch.span_id)
            .collect();
        assert_eq!(smtp.len(), 1, "its SMTP send is its child");
        assert_eq!(smtp[0].service, "signet-worker");
    }
    // Ann has a phone number: her invitation SMS is in the same trace, and its link is not.
    let dispatch_sms: Vec<&&Span> = in_trace
        .iter()
        .filter(|s| s.service == "signet-worker" && s.name == "DispatchSms")
        .collect();
    assert_eq!(dispatch_sms.len(), 1, "one DispatchSms in {names:?}");
    assert!(descends_from(dispatch_sms[0], &request.span_id));
    let sms_send: Vec<&&Span> = in_trace
        .iter()
        .filter(|s| s.name == "sms.send" && s.parent_span_id == dispatch_sms[0].span_id)
        .collect();
    assert_eq!(sms_send.len(), 1, "its provider call is its child");
    assert!(
        spans
            .iter()
            .all(|s| s.attributes.values().all(|v| !v.contains("/sign/"))),
        "no signing link is recorded in a span"
    );
}

/// Whether each job span's ancestors, up to a root or the caller's span, have all been exported:
/// a parent ends (and is exported) after its children, so the `task` span around a job may
/// arrive a batch later than the job's own.
fn every_job_chain_exported(spans: &[Span], caller: &str) -> bool {
    let by_id: HashMap<&str, &Span> = spans.iter().map(|s| (s.span_id.as_str(), s)).collect();
    spans
        .iter()
        .filter(|s| s.name == "DispatchEmail" || s.name == "DispatchSms")
        .all(|job| {
            let mut current = job;
            for _ in 0..20 {
                if current.parent_span_id.is_empty() || current.parent_span_id == caller {
                    return true;
                }
                match by_id.get(current.parent_span_id.as_str()) {
                    Some(parent) => current = parent,
                    None => return false,
                }
            }
            false
        })
}

pub(crate) fn metric(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned())))
        .expect("Prometheus text format");
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            _ => 0.0,
        })
        .sum()
}

#[tokio::test]
async fn metrics_move_with_the_traffic() {
    let app = TestApp::spawn().await;
    // 3 lists + recipients + fields + send use the limit of 6; the next request is refused.
    let (account, key) = app.account(6).await;
    let scrape = || async {
        app.client
            .get(format!("{}/metrics", app.base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let list = [
        ("method", "GET"),
        ("route", "/external/api/v1/documents"),
        ("status", "200"),
    ];
    let before = scrape().await;
    for _ in 0..3 {
        assert_eq!(app.get("/documents", &key).await.0, 200);
    }
    let doc = app.document(account, "Measured", &[LETTER]).await;
    app.post(
        &format!("/documents/{doc}/recipients"),
        &key,
        &json!([{"name": "Ann", "email": "ann@signet.test", "role": "SIGNER"}]),
    )
    .await;
    app.post(
        &format!("/documents/{doc}/fields"),
        &key,
        &json!([{"recipientEmail": "ann@signet.test", "type": "TEXT", "page": 1, "x": 0, "y": 0}]),
    )
    .await;
    assert_eq!(
        app.post(
            &format!("/documents/{doc}/send"),
            &key,
            &json!({"message": "m", "description": "", "expiryDate": "2099-01-01T00:00:00Z"})
        )
        .await
        .0,
        200
    );
    assert_eq!(app.get("/documents", &key).await.0, 429);
    let after = scrape().await;
    assert_eq!(
        metric(&after, "signet_http_requests_total", &list)
            - metric(&before, "signet_http_requests_total", &list),
        3.0
    );
    assert_eq!(
        metric(&after, "signet_api_usage_limit_refusals_total", &[])
            - metric(&before, "signet_api_usage_limit_refusals_total", &[]),
        1.0
    );
    assert!(
        metric(
            &after,
            "signet_http_request_duration_seconds_count",
            &[("route", "/external/api/v1/documents")]
        ) >= 3.0
    );
    assert_eq!(
        metric(
            &after,
            "signet_queue_depth",
            &[("job_type", "signet.dispatch_email")]
        ),
        1.0,
        "the invitation waits in the queue"
    );

    // The worker drains it; its own /metrics shows the job, the e-mail and an empty queue.
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    assert_eq!(
        mailbox
            .wait_for(1, Duration::from_secs(30), |_| true)
            .await
            .len(),
        1
    );
    let admin = worker.admin_addr().await;
    let text = poll_until(
        Duration::from_secs(10),
        || async {
            reqwest::get(format!("http://{admin}/metrics"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        },
        |text| {
            metric(
                text,
                "signet_emails_total",
                &[("kind", "INVITATION"), ("outcome", "sent")],
            ) == 1.0
                && metric(
                    text,
                    "signet_queue_depth",
                    &[("job_type", "signet.dispatch_email")],
                ) == 0.0
                // apalis counts a task once its handler has returned, a moment after the
                // handler counted the e-mail; an e-mail's task is its outbox row.
                && text
                    .lines()
                    .any(|l| l.starts_with("tasks_total") && l.contains("OutgoingEmail"))
        },
    )
    .await;
    assert_eq!(
        metric(
            &text,
            "signet_emails_total",
            &[("kind", "INVITATION"), ("outcome", "sent")]
        ),
        1.0,
        "{text}"
    );
    assert_eq!(
        metric(
            &text,
            "signet_queue_depth",
            &[("job_type", "signet.dispatch_email")]
        ),
        0.0
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("tasks_total") && l.contains("OutgoingEmail")),
        "jobs by type and outcome: {text}"
    );
    assert!(text.contains("task_duration_seconds"), "job durations");
    assert_eq!(
        reqwest::get(format!("http://{admin}/healthz"))
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn readiness_follows_the_database_without_a_restart() {
    let db = signet_tests::TestDb::new().await;
    let upstream = {
        let options = signet_tests::admin_options();
        let host = options.get_host();
        let host = if host.starts_with('/') {
            "127.0.0.1"
        } else {
            host
        };
        tokio::net::lookup_host((host, options.get_port()))
            .await
            .unwrap()
            .next()
            .unwrap()
    };
    let proxy = TcpProxy::start(upstream).await;
    let url = proxy.url_for(&db);
    let app = TestApp::spawn_on(db, &[("DATABASE_URL", &url)]).await;
    let mailbox_port = free_port();
    let worker = WorkerProcess::start(
        &app,
        &format!("smtp://127.0.0.1:{mailbox_port}"),
        &[("DATABASE_URL", &url)],
    );
    let admin = worker.admin_addr().await;
    let ready = |base: String| async move {
        reqwest::get(format!("{base}/readyz"))
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    let api = app.base.clone();
    let worker_base = format!("http://{admin}");
    let until = |want: u16, base: String| async move {
        poll_until(
            Duration::from_secs(15),
            || ready(base.clone()),
            |status| *status == want,
        )
        .await
            == want
    };
    assert!(
        until(200, api.clone()).await && until(200, worker_base.clone()).await,
        "ready while the database answers"
    );
    proxy.cut().await;
    assert!(
        until(503, api.clone()).await,
        "the API is unready while the database is away"
    );
    assert!(until(503, worker_base.clone()).await, "so is the worker");
    let live = reqwest::get(format!("{api}/healthz"))
        .await
        .unwrap()
        .status();
    assert_eq!(live, 200, "but alive");
    proxy.restore().await;
    assert!(until(200, api).await, "ready again, same process");
    assert!(until(200, worker_base).await, "the worker too");
}
