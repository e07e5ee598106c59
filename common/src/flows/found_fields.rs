//! Fields found in an uploaded PDF (its text tags and form fields) for a DRAFT document made in
//! the console: they wait, grouped by role, until a recipient is given each role; the document
//! is not sent while any wait (docs/console.md).

use serde_json::{Map, Value, json};
use sqlx::PgPool;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Error, Problems, Result},
    flows::{
        drafting,
        templates::{self, FieldSources},
    },
    infra::{files::FileStore, pdf_sandbox::PdfSandbox},
    model::{AccountId, Actor, Document, DocumentId, RecipientRole},
    store::placeholders::{self, NewPlaceholder},
    wire::{
        inputs::{self, FieldInput, RecipientInput},
        templates::TemplateFieldInput,
    },
};

/// Stores a PDF as [`drafting::upload_document`] does, after finding its fields as
/// `POST /templates?fields=tags,form` does (the tags taken out of the PDF stored, checked by
/// the same rules); the fields found wait as placeholders of the DRAFT document. A tag that
/// does not parse refuses the upload, naming `tags[<n>]`; nothing is stored.
#[tracing::instrument(name = "found_fields::upload", skip_all)]
pub async fn upload(
    pool: &PgPool,
    store: &FileStore,
    account_id: AccountId,
    title: &str,
    bytes: Vec<u8>,
    sandbox: &PdfSandbox,
    actor: &Actor,
) -> Result<Document> {
    let title = inputs::validate_title(title)?;
    let sources = FieldSources {
        tags: true,
        form: true,
    };
    let mut problems = Problems::default();
    let (inspected, bytes, mut roles) =
        templates::find_fields(sandbox, bytes, sources, false, &mut problems).await?;
    templates::label_blank_fields(&mut roles);
    // The template's checks, for their problems: what passes them is a document's field.
    let _ = templates::new_roles(&inspected.page_sizes, roles.clone(), &mut problems);
    problems.into_result()?;
    let mut waiting = Vec::new();
    for (position, role) in roles.into_iter().enumerate() {
        for field in &role.fields {
            waiting.push(NewPlaceholder {
                role_name: role.name.trim().to_owned(),
                role_position: position as i32,
                field: document_field(field),
            });
        }
    }
    drafting::store_upload(
        pool, store, account_id, &title, bytes, &inspected, actor, &waiting,
    )
    .await
}

/// The roles whose fields wait for a recipient, in order, with their fields' count.
pub async fn waiting(pool: &PgPool, document_id: DocumentId) -> Result<Vec<(String, i64)>> {
    placeholders::waiting_roles(&mut *pool.acquire().await?, document_id).await
}

/// Gives `role`'s waiting fields to a new recipient (a signer named `name` at `email`): the
/// recipient and the fields are added by the rules of [`drafting::add_recipients`] and
/// [`drafting::add_fields`], with their audit entries, in one transaction that removes the
/// role's placeholders.
#[tracing::instrument(name = "found_fields::assign_role", skip_all)]
pub async fn assign_role(
    pool: &PgPool,
    account_id: AccountId,
    document_id: DocumentId,
    role: &str,
    name: String,
    email: String,
    actor: &Actor,
) -> Result<()> {
    let mut problems = Problems::default();
    let input = RecipientInput {
        name,
        email,
        role: RecipientRole::Signer,
        country_code: None,
        phone_number: None,
        language: None,
        signing_order: None,
        embedded: false,
        authentication: None,
    };
    let additions = inputs::validate_recipients(vec![input], &mut problems);
    let (mut tx, document, existing) =
        match drafting::begin_draft_change(pool, account_id, document_id).await {
            Ok(opened) => opened,
            Err(refusal) => return Err(problems.before(refusal)),
        };
    let found = placeholders::take_role(&mut tx, document_id, role).await?;
    if found.is_empty() {
        return Err(problems.before(Error::invalid(
            "role",
            "no fields found in the PDF wait for this role",
        )));
    }
    let email = additions
        .first()
        .map(|(_, r)| r.email.as_str().to_owned())
        .unwrap_or_default();
    let added = drafting::insert_recipients(
        &mut tx,
        account_id,
        document_id,
        &existing,
        additions,
        1,
        problems,
    )
    .await?;
    let subject = Subject {
        account_id,
        document_id,
    };
    let changed = DocumentEvent::DraftChanged(added);
    effects::record_in_trail(&mut tx, subject, changed, actor).await?;
    let mut problems = Problems::default();
    let mut given = Vec::with_capacity(found.len());
    for (i, mut field) in found.into_iter().enumerate() {
        if let Value::Object(map) = &mut field {
            map.insert("recipientEmail".into(), json!(email));
        }
        match serde_json::from_value::<FieldInput>(field) {
            Ok(field) => given.push((i, field)),
            Err(e) => problems.invalid(format!("[{i}]"), e.to_string()),
        }
    }
    let requested = given.len();
    let placed = inputs::validate_placed(given, &mut problems);
    let recipients = crate::store::recipients::list(&mut tx, document_id).await?;
    let message = drafting::insert_fields(
        &mut tx,
        account_id,
        &document,
        &recipients,
        placed,
        requested,
        problems,
    )
    .await?;
    drafting::commit_update(tx, account_id, document_id, &message, actor, None).await
}

/// A template field found in the PDF as the JSON of a document's field, without its recipient.
fn document_field(field: &TemplateFieldInput) -> Value {
    let mut map = Map::new();
    let mut put = |key: &str, value: Value| {
        if !value.is_null() {
            map.insert(key.to_owned(), value);
        }
    };
    put("type", json!(field.field_type.as_str()));
    put("label", json!(field.label));
    put("page", json!(field.page));
    put("x", json!(field.x));
    put("y", json!(field.y));
    put("width", json!(field.width));
    put("height", json!(field.height));
    put("readOnly", json!(field.read_only));
    put("required", json!(field.required));
    put("value", json!(field.value));
    put("options", json!(field.options));
    put("min", json!(field.min));
    put("max", json!(field.max));
    put("decimals", json!(field.decimals));
    put("maxLength", json!(field.max_length));
    put("pattern", json!(field.pattern));
    Value::Object(map)
}
