//! Completion: when every signer has signed, the document becomes COMPLETED exactly once, with
//! its final PDF (fields stamped, certificate appended), the COMPLETED entry and the completion
//! e-mails, committed in one transaction under the document's row lock. The PDF is rendered
//! before that transaction, with no lock and no connection held.

use chrono::{DateTime, SubsecRound, Utc};
use signet_i18n::Language;
use std::sync::Arc;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    infra::{
        files::FileStore,
        jobs::{self, CheckCompletion},
        notify::Notifier,
        pdf_sandbox::PdfSandbox,
    },
    model::{
        Actor, AuditEntry, AuditEntryId, AuditEvent, Document, DocumentId, DocumentStatus, Field,
        FieldType, Recipient, RecipientRole, RecipientStatus,
    },
    store::{
        attachments::{self, Attachment},
        audit, documents, fields, pending_files, recipients,
    },
    wire::views::Timestamp,
};
use signet_pdf::{
    Certificate, CertificateAuditLine, CertificateField, CertificateRecipient, EmbeddedFile,
    FinalPdf, StampError, StampField, StampKind,
    seal::{self, RevocationSource, SealError, SealKey, ValidationPlan},
};
use sqlx::PgPool;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The document is not (or no longer) out for signing: nothing to do.
    NotSent,
    /// Some signer has not signed yet.
    Waiting,
    Completed,
}

/// How many stalled documents one sweep queues again at most.
const STALLED_BATCH: i64 = 100;

/// How many times completion renders again because the audit trail grew meanwhile.
const RENDER_ATTEMPTS: usize = 3;

/// Completes the document once every signer has signed. The final PDF is rendered with no row
/// lock and no database connection held; the completion is then committed under the row lock
/// if the document is still SENT and its audit trail (which the certificate lists) has not
/// changed meanwhile, else the rendering is discarded and, for a changed trail, done again.
/// The certificate is in the document's language, else in `default_language`.
#[tracing::instrument(name = "completion::check", skip_all)]
pub async fn check(
    pool: &PgPool,
    store: &FileStore,
    sealer: &Sealer<'_>,
    document_id: DocumentId,
    notifier: &Notifier,
    default_language: Language,
) -> Result<Outcome> {
    for _ in 0..RENDER_ATTEMPTS {
        // What to render, read in a short transaction.
        let mut tx = pool.begin().await?;
        let document = documents::lock_for_job(&mut tx, document_id).await?;
        if document.status != DocumentStatus::Sent {
            return Ok(Outcome::NotSent);
        }
        let recipients = recipients::list(&mut tx, document_id).await?;
        let all_signed = recipients
            .iter()
            .filter(|r| r.role == RecipientRole::Signer)
            .all(|r| r.status == RecipientStatus::Signed);
        if !all_signed {
            return Ok(Outcome::Waiting);
        }
        let fields = fields::list(&mut tx, document_id).await?;
        let signed_attachments = attachments::list_signed(&mut tx, document_id).await?;
        // In the same transaction: one connection per job, so a small pool cannot deadlock
        // with every job holding one and waiting for a second.
        let mut trail = audit::list(&mut *tx, document.account_id, document_id).await?;
        tx.commit().await?;
        let last_entry = trail.last().map(|entry| entry.id);

        // The COMPLETED entry is chosen now so that the certificate can list it too.
        let (completed_id, completed_at) = (AuditEntryId::new(), Utc::now().trunc_subsecs(6));
        let completed = DocumentEvent::Completed {
            entry: (completed_id, completed_at),
            recipients: &recipients,
        };
        let entry = completed.audit_entry();
        let actor = Actor::Worker;
        let recorded = actor.record();
        trail.push(AuditEntry {
            seq: trail.last().map_or(1, |entry| entry.seq + 1),
            id: completed_id,
            account_id: document.account_id,
            document_id,
            event: entry.event,
            message: entry.message,
            recipient_id: entry.recipient_id,
            format: audit::FORMAT,
            ip_address: recorded.ip_address,
            user_agent: recorded.user_agent,
            created_at: completed_at,
            prev_hash: Vec::new(),
            hash: Vec::new(),
            personal_salt: None,
            personal_digest: None,
            erased_at: None,
        });
        let original = store.get(&document.file_key).await?;
        let certificate = certificate(
            &document,
            &recipients,
            &with_attachments(&fields, &signed_attachments, attachment_record),
            &trail,
            completed_at,
            default_language,
        );
        let stamps = stamp_fields(&with_attachments(&fields, &signed_attachments, |a| {
            a.file_name.clone()
        }));
        let mut embedded = Vec::with_capacity(signed_attachments.len());
        for attachment in &signed_attachments {
            let bytes = store.get(&attachment.file_key).await?;
            embedded.push((embedded_file(attachment, &fields), bytes));
        }
        let rendered = sealer
            .render_and_seal(
                &original,
                stamps,
                embedded,
                certificate,
                format!("Completed in Signet, document {}", document.code),
                completed_at,
            )
            .await?;
        // A key of its own per rendering: a concurrent completion never overwrites the file
        // that another one recorded.
        let final_key = format!(
            "{}/{}/final-{completed_id}.pdf",
            document.account_id, document_id
        );
        // Written whole before the document becomes COMPLETED: a COMPLETED document always
        // has its file. Recorded as pending first, so that a file whose completion is never
        // committed (a crash, a discarded rendering) is removed by the sweep.
        pending_files::record(pool, &final_key, document_id).await?;
        if let Err(e) = store.put(&final_key, rendered.bytes.into()).await {
            let _ = pending_files::forget(pool, &final_key).await;
            return Err(e.into());
        }

        let mut tx = pool.begin().await?;
        let current = documents::lock_for_job(&mut tx, document_id).await?;
        let still_last = audit::last_id(&mut tx, document_id).await?;
        if current.status != DocumentStatus::Sent || still_last != last_entry {
            drop(tx);
            if store.remove(&final_key).await.is_ok() {
                let _ = pending_files::forget(pool, &final_key).await;
            }
            if current.status != DocumentStatus::Sent {
                return Ok(Outcome::NotSent);
            }
            continue;
        }
        documents::mark_completed(&mut tx, document_id, &final_key, &rendered.sha256).await?;
        pending_files::settle(&mut tx, &final_key).await?;
        let subject = Subject::of(&document);
        effects::record(&mut tx, subject, completed, &actor, notifier).await?;
        tx.commit().await?;
        return Ok(Outcome::Completed);
    }
    // The trail kept changing (viewers opening their links, say): the job runs again later.
    Ok(Outcome::Waiting)
}

