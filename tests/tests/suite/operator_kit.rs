//! The operator's kit in `deploy/observability/` is checked, not only written: the Prometheus
//! rules pass `promtool check rules` and their unit tests (`promtool test rules`), every metric
//! the rules and the Grafana dashboard read is one the real `signet-api` and `signet-worker`
//! export, every metric they export is in docs/operations.md, and the OpenTelemetry Collector
//! example receives what the processes send.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    process::Command,
};

use promql_parser::{
    parser::Expr,
    util::{ExprVisitor, walk_expr},
};
use serde_json::Value;
use signet_tests::{ApiProcess, Mailbox, TestApp, WorkerProcess, repo_root};
use yaml_rust2::{Yaml, YamlLoader};

fn kit() -> PathBuf {
    repo_root().join("deploy/observability")
}

fn rules_path() -> PathBuf {
    kit().join("prometheus/signet.rules.yml")
}

fn promtool(args: &[&str], dir: &Path) -> (bool, String) {
    let output = Command::new("promtool")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("promtool runs (scripts/test.sh installs Debian's prometheus package)");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn prometheus_rules_pass_promtool_check() {
    let (ok, output) = promtool(
        &["check", "rules", "signet.rules.yml"],
        &kit().join("prometheus"),
    );
    assert!(ok, "promtool check rules:\n{output}");
    assert!(output.contains("SUCCESS"), "{output}");
}

#[test]
fn prometheus_rules_pass_their_unit_tests() {
    let (ok, output) = promtool(
        &["test", "rules", "signet.rules.test.yml"],
        &kit().join("prometheus"),
    );
    assert!(ok, "promtool test rules:\n{output}");
    // Every alert has a test that makes it fire.
    let tests = std::fs::read_to_string(kit().join("prometheus/signet.rules.test.yml")).unwrap();
    let tests = &YamlLoader::load_from_str(&tests).unwrap()[0];
    let cases: Vec<Yaml> = tests["tests"]
        .as_vec()
        .expect("tests")
        .iter()
        .flat_map(|t| t["alert_rule_test"].as_vec().cloned().unwrap_or_default())
        .collect();
    let alerts_where = |firing: bool| -> BTreeSet<String> {
        cases
            .iter()
            .filter(|case| {
                case["exp_alerts"]
                    .as_vec()
                    .is_some_and(|a| a.is_empty() != firing)
            })
            .filter_map(|case| case["alertname"].as_str().map(str::to_owned))
            .collect()
    };
    let (fired, silent) = (alerts_where(true), alerts_where(false));
    let rules = Rules::load();
    for alert in &rules.alerts {
        assert!(fired.contains(alert), "no unit test makes {alert} fire");
        assert!(silent.contains(alert), "no unit test shows {alert} silent");
    }
}

/// The rules file: its recorded names, alert names and every expression.
struct Rules {
    recorded: BTreeSet<String>,
    alerts: Vec<String>,
    exprs: Vec<(String, String)>,
}

impl Rules {
    fn load() -> Self {
        let text = std::fs::read_to_string(rules_path()).unwrap();
        let doc = &YamlLoader::load_from_str(&text).expect("the rules are YAML")[0];
        let mut rules = Rules {
            recorded: BTreeSet::new(),
            alerts: Vec::new(),
            exprs: Vec::new(),
        };
        for group in doc["groups"].as_vec().expect("groups") {
            for rule in group["rules"].as_vec().expect("rules") {
                let expr = rule["expr"]
                    .as_str()
                    .expect("every rule has an expr")
                    .to_owned();
                let name = match (&rule["record"], &rule["alert"]) {
                    (Yaml::String(record), _) => {
                        rules.recorded.insert(record.clone());
                        record.clone()
                    }
                    (_, Yaml::String(alert)) => {
                        rules.alerts.push(alert.clone());
                        alert.clone()
                    }
                    _ => panic!("a rule is neither recorded nor an alert: {expr}"),
                };
                rules.exprs.push((format!("rule {name}"), expr));
            }
        }
        rules
    }
}

/// Every PromQL query of the dashboard (panel targets and the variables' `label_values`), with
/// where it is; Grafana's variables replaced by values PromQL parses.
fn dashboard_queries() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(kit().join("grafana/signet-dashboard.json")).unwrap();
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut queries = Vec::new();
    let panels = dashboard["panels"].as_array().expect("panels");
    let mut shown = 0;
    for panel in panels {
        if panel["type"] == "row" {
            continue;
        }
        let title = panel["title"].as_str().unwrap_or_default();
        assert_eq!(
            panel["datasource"]["uid"], "${datasource}",
            "panel {title:?} uses the datasource variable"
        );
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "panel {title:?} queries something");
        for target in targets {
            let expr = target["expr"].as_str().expect("a PromQL target");
            queries.push((format!("panel {title:?}"), grafana_free(expr)));
        }
        shown += 1;
    }
    assert!(shown >= 10, "the dashboard shows the kit's signals");
    let variables = dashboard["templating"]["list"]
        .as_array()
        .expect("variables");
    assert!(
        variables
            .iter()
            .any(|v| v["name"] == "datasource" && v["type"] == "datasource"),
        "a datasource variable"
    );
    for variable in variables.iter().filter(|v| v["type"] == "query") {
        let query = variable["query"]["query"]
            .as_str()
            .or(variable["query"].as_str())
            .expect("a query variable's query");
        // label_values(metric, label): the metric must exist too.
        let metric = query
            .strip_prefix("label_values(")
            .and_then(|rest| rest.split_once(','))
            .map(|(metric, _)| metric.trim())
            .unwrap_or_else(|| panic!("an unexpected variable query: {query}"));
        queries.push((format!("variable {}", variable["name"]), metric.to_owned()));
    }
    queries
}

