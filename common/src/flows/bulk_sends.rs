//! Bulk send (issue #32, docs/templates.md): one template made into many sent documents, a row
//! each. Every row is checked with the template's `plan` before anything is stored, and a bad
//! row refuses the whole batch; accepted rows are stored PENDING with one `CreateBulkSend` job,
//! which makes them in chunks (`run`), each row at most once.

use std::{
    collections::{BTreeMap, HashMap},
    time::{Duration, Instant},
};

use chrono::{SecondsFormat, Utc};
use serde::Serialize;
use sqlx::{Connection, PgPool};

use crate::{
    effects,
    error::{Error, Problem, Problems, Result},
    flows::{
        drafting,
        templates::{self, Usable},
    },
    infra::{
        jobs::{self, CreateBulkSend},
        limits::Workers,
        notify::Notifier,
    },
    model::{
        AccountId, Actor, BulkSendId, BulkSendStatus, DocumentId, ReminderDefaults, TemplateId,
        WebhookEvent,
    },
    store::{
        bulk_sends::{self, BulkSend, NewBulkSend},
        idempotency::Receipt,
    },
    wire::{
        body::Parsed,
        bulk_rows::{ReadRows, rows_from_csv},
        bulk_sends::{BulkOverrides, BulkSendFailure, BulkSendView},
        templates::{InstantiateInput, RolePersonInput},
        views::Timestamp,
    },
};

/// Rows made in one transaction by the worker.
pub const CHUNK_ROWS: i64 = 100;
/// Failed rows the progress answer lists (`failed` counts them all).
pub const LISTED_FAILURES: i64 = 100;

/// The columns a role takes, after its name and a dot (`Tenant.email`).
pub(crate) const PERSON_COLUMNS: [&str; 5] =
    ["name", "email", "countryCode", "phoneNumber", "language"];

/// The rows as the request gave them: read from a JSON body already, or a CSV file to read.
pub enum GivenRows {
    Json(ReadRows),
    Csv(bytes::Bytes),
}

/// A bulk send as asked for.
pub struct BulkSendRequest {
    pub rows: GivenRows,
    pub overrides: BulkOverrides,
    pub dry_run: bool,
}

/// A bulk send whose every row was checked against the template: ready to store.
pub struct Checked {
    pub template_id: TemplateId,
    pub rows: ReadRows,
    pub overrides: BulkOverrides,
    pub dry_run: bool,
}

/// The longest the rows of one bulk send may take to check (docs/security.md): the check is
/// linear in the rows, so only a machine far busier than any test reaches it.
pub const CHECK_DEADLINE: Duration = Duration::from_secs(20);

/// Reads and checks every row against the account's template (refused if archived): the
/// rows, or every problem, each named `rows[N].<column>` (a CSV's line in the reason), the
/// common parts (`message`, `expiryDate`…) once. The reading and checking run on `workers`
/// (off the async runtime), within [`CHECK_DEADLINE`]. Nothing is written.
#[tracing::instrument(name = "bulk_sends::check", skip_all)]
#[allow(clippy::too_many_arguments)]
pub async fn check(
    pool: &PgPool,
    workers: &Workers,
    account_id: AccountId,
    template_id: TemplateId,
    request: Parsed<BulkSendRequest>,
    max_rows: usize,
    reminder_defaults: ReminderDefaults,
) -> Result<Checked> {
    let problems = Problems::of_reading(request.problems);
    let usable = {
        let mut conn = pool.acquire().await?;
        match templates::usable(&mut conn, account_id, template_id).await {
            Ok(usable) => usable,
            Err(refusal) => return Err(problems.before(refusal)),
        }
    };
    problems.into_result()?;
    let request = request.value;
    let deadline = Instant::now() + CHECK_DEADLINE;
    workers
        .run(move || check_rows(&usable, request, max_rows, reminder_defaults, deadline))
        .await
        .ok_or_else(|| Error::Internal("checking the rows of a bulk send failed".into()))?
}