/// What a [`TrustServices`] request gives back: the DER answer, or why there is none.
pub type ServiceAnswer<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = std::result::Result<Vec<u8>, String>> + Send + 'a>,
>;

/// The network services a seal needs: the timestamp authority (`TSA_URL`), when there is one,
/// and the revocation services its certificates name. The worker's HTTP client.
pub trait TrustServices: Send + Sync {
    /// Whether a timestamp authority is configured: then every seal is timestamped.
    fn timestamps(&self) -> bool;
    /// Sends a DER TimeStampReq; the DER TimeStampResp.
    fn timestamp(&self, request: Vec<u8>) -> ServiceAnswer<'_>;
    /// Asks a revocation service; its DER OCSPResponse or CRL.
    fn revocation<'a>(&'a self, source: &'a RevocationSource) -> ServiceAnswer<'a>;
}

/// What makes a final PDF: the seal, the network services it needs, and the sandbox the
/// original (an upload, untrusted) is read in.
pub struct Sealer<'a> {
    pub key: &'a Arc<SealKey>,
    pub services: &'a dyn TrustServices,
    pub sandbox: &'a PdfSandbox,
}

impl Sealer<'_> {
    /// The final PDF, sealed, timestamped when there is an authority, and with its long-term
    /// validation data when its certificates name revocation services. Everything that reads
    /// the PDF (rendering, the seal's place, the DSS update) runs in the PDF sandbox; signing
    /// reads no PDF and runs on a blocking thread; the services are asked in between. A seal
    /// is never written without its timestamp when one is configured, nor without the
    /// revocation data its chain names: a service that cannot be reached fails the
    /// completion, which is retried.
    async fn render_and_seal(
        &self,
        original: &[u8],
        stamps: Vec<StampField>,
        attachments: Vec<(EmbeddedFile, bytes::Bytes)>,
        certificate: Certificate,
        reason: String,
        completed_at: DateTime<Utc>,
    ) -> Result<FinalPdf> {
        let blocking_failed = |e: tokio::task::JoinError| {
            std::io::Error::other(format!("rendering task failed: {e}"))
        };
        let (rendered, with_placeholder) = self
            .sandbox
            .render(
                original,
                stamps,
                attachments,
                certificate,
                reason,
                completed_at,
            )
            .await
            .map_err(StampError::Read)?;
        let key = Arc::clone(self.key);
        let prepared = tokio::task::spawn_blocking(move || seal::sign(with_placeholder, &key))
            .await
            .map_err(blocking_failed)??;
        let token = if self.services.timestamps() {
            let signature = prepared.signature_value().to_vec();
            let (request, nonce) = seal::timestamp_request(&signature)?;
            let response = self
                .services
                .timestamp(request)
                .await
                .map_err(SealError::Timestamp)?;
            Some(seal::timestamp_token(&response, &nonce, &signature)?)
        } else {
            None
        };
        let plan = ValidationPlan::new(self.key, token.as_deref())?;
        let mut answers = Vec::new();
        for source in plan.sources() {
            answers.push(
                self.services
                    .revocation(source)
                    .await
                    .map_err(SealError::Revocation)?,
            );
        }
        let sealed = prepared.finish(token.as_deref())?;
        let bytes = if plan.is_empty() {
            sealed
        } else {
            let data = plan.check(&answers, Utc::now())?;
            self.sandbox
                .embed(&sealed, data)
                .await
                .map_err(SealError::Pdf)?
        };
        Ok(FinalPdf {
            sha256: signet_pdf::sha256_hex(&bytes),
            bytes,
            stamped_sha256: rendered.stamped_sha256,
            certificate_pages: rendered.certificate_pages,
        })
    }
}

