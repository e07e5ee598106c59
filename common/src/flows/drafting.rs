//! The document workflow: each operation checks its rules and makes its change, audit entry,
//! outbox rows and jobs in one transaction under the document's row lock.

use chrono::Utc;
use signet_pdf::PageSize;
use sqlx::{PgConnection, PgPool, Postgres, Transaction};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Error, Problems, Result, Rule},
    flows::{invitations, signer_auth},
    infra::{files::FileStore, notify::Notifier, pdf_sandbox::PdfSandbox},
    model::{
        AccountId, Actor, AuditEntry, Document, DocumentId, DocumentStatus, Field, FieldId,
        FieldType, Recipient, RecipientId, field_values,
    },
    store::{
        accounts, audit, documents, emails,
        fields::{self, NewField},
        idempotency::{self, Receipt},
        pending_files,
        placeholders::{self, NewPlaceholder},
        recipients::{self, NewRecipient},
        sms,
    },
    wire::{
        body::Parsed,
        inputs::{
            self, CancelInput, FieldInput, FieldPlacement, MAX_FIELDS_PER_DOCUMENT,
            MAX_RECIPIENTS_PER_DOCUMENT, RecipientInput, SendInput, SendRequest, ValidRecipient,
        },
    },
};

/// Recipient colours, assigned in order of addition (12 distinct hues).
pub const PALETTE: [&str; 12] = [
    "#E6194B", "#3CB44B", "#4363D8", "#F58231", "#911EB4", "#42D4F4", "#F032E6", "#BFEF45",
    "#469990", "#9A6324", "#800000", "#000075",
];

/// Stores a PDF and creates its DRAFT document with the CREATED audit entry. The PDF is
/// inspected in the PDF sandbox: a child process the OS bounds.
#[tracing::instrument(name = "drafting::upload_document", skip_all)]
pub async fn upload_document(
    pool: &PgPool,
    store: &FileStore,
    account_id: AccountId,
    title: &str,
    bytes: Vec<u8>,
    sandbox: &PdfSandbox,
    actor: &Actor,
) -> Result<Document> {
    let title = inputs::validate_title(title)?;
    let inspected = sandbox.inspect(&bytes, ()).await?;
    store_upload(
        pool,
        store,
        account_id,
        &title,
        bytes,
        &inspected,
        actor,
        &[],
    )
    .await
}

/// Stores an inspected PDF and creates its DRAFT document with the CREATED audit entry, and
/// the `placeholders` found in it, in one transaction.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn store_upload(
    pool: &PgPool,
    store: &FileStore,
    account_id: AccountId,
    title: &str,
    bytes: Vec<u8>,
    inspected: &signet_pdf::InspectedPdf,
    actor: &Actor,
    placeholders: &[NewPlaceholder],
) -> Result<Document> {
    accounts::find(pool, account_id).await?;
    let id = DocumentId::new();
    let file_key = FileStore::original_key(account_id, id);
    // Recorded before the write, so that a file whose document is never committed is found
    // and removed by the sweep, whatever happens after the write.
    pending_files::record(pool, &file_key, id).await?;
    // The upload's own buffer is what is stored: no copy.
    if let Err(e) = store.put(&file_key, bytes.into()).await {
        let _ = pending_files::forget(pool, &file_key).await;
        return Err(e.into());
    }
    let created = async {
        let mut tx = pool.begin().await?;
        let document = documents::insert(
            &mut tx,
            &documents::NewDocument {
                id,
                account_id,
                title,
                file_key: &file_key,
                sha256: &inspected.sha256,
                page_sizes: &inspected.page_sizes,
                template_id: None,
            },
        )
        .await?;
        let subject = Subject::of(&document);
        effects::record_in_trail(&mut tx, subject, DocumentEvent::Created, actor).await?;
        placeholders::insert_many(&mut tx, id, placeholders).await?;
        pending_files::settle(&mut tx, &file_key).await?;
        tx.commit().await?;
        Ok(document)
    }
    .await;
    if created.is_err() {
        // Nothing refers to the file once the insert has failed; if this fails too, the
        // sweep removes it.
        if store.remove(&file_key).await.is_ok() {
            let _ = pending_files::forget(pool, &file_key).await;
        }
    }
    created
}

