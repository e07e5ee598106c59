//! A signer attaches a file to an ATTACHMENT field through their signing link
//! (`POST /sign/{token}/fields/{fieldId}/attachment`). The file's kind is read from its bytes
//! (PDF, PNG or JPEG; a PDF is checked in the PDF sandbox like an upload, an image decoded whole
//! there within `signet_pdf::MAX_ATTACHMENT_PIXELS`), it is stored in the
//! file store, and a row records it with its SHA-256. The field's value at signing is the
//! row's id ([`check_signed`]); uploads replaced or never signed with are removed by the file
//! sweep ([`crate::flows::files::remove_abandoned`]).

use bytes::Bytes;
use signet_pdf::ImageKind;
use sqlx::{PgConnection, PgPool};

use crate::{
    error::{Error, Problem, Result, Rule},
    flows::{
        signer_key::{BrowserPass, SignerKey},
        signing,
    },
    infra::{
        files::FileStore,
        pdf_sandbox::{PdfSandbox, SandboxError},
    },
    model::{AttachmentId, Document, FieldId, FieldType, Recipient, RecipientId},
    store::{attachments, fields, pending_files},
};

pub use attachments::Attachment;

/// The most characters of an attached file's name.
pub const MAX_FILE_NAME_CHARS: usize = 200;

/// The kinds of file a signer may attach, read from the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentKind {
    Pdf,
    Png,
    Jpeg,
}

impl AttachmentKind {
    /// The kind of `bytes`, by their first bytes; `None` for any other kind.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
        {
            // Within the first 1024 bytes, as PDF readers (and the upload check) accept.
            Some(Self::Pdf)
        } else {
            None
        }
    }

    pub fn media_type(self) -> &'static str {
        match self {
            Self::Pdf => "application/pdf",
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
        }
    }
}

/// What a signer sends: the file for one of their ATTACHMENT fields.
pub struct Upload {
    pub field_id: FieldId,
    /// The file's name as given (`?name=`); `None` when it was not.
    pub file_name: Option<String>,
    pub bytes: Bytes,
}

/// Checks and stores a signer's file for one of their ATTACHMENT fields. Refusals name the
/// field (`fields.<fieldId>`) and record nothing.
#[tracing::instrument(name = "attachments::upload", skip_all)]
pub async fn upload(
    pool: &PgPool,
    store: &FileStore,
    sandbox: &PdfSandbox,
    key: &SignerKey,
    pass: &BrowserPass,
    upload: Upload,
    max_bytes: usize,
) -> Result<Attachment> {
    let at = format!("fields.{}", upload.field_id);
    let refuse = |reason: String| Error::Invalid(vec![Problem::new(at.clone(), reason)]);
    let file_name = check_file_name(upload.file_name.as_deref())
        .map_err(|reason| Error::Invalid(vec![Problem::new(format!("{at}.name"), reason)]))?;
    // The link and its field first: a stranger's file is never read further.
    let checked = check_field(pool, key, pass, upload.field_id, &at).await?;
    let bytes = upload.bytes;
    if bytes.is_empty() {
        return Err(refuse("the file is empty".into()));
    }
    if bytes.len() > max_bytes {
        return Err(refuse(format!(
            "the file is larger than the {} MiB an attachment may be",
            max_bytes / (1024 * 1024)
        )));
    }
    let kind = AttachmentKind::sniff(&bytes)
        .ok_or_else(|| refuse("the file is not a PDF, PNG or JPEG file".into()))?;
    match kind {
        AttachmentKind::Pdf => {
            sandbox
                .inspect(&bytes, ())
                .await
                .map_err(|e| refuse(format!("the PDF cannot be taken: {e}")))?;
        }
        // Its first bytes said which kind; the whole file must be one.
        AttachmentKind::Png => check_image(sandbox, &bytes, ImageKind::Png)
            .await
            .map_err(refuse)?,
        AttachmentKind::Jpeg => check_image(sandbox, &bytes, ImageKind::Jpeg)
            .await
            .map_err(refuse)?,
    }
    let sha256 = signet_pdf::sha256_hex(&bytes);
    let size = bytes.len() as i64;

    let id = AttachmentId::new();
    let (account_id, document_id) = checked.document;
    let file_key = format!("{account_id}/{document_id}/attachments/{id}");
    // Recorded before the write, so that a file whose row is never committed is found and
    // removed by the sweep.
    pending_files::record(pool, &file_key, document_id).await?;
    if let Err(e) = store.put(&file_key, bytes).await {
        let _ = pending_files::forget(pool, &file_key).await;
        return Err(e.into());
    }
    let attachment = Attachment {
        id,
        document_id,
        recipient_id: checked.recipient_id,
        field_id: upload.field_id,
        file_key,
        file_name,
        media_type: kind.media_type().to_owned(),
        size,
        sha256,
    };
    // Checked again under the document's lock, where the row is made.
    let recorded = async {
        let (mut tx, document, recipient) = signing::begin(pool, key, pass).await?;
        own_attachment_field(&mut tx, &document, &recipient, upload.field_id, &at).await?;
        let held = attachments::bytes_held(&mut tx, document.id, upload.field_id).await?;
        if held + size > signet_pdf::sandbox::MAX_ATTACHMENT_BYTES as i64 {
            return Err(refuse(format!(
                "the document's attachments would hold more than the {} MiB they may hold \
                 together",
                signet_pdf::sandbox::MAX_ATTACHMENT_BYTES / (1024 * 1024)
            )));
        }
        attachments::insert(&mut tx, &attachment).await?;
        pending_files::settle(&mut tx, &attachment.file_key).await?;
        tx.commit().await?;
        Ok(())
    }
    .await;
    if let Err(e) = recorded {
        if store.remove(&attachment.file_key).await.is_ok() {
            let _ = pending_files::forget(pool, &attachment.file_key).await;
        }
        return Err(e);
    }
    Ok(attachment)
}

