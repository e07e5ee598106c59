//! SQL of the template aggregate: a template, its roles and their fields.

use chrono::{DateTime, Utc};
use signet_pdf::PageSize;
use sqlx::{PgConnection, PgPool, types::Json};

use crate::{
    error::{Error, Result},
    model::{
        AccountId, DocumentId, FieldRules, FieldType, RecipientRole, StoredLanguage,
        TemplateFieldId, TemplateId, TemplateRoleId,
    },
    wire::{
        inputs::RemindersInput,
        query::{SortOrder, TemplateListQuery, TemplateSortBy},
    },
};

const COLUMNS: &str = "id, account_id, title, file_key, sha256, page_sizes, source_document_id, \
                       archived_at, created_at, updated_at, message, description, expiry_days, \
                       reminders, language";

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Template {
    pub id: TemplateId,
    pub account_id: AccountId,
    pub title: String,
    pub file_key: String,
    pub sha256: String,
    pub page_sizes: Json<Vec<PageSize>>,
    pub source_document_id: Option<DocumentId>,
    pub archived_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub message: Option<String>,
    pub description: Option<String>,
    pub expiry_days: Option<i32>,
    pub reminders: Option<Json<RemindersInput>>,
    #[sqlx(try_from = "Option<String>")]
    pub language: StoredLanguage,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TemplateRole {
    pub id: TemplateRoleId,
    pub name: String,
    #[sqlx(try_from = "String")]
    pub role: RecipientRole,
    pub signing_order: Option<i32>,
    #[sqlx(try_from = "Option<String>")]
    pub language: StoredLanguage,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TemplateField {
    pub id: TemplateFieldId,
    pub role_id: TemplateRoleId,
    pub label: String,
    #[sqlx(rename = "type", try_from = "String")]
    pub field_type: FieldType,
    pub page: i32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// A value the document is made with is stamped as given; the signer does not fill it.
    pub read_only: bool,
    pub required: bool,
    pub rules: Json<FieldRules>,
    /// The value its documents' field is prefilled with, unless they are made with another.
    pub value: Option<String>,
}

pub struct NewTemplate<'a> {
    pub id: TemplateId,
    pub account_id: AccountId,
    pub title: &'a str,
    pub file_key: &'a str,
    pub sha256: &'a str,
    pub page_sizes: &'a [PageSize],
    pub source_document_id: Option<DocumentId>,
    pub defaults: TemplateDefaults<'a>,
}

/// What a send of a document made from the template takes when its request does not say.
#[derive(Default)]
pub struct TemplateDefaults<'a> {
    pub message: Option<&'a str>,
    pub description: Option<&'a str>,
    pub expiry_days: Option<i32>,
    pub reminders: Option<&'a RemindersInput>,
    pub language: Option<&'a str>,
}

pub struct NewRole {
    pub id: TemplateRoleId,
    pub name: String,
    pub role: RecipientRole,
    pub signing_order: Option<i32>,
    pub language: Option<String>,
}

pub struct NewTemplateField {
    pub id: TemplateFieldId,
    pub role_id: TemplateRoleId,
    pub label: String,
    pub field_type: FieldType,
    pub page: i32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub read_only: bool,
    pub required: bool,
    pub rules: FieldRules,
    pub value: Option<String>,
}

/// Inserts a template with its roles (in the order given) and their fields.
pub async fn insert(
    conn: &mut PgConnection,
    new: &NewTemplate<'_>,
    roles: &[NewRole],
    fields: &[NewTemplateField],
) -> Result<()> {
    sqlx::query(
        "INSERT INTO templates (id, account_id, title, file_key, sha256, page_sizes,
                                source_document_id, message, description, expiry_days,
                                reminders, language)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(new.id)
    .bind(new.account_id)
    .bind(new.title)
    .bind(new.file_key)
    .bind(new.sha256)
    .bind(Json(new.page_sizes))
    .bind(new.source_document_id)
    .bind(new.defaults.message)
    .bind(new.defaults.description)
    .bind(new.defaults.expiry_days)
    .bind(new.defaults.reminders.map(Json))
    .bind(new.defaults.language)
    .execute(&mut *conn)
    .await?;
    insert_roles_and_fields(conn, new.id, roles, fields).await
}

/// Inserts roles (in the order given) and their fields of template `id`.
async fn insert_roles_and_fields(
    conn: &mut PgConnection,
    id: TemplateId,
    roles: &[NewRole],
    fields: &[NewTemplateField],
) -> Result<()> {
    sqlx::query(
        "INSERT INTO template_roles (id, template_id, name, role, signing_order, language, position)
         SELECT id, $1, name, role, signing_order, language, position - 1
         FROM UNNEST($2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[])
              WITH ORDINALITY AS t(id, name, role, signing_order, language, position)",
    )
    .bind(id)
    .bind(roles.iter().map(|r| r.id).collect::<Vec<_>>())
    .bind(roles.iter().map(|r| r.name.clone()).collect::<Vec<_>>())
    .bind(roles.iter().map(|r| r.role.as_str()).collect::<Vec<_>>())
    .bind(roles.iter().map(|r| r.signing_order).collect::<Vec<_>>())
    .bind(roles.iter().map(|r| r.language.clone()).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT INTO template_fields (id, template_id, role_id, label, type, page, x, y, width,
                                      height, read_only, required, rules, value, position)
         SELECT id, $1, role_id, label, type, page, x, y, width, height, read_only, required,
                rules, value, position - 1
         FROM UNNEST($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::float8[],
                     $8::float8[], $9::float8[], $10::float8[], $11::bool[], $12::bool[],
                     $13::jsonb[], $14::text[])
              WITH ORDINALITY AS t(id, role_id, label, type, page, x, y, width, height,
                                   read_only, required, rules, value, position)",
    )
    .bind(id)
    .bind(fields.iter().map(|f| f.id).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.role_id).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.label.clone()).collect::<Vec<_>>())
    .bind(
        fields
            .iter()
            .map(|f| f.field_type.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(fields.iter().map(|f| f.page).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.x).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.y).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.width).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.height).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.read_only).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.required).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| Json(&f.rules)).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.value.clone()).collect::<Vec<_>>())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The account's template, archived or not.
