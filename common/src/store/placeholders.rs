//! SQL of the fields found in a DRAFT document's PDF that wait, grouped by role, for a
//! recipient.

use sqlx::PgConnection;

use crate::{error::Result, model::DocumentId};

/// A waiting field: its role, the role's place among the document's roles, and the field as a
/// document's field input without its recipient.
pub struct NewPlaceholder {
    pub role_name: String,
    pub role_position: i32,
    pub field: serde_json::Value,
}

pub async fn insert_many(
    conn: &mut PgConnection,
    document_id: DocumentId,
    placeholders: &[NewPlaceholder],
) -> Result<()> {
    if placeholders.is_empty() {
        return Ok(());
    }
    let names: Vec<&str> = placeholders.iter().map(|p| p.role_name.as_str()).collect();
    let positions: Vec<i32> = placeholders.iter().map(|p| p.role_position).collect();
    let fields: Vec<serde_json::Value> = placeholders.iter().map(|p| p.field.clone()).collect();
    sqlx::query(
        "INSERT INTO document_placeholders (document_id, role_name, role_position, field)
         SELECT $1, * FROM UNNEST($2::text[], $3::int[], $4::jsonb[])",
    )
    .bind(document_id)
    .bind(&names)
    .bind(&positions)
    .bind(&fields)
    .execute(conn)
    .await?;
    Ok(())
}

/// The roles whose fields wait, in their order, each with its fields' count.
pub async fn waiting_roles(
    conn: &mut PgConnection,
    document_id: DocumentId,
) -> Result<Vec<(String, i64)>> {
    Ok(sqlx::query_as(
        "SELECT role_name, count(*) FROM document_placeholders WHERE document_id = $1
         GROUP BY role_name, role_position ORDER BY role_position",
    )
    .bind(document_id)
    .fetch_all(conn)
    .await?)
}

/// Removes the role's waiting fields and answers them, in the order they were found.
pub async fn take_role(
    conn: &mut PgConnection,
    document_id: DocumentId,
    role_name: &str,
) -> Result<Vec<serde_json::Value>> {
    let taken: Vec<(i64, serde_json::Value)> = sqlx::query_as(
        "DELETE FROM document_placeholders WHERE document_id = $1 AND role_name = $2
         RETURNING id, field",
    )
    .bind(document_id)
    .bind(role_name)
    .fetch_all(conn)
    .await?;
    let mut taken = taken;
    taken.sort_by_key(|(id, _)| *id);
    Ok(taken.into_iter().map(|(_, field)| field).collect())
}