/// Decodes an attached image whole in a sandbox child; why it is not taken, if it is not: the
/// image's own fault, or the child stopped reading it.
async fn check_image(
    sandbox: &PdfSandbox,
    bytes: &[u8],
    kind: ImageKind,
) -> std::result::Result<(), String> {
    match sandbox.check_image(bytes, kind).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(refusal)) => Err(refusal.to_string()),
        Err(SandboxError::TooSlow(secs)) => Err(format!(
            "the image takes longer than {secs} seconds to read"
        )),
        Err(SandboxError::TooMuchMemory(mib)) => Err(format!(
            "the image needs more than {mib} MiB of memory to read"
        )),
        Err(SandboxError::Crashed) => Err(format!(
            "the file is not a valid {} image: the decoder failed on it",
            kind.name()
        )),
        // Not the file's fault; but it could not be checked, so it is not taken.
        Err(SandboxError::Unavailable(reason)) => {
            Err(format!("the image could not be checked: {reason}"))
        }
    }
}

/// Where an upload goes, once its link and field are checked.
struct Checked {
    document: (crate::model::AccountId, crate::model::DocumentId),
    recipient_id: RecipientId,
}

/// The link may act and `field_id` is one of its recipient's ATTACHMENT fields.
async fn check_field(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
    field_id: FieldId,
    at: &str,
) -> Result<Checked> {
    let (mut tx, document, recipient) = signing::begin(pool, key, pass).await?;
    own_attachment_field(&mut tx, &document, &recipient, field_id, at).await?;
    tx.rollback().await?;
    Ok(Checked {
        document: (document.account_id, document.id),
        recipient_id: recipient.id,
    })
}

async fn own_attachment_field(
    conn: &mut PgConnection,
    document: &Document,
    recipient: &Recipient,
    field_id: FieldId,
    at: &str,
) -> Result<()> {
    signing::require_can_act(document, recipient)?;
    if recipient.consented_at.is_none() {
        return Err(Rule::ConsentRequired.into());
    }
    let field = fields::list(conn, document.id)
        .await?
        .into_iter()
        .find(|f| f.id == field_id && f.recipient_id == recipient.id);
    match field {
        Some(f) if f.field_type == FieldType::Attachment => Ok(()),
        Some(_) => Err(Error::Invalid(vec![Problem::new(
            at,
            "not an ATTACHMENT field: only those take a file",
        )])),
        None => Err(Error::Invalid(vec![Problem::new(
            at,
            "not one of your fields",
        )])),
    }
}

/// A file name as shown on the signing page, stamped in the field and listed in the final PDF.
fn check_file_name(name: Option<&str>) -> std::result::Result<String, String> {
    let name = name.map(str::trim).unwrap_or_default();
    if name.is_empty() {
        return Err("the file's name is missing (?name=)".into());
    }
    if name.chars().count() > MAX_FILE_NAME_CHARS {
        return Err(format!("at most {MAX_FILE_NAME_CHARS} characters"));
    }
    if crate::wire::inputs::has_control_chars(name) || name.contains(['/', '\\']) {
        return Err("control characters and slashes are not allowed".into());
    }
    Ok(name.to_owned())
}