/// [`check`]'s work on the rows, on a thread of its own.
fn check_rows(
    usable: &Usable,
    request: BulkSendRequest,
    max_rows: usize,
    reminder_defaults: ReminderDefaults,
    deadline: Instant,
) -> Result<Checked> {
    let BulkSendRequest {
        rows,
        overrides,
        dry_run,
    } = request;
    let mut found = Problems::default();
    let rows = match rows {
        GivenRows::Json(rows) => rows,
        GivenRows::Csv(bytes) => rows_from_csv(&bytes),
    }
    .checked(max_rows, &mut found);
    let columns = TemplateColumns::of(usable);
    // The first unknown column says what the columns may be; the others refer to it.
    let mut unknown = None;
    for (name, named_at) in rows.columns.iter().zip(&rows.first_named) {
        if columns.get(name).is_none() {
            let line = if named_at.starts_with("header.") {
                " (line 1)"
            } else {
                ""
            };
            let reason = match &unknown {
                None => unknown_column(usable),
                Some(first) => format!("not a column of this template either (see {first})"),
            };
            found.invalid(named_at.clone(), format!("{reason}{line}"));
            unknown.get_or_insert_with(|| named_at.clone());
        }
    }
    let mut in_rows = Problems::default();
    let mut common: Vec<Problem> = Vec::new();
    for row in &rows.rows {
        if Instant::now() > deadline {
            return Err(Error::invalid(
                "rows",
                format!(
                    "the rows take longer than {} seconds to check: send fewer at once",
                    CHECK_DEADLINE.as_secs()
                ),
            ));
        }
        let cells = row
            .cells()
            .map(|(column, value)| (rows.columns[column].as_str(), value));
        let Err(row_problems) = row_plan(usable, &columns, cells, &overrides, reminder_defaults)
        else {
            continue;
        };
        for problem in row_problems {
            match problem {
                RowProblem::Column(problem) => in_rows.invalid(
                    format!("{}{}", row.path(), problem.field),
                    format!(
                        "{}{}",
                        // The other element a reason names is in the same row.
                        problem
                            .reason
                            .replace("(also roles.", &format!("(also {}", row.path())),
                        row.at_line()
                    ),
                ),
                RowProblem::Common(problem) => {
                    if !common.contains(&problem) {
                        common.push(problem);
                    }
                }
            }
        }
    }
    // What the rows share first, then what reading found, then each row's own.
    let mut all = Problems::default();
    for problem in common {
        all.invalid(problem.field, problem.reason);
    }
    all.extend_at("", found);
    all.extend_at("", in_rows);
    all.into_result()?;
    Ok(Checked {
        template_id: usable.template.id,
        rows,
        overrides,
        dry_run,
    })
}

/// Stores a checked bulk send: the bulk send (RUNNING), its rows (PENDING) and its job, in one
/// transaction with the answer of an idempotent request.
#[tracing::instrument(name = "bulk_sends::start", skip_all, fields(bulk_send.id = %id))]
pub async fn start(
    pool: &PgPool,
    account_id: AccountId,
    id: BulkSendId,
    checked: &Checked,
    actor: &Actor,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let (actor_ip, actor_user_agent) = match actor {
        Actor::Client { ip, user_agent } => (ip.map(|ip| ip.to_string()), user_agent.as_str()),
        Actor::Operator | Actor::Worker => (None, ""),
    };
    let mut tx = pool.begin().await?;
    bulk_sends::insert(
        &mut tx,
        &NewBulkSend {
            id,
            account_id,
            template_id: checked.template_id,
            overrides: &checked.overrides,
            actor_ip,
            actor_user_agent,
        },
        &checked.rows,
    )
    .await?;
    jobs::enqueue(&mut tx, &[CreateBulkSend { bulk_send_id: id }]).await?;
    drafting::store_receipt(&mut tx, receipt).await?;
    tx.commit().await?;
    Ok(())
}

/// What a column of the rows is for the template: a role's person column or a field's value.
#[derive(Clone, Copy)]
enum Column<'u> {
    Person { role: &'u str, part: &'static str },
    Value,
}

/// The template's columns by name, made once per check (or chunk) so that each value finds
/// its column at once.
struct TemplateColumns<'u>(HashMap<String, Column<'u>>);

impl<'u> TemplateColumns<'u> {
    fn of(usable: &'u Usable) -> Self {
        let mut columns = HashMap::new();
        for field in &usable.fields {
            columns.insert(field.label.clone(), Column::Value);
        }
        // A role's person column wins over a field labelled the same.
        for role in &usable.roles {
            for part in PERSON_COLUMNS {
                let column = Column::Person {
                    role: role.name.as_str(),
                    part,
                };
                columns.insert(format!("{}.{part}", role.name), column);
            }
        }
        Self(columns)
    }