/// `expr` with Grafana's variables (`$__rate_interval`, `$job_type`, `${x}`) replaced: the
/// interval ones by a duration, the others by a word, which is what they stand for in the
/// dashboard's queries (a range or a label value).
fn grafana_free(expr: &str) -> String {
    let mut out = String::new();
    let mut rest = expr;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced.find('}').expect("a closed ${variable}");
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        out.push_str(if name.starts_with("__") { "5m" } else { "x" });
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// The metric names a PromQL expression reads, by promql-parser's syntax tree.
fn metric_names(expr: &str) -> BTreeSet<String> {
    struct Names(BTreeSet<String>);
    impl ExprVisitor for Names {
        type Error = String;
        fn pre_visit(&mut self, expr: &Expr) -> Result<bool, String> {
            let selector = match expr {
                Expr::VectorSelector(vs) => Some(vs),
                Expr::MatrixSelector(ms) => Some(&ms.vs),
                _ => None,
            };
            if let Some(vs) = selector {
                let name = vs.name.clone().or_else(|| {
                    vs.matchers
                        .matchers
                        .iter()
                        .find(|m| m.name == "__name__")
                        .map(|m| m.value.clone())
                });
                self.0
                    .insert(name.ok_or_else(|| format!("a selector without a name: {vs}"))?);
            }
            Ok(true)
        }
    }
    let parsed = promql_parser::parser::parse(expr)
        .unwrap_or_else(|e| panic!("PromQL that does not parse: {expr}\n{e}"));
    let mut names = Names(BTreeSet::new());
    walk_expr(&mut names, &parsed).expect("named selectors");
    names.0
}

/// Every metric name in a Prometheus text exposition: the `# TYPE` lines' and the samples'
/// (so a histogram's `_bucket`, `_sum` and `_count` too).
fn exported_names(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        if let Some(typed) = line.strip_prefix("# TYPE ") {
            names.insert(typed.split_whitespace().next().unwrap().to_owned());
        } else if !line.starts_with('#') && !line.trim().is_empty() {
            let end = line.find(['{', ' ']).unwrap_or(line.len());
            names.insert(line[..end].to_owned());
        }
    }
    names
}

