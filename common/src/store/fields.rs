//! SQL of fields.

use crate::{
    error::Result,
    model::{AccountId, DocumentId, Field, FieldId, FieldRules, FieldType, RecipientId},
};
use sqlx::{PgConnection, types::Json};

pub struct NewField {
    pub id: FieldId,
    pub recipient_id: RecipientId,
    pub field_type: FieldType,
    pub page: i32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// A prefilled value (given, from a template, or a NAME field's recipient's name);
    /// `None` for a field to fill.
    pub value: Option<String>,
    /// The prefilled value is stamped as given: the signer does not fill the field.
    pub read_only: bool,
    pub label: Option<String>,
    pub required: bool,
    pub rules: FieldRules,
}

pub async fn list(conn: &mut PgConnection, document_id: DocumentId) -> Result<Vec<Field>> {
    Ok(sqlx::query_as(
        "SELECT id, recipient_id, type, page, x, y, width, height, value, read_only, label,
                required, rules FROM fields
         WHERE document_id = $1 ORDER BY created_at, id",
    )
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

#[derive(sqlx::FromRow)]
struct DocumentField {
    document_id: DocumentId,
    #[sqlx(flatten)]
    field: Field,
}

/// The fields of all these documents, each with its document, by document, then in [`list`]'s
/// order.
pub async fn list_many(
    conn: &mut PgConnection,
    document_ids: &[DocumentId],
) -> Result<Vec<(DocumentId, Field)>> {
    let rows: Vec<DocumentField> = sqlx::query_as(
        // One index probe per document, as `recipients::list_many`.
        "SELECT f.document_id, f.id, f.recipient_id, f.type, f.page, f.x, f.y, f.width, f.height,
                f.value, f.read_only, f.label, f.required, f.rules
         FROM UNNEST($1::uuid[]) WITH ORDINALITY AS d(id, ord)
         CROSS JOIN LATERAL (SELECT * FROM fields WHERE document_id = d.id) f
         ORDER BY d.ord, f.created_at, f.id",
    )
    .bind(document_ids)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|r| (r.document_id, r.field)).collect())
}

/// Removes the document's fields with these ids.
pub async fn delete_many(
    conn: &mut PgConnection,
    document_id: DocumentId,
    ids: &[FieldId],
) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    sqlx::query("DELETE FROM fields WHERE document_id = $1 AND id = ANY($2)")
        .bind(document_id)
        .bind(ids)
        .execute(conn)
        .await?;
    Ok(())
}

/// Gives each of the document's fields `(id, x, y, width, height)` its new box.
pub async fn move_many(
    conn: &mut PgConnection,
    document_id: DocumentId,
    boxes: &[(FieldId, f64, f64, f64, f64)],
) -> Result<()> {
    if boxes.is_empty() {
        return Ok(());
    }
    let column =
        |f: fn(&(FieldId, f64, f64, f64, f64)) -> f64| boxes.iter().map(f).collect::<Vec<_>>();
    sqlx::query(
        "UPDATE fields f SET x = t.x, y = t.y, width = t.width, height = t.height
         FROM UNNEST($2::uuid[], $3::float8[], $4::float8[], $5::float8[], $6::float8[])
              AS t(id, x, y, width, height)
         WHERE f.document_id = $1 AND f.id = t.id",
    )
    .bind(document_id)
    .bind(boxes.iter().map(|b| b.0).collect::<Vec<_>>())
    .bind(column(|b| b.1))
    .bind(column(|b| b.2))
    .bind(column(|b| b.3))
    .bind(column(|b| b.4))
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn count(conn: &mut PgConnection, document_id: DocumentId) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT count(*) FROM fields WHERE document_id = $1")
            .bind(document_id)
            .fetch_one(conn)
            .await?,
    )
}

pub async fn insert_many(
    conn: &mut PgConnection,
    account_id: AccountId,
    document_id: DocumentId,
    fields: &[NewField],
) -> Result<()> {
    let measure = |f: fn(&NewField) -> f64| fields.iter().map(f).collect::<Vec<_>>();
    // clock_timestamp() per row keeps the request's order when listing by created_at.
    sqlx::query(
        "INSERT INTO fields (id, account_id, document_id, recipient_id, type, page, x, y, width,
                             height, value, filled_at, read_only, label, required, rules,
                             created_at)
         SELECT id, $1, $2, recipient_id, type, page, x, y, width, height, value,
                CASE WHEN value IS NULL THEN NULL ELSE now() END, read_only, label, required,
                rules, clock_timestamp()
         FROM UNNEST($3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::float8[], $8::float8[],
                     $9::float8[], $10::float8[], $11::text[], $12::bool[], $13::text[],
                     $14::bool[], $15::jsonb[]) WITH ORDINALITY
              AS t(id, recipient_id, type, page, x, y, width, height, value, read_only, label,
                   required, rules, n)
         ORDER BY n",
    )
    .bind(account_id)
    .bind(document_id)
    .bind(fields.iter().map(|f| f.id).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.recipient_id).collect::<Vec<_>>())
    .bind(
        fields
            .iter()
            .map(|f| f.field_type.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(fields.iter().map(|f| f.page).collect::<Vec<_>>())
    .bind(measure(|f| f.x))
    .bind(measure(|f| f.y))
    .bind(measure(|f| f.width))
    .bind(measure(|f| f.height))
    .bind(fields.iter().map(|f| f.value.clone()).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.read_only).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.label.clone()).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| f.required).collect::<Vec<_>>())
    .bind(fields.iter().map(|f| Json(&f.rules)).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Sets the recipient's DATE fields to the signing date: today in UTC by the database's clock,
/// the same `now()` as the signature's `signed_at`, as `YYYY-MM-DD` (docs/signing.md).
pub async fn fill_signing_dates(conn: &mut PgConnection, recipient_id: RecipientId) -> Result<()> {
    sqlx::query(
        "UPDATE fields SET value = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
             filled_at = now() WHERE recipient_id = $1 AND type = 'DATE'",
    )
    .bind(recipient_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records the values a signer gave, all in one statement; `None` empties an optional field
/// (its prefill too: the signer cleared it).
pub async fn fill(conn: &mut PgConnection, values: &[(FieldId, Option<String>)]) -> Result<()> {
    sqlx::query(
        "UPDATE fields f SET value = v.value,
             filled_at = CASE WHEN v.value IS NULL THEN NULL ELSE now() END
         FROM UNNEST($1::uuid[], $2::text[]) AS v(id, value) WHERE f.id = v.id",
    )
    .bind(values.iter().map(|(id, _)| *id).collect::<Vec<_>>())
    .bind(values.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}