    fn get(&self, name: &str) -> Option<Column<'u>> {
        self.0.get(name).copied()
    }
}

/// The most role names a reason lists; the rest are counted.
const LISTED_ROLES: usize = 5;

fn unknown_column(usable: &Usable) -> String {
    let names: Vec<&str> = usable
        .roles
        .iter()
        .take(LISTED_ROLES)
        .map(|r| r.name.as_str())
        .collect();
    let more = usable.roles.len().saturating_sub(LISTED_ROLES);
    format!(
        "not a column of this template: a role's <role>.name, .email, .countryCode, \
         .phoneNumber or .language (roles: {}{}), or a field label",
        names.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    )
}

/// A problem of one row: of its own columns, or of what every row shares (`message`, …).
enum RowProblem {
    Column(Problem),
    Common(Problem),
}

/// The row as `POST /templates/{id}/documents` would take it, with `"send": true`, checked by
/// the template's `plan`. Columns the template does not have are left out (they are refused
/// once each, before the rows are planned).
fn row_plan<'c>(
    usable: &Usable,
    columns: &TemplateColumns<'_>,
    cells: impl Iterator<Item = (&'c str, &'c str)>,
    overrides: &BulkOverrides,
    reminder_defaults: ReminderDefaults,
) -> std::result::Result<templates::Plan, Vec<RowProblem>> {
    let mut found = Vec::new();
    let mut roles: BTreeMap<String, RolePersonInput> = BTreeMap::new();
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (column, value) in cells {
        let (role, part) = match columns.get(column) {
            Some(Column::Person { role, part }) => (role, part),
            Some(Column::Value) => {
                values.insert(column.to_owned(), value.to_owned());
                continue;
            }
            None => continue,
        };
        let person = roles
            .entry(role.to_owned())
            .or_insert_with(|| RolePersonInput {
                name: String::new(),
                email: String::new(),
                country_code: None,
                phone_number: None,
                language: None,
            });
        match part {
            "name" => person.name = value.to_owned(),
            "email" => person.email = value.trim().to_owned(),
            "countryCode" => person.country_code = Some(value.trim().to_owned()),
            "phoneNumber" => person.phone_number = Some(value.trim().to_owned()),
            _ => match signet_i18n::Language::from_tag(value.trim()) {
                Some(language) => person.language = Some(language),
                None => found.push(RowProblem::Column(Problem::new(
                    column,
                    format!(
                        "not a language Signet speaks: one of {}",
                        signet_i18n::Language::ALL.map(|l| l.tag()).join(", ")
                    ),
                ))),
            },
        }
    }
    let input = InstantiateInput {
        title: overrides.title.clone(),
        roles,
        values: (!values.is_empty()).then_some(values),
        send: Some(true),
        message: overrides.message.clone(),
        description: overrides.description.clone(),
        expiry_date: overrides.expiry_date.clone(),
        language: overrides.language,
        reminders: None,
    };
    match templates::plan(usable, input, reminder_defaults) {
        Ok(plan) if found.is_empty() => Ok(plan),
        Ok(_) => Err(found),
        Err(problems) => {
            for problem in listed(problems) {
                let column = problem
                    .field
                    .strip_prefix("roles.")
                    .or_else(|| problem.field.strip_prefix("values."));
                found.push(match column {
                    Some(column) => RowProblem::Column(Problem::new(column, problem.reason)),
                    None => RowProblem::Common(problem),
                });
            }
            Err(found)
        }
    }
}

/// Every problem, whichever kind came first.
fn listed(problems: Problems) -> Vec<Problem> {
    match problems.into_result() {
        Ok(()) => Vec::new(),
        Err(Error::Invalid(list)) | Err(Error::Refused { problems: list, .. }) => list,
        Err(other) => vec![Problem::new("", other.to_string())],
    }
}

/// What a run of the bulk send's job came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every row was made or failed; COMPLETED now (`bulk_send.completed` queued).
    Completed,
    /// Cancelled, or completed by an earlier run: nothing to do.
    Finished(BulkSendStatus),
    /// No such bulk send.
    Gone,
}