pub async fn find(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: TemplateId,
) -> Result<Template> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM templates WHERE id = $1 AND account_id = $2"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::TemplateNotFound)
}

/// The template's roles in their order, and their fields in theirs.
pub async fn roles_and_fields(
    conn: &mut PgConnection,
    id: TemplateId,
) -> Result<(Vec<TemplateRole>, Vec<TemplateField>)> {
    let roles = sqlx::query_as(
        "SELECT id, name, role, signing_order, language FROM template_roles
         WHERE template_id = $1 ORDER BY position",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    let fields = sqlx::query_as(
        "SELECT id, role_id, label, type, page, x, y, width, height, read_only, required, rules,
                value
         FROM template_fields
         WHERE template_id = $1 ORDER BY position",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    Ok((roles, fields))
}

/// A page of the account's templates not archived, in the query's order, whose title holds
/// its search term (case-insensitively), and how many there are.
pub async fn list(
    pool: &PgPool,
    account_id: AccountId,
    query: &TemplateListQuery,
) -> Result<(Vec<Template>, i64)> {
    let column = match query.sort_by {
        TemplateSortBy::DateCreated => "created_at",
        TemplateSortBy::DateModified => "updated_at",
        TemplateSortBy::Title => "title",
    };
    let direction = match query.sort_order {
        SortOrder::Asc => "ASC",
        SortOrder::Desc => "DESC",
    };
    let pattern = query.search.as_deref().map(super::documents::like_pattern);
    // Each shape is its own statement, so no plan has to serve both "searched" and not.
    let search = if pattern.is_some() {
        "AND title ILIKE $2 ESCAPE '\\'"
    } else {
        ""
    };
    let found = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM templates
         WHERE account_id = $1 AND archived_at IS NULL {search}
         ORDER BY {column} {direction}, id {direction}
         LIMIT $3 OFFSET $4"
    )))
    .bind(account_id)
    .bind(&pattern)
    .bind(query.limit)
    .bind(query.offset())
    .fetch_all(pool)
    .await?;
    let (total,): (i64,) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM templates
         WHERE account_id = $1 AND archived_at IS NULL {search}"
    )))
    .bind(account_id)
    .bind(&pattern)
    .fetch_one(pool)
    .await?;
    Ok((found, total))
}

/// The account's template, locked until the transaction ends.
pub async fn lock(
    conn: &mut PgConnection,
    account_id: AccountId,
    id: TemplateId,
) -> Result<Template> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM templates WHERE id = $1 AND account_id = $2 FOR UPDATE"
    )))
    .bind(id)
    .bind(account_id)
    .fetch_optional(conn)
    .await?
    .ok_or(Error::TemplateNotFound)
}

/// Writes the template's title and defaults as `template` holds them, and its `updated_at`.
pub async fn update(conn: &mut PgConnection, template: &Template) -> Result<()> {
    sqlx::query(
        "UPDATE templates SET title = $2, message = $3, description = $4, expiry_days = $5,
                              reminders = $6, language = $7, updated_at = now()
         WHERE id = $1",
    )
    .bind(template.id)
    .bind(&template.title)
    .bind(&template.message)
    .bind(&template.description)
    .bind(template.expiry_days)
    .bind(&template.reminders)
    .bind(template.language.0.map(|l| l.tag()))
    .execute(conn)
    .await?;
    Ok(())
}

/// Replaces the template's roles and their fields with these.
pub async fn replace_roles(
    conn: &mut PgConnection,
    id: TemplateId,
    roles: &[NewRole],
    fields: &[NewTemplateField],
) -> Result<()> {
    sqlx::query("DELETE FROM template_roles WHERE template_id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    insert_roles_and_fields(conn, id, roles, fields).await
}

/// Archives the account's template (again is no change).
pub async fn archive(pool: &PgPool, account_id: AccountId, id: TemplateId) -> Result<()> {
    let archived = sqlx::query(
        "UPDATE templates SET archived_at = coalesce(archived_at, now()), updated_at = now()
         WHERE id = $1 AND account_id = $2",
    )
    .bind(id)
    .bind(account_id)
    .execute(pool)
    .await?;
    if archived.rows_affected() == 0 {
        return Err(Error::TemplateNotFound);
    }
    Ok(())
}