#[tracing::instrument(name = "drafting::add_recipients", skip_all)]
pub async fn add_recipients(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    input: Parsed<Vec<RecipientInput>>,
    actor: &Actor,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let requested = input.value.len();
    let mut problems = Problems::of_reading(input.problems);
    let mut additions = inputs::validate_recipients(input.value, &mut problems);
    // Slow on purpose, so before the document's row is locked.
    signer_auth::hash_access_codes(&mut additions).await?;
    let (mut tx, _, existing) = match begin_draft_change(pool, account_id, document_id).await {
        Ok(opened) => opened,
        Err(refusal) => return Err(problems.before(refusal)),
    };
    let message = insert_recipients(
        &mut tx,
        account_id,
        document_id,
        &existing,
        additions,
        requested,
        problems,
    )
    .await?;
    commit_update(tx, account_id, document_id, &message, actor, receipt).await
}

/// The recipients added on the caller's transaction (which holds the document's row lock)
/// after the rules of [`add_recipients`], and the words of its audit entry.
pub(crate) async fn insert_recipients(
    tx: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    existing: &[Recipient],
    additions: Vec<(usize, ValidRecipient)>,
    requested: usize,
    mut problems: Problems,
) -> Result<String> {
    for (i, new) in &additions {
        if existing.iter().any(|old| new.email.matches(&old.email)) {
            problems.broken(
                Rule::DuplicateRecipient,
                format!("[{i}].email"),
                format!("{} is already a recipient of this document", new.email),
            );
        }
    }
    if existing.len() + requested > MAX_RECIPIENTS_PER_DOCUMENT {
        problems.invalid(
            "",
            format!("a document has at most {MAX_RECIPIENTS_PER_DOCUMENT} recipients"),
        );
    }
    problems.into_result()?;
    let additions = additions.into_iter().map(|(_, recipient)| recipient);
    // After the last position taken: a removed recipient's position is not reused.
    let next = existing
        .iter()
        .map(|r| r.position as usize + 1)
        .max()
        .unwrap_or(0);
    let new_recipients = new_recipients(next, additions);
    recipients::insert_many(tx, account_id, document_id, &new_recipients).await?;
    let emails: Vec<&str> = new_recipients.iter().map(|r| r.email.as_str()).collect();
    Ok(format!("Recipients added: {}", emails.join(", ")))
}

/// Validated recipients as rows to insert, positioned (and coloured) from `next` on.
pub(crate) fn new_recipients(
    next: usize,
    additions: impl Iterator<Item = ValidRecipient>,
) -> Vec<NewRecipient> {
    additions
        .enumerate()
        .map(|(i, r)| {
            let position = next + i;
            NewRecipient {
                id: RecipientId::new(),
                name: r.name,
                email: r.email,
                role: r.role,
                country_code: r.country_code,
                phone_number: r.phone_number,
                phone_e164: r.phone_e164,
                color_code: PALETTE[position % PALETTE.len()].to_owned(),
                position: position as i32,
                language: r.language.map(|l| l.tag().to_owned()),
                signing_order: r.signing_order,
                embedded: r.embedded,
                auth_method: r.authentication.as_ref().map(|a| a.method),
                access_code_hash: r.authentication.and_then(|a| a.access_code_hash),
            }
        })
        .collect()
}

/// Adds fields to a DRAFT document. Fields placed by an `anchor` are placed where the
/// document's PDF shows the anchor's text (read in the PDF sandbox) before they are checked.
#[tracing::instrument(name = "drafting::add_fields", skip_all)]
#[allow(clippy::too_many_arguments)]
pub async fn add_fields(
    pool: &PgPool,
    store: &FileStore,
    sandbox: &PdfSandbox,
    account_id: AccountId,
    document_id: DocumentId,
    input: Parsed<Vec<FieldInput>>,
    actor: &Actor,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let requested = input.value.len();
    let mut problems = Problems::of_reading(input.problems);
    if !inputs::check_list_size(requested, inputs::MAX_FIELDS_PER_REQUEST, &mut problems) {
        return problems.into_result();
    }
    let texts = inputs::anchor_texts(&input.value, &mut problems);
    let indexed = if input.value.iter().all(|field| field.anchor.is_none()) {
        input.value.into_iter().enumerate().collect()
    } else {
        let found = if texts.is_empty() {
            Vec::new()
        } else {
            let document = documents::find(pool, account_id, document_id).await?;
            let pdf = store.get(&document.file_key).await?;
            let needles = texts.iter().map(|(_, text)| text.clone()).collect();
            sandbox.find_text(&pdf, needles).await?
        };
        inputs::resolve_anchors(input.value, &texts, &found, &mut problems)
    };
    let placed = inputs::validate_placed(indexed, &mut problems);
    let (mut tx, document, recipients) =
        match begin_draft_change(pool, account_id, document_id).await {
            Ok(opened) => opened,
            Err(refusal) => return Err(problems.before(refusal)),
        };
    let message = insert_fields(
        &mut tx,
        account_id,
        &document,
        &recipients,
        placed,
        requested,
        problems,
    )
    .await?;
    commit_update(tx, account_id, document_id, &message, actor, receipt).await
}