/// Queues completion again for SENT documents whose signers have all signed but whose
/// completion jobs gave up (a file store outage, say). Run by the periodic sweep; the job is
/// idempotent, so queuing it for a document that is completing right now is harmless. Documents
/// another sweep (or a completion) holds are skipped, so sweeps on several processes at once do
/// not queue the same document together.
#[tracing::instrument(name = "completion::requeue_stalled", skip_all)]
pub async fn requeue_stalled(pool: &PgPool) -> Result<usize> {
    let mut tx = pool.begin().await?;
    let stalled = documents::lock_stalled_completions(&mut tx, STALLED_BATCH).await?;
    let jobs: Vec<CheckCompletion> = stalled
        .iter()
        .map(|&document_id| CheckCompletion { document_id })
        .collect();
    if !jobs.is_empty() {
        jobs::enqueue(&mut tx, &jobs).await?;
    }
    tx.commit().await?;
    Ok(jobs.len())
}

/// The filled fields as stamps; a field left empty (an optional one) is not stamped, nor one
/// whose kind is not drawn as a value (an attachment is the signer's file).
fn stamp_fields(fields: &[Field]) -> Vec<StampField> {
    fields
        .iter()
        .filter_map(|f| {
            Some(StampField {
                page: u32::try_from(f.page).ok()?,
                x: f.x,
                y: f.y,
                width: f.width,
                height: f.height,
                kind: stamp_kind(f.field_type)?,
                value: f.value.clone().filter(|v| !v.trim().is_empty())?,
            })
        })
        .collect()
}

fn stamp_kind(field_type: FieldType) -> Option<StampKind> {
    Some(match field_type {
        FieldType::Text => StampKind::Text,
        FieldType::Date => StampKind::Date,
        FieldType::Signature => StampKind::Signature,
        FieldType::Initials => StampKind::Initials,
        FieldType::Checkbox => StampKind::Checkbox,
        FieldType::Radio => StampKind::Radio,
        FieldType::Dropdown => StampKind::Dropdown,
        FieldType::Number => StampKind::Number,
        FieldType::Email => StampKind::Email,
        FieldType::Name => StampKind::Name,
        FieldType::Company => StampKind::Company,
        // Stamped with the file's name, which `with_file_names` puts in the value.
        FieldType::Attachment => StampKind::Text,
    })
}

/// The fields with each ATTACHMENT field's value (the id of the file it holds) replaced by
/// `describe` of the file: its name is what its box is stamped with; its name, size and
/// SHA-256 what the certificate lists.
fn with_attachments(
    fields: &[Field],
    attached: &[Attachment],
    describe: fn(&Attachment) -> String,
) -> Vec<Field> {
    fields
        .iter()
        .map(|f| {
            let mut f = f.clone();
            if f.field_type == FieldType::Attachment {
                f.value = attached
                    .iter()
                    .find(|a| Some(a.id.to_string()) == f.value)
                    .map(describe);
            }
            f
        })
        .collect()
}