/// How long a run waits before looking again at rows another transaction holds.
const HELD_ROWS_RETRY: std::time::Duration = std::time::Duration::from_secs(1);

/// Makes the bulk send's PENDING rows into sent documents, `CHUNK_ROWS` per transaction: each
/// row checked again with `plan` against the template as it is now, made, and marked SENT in
/// the transaction that makes its document (or FAILED, with why, if refused), so a row is
/// never made twice and a run that stops is resumed by the next. The documents' invitations,
/// SMS and webhooks are queued through the outbox, as a single send's are: no network call
/// here. Then COMPLETED, with `bulk_send.completed`.
#[tracing::instrument(name = "bulk_sends::run", skip_all, fields(bulk_send.id = %id))]
pub async fn run(pool: &PgPool, id: BulkSendId, notifier: &Notifier) -> Result<RunOutcome> {
    loop {
        // The jobs a chunk queues (its documents' e-mails, SMS and webhooks) are taken after
        // interactive work of their queues.
        match jobs::in_bulk_lane(make_chunk(pool, id, notifier)).await? {
            Chunk::Made => {}
            // Another transaction holds the rest: a run of this job presumed dead whose
            // connection is not gone yet, or (rarely) a second run. Its rows are made, or
            // come back PENDING when it rolls back; either way this run sees them through,
            // so that no row is left PENDING with no job to make it.
            Chunk::Held => tokio::time::sleep(HELD_ROWS_RETRY).await,
            Chunk::Done(outcome) => return Ok(outcome),
        }
    }
}

/// What one chunk came to.
enum Chunk {
    Made,
    Held,
    Done(RunOutcome),
}

