//! Bulk send (issue #32, docs/templates.md): one template made into many sent documents, a row
//! each. Every row is checked with the template's `plan` before anything is stored, and a bad
//! row refuses the whole batch; accepted rows are stored PENDING with one `CreateBulkSend` job,
//! which makes them in chunks (`run`), each row at most once.

use std::collections::BTreeMap;

use chrono::{SecondsFormat, Utc};
use serde::Serialize;
use serde_json::Value;
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
        bulk_sends::{
            BulkOverrides, BulkSendFailure, BulkSendView, MAX_LISTED_PROBLEMS, Row, rows_from_csv,
            rows_from_json,
        },
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

/// The rows as the request gave them, read once the template is known.
pub enum GivenRows {
    Json(Vec<Value>),
    Csv(Vec<u8>),
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
    pub rows: Vec<Row>,
    pub overrides: BulkOverrides,
    pub dry_run: bool,
}

/// Reads and checks every row against the account's template (refused if archived): the
/// rows, or every problem, each named `rows[N].<column>` (a CSV's line in the reason), the
/// common parts (`message`, `expiryDate`…) once. Nothing is written.
#[tracing::instrument(name = "bulk_sends::check", skip_all)]
pub async fn check(
    pool: &PgPool,
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
    let BulkSendRequest {
        rows,
        overrides,
        dry_run,
    } = request.value;
    let mut found = Problems::default();
    let rows = match rows {
        GivenRows::Json(values) => {
            let rows = rows_from_json(values, max_rows, &mut found);
            for row in &rows {
                for column in row.columns.keys() {
                    if matches!(column_of(&usable, column), Column::Unknown) {
                        found.invalid(format!("{}{column}", row.path()), unknown_column(&usable));
                    }
                }
            }
            rows
        }
        GivenRows::Csv(bytes) => {
            let (header, rows) = rows_from_csv(&bytes, max_rows, &mut found);
            for column in &header {
                if !column.is_empty() && matches!(column_of(&usable, column), Column::Unknown) {
                    found.invalid(
                        format!("header.{column}"),
                        format!("{} (line 1)", unknown_column(&usable)),
                    );
                }
            }
            rows
        }
    };
    let mut listed = listed(found);
    let mut common: Vec<Problem> = Vec::new();
    for row in &rows {
        let Err(row_problems) = row_plan(&usable, &row.columns, &overrides, reminder_defaults)
        else {
            continue;
        };
        for problem in row_problems {
            match problem {
                RowProblem::Column(problem) => listed.push(Problem::new(
                    format!("{}{}", row.path(), problem.field),
                    format!(
                        "{}{}",
                        // The other element a reason names is in the same row.
                        problem
                            .reason
                            .replace("(also roles.", &format!("(also {}", row.path())),
                        row.at_line()
                    ),
                )),
                RowProblem::Common(problem) => {
                    if !common.contains(&problem) {
                        common.push(problem);
                    }
                }
            }
        }
    }
    listed.splice(0..0, common);
    if listed.is_empty() {
        return Ok(Checked {
            template_id,
            rows,
            overrides,
            dry_run,
        });
    }
    if listed.len() > MAX_LISTED_PROBLEMS {
        let more = listed.len() - (MAX_LISTED_PROBLEMS - 1);
        listed.truncate(MAX_LISTED_PROBLEMS - 1);
        listed.push(Problem::new(
            "rows",
            format!("and {more} more problems, not listed"),
        ));
    }
    Err(Error::Invalid(listed))
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

/// What one column of a row is, for the template.
enum Column {
    Person,
    Value,
    Unknown,
}

fn column_of(usable: &Usable, column: &str) -> Column {
    let person = usable.roles.iter().any(|role| {
        column
            .strip_prefix(role.name.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|part| PERSON_COLUMNS.contains(&part))
    });
    if person {
        Column::Person
    } else if usable.fields.iter().any(|field| field.label == column) {
        Column::Value
    } else {
        Column::Unknown
    }
}

fn unknown_column(usable: &Usable) -> String {
    let roles: Vec<&str> = usable.roles.iter().map(|r| r.name.as_str()).collect();
    format!(
        "not a column of this template: a role's <role>.name, .email, .countryCode, \
         .phoneNumber or .language (roles: {}), or a field label",
        roles.join(", ")
    )
}

/// A problem of one row: of its own columns, or of what every row shares (`message`, …).
enum RowProblem {
    Column(Problem),
    Common(Problem),
}

/// The row as `POST /templates/{id}/documents` would take it, with `"send": true`, checked by
/// the template's `plan`.
fn row_plan(
    usable: &Usable,
    columns: &BTreeMap<String, String>,
    overrides: &BulkOverrides,
    reminder_defaults: ReminderDefaults,
) -> std::result::Result<templates::Plan, Vec<RowProblem>> {
    let mut found = Vec::new();
    let mut roles: BTreeMap<String, RolePersonInput> = BTreeMap::new();
    let mut values: BTreeMap<String, String> = BTreeMap::new();
    for (column, value) in columns {
        let role = usable.roles.iter().find_map(|role| {
            let part = column.strip_prefix(role.name.as_str())?.strip_prefix('.')?;
            PERSON_COLUMNS
                .contains(&part)
                .then_some((role.name.as_str(), part))
        });
        let Some((role, part)) = role else {
            if matches!(column_of(usable, column), Column::Value) {
                values.insert(column.clone(), value.clone());
            }
            continue;
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
            "name" => person.name = value.clone(),
            "email" => person.email = value.trim().to_owned(),
            "countryCode" => person.country_code = Some(value.trim().to_owned()),
            "phoneNumber" => person.phone_number = Some(value.trim().to_owned()),
            _ => match signet_i18n::Language::from_tag(value.trim()) {
                Some(language) => person.language = Some(language),
                None => found.push(RowProblem::Column(Problem::new(
                    column.clone(),
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
    let (mut sent, mut failed) = (0, 0);
    for row in rows {
        let plan = match row_plan(&usable, &row.input.0, &bulk.overrides.0, notifier.reminders) {
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