/// An attached file as the certificate lists it.
fn attachment_record(a: &Attachment) -> String {
    format!("{} ({} B, SHA-256 {})", a.file_name, a.size, a.sha256)
}

/// The fields `recipient` filled in, with the value stamped: those a person types or picks
/// (a signature is seen on the page, a date is the signing time the certificate gives), and
/// the files they attached (name, size, SHA-256).
fn certificate_fields(fields: &[Field], recipient: &Recipient) -> Vec<CertificateField> {
    fields
        .iter()
        .filter(|f| {
            f.recipient_id == recipient.id
                && (f.field_type.takes_prefill() || f.field_type == FieldType::Attachment)
        })
        .filter_map(|f| {
            Some(CertificateField {
                kind: f.field_type.as_str().to_owned(),
                label: f.label.clone(),
                value: f
                    .value
                    .as_deref()
                    .map(str::trim)
                    .filter(|v| !v.is_empty())?
                    .to_owned(),
            })
        })
        .collect()
}

/// A signer's attachment as the final PDF embeds it, described by the field it answers (the
/// field's label, when it has one).
fn embedded_file(attachment: &Attachment, fields: &[Field]) -> EmbeddedFile {
    let field = fields.iter().find(|f| f.id == attachment.field_id);
    EmbeddedFile {
        name: attachment.file_name.clone(),
        media_type: attachment.media_type.clone(),
        sha256: attachment.sha256.clone(),
        description: match field.and_then(|f| f.label.as_deref()) {
            Some(label) => format!("Attachment ({label})"),
            None => "Attachment".to_owned(),
        },
        // Its bytes' length, set as they are read.
        size: 0,
    }
}

/// Times on the certificate read as they do in the API.
fn time(t: DateTime<Utc>) -> String {
    Timestamp(t).to_string()
}

fn certificate(
    document: &Document,
    recipients: &[Recipient],
    fields: &[Field],
    trail: &[AuditEntry],
    completed_at: DateTime<Utc>,
    default_language: Language,
) -> Certificate {
    // The IP and user agent of a recipient are those of their signature (or, for viewers,
    // of their first view), as recorded in the trail.
    let attribution = |recipient: &Recipient| {
        let concerning = |event: AuditEvent| {
            trail
                .iter()
                .find(move |e| e.event == event && e.recipient_id == Some(recipient.id))
        };
        concerning(AuditEvent::Signed)
            .or_else(|| concerning(AuditEvent::Viewed))
            .map(|e| (e.ip_address.clone(), e.user_agent.clone()))
    };
    Certificate {
        language: document.language.0.unwrap_or(default_language),
        title: document.title.clone(),
        code: document.code.clone(),
        document_id: document.id.to_string(),
        original_sha256: document.sha256.clone(),
        completed_at: time(completed_at),
        recipients: recipients
            .iter()
            .map(|r| {
                let (ip_address, user_agent) = attribution(r).unzip();
                CertificateRecipient {
                    name: r.name.clone(),
                    email: r.email.clone(),
                    role: r.role.to_string(),
                    status: r.status.to_string(),
                    viewed_at: r.viewed_at.map(time),
                    signed_at: r.signed_at.map(time),
                    ip_address,
                    user_agent,
                    // What the signer agreed to, as recorded on the signing page: only a
                    // recipient who consented gets the block.
                    consented_at: r.consented_at.map(time),
                    consent_ip: r.consented_at.and(r.consent_ip.clone()),
                    consent_user_agent: r.consented_at.and(r.consent_user_agent.clone()),
                    consent_text: r.consented_at.and(r.consent_text.clone()),
                    // The method passed and when, never the code.
                    auth_method: r
                        .auth_passed_at
                        .and(r.auth_method.0)
                        .map(|m| m.as_str().to_owned()),
                    auth_passed_at: r.auth_method.0.and(r.auth_passed_at).map(time),
                    fields: certificate_fields(fields, r),
                }
            })
            .collect(),
        audit: audit_lines(trail),
    }
}

