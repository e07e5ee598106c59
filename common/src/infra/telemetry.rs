//! Telemetry for both binaries, set up once at start:
//! - logs to stderr (`RUST_LOG` filters; `LOG_FORMAT` picks text or JSON lines), so the operator
//!   commands' stdout stays one JSON object;
//! - traces exported over OTLP (HTTP/protobuf) when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, with
//!   the standard `OTEL_*` variables honoured by the exporter and the batch processor;
//! - W3C trace context as the global propagator, so traces cross from requests to jobs;
//! - a Prometheus recorder for the `metrics` facade, rendered by `/metrics`.

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use opentelemetry::{KeyValue, global, trace::TracerProvider as _};
use opentelemetry_sdk::{Resource, propagation::TraceContextPropagator, trace::SdkTracerProvider};
use tracing_subscriber::{Layer, layer::SubscriberExt, util::SubscriberInitExt};

use crate::infra::config::LogFormat;

const DEFAULT_FILTER: &str = "info,sqlx=warn,lopdf=error";
/// Spans exported as traces, whatever `RUST_LOG` says about logs: quieting the logs must not
/// blind the traces.
const TRACE_FILTER: &str = "info,sqlx=warn,lopdf=error,hyper=warn,h2=warn,reqwest=warn";

/// Keeps the exporter alive; `shutdown` flushes the spans still buffered.
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    pub fn shutdown(self) {
        if let Some(provider) = self.tracer_provider
            && let Err(e) = provider.shutdown()
        {
            eprintln!("telemetry: flushing spans failed: {e}");
        }
    }
}

/// Logging, and (for a service, not an operator command) tracing export named `service_name`
/// when an OTLP endpoint is configured.
pub fn init(service_name: Option<&'static str>, format: LogFormat) -> Telemetry {
    global::set_text_map_propagator(TraceContextPropagator::new());
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER));
    let logs = match format {
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .boxed(),
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .boxed(),
    }
    .with_filter(filter);
    let tracer_provider =
        service_name
            .filter(|_| otlp_configured())
            .and_then(|name| match tracer_provider(name) {
                Ok(provider) => Some(provider),
                Err(e) => {
                    eprintln!("telemetry: OTLP export disabled: {e}");
                    None
                }
            });
    let traces = tracer_provider.as_ref().map(|provider| {
        global::set_tracer_provider(provider.clone());
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer(service_name.unwrap_or("signet")))
            .with_filter(tracing_subscriber::EnvFilter::new(TRACE_FILTER))
    });
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(traces)
        .try_init();
    Telemetry { tracer_provider }
}

fn otlp_configured() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var(name).is_ok_and(|v| !v.trim().is_empty()))
}

fn tracer_provider(service_name: &'static str) -> Result<SdkTracerProvider, String> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| e.to_string())?;
    let resource = Resource::builder()
        .with_service_name(service_name)
        .with_attribute(KeyValue::new("service.version", crate::VERSION))
        .build();
    Ok(SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .build())
}

/// Latency buckets in seconds, for HTTP requests and jobs.
const DURATION_BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Installs the process-wide Prometheus recorder (once) and returns the handle `/metrics`
/// renders.
pub fn metrics() -> PrometheusHandle {
    static HANDLE: std::sync::OnceLock<PrometheusHandle> = std::sync::OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let handle = PrometheusBuilder::new()
                .set_buckets(&DURATION_BUCKETS)
                .expect("buckets are not empty")
                .install_recorder()
                .expect("no other metrics recorder is installed");
            describe_shared();
            handle
        })
        .clone()
}

/// What every process exports whatever it runs: `# HELP` lines for the figures read at
/// scrape, and the PDF sandbox's counters at 0, so that a dashboard or an alert (`increase`,
/// `rate`) sees a series from the start rather than only after its first increment.
fn describe_shared() {
    use metrics::{describe_counter, describe_gauge};
    describe_gauge!(
        "signet_queue_ready_jobs",
        "Jobs due now that no worker has claimed, per job type (read from the database at scrape)."
    );
    describe_gauge!(
        "signet_queue_scheduled_jobs",
        "Jobs waiting for their time (retries with backoff), per job type."
    );
    describe_gauge!(
        "signet_queue_depth",
        "Jobs ready and scheduled, per job type."
    );
    describe_gauge!(
        "signet_queue_oldest_ready_age_seconds",
        "How long the oldest ready job of each type has been due; 0 when none is."
    );
    describe_gauge!(
        "signet_sweep_last_finished_timestamp_seconds",
        "When any process last finished the sweep (Unix time); 0 if never."
    );
    describe_gauge!(
        "signet_database_up",
        "1 when this scrape's read of the database answered, 0 when it failed (the queue figures are then stale)."
    );
    describe_counter!(
        "signet_pdf_sandbox_children_total",
        "PDF sandbox children run by this process, by outcome."
    );
    describe_gauge!(
        "signet_pdf_sandbox_child_peak_rss_bytes",
        "The largest resident size any PDF sandbox child of this process has reached."
    );
    for outcome in crate::infra::pdf_sandbox::OUTCOME_LABELS {
        metrics::counter!("signet_pdf_sandbox_children_total", "outcome" => outcome).absolute(0);
    }
    crate::infra::pdf_sandbox::record_peak_rss();
}
