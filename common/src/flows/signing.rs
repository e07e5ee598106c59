//! What a recipient does through their signing link: view, sign, decline. Each action runs in
//! one transaction under the document's row lock, like the owner's operations.

use chrono::Utc;
use sqlx::{PgConnection, PgPool};

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::{Conflict, Error, Problem, Result, Rule},
    flows::{
        invitations, signer_auth,
        signer_key::{BrowserPass, SignerKey, begin_unchecked},
    },
    infra::notify::Notifier,
    model::{
        Actor, AttachmentId, Document, DocumentStatus, Field, FieldId, FieldType, Recipient,
        RecipientId, RecipientRole, RecipientStatus, field_values,
    },
    store::{accounts, attachments, documents, fields, recipients},
    wire::inputs::{DeclineInput, MAX_FIELDS_PER_DOCUMENT, SubmitInput},
};

pub use crate::model::field_values::{
    MAX_SIGNATURE_IMAGE_BYTES, MAX_TEXT_CHARS, MAX_TYPED_SIGNATURE_CHARS, normalise_value,
};

/// A recipient's view of their document.
#[derive(Debug, Clone)]
pub struct SigningSession {
    pub document: Document,
    /// Who asks for the signature: the account's name, as the invitation named it.
    pub sender: String,
    pub recipient: Recipient,
    /// The recipient's own fields.
    pub fields: Vec<Field>,
    /// How many other signers have not signed yet.
    pub others_to_sign: usize,
}

impl SigningSession {
    /// Whether the recipient can still act (sign or decline) on this link.
    pub fn can_act(&self) -> bool {
        self.document.status == DocumentStatus::Sent
            && self.recipient.role == RecipientRole::Signer
            && self.recipient.status != RecipientStatus::Signed
            && !is_past_expiry(&self.document)
    }

    /// Whether the link may still hand out the PDF: while the document is out for signing and
    /// not past its expiry (the original, to read and sign), and once it is COMPLETED (the
    /// signed PDF, which every recipient is also e-mailed). A cancelled, declined or expired
    /// document is withdrawn: its link shows the final state only.
    pub fn may_download(&self) -> bool {
        match self.document.status {
            DocumentStatus::Sent => !is_past_expiry(&self.document),
            DocumentStatus::Completed => true,
            _ => false,
        }
    }
}

/// What the link's page shows, recording nothing: fetching the page is not viewing the
/// document (mail scanners and chat previews fetch links too). The page's script then asks
/// for the session ([`open`]) once it has drawn the document.
#[tracing::instrument(name = "signing::look", skip_all)]
pub async fn look(pool: &PgPool, key: &SignerKey, pass: &BrowserPass) -> Result<SigningSession> {
    let (mut tx, document, recipient) = begin(pool, key, pass).await?;
    let session = session(&mut tx, document, recipient.id).await?;
    tx.commit().await?;
    Ok(session)
}