/// The certificate's audit lines: one per entry of the trail, in order, except that a run of
/// consecutive reminders gives one line per address reminded in it, "Reminders sent to a@x
/// (5 times, from … to …)" when there were several, at the time of the first. (The trail
/// itself keeps every entry; before reminders were throttled, a few hundred of them made a
/// certificate of dozens of pages.)
fn audit_lines(trail: &[AuditEntry]) -> Vec<CertificateAuditLine> {
    let line = |e: &AuditEntry| CertificateAuditLine {
        at: time(e.created_at),
        event: e.event.to_string(),
        message: e.message.clone(),
        ip_address: e.ip_address.clone(),
        user_agent: e.user_agent.clone(),
        entries: 1,
    };
    let mut lines = Vec::new();
    let mut rest = trail;
    while let Some(first) = rest.first() {
        if effects::reminded_address(first).is_none() {
            lines.push(line(first));
            rest = &rest[1..];
            continue;
        }
        let run = rest
            .iter()
            .position(|e| effects::reminded_address(e).is_none())
            .unwrap_or(rest.len());
        let (reminders, after) = rest.split_at(run);
        let mut addresses: Vec<&str> = Vec::new();
        for entry in reminders {
            let address = effects::reminded_address(entry).unwrap_or_default();
            if !addresses.contains(&address) {
                addresses.push(address);
            }
        }
        for address in addresses {
            let to: Vec<&AuditEntry> = reminders
                .iter()
                .filter(|e| effects::reminded_address(e) == Some(address))
                .collect();
            match to.as_slice() {
                [only] => lines.push(line(only)),
                [first, .., last] => lines.push(CertificateAuditLine {
                    message: format!(
                        "Reminders sent to {address} ({} times, from {} to {})",
                        to.len(),
                        time(first.created_at),
                        time(last.created_at)
                    ),
                    ip_address: distinct(to.iter().map(|e| e.ip_address.as_str())),
                    user_agent: distinct(to.iter().map(|e| e.user_agent.as_str())),
                    entries: to.len(),
                    ..line(first)
                }),
                [] => {}
            }
        }
        rest = after;
    }
    lines
}

/// The different values among `values`, in order, the first three of them named.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> String {
    const NAMED: usize = 3;
    let mut seen: Vec<&str> = Vec::new();
    for value in values {
        if !seen.contains(&value) {
            seen.push(value);
        }
    }
    let named = seen[..seen.len().min(NAMED)].join(", ");
    match seen.len().saturating_sub(NAMED) {
        0 => named,
        more => format!("{named} (+{more} more)"),
    }
}

#[cfg(test)]
mod tests {
    use sqlx::types::Json;
    use uuid::Uuid;

    use super::*;
    use crate::model::{AccountId, DocumentId, RecipientId, StoredLanguage};

    fn recipient(email: &str, role: RecipientRole) -> Recipient {
        Recipient {
            status: RecipientStatus::Signed,
            ..Recipient::for_tests(email, role)
        }
    }

    fn entry(
        event: AuditEvent,
        message: &str,
        recipient_id: Option<RecipientId>,
        ip: &str,
    ) -> AuditEntry {
        AuditEntry {
            seq: 0,
            id: AuditEntryId::new(),
            account_id: AccountId(Uuid::nil()),
            document_id: DocumentId(Uuid::nil()),
            event,
            message: message.into(),
            recipient_id,
            ip_address: ip.into(),
            user_agent: format!("agent of {ip}"),
            created_at: Utc::now(),
            prev_hash: Vec::new(),
            hash: Vec::new(),
            format: audit::FORMAT,
            personal_salt: None,
            personal_digest: None,
            erased_at: None,
        }
    }