/// The fields added on the caller's transaction (which holds the document's row lock) after
/// the rules of [`add_fields`], and the words of its audit entry.
pub(crate) async fn insert_fields(
    tx: &mut PgConnection,
    account_id: AccountId,
    document: &Document,
    recipients: &[Recipient],
    placed: Vec<(usize, inputs::PlacedField)>,
    requested: usize,
    mut problems: Problems,
) -> Result<String> {
    let existing = fields::list(tx, document.id).await?;
    let new_fields = new_fields(document, recipients, &existing, placed, &mut problems);
    let existing = existing.len();
    if existing + requested > MAX_FIELDS_PER_DOCUMENT {
        problems.invalid(
            "",
            format!("a document has at most {MAX_FIELDS_PER_DOCUMENT} fields"),
        );
    }
    problems.into_result()?;
    fields::insert_many(tx, account_id, document.id, &new_fields).await?;
    Ok(format!("Fields added: {}", new_fields.len()))
}

/// Checks that a field's box lies on its page of a PDF with these pages (a document's or a
/// template's).
pub(crate) fn check_bounds(
    page_sizes: &[PageSize],
    page: i64,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
) -> std::result::Result<(), Rule> {
    let page_size = page
        .checked_sub(1)
        .and_then(|index| usize::try_from(index).ok())
        .and_then(|index| page_sizes.get(index))
        .ok_or(Rule::PageOutOfRange {
            page,
            pages: page_sizes.len() as i32,
        })?;
    // Half a point of slack absorbs rounding in clients that convert from other units.
    const SLACK: f64 = 0.5;
    if x < 0.0
        || y < 0.0
        || x + width > page_size.width + SLACK
        || y + height > page_size.height + SLACK
    {
        return Err(Rule::FieldOutOfBounds(page));
    }
    Ok(())
}

/// Where a broken [`check_bounds`] is: the page number, or the box of element `at`.
pub(crate) fn bounds_problem(problems: &mut Problems, at: &str, rule: Rule) {
    let field = match rule {
        Rule::PageOutOfRange { .. } => format!("{at}.page"),
        _ => at.to_owned(),
    };
    let reason = rule.to_string();
    problems.broken(rule, field, reason);
}

/// Validated fields as rows to insert, each checked against its recipient and page, and its
/// label against the labels of the document's `existing` fields; the problems of those that
/// fail go to `problems`. A NAME field given no value is prefilled with its recipient's name.
fn new_fields(
    document: &Document,
    recipients: &[Recipient],
    existing: &[Field],
    placed: Vec<(usize, inputs::PlacedField)>,
    problems: &mut Problems,
) -> Vec<NewField> {
    let mut new_fields = Vec::with_capacity(placed.len());
    for (i, field) in placed {
        let recipient = recipients
            .iter()
            .find(|r| r.email.eq_ignore_ascii_case(&field.recipient_email));
        if recipient.is_none() {
            let rule = Rule::RecipientNotFound(field.recipient_email.clone());
            let reason = rule.to_string();
            problems.broken(rule, format!("[{i}].recipientEmail"), reason);
        }
        if let Some(label) = &field.label
            && existing.iter().any(|f| f.label.as_ref() == Some(label))
        {
            problems.invalid(
                format!("[{i}].label"),
                format!("{label} is the label of another field of the document: labels are unique in the document"),
            );
        }
        let bounds = check_bounds(
            &document.page_sizes,
            field.page,
            field.x,
            field.y,
            field.width,
            field.height,
        );
        if let Err(rule) = bounds {
            bounds_problem(problems, &format!("[{i}]"), rule);
            continue;
        }
        let Some(recipient) = recipient else {
            continue;
        };
        let properties = field.properties;
        new_fields.push(NewField {
            id: FieldId::new(),
            recipient_id: recipient.id,
            field_type: field.field_type,
            page: field.page as i32,
            x: field.x,
            y: field.y,
            width: field.width,
            height: field.height,
            value: properties
                .value
                .or_else(|| name_prefill(field.field_type, &recipient.name)),
            read_only: properties.read_only,
            label: field.label,
            required: properties.required,
            rules: properties.rules,
        });
    }
    new_fields
}

