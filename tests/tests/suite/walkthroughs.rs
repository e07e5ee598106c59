//! The docs' walkthroughs run as written (issue #49): every shell block of README.md and
//! docs/*.md that a reader would paste is a walkthrough, run here with bash against the real
//! binaries, so a doc that drifts from the code fails the build.
//!
//! In the Markdown, a walkthrough is a fenced shell block (```` ```sh ````, `bash`, `shell`,
//! `console`) right after its marker (blank lines between are allowed):
//!
//! ```text
//! <!-- walkthrough: NAME[; refused: [N×] METHOD PATH STATUS, …][; prints: TEXT, …] -->
//! ```
//!
//! - `NAME` (lower case, digits, `-`) is unique across the docs: failures name it.
//! - `refused:` lists the refusals the block shows on purpose (`POST /templates/{id}/documents
//!   400`, the route as the API's `signet_http_requests_total` names it, less the
//!   `/external/api/v1` prefix). Every other answer of the API to the block must be a success:
//!   `curl` exits 0 on a 404, so the API's own count of answers by route and status is what
//!   finds a request that went wrong (looked at while the block runs too: a block waiting for
//!   what a refused request should have made is stopped then, not at the bound).
//! - `prints:` lists text the block's output must come to hold, by the block or by something it
//!   started in the background (the webhook receiver): waited for after the block ends.
//!
//! A shell block that is not a walkthrough says why: `<!-- not a walkthrough: REASON -->` (the
//! bring-up itself, the benchmark, Docker). Settings and output samples take another fence
//! (`ini`, `text`, `json`, `http`). An unmarked shell block fails
//! [`every_shell_block_of_the_docs_is_marked`].
//!
//! **What a walkthrough may assume** is what a reader has after `scripts/up.sh` and the export
//! line it prints: the repository's root as the working directory (its files: `demo/`,
//! `tests/fixtures/`; the built `target/debug/signet-api` and `signet-worker`), `data/` as
//! up.sh makes it (`data/mail/` the local mailbox, no `SMTP_URL`; `data/sms/`; the development
//! seal in `data/seal/`), the API and a worker running with up.sh's settings, and the variables
//! `SIGNET` (the API root, `…/external/api/v1`), `KEY` (the demo account's API key) and
//! `ACCOUNT` (its id), plus `DATABASE_URL` for the operator commands. Nothing else: each block
//! makes its own documents, templates and files, and writes only under `data/`. Each runs in a
//! fresh copy of that world (a new database, `data/`, API and worker), with
//! `set -euo pipefail`, and fails when it exits non-zero (naming the doc's line), when the API
//! refused a request it does not list, when it wrote outside `data/`, or when what it `prints:`
//! never came.

use std::{
    collections::{BTreeMap, HashSet},
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use futures::StreamExt;
use serde_json::Value;
use signet_tests::{
    ApiProcess, TestApp, WorkerProcess, binary, described_by, eventually, poll_until, repo_root,
};

/// The files whose shell blocks are walkthroughs: the README and the docs beside it (the
/// contract's copy in docs/spec is not ours to change).
fn documents() -> Vec<(String, String)> {
    let root = repo_root();
    let mut names = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name)).expect("a doc");
            (name, text)
        })
        .collect()
}

const SHELLS: &[&str] = &["sh", "bash", "shell", "console", "zsh"];

/// One walkthrough, as the Markdown gives it.
#[derive(Debug, Clone, PartialEq)]
struct Walkthrough {
    name: String,
    /// The doc, relative to the repository.
    file: String,
    /// The doc's line of the block's first line of code (1-based).
    line: usize,
    code: String,
    refused: Vec<Refusal>,
    prints: Vec<String>,
}

/// A refusal a block shows on purpose: `POST /templates/{id}/documents 400`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Refusal {
    method: String,
    route: String,
    status: u16,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.method, self.route, self.status)
    }
}

