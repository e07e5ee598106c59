//! The expiry sweep: SENT documents past their expiry date become EXPIRED.

use sqlx::PgPool;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    infra::notify::Notifier,
    model::{Actor, DocumentStatus},
    store::{documents, recipients},
};

const BATCH: i64 = 50;

/// Expires every due document, a batch per transaction. Batches are claimed with
/// `SKIP LOCKED`, so sweeps running at once on several workers share the work and never
/// expire a document twice.
#[tracing::instrument(name = "expiry::expire_due", skip_all)]
pub async fn expire_due(pool: &PgPool, notifier: &Notifier) -> Result<usize> {
    let actor = Actor::Worker;
    let mut expired = 0;
    loop {
        let mut tx = pool.begin().await?;
        let due = documents::lock_due_for_expiry(&mut tx, BATCH).await?;
        if due.is_empty() {
            return Ok(expired);
        }
        for &(document_id, account_id) in &due {
            documents::set_status(&mut tx, document_id, DocumentStatus::Expired).await?;
            let recipients = recipients::list(&mut tx, document_id).await?;
            let subject = Subject {
                account_id,
                document_id,
            };
            let event = DocumentEvent::Expired {
                recipients: &recipients,
            };
            effects::record(&mut tx, subject, event, &actor, notifier).await?;
        }
        tx.commit().await?;
        expired += due.len();
    }
}