/// The value a field of `field_type` made for a recipient called `name` starts with, when it is
/// given none: a NAME field shows its recipient's name, which the signer may correct.
pub(crate) fn name_prefill(field_type: FieldType, name: &str) -> Option<String> {
    (field_type == FieldType::Name).then(|| {
        name.chars()
            .take(field_values::MAX_NAME_VALUE_CHARS)
            .collect()
    })
}

/// Rearranges a DRAFT document's fields in one change: the fields in `keep` move or resize to
/// their new boxes (on the same page, within its bounds), the document's other fields are
/// removed, and `add` is added by the rules of [`add_fields`]. One `UPDATED` entry counts what
/// changed; nothing changed writes nothing.
#[tracing::instrument(name = "drafting::arrange_fields", skip_all)]
pub async fn arrange_fields(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    keep: Vec<FieldPlacement>,
    add: Vec<FieldInput>,
    actor: &Actor,
) -> Result<()> {
    let mut problems = Problems::default();
    let placed = if add.is_empty() {
        Vec::new()
    } else {
        inputs::validate_fields(add, &mut problems)
    };
    let (mut tx, document, recipients) =
        match begin_draft_change(pool, account_id, document_id).await {
            Ok(opened) => opened,
            Err(refusal) => return Err(problems.before(refusal)),
        };
    let existing = fields::list(&mut tx, document_id).await?;
    let mut moved = Vec::new();
    for (i, placement) in keep.iter().enumerate() {
        let at = format!("keep[{i}]");
        let Some(field) = existing.iter().find(|f| f.id == placement.id) else {
            problems.invalid(format!("{at}.id"), "not a field of this document");
            continue;
        };
        if keep[..i].iter().any(|earlier| earlier.id == placement.id) {
            problems.invalid(format!("{at}.id"), "listed twice");
            continue;
        }
        let FieldPlacement {
            x,
            y,
            width,
            height,
            ..
        } = *placement;
        for (name, value) in [("width", width), ("height", height)] {
            if !(value.is_finite() && value > 0.0) {
                problems.invalid(format!("{at}.{name}"), "must be a positive number");
            }
        }
        if !(x.is_finite() && y.is_finite()) {
            problems.invalid(at.clone(), "x and y must be numbers");
        }
        if problems.touch(&at) {
            continue;
        }
        if let Err(rule) = check_bounds(
            &document.page_sizes,
            i64::from(field.page),
            x,
            y,
            width,
            height,
        ) {
            bounds_problem(&mut problems, &at, rule);
            continue;
        }
        if (field.x, field.y, field.width, field.height) != (x, y, width, height) {
            moved.push(*placement);
        }
    }
    let removed: Vec<FieldId> = existing
        .iter()
        .filter(|f| !keep.iter().any(|k| k.id == f.id))
        .map(|f| f.id)
        .collect();
    let kept: Vec<Field> = existing
        .iter()
        .filter(|f| keep.iter().any(|k| k.id == f.id))
        .cloned()
        .collect();
    let added = new_fields(&document, &recipients, &kept, placed, &mut problems);
    if keep.len() + added.len() > MAX_FIELDS_PER_DOCUMENT {
        problems.invalid(
            "",
            format!("a document has at most {MAX_FIELDS_PER_DOCUMENT} fields"),
        );
    }
    problems.into_result()?;
    if moved.is_empty() && removed.is_empty() && added.is_empty() {
        return Ok(());
    }
    fields::delete_many(&mut tx, document_id, &removed).await?;
    fields::move_many(
        &mut tx,
        document_id,
        &moved
            .iter()
            .map(|p| (p.id, p.x, p.y, p.width, p.height))
            .collect::<Vec<_>>(),
    )
    .await?;
    fields::insert_many(&mut tx, account_id, document_id, &added).await?;
    let message = format!(
        "Fields changed: {} added, {} moved or resized, {} removed",
        added.len(),
        moved.len(),
        removed.len()
    );
    commit_update(tx, account_id, document_id, &message, actor, None).await
}

