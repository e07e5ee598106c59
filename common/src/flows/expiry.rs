//! The expiry sweep: SENT documents past their expiry date become EXPIRED.

use sqlx::PgPool;
use uuid::Uuid;

use crate::{
    error::Result,
    infra::notify::Notifier,
    model::{Actor, AuditEvent, DocumentStatus, EmailKind},
    store::{
        audit, documents, emails, recipients,
        webhooks::{self, EventType},
    },
};

const BATCH: i64 = 50;

/// Expires every due document, a batch per transaction. Batches are claimed with
/// `SKIP LOCKED`, so sweeps running at once on several workers share the work and never
/// expire a document twice.
#[tracing::instrument(name = "expiry::expire_due", skip_all)]
pub async fn expire_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    let actor = Actor::worker();
    let mut expired = 0;
    loop {
        let mut tx = pool.begin().await?;
        // Served by the partial index documents_expiring (expiry_date) WHERE status = 'SENT'.
        let mut due: Vec<(Uuid, Uuid)> = sqlx::query_as(
            "SELECT id, account_id FROM documents
             WHERE status = 'SENT' AND expiry_date <= now()
             ORDER BY expiry_date LIMIT $1 FOR UPDATE SKIP LOCKED",
        )
        .bind(BATCH)
        .fetch_all(&mut *tx)
        .await?;
        if due.is_empty() {
            return Ok(expired);
        }
        // In account order, so that sweeps on several workers take the accounts' document
        // counts (migration document_counts) in the same order and never deadlock.
        due.sort_by_key(|(_, account_id)| *account_id);
        for (document_id, account_id) in &due {
            documents::set_status(&mut tx, *document_id, DocumentStatus::Expired).await?;
            audit::append(
                &mut tx,
                *account_id,
                *document_id,
                AuditEvent::Expired,
                "Document expired",
                &actor,
            )
            .await?;
            let notices: Vec<emails::NewEmail> = recipients::list(&mut tx, *document_id)
                .await?
                .into_iter()
                .map(|r| emails::NewEmail {
                    recipient_id: r.id,
                    kind: EmailKind::Expired,
                    link_token: None,
                })
                .collect();
            emails::queue(
                &mut tx,
                *account_id,
                *document_id,
                &notices,
                &notifier.message_id_domain,
            )
            .await?;
            webhooks::record(
                &mut tx,
                *account_id,
                *document_id,
                EventType::Expired,
                &notifier.payload_links,
            )
            .await?;
        }
        tx.commit().await?;
        expired += due.len();
    }
}