/// Opens the session: the first opening while the document is out for signing records VIEWED.
#[tracing::instrument(name = "signing::open", skip_all)]
pub async fn open(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<SigningSession> {
    let (mut tx, document, recipient) = begin(pool, key, pass).await?;
    if document.status == DocumentStatus::Sent && recipient.status == RecipientStatus::Pending {
        record_view(&mut tx, &document, &recipient, actor, notifier).await?;
    }
    let session = session(&mut tx, document, recipient.id).await?;
    tx.commit().await?;
    Ok(session)
}

/// Records the signer's agreement to use electronic records and signatures, with the words
/// they were shown (`text`), before their first field. The first agreement stands; agreeing
/// again changes nothing.
/// A person who consents has seen the document: VIEWED is recorded first if it was not yet.
#[tracing::instrument(name = "signing::consent", skip_all)]
pub async fn consent(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
    text: &str,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let (mut tx, document, recipient) = begin(pool, key, pass).await?;
    require_can_act(&document, &recipient)?;
    if recipient.status == RecipientStatus::Pending {
        record_view(&mut tx, &document, &recipient, actor, notifier).await?;
    }
    recipients::record_consent(&mut tx, recipient.id, actor, text).await?;
    tx.commit().await?;
    Ok(())
}

/// Signs: every field of the recipient gets a valid value, all at once. DATE fields are not
/// the signer's to fill: they get the signing date, whatever was sent for them. Read-only
/// fields keep the value the document was made with, and may not be sent.
#[tracing::instrument(name = "signing::submit", skip_all)]
pub async fn submit(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
    input: SubmitInput,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let (mut tx, document, recipient) = begin(pool, key, pass).await?;
    require_can_act(&document, &recipient)?;
    if recipient.consented_at.is_none() {
        return Err(Rule::ConsentRequired.into());
    }
    // Each value is matched with the fields before it: their count is refused first.
    if input.fields.len() > MAX_FIELDS_PER_DOCUMENT {
        return Err(Error::invalid(
            "fields",
            format!(
                "at most {MAX_FIELDS_PER_DOCUMENT} values, as a document has at most that many fields"
            ),
        ));
    }
    let own_fields: Vec<Field> = fields::list(&mut tx, document.id)
        .await?
        .into_iter()
        .filter(|f| f.recipient_id == recipient.id)
        .collect();
    let attached = attachment_values(&own_fields, &input);
    // Images are decoded off the async threads.
    let values = tokio::task::spawn_blocking(move || validate_values(&own_fields, input))
        .await
        .map_err(|e| std::io::Error::other(format!("validation task failed: {e}")))??;
    let problems = check_attachments(&mut tx, recipient.id, &attached).await?;
    if !problems.is_empty() {
        return Err(Error::Invalid(problems));
    }
    if recipient.status == RecipientStatus::Pending {
        record_view(&mut tx, &document, &recipient, actor, notifier).await?;
    }
    fields::fill(&mut tx, &values).await?;
    fields::fill_signing_dates(&mut tx, recipient.id).await?;
    recipients::mark_signed(&mut tx, recipient.id).await?;
    documents::touch(&mut tx, document.id).await?;
    let everyone = recipients::list(&mut tx, document.id).await?;
    let last = everyone
        .iter()
        .filter(|r| r.role == RecipientRole::Signer)
        .all(|r| r.status == RecipientStatus::Signed);
    let signed = DocumentEvent::Signed {
        by: &recipient,
        last,
    };
    effects::record(&mut tx, Subject::of(&document), signed, actor, notifier).await?;
    // The signature may have been the last its group of the signing order waited for.
    invitations::invite_due(&mut tx, &document, &everyone, actor, notifier).await?;
    tx.commit().await?;
    Ok(())
}

/// Declines: the document becomes DECLINED and the other recipients are told.
#[tracing::instrument(name = "signing::decline", skip_all)]
pub async fn decline(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
    input: DeclineInput,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let reason = input
        .reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    if reason
        .as_ref()
        .is_some_and(|r| crate::wire::inputs::has_control_chars(r))
    {
        return Err(Error::invalid("reason", crate::wire::inputs::CONTROL_CHARS));
    }
    if reason
        .as_ref()
        .is_some_and(|r| r.chars().count() > MAX_TEXT_CHARS)
    {
        return Err(Error::invalid(
            "reason",
            format!("at most {MAX_TEXT_CHARS} characters"),
        ));
    }
    let (mut tx, document, recipient) = begin(pool, key, pass).await?;
    require_can_act(&document, &recipient)?;
    recipients::mark_declined(&mut tx, recipient.id, reason.as_deref()).await?;
    documents::set_status(&mut tx, document.id, DocumentStatus::Declined).await?;
    let recipients = recipients::list(&mut tx, document.id).await?;
    let declined = DocumentEvent::Declined {
        by: &recipient,
        reason: reason.as_deref(),
        recipients: &recipients,
    };
    effects::record(&mut tx, Subject::of(&document), declined, actor, notifier).await?;
    tx.commit().await?;
    Ok(())
}

/// Finds the key's recipient and locks its document, once the browser has passed the
/// recipient's authentication ([`signer_auth::gate`]); 404 for an unknown token, or a session
/// that is not this browser's or has expired. Every signing action starts here, whichever way
/// the signer came (a link or an embedded session), so none shows or changes anything before
/// the check passes.
pub(crate) async fn begin(
    pool: &PgPool,
    key: &SignerKey,
    pass: &BrowserPass,
) -> Result<(
    sqlx::Transaction<'static, sqlx::Postgres>,
    Document,
    Recipient,
)> {
    let (mut tx, document, recipient) = begin_unchecked(pool, key).await?;
    signer_auth::gate(&mut tx, &recipient, pass).await?;
    Ok((tx, document, recipient))
}

async fn record_view(
    conn: &mut PgConnection,
    document: &Document,
    recipient: &Recipient,
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    recipients::mark_viewed(conn, recipient.id).await?;
    let viewed = DocumentEvent::Viewed(recipient);
    effects::record(conn, Subject::of(document), viewed, actor, notifier).await
}

async fn session(
    conn: &mut PgConnection,
    document: Document,
    recipient_id: RecipientId,
) -> Result<SigningSession> {
    let everyone = recipients::list(conn, document.id).await?;
    let others_to_sign = everyone
        .iter()
        .filter(|r| {
            r.id != recipient_id
                && r.role == RecipientRole::Signer
                && r.status != RecipientStatus::Signed
        })
        .count();
    let recipient = everyone
        .into_iter()
        .find(|r| r.id == recipient_id)
        .ok_or(Error::SigningLinkNotFound)?;
    let fields = fields::list(conn, document.id)
        .await?
        .into_iter()
        .filter(|f| f.recipient_id == recipient_id)
        .collect();
    let sender = accounts::name(conn, document.account_id).await?;
    Ok(SigningSession {
        document,
        sender,
        recipient,
        fields,
        others_to_sign,
    })
}

fn is_past_expiry(document: &Document) -> bool {
    document
        .expiry_date
        .is_some_and(|expiry| expiry <= Utc::now())
}

pub(crate) fn require_can_act(document: &Document, recipient: &Recipient) -> Result<()> {
    // A document past its expiry is closed even before the sweep marks it EXPIRED.
    if document.status != DocumentStatus::Sent || is_past_expiry(document) {
        return Err(Conflict::NotOpen.into());
    }
    if recipient.role != RecipientRole::Signer {
        return Err(Rule::NotASigner.into());
    }
    if recipient.status == RecipientStatus::Signed {
        return Err(Conflict::AlreadySigned.into());
    }
    Ok(())
}

/// At signing: each `(path, field, value)` is an ATTACHMENT field's value, which must be the id
/// of a file this recipient uploaded for that very field. The problems, each at its `path`.
async fn check_attachments(
    conn: &mut PgConnection,
    recipient_id: RecipientId,
    given: &[(String, FieldId, String)],
) -> Result<Vec<Problem>> {
    let ids: Vec<AttachmentId> = given
        .iter()
        .filter_map(|(_, _, value)| value.parse().ok())
        .collect();
    let found = attachments::find_own(conn, recipient_id, &ids).await?;
    Ok(given
        .iter()
        .filter_map(|(path, field_id, value)| {
            let id: Option<AttachmentId> = value.parse().ok();
            match found.iter().find(|a| Some(a.id) == id) {
                Some(a) if a.field_id == *field_id => None,
                Some(_) => Some(Problem::new(
                    path,
                    "that file was uploaded for another field; upload it for this one",
                )),
                None => Some(Problem::new(
                    path,
                    "not a file you uploaded on this link; upload the file for this field",
                )),
            }
        })
        .collect())
}

/// The values given for ATTACHMENT fields, each with where it was given: `submit` checks
/// them against the uploads ([`check_attachments`]) once their form is checked.
fn attachment_values(own: &[Field], input: &SubmitInput) -> Vec<(String, FieldId, String)> {
    input
        .fields
        .iter()
        .enumerate()
        .filter_map(|(i, given)| {
            let field = own.iter().find(|f| f.id == given.id)?;
            let value = given.value.trim();
            (field.field_type == FieldType::Attachment && !value.is_empty())
                .then(|| (format!("fields[{i}].value"), field.id, value.to_owned()))
        })
        .collect()
}

/// Every required field of the recipient but DATE and read-only ones exactly once, each value
/// valid for its field (docs/fields.md); an optional field may be sent `""` (left empty, its
/// prefill cleared) or left out (it keeps its prefill, if any). A value sent for a DATE field
/// is ignored: the server sets it ([`fields::fill_signing_dates`]). A value sent for a
/// read-only field is refused: it was set by the sender, and the signer may not change it.
fn validate_values(own: &[Field], input: SubmitInput) -> Result<Vec<(FieldId, Option<String>)>> {
    let mut problems = Vec::new();
    let mut values = Vec::with_capacity(own.len());
    for (i, given) in input.fields.iter().enumerate() {
        let path = format!("fields[{i}]");
        let Some(field) = own.iter().find(|f| f.id == given.id) else {
            problems.push(Problem::new(format!("{path}.id"), "not one of your fields"));
            continue;
        };
        if input.fields[..i].iter().any(|g| g.id == field.id) {
            problems.push(Problem::new(format!("{path}.id"), "given more than once"));
            continue;
        }
        if field.read_only {
            problems.push(Problem::new(
                format!("{path}.id"),
                "read-only: its value was set by the sender and cannot be changed",
            ));
            continue;
        }
        if field.field_type == FieldType::Date {
            continue;
        }
        let value = given.value.trim();
        let unticked = field.field_type == FieldType::Checkbox && value == field_values::UNTICKED;
        if field.required && (value.is_empty() || unticked) {
            let reason = match unticked {
                true => "required: the box must be ticked",
                false => "required: must not be empty",
            };
            problems.push(Problem::new(format!("{path}.value"), reason));
            continue;
        }
        if value.is_empty() {
            values.push((field.id, None));
            continue;
        }
        let checked = match field.field_type {
            // The id of the signer's upload; that it is a file uploaded on this link for this
            // field is checked against the uploads by `submit`.
            FieldType::Attachment => value
                .parse::<AttachmentId>()
                .map(|id| id.to_string())
                .map_err(|_| "not the id of a file you uploaded for this field".to_owned()),
            field_type => normalise_value(field_type, &field.rules, value),
        };
        match checked {
            Ok(value) => values.push((field.id, Some(value))),
            Err(reason) => problems.push(Problem::new(format!("{path}.value"), reason)),
        }
    }
    for field in own
        .iter()
        .filter(|f| f.field_type != FieldType::Date && !f.read_only && f.required)
    {
        if !input.fields.iter().any(|g| g.id == field.id) {
            let named = field
                .label
                .as_ref()
                .map_or_else(String::new, |label| format!(" ({label})"));
            problems.push(Problem::new(
                "fields",
                format!("missing a value for field {}{named}", field.id),
            ));
        }
    }
    if own.is_empty() {
        problems.push(Problem::new("fields", "you have no fields to sign"));
    }
    if problems.is_empty() {
        Ok(values)
    } else {
        Err(Error::Invalid(problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FieldRules;

    const PNG_DATA_URL: &str = "data:image/png;base64,";

    /// A PNG data URL of a blank 1-bit grey image.
    fn png_url(width: u32, height: u32) -> String {
        use base64::Engine;
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Grayscale);
        encoder.set_depth(png::BitDepth::One);
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_image_data(&vec![0; width.div_ceil(8) as usize * height as usize])
            .unwrap();
        writer.finish().unwrap();
        format!(
            "{PNG_DATA_URL}{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    }

    #[test]
    fn a_drawn_signature_is_decoded_and_its_size_bounded() {
        assert!(
            normalise_value(
                FieldType::Signature,
                &FieldRules::default(),
                &png_url(600, 150)
            )
            .is_ok()
        );
        let huge = png_url(4000, 4000);
        assert!(
            huge.len() < 64 * 1024,
            "a few KB claim 16 M pixels: {}",
            huge.len()
        );
        let refused =
            normalise_value(FieldType::Signature, &FieldRules::default(), &huge).unwrap_err();
        assert!(refused.contains("at most 2000 × 1000 pixels"), "{refused}");
        let mut truncated = png_url(600, 150);
        truncated.truncate(truncated.len() - 40);
        assert!(normalise_value(FieldType::Signature, &FieldRules::default(), &truncated).is_err());
    }

    #[test]
    fn values_are_checked_by_type() {
        let png = png_url(2, 1);
        assert_eq!(
            normalise_value(FieldType::Signature, &FieldRules::default(), " Ann Lee "),
            Ok("Ann Lee".into())
        );
        assert_eq!(
            normalise_value(FieldType::Initials, &FieldRules::default(), &png),
            Ok(png.clone())
        );
        assert!(
            normalise_value(
                FieldType::Signature,
                &FieldRules::default(),
                "data:image/png;base64,@@"
            )
            .is_err()
        );
        assert!(
            normalise_value(
                FieldType::Signature,
                &FieldRules::default(),
                "data:image/gif;base64,R0lG"
            )
            .is_err()
        );
        assert!(normalise_value(FieldType::Signature, &FieldRules::default(), "   ").is_err());
        assert!(
            normalise_value(
                FieldType::Text,
                &FieldRules::default(),
                &"x".repeat(MAX_TEXT_CHARS + 1)
            )
            .is_err()
        );
    }
}