/// The walkthroughs of one Markdown file, or what is wrong with its marking.
fn walkthroughs_in(file: &str, text: &str) -> (Vec<Walkthrough>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    // The last non-blank line outside a fence, and whether a fence took it as its marker.
    let mut previous: Option<(usize, &str)> = None;
    let mut markers: Vec<(usize, bool)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if !trimmed.starts_with("```") {
            let content = line.trim();
            if !content.is_empty() {
                if is_marker(content) {
                    markers.push((i + 1, false));
                }
                previous = Some((i + 1, content));
            }
            i += 1;
            continue;
        }
        let indent = line.len() - trimmed.len();
        let ticks = trimmed.chars().take_while(|c| *c == '`').count();
        let info = trimmed[ticks..].trim();
        let language = info.split_whitespace().next().unwrap_or_default();
        let mut code = Vec::new();
        let mut end = i + 1;
        while end < lines.len() {
            let candidate = lines[end].trim();
            if candidate.len() >= ticks && candidate.chars().all(|c| c == '`') {
                break;
            }
            code.push(strip_indent(lines[end], indent));
            end += 1;
        }
        let marker = previous
            .filter(|(_, content)| is_marker(content))
            .map(|(at, content)| (at, content.to_owned()));
        if let Some((at, _)) = &marker
            && let Some(entry) = markers.iter_mut().find(|(line, _)| line == at)
        {
            entry.1 = true;
        }
        let shell = SHELLS.contains(&language);
        match (shell, marker) {
            (true, None) => problems.push(format!(
                "{file}:{}: a shell block without a marker: `<!-- walkthrough: NAME -->` (this \
                 test runs it) or `<!-- not a walkthrough: REASON -->`; settings and output \
                 samples take another fence (ini, text, json)",
                i + 1
            )),
            (false, Some((at, _))) => problems.push(format!(
                "{file}:{at}: a walkthrough marker before a `{language}` block, not a shell block"
            )),
            (false, None) => {}
            (true, Some((at, content))) => match parse_marker(&content) {
                Ok(Marker::Exempt) => {}
                Ok(Marker::Walkthrough {
                    name,
                    refused,
                    prints,
                }) => found.push(Walkthrough {
                    name,
                    file: file.to_owned(),
                    line: i + 2,
                    code: code.join("\n"),
                    refused,
                    prints,
                }),
                Err(problem) => problems.push(format!("{file}:{at}: {problem}")),
            },
        }
        previous = None;
        i = end + 1;
    }
    for (at, _) in markers.iter().filter(|(_, used)| !used) {
        problems.push(format!(
            "{file}:{at}: a walkthrough marker that no fenced block follows"
        ));
    }
    (found, problems)
}

fn is_marker(line: &str) -> bool {
    line.starts_with("<!-- walkthrough:") || line.starts_with("<!-- not a walkthrough:")
}

/// `line` without the fence's indentation (a fence in a list item is indented with it).
fn strip_indent(line: &str, indent: usize) -> &str {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(indent)..]
}

enum Marker {
    Walkthrough {
        name: String,
        refused: Vec<Refusal>,
        prints: Vec<String>,
    },
    Exempt,
}

fn parse_marker(content: &str) -> Result<Marker, String> {
    let inner = content
        .strip_prefix("<!--")
        .and_then(|rest| rest.strip_suffix("-->"))
        .ok_or("a marker is one line: `<!-- walkthrough: NAME -->`")?
        .trim();
    if let Some(reason) = inner.strip_prefix("not a walkthrough:") {
        return if reason.trim().is_empty() {
            Err("`not a walkthrough:` needs its reason".into())
        } else {
            Ok(Marker::Exempt)
        };
    }
    let rest = inner
        .strip_prefix("walkthrough:")
        .ok_or("not a marker")?
        .trim();
    let mut parts = rest.split(';').map(str::trim);
    let name = parts.next().unwrap_or_default().to_owned();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(format!(
            "a walkthrough's name is lower case letters, digits and `-`, not {name:?}"
        ));
    }
    let (mut refused, mut prints) = (Vec::new(), Vec::new());
    for part in parts {
        if let Some(list) = part.strip_prefix("refused:") {
            for item in list.split(',').map(str::trim) {
                refused.extend(parse_refusal(item)?);
            }
        } else if let Some(list) = part.strip_prefix("prints:") {
            prints.extend(list.split(',').map(|text| text.trim().to_owned()));
        } else {
            return Err(format!(
                "unknown part {part:?} of a marker (`refused:` or `prints:`)"
            ));
        }
    }
    Ok(Marker::Walkthrough {
        name,
        refused,
        prints,
    })
}