/// One chunk, in one transaction.
async fn make_chunk(pool: &PgPool, id: BulkSendId, notifier: &Notifier) -> Result<Chunk> {
    let mut tx = pool.begin().await?;
    let Some(bulk) = bulk_sends::lock_for_chunk(&mut tx, id).await? else {
        return Ok(Chunk::Done(RunOutcome::Gone));
    };
    if bulk.status != BulkSendStatus::Running {
        return Ok(Chunk::Done(RunOutcome::Finished(bulk.status)));
    }
    let rows = bulk_sends::lock_pending(&mut tx, id, CHUNK_ROWS).await?;
    if rows.is_empty() {
        if bulk_sends::any_pending(&mut tx, id).await? {
            return Ok(Chunk::Held);
        }
        let outcome = finish(&mut tx, &bulk).await?;
        tx.commit().await?;
        return Ok(Chunk::Done(outcome));
    }
    let usable = match templates::usable(&mut tx, bulk.account_id, bulk.template_id).await {
        Ok(usable) => usable,
        // Archived since it was accepted: none of the rest is made.
        Err(refusal @ (Error::TemplateArchived | Error::TemplateNotFound)) => {
            bulk_sends::fail_pending(&mut tx, id, &refusal.to_string()).await?;
            tx.commit().await?;
            return Ok(Chunk::Made);
        }
        Err(e) => return Err(e),
    };
    let actor = actor_of(&bulk);
    let columns = TemplateColumns::of(&usable);
    let (mut sent, mut failed) = (0, 0);
    for row in rows {
        let cells = row.input.0.iter().map(|(c, v)| (c.as_str(), v.as_str()));
        let plan = match row_plan(
            &usable,
            &columns,
            cells,
            &bulk.overrides.0,
            notifier.reminders,
        ) {
            Ok(plan) => plan,
            Err(found) => {
                let reason = found
                    .into_iter()
                    .map(|problem| match problem {
                        RowProblem::Column(p) | RowProblem::Common(p) => {
                            format!("{}: {}", p.field, p.reason)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                bulk_sends::mark_failed(&mut tx, id, row.row_number, &reason).await?;
                failed += 1;
                continue;
            }
        };
        let document_id = DocumentId::new();
        let mut savepoint = tx.begin().await?;
        match templates::make(&mut savepoint, &usable, document_id, plan, &actor, notifier).await {
            Ok(()) => {
                bulk_sends::mark_sent(&mut savepoint, id, row.row_number, document_id).await?;
                savepoint.commit().await?;
                sent += 1;
            }
            Err(e) if is_refusal(&e) => {
                savepoint.rollback().await?;
                bulk_sends::mark_failed(&mut tx, id, row.row_number, &e.to_string()).await?;
                failed += 1;
            }
            Err(e) => return Err(e),
        }
    }
    tx.commit().await?;
    tracing::info!(sent, failed, "bulk send chunk made");
    Ok(Chunk::Made)
}

/// A refusal of the row itself (a rule of the document), as opposed to a failure on our side,
/// which rolls the chunk back for the job to try again.
fn is_refusal(error: &Error) -> bool {
    matches!(
        error,
        Error::Invalid(_)
            | Error::Refused { .. }
            | Error::Rule(_)
            | Error::Conflict(_)
            | Error::TemplateArchived
            | Error::TemplateNotFound
            | Error::DocumentNotFound
    )
}

/// Who the documents' trails say made and sent them: whoever asked for the bulk send.
fn actor_of(bulk: &BulkSend) -> Actor {
    Actor::Client {
        ip: bulk.actor_ip.as_deref().and_then(|ip| ip.parse().ok()),
        user_agent: bulk.actor_user_agent.clone(),
    }
}

/// The body of `bulk_send.completed`.
#[derive(Serialize)]
struct CompletedPayload {
    #[serde(rename = "type")]
    event_type: &'static str,
    timestamp: String,
    data: CompletedData,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompletedData {
    id: BulkSendId,
    template_id: TemplateId,
    total: i32,
    sent: i64,
    failed: i64,
}

/// RUNNING → COMPLETED, and `bulk_send.completed`.
async fn finish(tx: &mut sqlx::PgConnection, bulk: &BulkSend) -> Result<RunOutcome> {
    if !bulk_sends::complete(&mut *tx, bulk.id).await? {
        return Ok(RunOutcome::Finished(BulkSendStatus::Completed));
    }
    let counts = bulk_sends::counts(&mut *tx, bulk.id).await?;
    let event = WebhookEvent::BulkSendCompleted;
    let body = serde_json::to_string(&CompletedPayload {
        event_type: event.into(),
        timestamp: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        data: CompletedData {
            id: bulk.id,
            template_id: bulk.template_id,
            total: bulk.total,
            sent: counts.sent,
            failed: counts.failed,
        },
    })
    .expect("payloads serialise");
    effects::publish(tx, bulk.account_id, None, event, &body).await?;
    Ok(RunOutcome::Completed)
}

/// The account's bulk send, its counts and its first failures.
#[tracing::instrument(name = "bulk_sends::progress", skip_all)]
pub async fn progress(
    pool: &PgPool,
    account_id: AccountId,
    id: BulkSendId,
) -> Result<BulkSendView> {
    let mut conn = pool.acquire().await?;
    let bulk = bulk_sends::find(&mut conn, account_id, id).await?;
    let counts = bulk_sends::counts(&mut conn, id).await?;
    let failures = bulk_sends::failures(&mut conn, id, LISTED_FAILURES).await?;
    Ok(BulkSendView {
        id: bulk.id,
        template_id: bulk.template_id,
        status: bulk.status,
        total: i64::from(bulk.total),
        created: counts.created,
        sent: counts.sent,
        failed: counts.failed,
        cancelled: counts.cancelled,
        pending: counts.pending,
        failures: failures
            .into_iter()
            .map(|(row, reason)| BulkSendFailure { row, reason })
            .collect(),
        created_at: Timestamp(bulk.created_at),
        updated_at: Timestamp(bulk.updated_at),
        finished_at: bulk.finished_at.map(Timestamp),
    })
}

/// Cancels the account's bulk send: its rows not yet made are CANCELLED and nothing more is
/// made. Cancelling a cancelled one again changes nothing; a COMPLETED one is refused.
#[tracing::instrument(name = "bulk_sends::cancel", skip_all)]
pub async fn cancel(pool: &PgPool, account_id: AccountId, id: BulkSendId) -> Result<()> {
    let mut tx = pool.begin().await?;
    let was = bulk_sends::cancel(&mut tx, account_id, id).await?;
    tx.commit().await?;
    match was {
        BulkSendStatus::Completed => Err(Error::BulkSendCompleted),
        BulkSendStatus::Running | BulkSendStatus::Cancelled => Ok(()),
    }
}