/// Removes a recipient, and their fields, from a DRAFT document.
#[tracing::instrument(name = "drafting::remove_recipient", skip_all)]
pub async fn remove_recipient(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    recipient_id: RecipientId,
    actor: &Actor,
) -> Result<()> {
    let (mut tx, _, recipients) = begin_draft_change(pool, account_id, document_id).await?;
    let Some(recipient) = recipients.iter().find(|r| r.id == recipient_id) else {
        return Err(not_a_recipient());
    };
    recipients::delete(&mut tx, document_id, recipient_id).await?;
    let message = format!("Recipient removed: {}", recipient.email);
    commit_update(tx, account_id, document_id, &message, actor, None).await
}

/// The refusal of [`remove_recipient`] for an id that names none of the document's recipients
/// (also what a caller answers for a recipient id that is not even a UUID).
pub fn not_a_recipient() -> Error {
    Error::invalid("recipient", "not a recipient of this document")
}

/// Sends a DRAFT document: SENT status and expiry, the SENT entry, one invitation per recipient
/// in the outbox with its dispatch job, and each recipient's signing token (kept hashed).
#[tracing::instrument(name = "drafting::send_document", skip_all)]
pub async fn send_document(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    input: Parsed<SendInput>,
    actor: &Actor,
    notifier: &Notifier,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let mut problems = Problems::of_reading(input.problems);
    let request = inputs::validate_send(input.value, notifier.reminders, &mut problems);
    let (mut tx, document, recipients) =
        match begin_draft_change(pool, account_id, document_id).await {
            Ok(opened) => opened,
            Err(refusal) => return Err(problems.before(refusal)),
        };
    send_draft(
        &mut tx,
        &document,
        &recipients,
        request,
        problems,
        actor,
        notifier,
    )
    .await?;
    store_receipt(&mut tx, receipt).await?;
    tx.commit().await?;
    Ok(())
}

/// The send of a DRAFT document on the caller's transaction, which holds its row lock: checks
/// the rules (recipients, a field each, expiry in the future) after `problems` (the request's
/// own), then SENT and the invitations due. `request` is `None` only with a problem.
pub(crate) async fn send_draft(
    tx: &mut PgConnection,
    document: &Document,
    recipients: &[Recipient],
    request: Option<SendRequest>,
    mut problems: Problems,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let document_id = document.id;
    if recipients.is_empty() {
        problems.broken(
            Rule::NoRecipients,
            "recipients",
            "the document has none: add at least one",
        );
    }
    for (role, _) in placeholders::waiting_roles(&mut *tx, document_id).await? {
        problems.invalid(
            format!("placeholders.{role}"),
            format!("fields found in the PDF for {role} wait for a recipient"),
        );
    }
    let without_fields = recipients::without_fields(&mut *tx, document_id).await?;
    // Named as the document's detail lists its recipients: `recipients[1]`.
    for (i, recipient) in recipients.iter().enumerate() {
        if without_fields.contains(&recipient.id) {
            problems.broken(
                Rule::RecipientWithoutFields,
                format!("recipients[{i}]"),
                format!("{} has no field", recipient.email),
            );
        }
    }
    if let Some(request) = &request
        && request.expiry_date <= Utc::now()
    {
        problems.broken(
            Rule::ExpiryNotInFuture,
            "expiryDate",
            "must be in the future",
        );
    }
    problems.into_result()?;
    // Without a problem the request was read whole.
    let Some(request) = request else {
        return Err(Error::invalid("expiryDate", "is required"));
    };
    documents::mark_sent(
        &mut *tx,
        document_id,
        &documents::Sending {
            expiry_date: request.expiry_date,
            message: &request.message,
            description: &request.description,
            language: request.language.map(|l| l.tag()),
            reminders: request.reminders,
        },
    )
    .await?;
    invitations::invite_due(tx, document, recipients, actor, notifier).await?;
    Ok(())
}