/// `[N×] METHOD PATH STATUS`, e.g. `4× POST /sign/{token}/auth 400`.
fn parse_refusal(item: &str) -> Result<Vec<Refusal>, String> {
    let (times, rest) = match item.split_once('×') {
        Some((n, rest)) => (
            n.trim()
                .parse::<usize>()
                .map_err(|_| format!("not a count in {item:?}"))?,
            rest.trim(),
        ),
        None => (1, item),
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let [method, route, status] = words[..] else {
        return Err(format!("a refusal is `METHOD PATH STATUS`, not {item:?}"));
    };
    let status: u16 = status
        .parse()
        .ok()
        .filter(|s| *s >= 400)
        .ok_or_else(|| format!("not a refusal's status in {item:?}"))?;
    Ok(vec![
        Refusal {
            method: method.to_owned(),
            route: route.to_owned(),
            status,
        };
        times
    ])
}

/// Every walkthrough of the docs, or the problems of their marking.
fn all_walkthroughs() -> Result<Vec<Walkthrough>, Vec<String>> {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for (file, text) in documents() {
        let (found, wrong) = walkthroughs_in(&file, &text);
        all.extend(found);
        problems.extend(wrong);
    }
    let mut names = HashSet::new();
    for walkthrough in &all {
        if !names.insert(&walkthrough.name) {
            problems.push(format!(
                "{}:{}: the walkthrough name {} is taken by another block",
                walkthrough.file, walkthrough.line, walkthrough.name
            ));
        }
    }
    if problems.is_empty() {
        Ok(all)
    } else {
        Err(problems)
    }
}

/// A fresh world as `scripts/up.sh` leaves it, for one block: a new database, the repository's
/// files, `data/` with its development seal, the demo account and its key, the API and a worker.
struct World {
    /// Its database and directory, which live as long as it.
    _app: TestApp,
    api: ApiProcess,
    worker: WorkerProcess,
    /// The working directory, a clone's root: the repository's entries as symbolic links,
    /// `target/debug` with the built binaries, and a `data/` of its own.
    root: PathBuf,
    env: Vec<(String, String)>,
}

impl World {
    async fn new() -> Self {
        let app = TestApp::spawn().await;
        // Beside the processes' logs, which the test's directory holds.
        let root = app.files.path().join("clone");
        let home = app.files.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        let repo = repo_root();
        for entry in std::fs::read_dir(&repo).expect("the repository").flatten() {
            let name = entry.file_name();
            if name == "target" || name == "data" {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), root.join(&name)).expect("a link");
        }
        for name in ["signet-api", "signet-worker"] {
            std::os::unix::fs::symlink(binary(name), root.join("target/debug").join(name))
                .expect("a link to the binary");
        }
        for dir in ["data/files", "data/mail", "data/sms"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        // As scripts/up.sh: a development seal, the demo account and its API key.
        let cli = |args: &[&str]| -> Value {
            let output = Command::new(binary("signet-api"))
                .args(args)
                .current_dir(&root)
                .env("DATABASE_URL", app.db.url())
                .env("FILE_STORE_DIR", root.join("data/files"))
                .output()
                .expect("signet-api");
            assert!(
                output.status.success(),
                "signet-api {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            serde_json::from_slice(&output.stdout).expect("one JSON object")
        };
        cli(&["seal", "create-development", "--dir", "data/seal"]);
        let account = cli(&[
            "account",
            "create",
            "--name",
            "Demo account",
            "--email",
            "demo@example.com",
        ])["id"]
            .as_str()
            .expect("the account's id")
            .to_owned();
        let key = cli(&["key", "generate", "--account", &account])["key"]
            .as_str()
            .expect("the key")
            .to_owned();
        let path = |p: &str| root.join(p).display().to_string();
        let settings = [
            ("FILE_STORE", "local".to_owned()),
            ("FILE_STORE_DIR", path("data/files")),
            ("MAIL_DIR", path("data/mail")),
            ("SMS_DIR", path("data/sms")),
            ("SEAL_KEY_FILE", path("data/seal/seal-key.pem")),
            ("SEAL_CERT_FILE", path("data/seal/seal-chain.pem")),
            ("WEBHOOK_ALLOW_PRIVATE", "true".to_owned()),
        ];
        let settings: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let api = ApiProcess::spawn(&app, &settings);
        let client = reqwest::Client::new();
        eventually(
            described_by(|| format!("signet-api to answer on {}:\n{}", api.base, api.log())),
            Duration::from_secs(30),
            || async {
                client
                    .get(format!("{}/healthz", api.base))
                    .send()
                    .await
                    .ok()
                    .map(drop)
            },
        )
        .await;
        // The links the worker e-mails lead to this API (not to the test's in-process one).
        let worker_settings: Vec<(&str, &str)> = settings
            .iter()
            .copied()
            .chain([("PUBLIC_URL", api.base.as_str())])
            .collect();
        let worker = WorkerProcess::start_writing_mail_files(&app, &worker_settings);
        let env = vec![
            ("PATH".to_owned(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".to_owned(), home.display().to_string()),
            ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ("SIGNET".to_owned(), format!("{}/external/api/v1", api.base)),
            ("KEY".to_owned(), key),
            ("ACCOUNT".to_owned(), account),
            ("DATABASE_URL".to_owned(), app.db.url()),
        ];
        Self {
            _app: app,
            api,
            worker,
            root,
            env,
        }
    }

    /// The API's refusals so far (answers of 400 and above), by method, route and status, from
    /// its `signet_http_requests_total`. Read here rather than with a Prometheus parser: route
    /// labels hold braces (`/sign/{token}/auth`).
    async fn refusals(&self) -> BTreeMap<Refusal, u64> {
        let mut refusals = BTreeMap::new();
        for line in self.api.metrics().await.lines() {
            let Some(sample) = line.strip_prefix("signet_http_requests_total{") else {
                continue;
            };
            let Some((labels, value)) = sample.rsplit_once("} ") else {
                continue;
            };
            let label = |name: &str| -> String {
                labels
                    .split_once(&format!("{name}=\""))
                    .and_then(|(_, rest)| rest.split_once('"'))
                    .map(|(value, _)| value.to_owned())
                    .unwrap_or_default()
            };
            let (Ok(status), Ok(count)) = (label("status").parse::<u16>(), value.parse::<f64>())
            else {
                continue;
            };
            if status >= 400 && count > 0.0 {
                let route = label("route");
                let route = route
                    .strip_prefix("/external/api/v1")
                    .unwrap_or(&route)
                    .to_owned();
                refusals.insert(
                    Refusal {
                        method: label("method"),
                        route,
                        status,
                    },
                    count as u64,
                );
            }
        }
        refusals
    }
}

/// How long one block may run before it is stopped and reported: a bound on a wait that never
/// ends (a block waiting for an e-mail that never comes), not a measure of speed.
const BLOCK_BOUND: Duration = Duration::from_secs(300);

/// What a block's `prints:` waits for, after the block ended.
const PRINTS_BOUND: Duration = Duration::from_secs(120);

/// Runs one walkthrough in a world of its own: `Ok` with a line saying so, or `Err` with what
/// went wrong, at which line of the doc, and the output.
async fn run(walkthrough: &Walkthrough) -> Result<String, String> {
    let started = Instant::now();
    let world = World::new().await;
    let scratch = tempfile::tempdir().expect("tempdir");
    let script = scratch
        .path()
        .join(format!("walkthrough-{}.sh", walkthrough.name));
    // The first line is bash's setup; the block starts on the second. Having run to its end,
    // bash stops itself: alive, it keeps its pid and so its process group (where the webhook
    // receiver may still run) until the test has stopped them all. A pid reaped first could be
    // taken by another process, and the group's kill would reach that one.
    std::fs::write(
        &script,
        format!(
            "set -euo pipefail; trap 'echo \"exit $?: $BASH_SOURCE: line $LINENO: $BASH_COMMAND\" >&2' ERR\n{}\nkill -STOP $$\n",
            walkthrough.code
        ),
    )
    .unwrap();
    let (stdout, stderr) = (scratch.path().join("stdout"), scratch.path().join("stderr"));
    let before_entries = entries(&world.root);
    let refusals_before = world.refusals().await;
    let mut child = std::process::Command::new("bash")
        .arg("--noprofile")
        .arg("--norc")
        .arg(&script)
        .current_dir(&world.root)
        .env_clear()
        .envs(world.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        // Its own process group: whatever it leaves running (the webhook receiver) is stopped
        // with it.
        .process_group(0)
        .spawn()
        .expect("bash");
    let pid = child.id();
    // Until bash stops at its end or exits (a zombie: not reaped yet); stopped early once the
    // API refused a request the block does not list, as a block waiting for what that request
    // should have made would wait in vain.
    let mut looks = 0u32;
    let watched = &world;
    let (state, refused_meanwhile) = poll_until(
        BLOCK_BOUND,
        || {
            looks += 1;
            let state = process_state(pid);
            let look_at_refusals = looks.is_multiple_of(20);
            let before = &refusals_before;
            async move {
                let unexpected = if look_at_refusals {
                    compare(before, &watched.refusals().await, &walkthrough.refused).0
                } else {
                    Vec::new()
                };
                (state, unexpected)
            }
        },
        |(state, unexpected)| matches!(state, Some('T' | 'Z')) || !unexpected.is_empty(),
    )
    .await;
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let reached_its_end = state == Some('T');
    if reached_its_end {
        poll_until(
            PRINTS_BOUND,
            || std::future::ready(read(&stdout)),
            |output| walkthrough.prints.iter().all(|text| output.contains(text)),
        )
        .await;
    }
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .status();
    let status = child.wait().expect("bash's status");
    let mut problems = Vec::new();
    if reached_its_end {
        let output = read(&stdout);
        for text in walkthrough
            .prints
            .iter()
            .filter(|text| !output.contains(*text))
        {
            problems.push(format!("its output never showed {text:?}"));
        }
    } else if state == Some('Z') {
        problems.push(format!("bash exited with {status}"));
    } else if !refused_meanwhile.is_empty() {
        problems.push("stopped while it ran, after an unexpected refusal".to_owned());
    } else {
        problems.push(format!(
            "still running after {BLOCK_BOUND:?}: stopped (a wait that never ended?)"
        ));
    }

    let (unexpected, missing) = compare(
        &refusals_before,
        &world.refusals().await,
        &walkthrough.refused,
    );
    if !unexpected.is_empty() {
        problems.push(format!(
            "the API refused requests the block does not list as `refused:`: {}",
            unexpected.join(", ")
        ));
    }
    if !missing.is_empty() && reached_its_end {
        problems.push(format!(
            "refusals its marker lists never happened: {}",
            missing.join(", ")
        ));
    }
    let written: Vec<String> = entries(&world.root)
        .difference(&before_entries)
        .cloned()
        .collect();
    if !written.is_empty() {
        problems.push(format!("it wrote outside data/: {}", written.join(", ")));
    }

    let place = format!(
        "{}:{} (walkthrough {})",
        walkthrough.file, walkthrough.line, walkthrough.name
    );
    if problems.is_empty() {
        return Ok(format!(
            "{place}: ran in {:.1} s",
            started.elapsed().as_secs_f64()
        ));
    }
    let tail = |text: String, lines: usize| {
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    };
    Err(format!(
        "{place}: {}\n--- stderr, at the doc's lines ---\n{}\n--- stdout (its end) ---\n{}\n\
         --- the worker's log (its end) ---\n{}\n--- the API's warnings ---\n{}",
        problems.join("; "),
        at_doc_lines(&read(&stderr), &script, walkthrough),
        tail(read(&stdout), 40),
        tail(world.worker.log(), 30),
        tail(world.api.log(), 20),
    ))
}

/// The refusals between `before` and `after` that `declared` does not list, and those it lists
/// that did not happen, each with its count (`GET /bulk-sends/{id} 404 ×12`).
fn compare(
    before: &BTreeMap<Refusal, u64>,
    after: &BTreeMap<Refusal, u64>,
    declared: &[Refusal],
) -> (Vec<String>, Vec<String>) {
    let mut expected: BTreeMap<&Refusal, u64> = BTreeMap::new();
    for refusal in declared {
        *expected.entry(refusal).or_default() += 1;
    }
    let with_count = |refusal: &Refusal, n: u64| {
        if n == 1 {
            refusal.to_string()
        } else {
            format!("{refusal} ×{n}")
        }
    };
    let mut unexpected = Vec::new();
    for (refusal, count) in after {
        let new = count - before.get(refusal).copied().unwrap_or(0);
        let allowed = expected.get_mut(refusal).map(std::mem::take).unwrap_or(0);
        if new > allowed {
            unexpected.push(with_count(refusal, new - allowed));
        } else if new < allowed {
            expected.insert(refusal, allowed - new);
        }
    }
    let missing = expected
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(refusal, n)| with_count(refusal, n))
        .collect();
    (unexpected, missing)
}

/// A process's state (`R`, `S`, `T` stopped, `Z` exited and not yet reaped…), from /proc.
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The names in `dir`, to tell what a block wrote beside `data/`.
fn entries(dir: &Path) -> HashSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// bash's messages (`…/walkthrough-NAME.sh: line 7: …`) with the script's lines turned into
/// the doc's (`README.md:172: …`).
fn at_doc_lines(stderr: &str, script: &Path, walkthrough: &Walkthrough) -> String {
    let prefix = format!("{}: line ", script.display());
    stderr
        .lines()
        .map(|line| {
            let Some(at) = line.find(&prefix) else {
                return line.to_owned();
            };
            let rest = &line[at + prefix.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let Ok(script_line) = digits.parse::<usize>() else {
                return line.to_owned();
            };
            let doc_line = walkthrough.line + script_line.saturating_sub(2);
            format!(
                "{}{}:{}{}",
                &line[..at],
                walkthrough.file,
                doc_line,
                &rest[digits.len()..]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Blocks run at once: each brings a database, an API and a worker; two keep a 2-core machine
/// that runs the rest of the suite beside them busy enough.
const AT_ONCE: usize = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_walkthrough_of_the_docs_runs_as_written() {
    let walkthroughs =
        all_walkthroughs().unwrap_or_else(|problems| panic!("{}", problems.join("\n")));
    assert!(
        walkthroughs.len() >= 10,
        "only {} walkthroughs found",
        walkthroughs.len()
    );
    let results: Vec<Result<String, String>> = futures::stream::iter(&walkthroughs)
        .map(run)
        .buffer_unordered(AT_ONCE)
        .collect()
        .await;
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(line) => println!("{line}"),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} walkthroughs failed:\n\n{}",
        failures.len(),
        walkthroughs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_shell_block_of_the_docs_is_marked() {
    let walkthroughs =
        all_walkthroughs().unwrap_or_else(|problems| panic!("{}", problems.join("\n")));
    // The README's tour and the curl-only signing are among them.
    for name in [
        "send-and-read-the-invitations",
        "sign-with-curl",
        "webhooks",
    ] {
        assert!(
            walkthroughs
                .iter()
                .any(|w| w.name == name && w.file == "README.md"),
            "README.md has no walkthrough {name}"
        );
    }
}

/// One real block, as the docs have it, then with a mistake planted: the block passes, and
/// each planted mistake fails it, at the line where it was planted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_walkthrough_with_a_planted_mistake_fails() {
    let real = all_walkthroughs()
        .unwrap_or_else(|problems| panic!("{}", problems.join("\n")))
        .into_iter()
        .find(|w| w.name == "using-the-api")
        .expect("README.md's walkthrough using-the-api");
    let ran = run(&real).await;
    assert!(ran.is_ok(), "the real block fails: {}", ran.unwrap_err());

    // A variable the environment does not give: bash stops at that line.
    let planted_line = real
        .code
        .lines()
        .position(|l| l.contains("$SIGNET/documents"))
        .expect("a line with $SIGNET/documents");
    let missing_variable = Walkthrough {
        code: real
            .code
            .replacen("$SIGNET/documents", "$SIGNET_API/documents", 1),
        ..real.clone()
    };
    let failure = run(&missing_variable)
        .await
        .expect_err("a block using an unset variable fails");
    assert!(failure.contains("bash exited with"), "{failure}");
    assert!(
        failure.contains(&format!(
            "README.md:{}: SIGNET_API: unbound variable",
            real.line + planted_line
        )),
        "the failure names the doc's line: {failure}"
    );

    // A wrong path: curl exits 0 on the 404, and the API's count of refusals tells.
    let wrong_path = Walkthrough {
        code: real
            .code
            .replacen("$SIGNET/documents", "$SIGNET/document", 1),
        ..real.clone()
    };
    let failure = run(&wrong_path)
        .await
        .expect_err("a block whose request is refused fails");
    assert!(
        failure.contains("the API refused requests the block does not list"),
        "{failure}"
    );
}

#[test]
fn markers_are_read_as_the_module_says() {
    let doc = "\
Intro.

<!-- walkthrough: first; refused: POST /templates/{id}/documents 400, 2× POST /sign/{token}/auth 400; prints: document.sent, done -->

```sh
echo one
```

  <!-- walkthrough: indented -->
  ```bash
  echo two
    echo three
  ```

<!-- not a walkthrough: the bring-up itself -->
```sh
scripts/up.sh
```

```ini
NOT_A=command
```

```json
{}
```
";
    let (found, problems) = walkthroughs_in("x.md", doc);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].name, "first");
    assert_eq!(found[0].line, 6);
    assert_eq!(found[0].code, "echo one");
    assert_eq!(
        found[0]
            .refused
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "POST /templates/{id}/documents 400",
            "POST /sign/{token}/auth 400",
            "POST /sign/{token}/auth 400"
        ]
    );
    assert_eq!(found[0].prints, ["document.sent", "done"]);
    assert_eq!(found[1].code, "echo two\n  echo three");
    assert_eq!(found[1].line, 11);
}

#[test]
fn an_unmarked_or_misplaced_marking_is_named() {
    let doc = "\
```sh
curl http://localhost:8080/healthz
```

<!-- walkthrough: orphan -->

Text between the marker and nothing.

<!-- walkthrough: on-json -->
```json
{}
```

<!-- not a walkthrough: -->
```sh
true
```

<!-- walkthrough: Bad Name -->
```sh
true
```
";
    let (found, problems) = walkthroughs_in("x.md", doc);
    assert!(found.is_empty(), "{found:?}");
    let joined = problems.join("\n");
    for expected in [
        "x.md:1: a shell block without a marker",
        "x.md:5: a walkthrough marker that no fenced block follows",
        "x.md:9: a walkthrough marker before a `json` block",
        "x.md:14: `not a walkthrough:` needs its reason",
        "x.md:19: a walkthrough's name",
    ] {
        assert!(joined.contains(expected), "{expected} in:\n{joined}");
    }
}