#[test]
fn the_name_parsing_finds_selectors_and_nothing_else() {
    assert_eq!(
        metric_names(
            r#"sum by (job_type, le) (rate(a_bucket{job=~"by|sum"}[5m])) / on (job) group_left
               sum without (instance) (b) > bool 0 and c offset 5m unless {__name__="d"}"#
        ),
        ["a_bucket", "b", "c", "d"].map(String::from).into()
    );
    assert_eq!(
        grafana_free(r#"rate(x{job_type=~"$job_type"}[$__rate_interval]) + ${y}"#),
        r#"rate(x{job_type=~"x"}[5m]) + x"#
    );
}

/// The names the rules and the dashboard read, each with where it is read.
fn referenced_names(rules: &Rules) -> Vec<(String, String)> {
    rules
        .exprs
        .iter()
        .cloned()
        .chain(dashboard_queries())
        .flat_map(|(place, expr)| {
            metric_names(&expr)
                .into_iter()
                .map(move |name| (name, place.clone()))
        })
        .collect()
}

/// Series Prometheus makes itself for every target (not the processes').
const MADE_BY_PROMETHEUS: &[&str] = &["up"];

#[tokio::test]
async fn every_metric_the_rules_and_the_dashboard_read_is_exported() {
    let app = TestApp::spawn().await;
    let api = ApiProcess::start(&app, &[]).await;
    let mailbox = Mailbox::start().await;
    // Every kind of work, so every metric a worker can export is there.
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[]);
    // ApiProcess::start asked /healthz, so the request series exist; this scrape reads them.
    let api_metrics = api.metrics().await;
    let worker_metrics = worker.metrics().await;
    let mut exported = exported_names(&api_metrics);
    exported.extend(exported_names(&worker_metrics));

    let rules = Rules::load();
    let references = referenced_names(&rules);
    assert!(references.len() > 50, "{references:?}");
    let missing: Vec<String> = references
        .iter()
        .filter(|(name, _)| {
            !exported.contains(name)
                && !rules.recorded.contains(name)
                && !MADE_BY_PROMETHEUS.contains(&name.as_str())
        })
        .map(|(name, place)| format!("{name} (read by {place})"))
        .collect();
    assert!(
        missing.is_empty(),
        "metrics read by deploy/observability that neither process exports:\n{}\n\nthe API \
         exports:\n{api_metrics}\nthe worker exports:\n{worker_metrics}",
        missing.join("\n")
    );
    // The figures every alert needs are there before anything happened: a counter that is
    // born at its first increment shows no `increase` for it.
    for (name, text) in [
        ("signet_api_usage_limit_refusals_total", &api_metrics),
        ("signet_database_up", &api_metrics),
        (
            r#"signet_emails_total{kind="INVITATION",outcome="failed"}"#,
            &worker_metrics,
        ),
        (
            r#"signet_sms_total{kind="INVITATION",outcome="failed"}"#,
            &worker_metrics,
        ),
        (
            r#"signet_webhook_attempts_total{outcome="http_error"}"#,
            &worker_metrics,
        ),
        (
            r#"signet_pdf_sandbox_children_total{outcome="unavailable"}"#,
            &worker_metrics,
        ),
        ("signet_job_duration_seconds_count", &worker_metrics),
        ("signet_database_up 1", &worker_metrics),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} is exported from the start:\n{text}"
        );
    }
    // Every exported metric of Signet's own is documented.
    let operations = std::fs::read_to_string(repo_root().join("docs/operations.md")).unwrap();
    for name in exported.iter().filter(|n| n.starts_with("signet_")) {
        let base = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|suffix| {
                name.strip_suffix(suffix)
                    .filter(|base| exported.contains(*base))
            })
            .unwrap_or(name);
        assert!(
            operations.contains(&format!("`{base}`")),
            "docs/operations.md's metrics table lists `{base}`"
        );
    }
}

#[test]
fn the_otel_collector_example_receives_what_the_processes_send() {
    let text = std::fs::read_to_string(kit().join("otel-collector/config.yaml")).unwrap();
    let config = &YamlLoader::load_from_str(&text).expect("the collector config is YAML")[0];
    // Signet exports OTLP over HTTP (protobuf, POST {endpoint}/v1/traces); 4318 is OTLP/HTTP's
    // port, opentelemetry-otlp's default endpoint (http://localhost:4318).
    let http = &config["receivers"]["otlp"]["protocols"]["http"];
    let endpoint = http["endpoint"].as_str().expect("an OTLP/HTTP receiver");
    assert!(endpoint.ends_with(":4318"), "{endpoint}");
    assert!(
        http["traces_url_path"].is_badvalue()
            || http["traces_url_path"].as_str() == Some("/v1/traces"),
        "the receiver takes traces where the exporter posts them"
    );
    // Every pipeline uses components defined here, and traces come in through OTLP.
    let pipelines = config["service"]["pipelines"].as_hash().expect("pipelines");
    assert!(pipelines.contains_key(&Yaml::String("traces".into())));
    for (name, pipeline) in pipelines {
        for section in ["receivers", "processors", "exporters"] {
            for component in pipeline[section].as_vec().expect("a list of components") {
                let component = component.as_str().unwrap();
                assert!(
                    !config[section][component].is_badvalue(),
                    "pipeline {name:?} names {section}.{component}, which is not defined"
                );
            }
        }
    }
    assert_eq!(
        config["service"]["pipelines"]["traces"]["receivers"]
            .as_vec()
            .unwrap(),
        &vec![Yaml::String("otlp".into())]
    );
    // The scrape targets are the processes' default addresses' ports, at /metrics, in jobs
    // whose names SignetTargetDown matches.
    let defaults = signet_common::infra::config::Config::from_vars(Vec::<(String, String)>::new())
        .expect("the default configuration");
    let ports = [
        ("signet-api", defaults.api.bind_addr.port()),
        ("signet-worker", defaults.worker.admin_addr.port()),
    ];
    let scrapes = config["receivers"]["prometheus"]["config"]["scrape_configs"]
        .as_vec()
        .expect("a prometheus receiver scraping the processes");
    for (job, port) in ports {
        let scrape = scrapes
            .iter()
            .find(|s| s["job_name"].as_str() == Some(job))
            .unwrap_or_else(|| panic!("a scrape job {job}"));
        assert_eq!(scrape["metrics_path"].as_str(), Some("/metrics"));
        let targets: Vec<&Yaml> = scrape["static_configs"]
            .as_vec()
            .unwrap()
            .iter()
            .flat_map(|c| c["targets"].as_vec().unwrap())
            .collect();
        assert!(!targets.is_empty());
        for target in targets {
            let target = target.as_str().unwrap();
            assert!(target.ends_with(&format!(":{port}")), "{job}: {target}");
        }
    }
}