/// Cancels a DRAFT or SENT document; its links stop accepting changes. The recipients invited
/// so far are told by e-mail, with the reason when one is given, and `document.cancelled`
/// goes out.
#[tracing::instrument(name = "drafting::cancel_document", skip_all)]
pub async fn cancel_document(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    input: CancelInput,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<Document> {
    let reason = inputs::validate_cancel(input)?;
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    if !matches!(
        document.status,
        DocumentStatus::Draft | DocumentStatus::Sent
    ) {
        return Err(Rule::NotCancellable(document.status.to_string()).into());
    }
    documents::mark_cancelled(&mut tx, document_id, reason.as_deref()).await?;
    // Invitations still in the outbox must not go out with working links.
    emails::withdraw_invitations(&mut tx, document_id).await?;
    sms::withdraw_invitations(&mut tx, document_id).await?;
    recipients::stop_reminders(&mut tx, document_id, None).await?;
    let recipients = recipients::list(&mut tx, document_id).await?;
    let cancelled = DocumentEvent::Cancelled {
        reason: reason.as_deref(),
        recipients: &recipients,
    };
    effects::record(&mut tx, Subject::of(&document), cancelled, actor, notifier).await?;
    tx.commit().await?;
    documents::find(pool, account_id, document_id).await
}

/// A document with its recipients (in order of addition) and their fields.
#[tracing::instrument(name = "drafting::document_detail", skip_all)]
pub async fn document_detail(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
) -> Result<(Document, Vec<Recipient>, Vec<Field>)> {
    let document = documents::find(pool, account_id, document_id).await?;
    let mut conn = pool.acquire().await?;
    let recipients = recipients::list(&mut conn, document_id).await?;
    let fields = fields::list(&mut conn, document_id).await?;
    Ok((document, recipients, fields))
}

/// The audit trail, oldest first.
#[tracing::instrument(name = "drafting::audit_trail", skip_all)]
pub async fn audit_trail(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
) -> Result<Vec<AuditEntry>> {
    let entries = audit::list(pool, account_id, document_id).await?;
    // Every document is created together with its CREATED entry, so no entries means no
    // document of this account: one query answers both questions.
    if entries.is_empty() {
        return Err(Error::DocumentNotFound);
    }
    Ok(entries)
}

/// Opens the transaction of a change to a DRAFT document: the document, locked, and its
/// recipients.
pub(crate) async fn begin_draft_change(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
) -> Result<(Transaction<'static, Postgres>, Document, Vec<Recipient>)> {
    let mut tx = pool.begin().await?;
    let document = documents::lock(&mut tx, account_id, document_id).await?;
    if document.status != DocumentStatus::Draft {
        return Err(Rule::NotDraft.into());
    }
    let recipients = recipients::list(&mut tx, document_id).await?;
    Ok((tx, document, recipients))
}

/// Ends a change to a DRAFT document: bumps `updated_at`, writes the UPDATED entry, commits.
pub(crate) async fn commit_update(
    mut tx: Transaction<'static, Postgres>,
    account_id: AccountId,
    document_id: DocumentId,
    message: &str,
    actor: &Actor,
    receipt: Option<&Receipt>,
) -> Result<()> {
    documents::touch(&mut tx, document_id).await?;
    let subject = Subject {
        account_id,
        document_id,
    };
    let changed = DocumentEvent::DraftChanged(message.to_owned());
    effects::record_in_trail(&mut tx, subject, changed, actor).await?;
    store_receipt(&mut tx, receipt).await?;
    tx.commit().await?;
    Ok(())
}

/// Stores the answer of an idempotent request in the transaction of its effect, so that the
/// effect is never committed without the answer its retries get.
pub(crate) async fn store_receipt(tx: &mut PgConnection, receipt: Option<&Receipt>) -> Result<()> {
    match receipt {
        Some(receipt) => idempotency::store_answer(tx, &receipt.request, &receipt.answer).await,
        None => Ok(()),
    }
}