    /// Runs of reminders shrink to a line per address, with how many, when, and from where;
    /// a lone reminder and every other entry keep their own line, in order, and the lines
    /// still account for every entry of the trail.
    #[test]
    fn repeated_reminders_are_summarised_on_the_certificate() {
        let ann = recipient("ann@example.com", RecipientRole::Signer);
        let ben = recipient("ben@example.com", RecipientRole::Signer);
        let start = Utc::now().trunc_subsecs(3);
        let at = |minute: i64, mut e: AuditEntry| {
            e.created_at = start + chrono::TimeDelta::minutes(minute);
            e
        };
        let reminder = |minute, who: &Recipient, ip: &str| {
            let message = format!("Reminder sent to {}", who.email);
            at(
                minute,
                entry(AuditEvent::Updated, &message, Some(who.id), ip),
            )
        };
        let trail = [
            at(
                0,
                entry(
                    AuditEvent::Sent,
                    "Document sent to 2 recipients",
                    None,
                    "192.0.2.1",
                ),
            ),
            reminder(1, &ann, "192.0.2.1"),
            reminder(2, &ben, "192.0.2.1"),
            reminder(3, &ann, "192.0.2.2"),
            reminder(4, &ben, "192.0.2.1"),
            reminder(5, &ann, "192.0.2.1"),
            at(
                6,
                entry(
                    AuditEvent::Viewed,
                    "Document viewed by ann@example.com",
                    Some(ann.id),
                    "198.51.100.1",
                ),
            ),
            reminder(7, &ann, "192.0.2.3"),
        ];
        let lines = audit_lines(&trail);
        let said: Vec<(&str, &str, &str)> = lines
            .iter()
            .map(|l| (l.at.as_str(), l.message.as_str(), l.ip_address.as_str()))
            .collect();
        let t = |minute| time(start + chrono::TimeDelta::minutes(minute));
        let ann_summary = format!(
            "Reminders sent to ann@example.com (3 times, from {} to {})",
            t(1),
            t(5)
        );
        let ben_summary = format!(
            "Reminders sent to ben@example.com (2 times, from {} to {})",
            t(2),
            t(4)
        );
        assert_eq!(
            said,
            [
                (t(0).as_str(), "Document sent to 2 recipients", "192.0.2.1"),
                (t(1).as_str(), ann_summary.as_str(), "192.0.2.1, 192.0.2.2"),
                (t(2).as_str(), ben_summary.as_str(), "192.0.2.1"),
                (
                    t(6).as_str(),
                    "Document viewed by ann@example.com",
                    "198.51.100.1"
                ),
                (
                    t(7).as_str(),
                    "Reminder sent to ann@example.com",
                    "192.0.2.3"
                ),
            ]
        );
        assert_eq!(lines[1].event, "UPDATED");
        assert_eq!(
            lines[1].user_agent,
            "agent of 192.0.2.1, agent of 192.0.2.2"
        );
        let entries: Vec<usize> = lines.iter().map(|l| l.entries).collect();
        assert_eq!(entries, [1, 3, 2, 1, 1]);
        assert_eq!(entries.iter().sum::<usize>(), trail.len());
    }

    #[test]
    fn many_sources_of_reminders_are_named_up_to_three() {
        assert_eq!(distinct(["a", "b", "a"].into_iter()), "a, b");
        assert_eq!(
            distinct(["a", "b", "c", "d", "e"].into_iter()),
            "a, b, c (+2 more)"
        );
    }

    /// The certificate attributes a signature by the entry's recipient, not by its words: a
    /// recipient whose address was corrected after they signed, and a message worded otherwise,
    /// still get their own signature's address; a viewer gets their first view's.
    #[test]
    fn signatures_and_views_are_found_by_recipient() {
        let ann = recipient("ann@example.com", RecipientRole::Signer);
        let vic = recipient("vic@example.com", RecipientRole::Viewer);
        let trail = [
            entry(
                AuditEvent::Viewed,
                "Document viewed by someone",
                Some(ann.id),
                "198.51.100.1",
            ),
            entry(AuditEvent::Viewed, "Opened", Some(vic.id), "198.51.100.2"),
            entry(
                AuditEvent::Viewed,
                "Opened again",
                Some(vic.id),
                "198.51.100.3",
            ),
            entry(
                AuditEvent::Signed,
                "Document signed by ann@old.example",
                Some(ann.id),
                "198.51.100.4",
            ),
            entry(
                AuditEvent::Signed,
                "Document signed by ann@example.com",
                None,
                "198.51.100.5",
            ),
        ];
        let document = Document {
            id: DocumentId(Uuid::nil()),
            account_id: AccountId(Uuid::nil()),
            code: "ABC".into(),
            title: "Lease".into(),
            status: DocumentStatus::Sent,
            file_key: String::new(),
            sha256: String::new(),
            pages: 1,
            page_sizes: Json(Vec::new()),
            created_at: Utc::now(),
            updated_at: Utc::now(),
            sent_at: None,
            expiry_date: None,
            completed_at: None,
            send_message: None,
            send_description: None,
            final_file_key: None,
            final_sha256: None,
            language: StoredLanguage::default(),
            template_id: None,
            files_removed_at: None,
            files_removed_reason: None,
            cancel_reason: None,
            reminder_first_after_days: None,
            reminder_every_days: None,
        };
        let certificate = certificate(
            &document,
            &[ann, vic],
            &[],
            &trail,
            Utc::now(),
            Language::English,
        );
        let addresses: Vec<Option<&str>> = certificate
            .recipients
            .iter()
            .map(|r| r.ip_address.as_deref())
            .collect();
        assert_eq!(addresses, [Some("198.51.100.4"), Some("198.51.100.2")]);
    }
}
