//! The invariants a soak's history must keep, checked once every fault has healed and the
//! queues have drained.

use std::{
    collections::{HashMap, HashSet},
    process::Command,
    time::{Duration, Instant},
};

use sqlx::PgPool;
use uuid::Uuid;

use super::{
    deployment::Deployment,
    faults::FaultLog,
    journeys::{Ending, Journey},
    mail::MailIndex,
    options::Options,
};

pub(crate) struct Checked {
    pub violations: Vec<String>,
    /// Journeys by ending, one line.
    pub journeys: String,
    /// Messages sent, duplicates and what was in flight at the faults, one line.
    pub deliveries: String,
}

/// How long the queues may take to drain once every fault has healed: longer than the retry
/// schedule of every kind of message.
const DRAIN: Duration = Duration::from_secs(900);

async fn pending(pool: &PgPool) -> i64 {
    sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM outbound_emails WHERE status = 'PENDING')
              + (SELECT count(*) FROM outbound_sms WHERE status = 'PENDING')
              + (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING')
              + (SELECT count(*) FROM apalis.jobs WHERE status IN ('Pending', 'Queued', 'Running'))",
    )
    .fetch_one(pool)
    .await
    .unwrap_or(-1)
}

pub(crate) async fn check(
    deployment: &Deployment,
    journeys: &[Journey],
    mailbox: &MailIndex,
    faults: &FaultLog,
    options: &Options,
) -> Checked {
    let pool = &deployment.db.pool;
    let mut violations = Vec::new();

    // Queued work drains: nothing is left waiting past the retry schedules.
    let draining = Instant::now();
    let mut left = pending(pool).await;
    while left != 0 && draining.elapsed() < DRAIN {
        tokio::time::sleep(Duration::from_secs(1)).await;
        left = pending(pool).await;
    }
    if left != 0 {
        violations.push(format!(
            "{left} messages or jobs still queued {DRAIN:?} after every fault healed"
        ));
    }
    for service in deployment.services() {
        let crashes = service.crashes();
        if crashes > 0 {
            violations.push(format!(
                "{} exited by itself {crashes} time(s)",
                service.name
            ));
        }
        if service.peak_mib() > options.memory_limit_mib {
            violations.push(format!(
                "{} peaked at {} MiB of resident memory (limit {} MiB)",
                service.name,
                service.peak_mib(),
                options.memory_limit_mib
            ));
        }
    }

    let documents: Vec<Uuid> = journeys.iter().map(|j| j.document).collect();
    check_endings(pool, journeys, &mut violations).await;
    let emails = check_emails(pool, journeys, mailbox, &documents, &mut violations).await;
    let sms = check_sms(deployment, journeys, &documents, &mut violations).await;
    let hooks = check_webhooks(deployment, journeys, &mut violations).await;
    check_evidence(deployment, journeys, &mut violations);
    check_files(deployment, &mut violations).await;

    let duplicates = i64::try_from(emails.1 + sms.1 + hooks.1).unwrap_or(i64::MAX);
    if duplicates > faults.in_flight() {
        violations.push(format!(
            "{duplicates} duplicate messages, more than the {} in flight when faults struck",
            faults.in_flight()
        ));
    }
    let mut by_ending: HashMap<Ending, usize> = HashMap::new();
    for journey in journeys {
        *by_ending.entry(journey.ending).or_default() += 1;
    }
    let mut endings: Vec<_> = by_ending.into_iter().collect();
    endings.sort();
    Checked {
        violations,
        journeys: format!(
            "{} ended as scripted ({})",
            journeys.len(),
            endings
                .iter()
                .map(|(e, n)| format!("{} {n}", e.status()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        deliveries: format!(
            "{} e-mails ({} duplicate copies), {} SMS ({} duplicates), {} webhook events ({} duplicate deliveries); {} messages were in flight when faults struck",
            emails.0,
            emails.1,
            sms.0,
            sms.1,
            hooks.0,
            hooks.1,
            faults.in_flight()
        ),
    }
}

/// Every document ended as its journey meant, exactly once.
async fn check_endings(pool: &PgPool, journeys: &[Journey], violations: &mut Vec<String>) {
    for journey in journeys {
        let (status, endings): (String, i64) = sqlx::query_as(
            "SELECT d.status,
                    (SELECT count(*) FROM events e WHERE e.document_id = d.id AND e.event_type = $2)
             FROM documents d WHERE d.id = $1",
        )
        .bind(journey.document)
        .bind(journey.ending.event())
        .fetch_one(pool)
        .await
        .unwrap_or_else(|e| (format!("unreadable: {e}"), 0));
        if status != journey.ending.status() || endings != 1 {
            violations.push(format!(
                "journey {} (document {}): {status} with {endings} {} event(s); meant {} once",
                journey.number,
                journey.document,
                journey.ending.event(),
                journey.ending.status()
            ));
        }
    }
    let stuck: i64 = sqlx::query_scalar("SELECT count(*) FROM documents WHERE status = 'SENT'")
        .fetch_one(pool)
        .await
        .unwrap_or(-1);
    if stuck != 0 {
        violations.push(format!("{stuck} documents still SENT at the end"));
    }
}

/// A message carrying a signing link (an invitation or a reminder) not sent because its
/// document left SENT first (a signer in the same group declined, the owner cancelled, it
/// expired, or everyone signed from an earlier e-mail while it waited out an SMTP outage):
/// withdrawn in the transaction that ended the document, its link void. Not a message lost.
fn withdrawn_link(kind: &str, status: &str) -> bool {
    matches!(kind, "INVITATION" | "REMINDER") && status == "WITHDRAWN"
}

/// The e-mails each journey implies, each sent and received at least once: `(sent, duplicate
/// copies)`.
async fn check_emails(
    pool: &PgPool,
    journeys: &[Journey],
    mailbox: &MailIndex,
    documents: &[Uuid],
    violations: &mut Vec<String>,
) -> (usize, usize) {
    let rows: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT r.email, e.kind, e.status, e.message_id FROM outbound_emails e
         JOIN recipients r ON r.id = e.recipient_id WHERE e.document_id = ANY($1)",
    )
    .bind(documents)
    .fetch_all(pool)
    .await
    .expect("the e-mails");
    let copies = mailbox.copies();
    // (address, kind) → each row's (status, Message-ID).
    type Sent = HashMap<(String, String), Vec<(String, Option<String>)>>;
    let mut sent: Sent = HashMap::new();
    for (email, kind, status, message_id) in &rows {
        sent.entry((email.clone(), kind.clone()))
            .or_default()
            .push((status.clone(), message_id.clone()));
    }
    let mut duplicates = 0;
    for (_, status, message_id) in rows.iter().map(|(_, k, s, m)| (k, s, m)) {
        let id = message_id
            .as_deref()
            .unwrap_or_default()
            .trim_matches(['<', '>']);
        let received = copies.get(id).copied().unwrap_or(0);
        if status == "SENT" {
            duplicates += received.saturating_sub(1);
        }
    }
    for journey in journeys {
        for person in journey.invited() {
            let mut kinds = vec!["INVITATION"];
            match journey.ending {
                Ending::Completed => kinds.push("COMPLETED"),
                Ending::Cancelled => kinds.push("CANCELLED"),
                Ending::Expired => kinds.push("EXPIRED"),
                Ending::Declined if Some(person) != journey.decliner() => kinds.push("DECLINED"),
                Ending::Declined => {}
            }
            if journey.reminded && person.signer && person.group == 1 {
                kinds.push("REMINDER");
            }
            for kind in kinds {
                let rows = sent.get(&(person.email.clone(), kind.to_owned()));
                let delivered = rows.is_some_and(|rows| {
                    rows.iter().any(|(status, id)| {
                        withdrawn_link(kind, status)
                            || status == "SENT"
                                && id.as_deref().is_some_and(|id| {
                                    copies
                                        .get(id.trim_matches(['<', '>']))
                                        .is_some_and(|n| *n > 0)
                                })
                    })
                });
                if !delivered {
                    violations.push(format!(
                        "journey {} ({:?}): no {kind} e-mail reached {} (rows: {rows:?})",
                        journey.number, journey.ending, person.email
                    ));
                }
            }
        }
    }
    (rows.len(), duplicates)
}

/// The SMS each journey implies, each accepted by the provider at least once: `(sent,
/// duplicates)`.
async fn check_sms(
    deployment: &Deployment,
    journeys: &[Journey],
    documents: &[Uuid],
    violations: &mut Vec<String>,
) -> (usize, usize) {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT r.phone_e164, s.kind, s.status FROM outbound_sms s
         JOIN recipients r ON r.id = s.recipient_id WHERE s.document_id = ANY($1)",
    )
    .bind(documents)
    .fetch_all(&deployment.db.pool)
    .await
    .expect("the SMS");
    let mut accepted: HashMap<String, usize> = HashMap::new();
    for texted in deployment.sms.accepted() {
        *accepted.entry(texted.to).or_default() += 1;
    }
    let mut rows_by_number: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for (phone, kind, status) in &rows {
        rows_by_number
            .entry(phone.clone())
            .or_default()
            .push((kind.clone(), status.clone()));
    }
    let mut duplicates = 0;
    for (phone, rows) in &rows_by_number {
        let sent = rows
            .iter()
            .filter(|(_, s)| s == "SENT" || s == "DELIVERED")
            .count();
        let got = accepted.get(phone).copied().unwrap_or(0);
        if got < sent {
            violations.push(format!(
                "{phone}: {sent} SMS recorded sent, {got} accepted by the provider"
            ));
        }
        duplicates += got.saturating_sub(sent);
    }
    for journey in journeys {
        for person in journey.invited() {
            let Some(phone) = &person.phone else { continue };
            let mut kinds = vec!["INVITATION"];
            // Declines and expiries are texted to the signers still waiting.
            match journey.ending {
                Ending::Expired if person.signer => kinds.push("EXPIRED"),
                Ending::Declined if person.signer && Some(person) != journey.decliner() => {
                    kinds.push("DECLINED");
                }
                _ => {}
            }
            for kind in kinds {
                let ok = rows_by_number.get(phone).is_some_and(|rows| {
                    rows.iter().any(|(k, s)| {
                        k == kind && (s == "SENT" || s == "DELIVERED" || withdrawn_link(kind, s))
                    })
                });
                if !ok {
                    violations.push(format!(
                        "journey {} ({:?}): no {kind} SMS sent to {phone} (rows: {:?})",
                        journey.number,
                        journey.ending,
                        rows_by_number.get(phone)
                    ));
                }
            }
        }
    }
    (rows.len(), duplicates)
}

/// Every event delivered at least once (by `webhook-id`), the journeys' own among them:
/// `(events, duplicate deliveries)`.
async fn check_webhooks(
    deployment: &Deployment,
    journeys: &[Journey],
    violations: &mut Vec<String>,
) -> (usize, usize) {
    let events: Vec<(String, String, Option<Uuid>, Option<String>)> = sqlx::query_as(
        "SELECT 'msg_' || replace(e.id::text, '-', ''), e.event_type, e.document_id,
                (SELECT string_agg(d.status, ',') FROM webhook_deliveries d
                 WHERE d.event_id IN (e.id::text, 'msg_' || replace(e.id::text, '-', '')))
         FROM events e",
    )
    .fetch_all(&deployment.db.pool)
    .await
    .expect("the events");
    let mut received: HashMap<String, usize> = HashMap::new();
    // Deliveries the receiver acknowledged: a request answered 500, or cut before its answer,
    // delivered nothing.
    for request in deployment.hooks.requests() {
        if !request.answered.is_some_and(|s| (200..300).contains(&s)) {
            continue;
        }
        if let Some(id) = request.headers.get("webhook-id") {
            *received.entry(id.clone()).or_default() += 1;
        }
    }
    let mut duplicates = 0;
    let mut types: HashSet<(Uuid, String)> = HashSet::new();
    for (id, event_type, document, deliveries) in &events {
        let got = received.get(id).copied().unwrap_or(0);
        let delivered = deliveries.as_deref() == Some("DELIVERED");
        if got == 0 || !delivered {
            violations.push(format!(
                "event {id} ({event_type}, document {document:?}): received {got} time(s), deliveries {deliveries:?}"
            ));
        }
        duplicates += got.saturating_sub(1);
        if let Some(document) = document {
            types.insert((*document, event_type.clone()));
        }
    }
    for journey in journeys {
        for event in ["document.sent", journey.ending.event()] {
            if !types.contains(&(journey.document, event.to_owned())) {
                violations.push(format!(
                    "journey {}: no {event} event for document {}",
                    journey.number, journey.document
                ));
            }
        }
    }
    (events.len(), duplicates)
}

/// Every audit chain verifies; every final PDF's seal verifies (ours and poppler's) and reads
/// back every name and value signed.
fn check_evidence(deployment: &Deployment, journeys: &[Journey], violations: &mut Vec<String>) {
    let api = deployment.bin_dir.join("signet-api");
    for journey in journeys {
        let out = Command::new(&api)
            .args([
                "audit",
                "verify",
                "--document",
                &journey.document.to_string(),
            ])
            .env("DATABASE_URL", deployment.db.url())
            .output()
            .expect("signet-api audit verify");
        if !out.status.success() {
            violations.push(format!(
                "journey {}: the audit chain of {} does not verify: {}{}",
                journey.number,
                journey.document,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let Some(pdf) = &journey.final_pdf else {
            continue;
        };
        let ours = Command::new(&api)
            .args(["document", "verify", "--file"])
            .arg(pdf)
            .args(["--trust", &deployment.seal_root])
            .output()
            .expect("signet-api document verify");
        if !ours.status.success() {
            violations.push(format!(
                "journey {}: {} does not verify: {}",
                journey.number,
                pdf.display(),
                String::from_utf8_lossy(&ours.stderr)
            ));
        }
        let poppler = Command::new("pdfsig").arg(pdf).output().expect("pdfsig");
        let report = String::from_utf8_lossy(&poppler.stdout);
        if !report.contains("Signature Validation: Signature is Valid.") {
            violations.push(format!(
                "journey {}: pdfsig does not find {} validly sealed: {report}",
                journey.number,
                pdf.display()
            ));
        }
        let text = Command::new("pdftotext")
            .arg(pdf)
            .arg("-")
            .output()
            .expect("pdftotext");
        let text = String::from_utf8_lossy(&text.stdout);
        for person in journey.people.iter().filter(|p| p.signer) {
            for expected in [&person.name, &person.value] {
                if !text.contains(expected.as_str()) {
                    violations.push(format!(
                        "journey {}: {expected:?} is not in the final PDF {}",
                        journey.number,
                        pdf.display()
                    ));
                }
            }
        }
    }
}

/// No file in the store without a document (or template, or attachment), none of theirs
/// missing — once the sweep has removed what was written for writes never committed.
async fn check_files(deployment: &Deployment, violations: &mut Vec<String>) {
    let pool = &deployment.db.pool;
    let sweep = deployment.final_sweep();
    let started = Instant::now();
    loop {
        let pending: i64 = sqlx::query_scalar("SELECT count(*) FROM pending_files")
            .fetch_one(pool)
            .await
            .unwrap_or(-1);
        if pending == 0 {
            break;
        }
        if started.elapsed() > Duration::from_secs(120) {
            violations.push(format!("{pending} pending files left after the sweep"));
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    drop(sweep);
    let referenced: HashSet<String> = sqlx::query_scalar(
        "SELECT file_key FROM documents
         UNION SELECT final_file_key FROM documents WHERE final_file_key IS NOT NULL
         UNION SELECT file_key FROM templates
         UNION SELECT file_key FROM signer_attachments",
    )
    .fetch_all(pool)
    .await
    .expect("the files referred to")
    .into_iter()
    .collect();
    let stored: HashSet<String> = deployment.stored_keys().await.into_iter().collect();
    let orphans: Vec<&String> = stored.difference(&referenced).collect();
    let missing: Vec<&String> = referenced.difference(&stored).collect();
    if !orphans.is_empty() {
        violations.push(format!(
            "{} files in the store belong to nothing: {:?}",
            orphans.len(),
            &orphans[..orphans.len().min(5)]
        ));
    }
    if !missing.is_empty() {
        violations.push(format!(
            "{} files referred to are not in the store: {:?}",
            missing.len(),
            &missing[..missing.len().min(5)]
        ));
    }
}
