//! Erasure on request (issue #37, GDPR Art. 17; docs/retention.md): a person's name, e-mail
//! address, phone number, IP addresses and user agents are replaced by tombstones wherever the
//! account's rows hold them, in one transaction, with an audit entry and a
//! `document.personal_data_erased` event per document. The audit trail still verifies: its
//! entries of format 3 commit to a salted digest of their personal part, which the erasure
//! drops with the salt (`store::audit`).

use std::collections::HashSet;

use chrono::Utc;
use regex::{Regex, RegexBuilder};
use sqlx::PgPool;

use crate::{
    Conflict,
    effects::{self, DocumentEvent, Subject},
    error::{Error, Problems, Result},
    infra::notify::Notifier,
    model::{AccountId, Actor, AuditEvent, DocumentId, DocumentStatus, RecipientId},
    store::{
        audit::{self, Erased, TOMBSTONE},
        documents, erasure,
    },
    wire::{
        body::Parsed,
        retention::{ErasureInput, ErasureTarget, ErasureView, validate_erasure},
        views::Timestamp,
    },
};

/// Erases the person the input names. Nothing left to erase (an erasure done before, an
/// address no recipient has): nothing changes, and the answer lists nothing. A person who is a
/// recipient of a document out for signing is refused: the document must end first.
#[tracing::instrument(name = "erasure::erase", skip_all)]
pub async fn erase(
    pool: &PgPool,
    notifier: &Notifier,
    account_id: AccountId,
    input: Parsed<ErasureInput>,
    actor: &Actor,
) -> Result<ErasureView> {
    let mut problems = Problems::of_reading(input.problems);
    let target = validate_erasure(&input.value, &mut problems);
    problems.into_result()?;
    let target = target.expect("a target when there is no problem");
    let mut tx = pool.begin().await?;
    let email = match target {
        ErasureTarget::Email(email) => email,
        ErasureTarget::Recipient(id) => {
            let person = erasure::recipient(&mut tx, account_id, id)
                .await?
                .ok_or(Error::RecipientNotFound)?;
            if person.erased_at.is_some() {
                return Ok(nothing());
            }
            person.email
        }
    };
    // The documents are locked before their recipients are read for good: every change to a
    // recipient (signing, editing a draft) holds its document's lock, and taking the
    // recipients' row locks first would reverse the order signing takes them in. A recipient
    // added to another document between a read and the locks sends the loop round again.
    let mut document_ids: Vec<DocumentId> = Vec::new();
    let mut locked = Vec::new();
    let people = loop {
        let people = erasure::by_email(&mut tx, account_id, &email).await?;
        let mut more: Vec<DocumentId> = people
            .iter()
            .map(|p| p.document_id)
            .filter(|id| !document_ids.contains(id))
            .collect();
        if more.is_empty() {
            break people;
        }
        more.sort();
        more.dedup();
        locked.extend(documents::lock_many(&mut tx, &more).await?);
        document_ids.extend(more);
    };
    if people.is_empty() {
        return Ok(nothing());
    }
    if let Some(open) = locked.iter().find(|d| d.status == DocumentStatus::Sent) {
        return Err(Conflict::OutForSigning(open.id).into());
    }
    let recipient_ids: Vec<RecipientId> = people.iter().map(|p| p.id).collect();
    let ours: HashSet<RecipientId> = recipient_ids.iter().copied().collect();

    // The audit trail: the addresses and user agents the person acted from are those of the
    // entries recording their own acts (view, signature, decline) and of their consent.
    let trail = audit::list_many(&mut tx, account_id, &document_ids).await?;
    let mut ips: HashSet<String> = HashSet::new();
    let mut agents: HashSet<String> = HashSet::new();
    for entry in &trail {
        if entry.recipient_id.is_some_and(|id| ours.contains(&id))
            && matches!(
                entry.event,
                AuditEvent::Viewed | AuditEvent::Signed | AuditEvent::Declined
            )
        {
            ips.insert(entry.ip_address.clone());
            agents.insert(entry.user_agent.clone());
        }
    }
    for person in &people {
        ips.extend(person.consent_ip.clone());
        agents.extend(person.consent_user_agent.clone());
    }
    // Addresses and agents the server records for itself name no one.
    ips.remove("0.0.0.0");
    ips.remove(TOMBSTONE);
    agents.remove(TOMBSTONE);
    let mut values: Vec<String> = Vec::new();
    for person in &people {
        values.push(person.name.clone());
        values.push(person.email.clone());
        values.extend(person.phone_e164.clone());
        values.extend(person.phone_number.clone());
        values.extend(person.decline_reason.clone());
    }
    values.extend(ips.iter().cloned());
    values.extend(agents.iter().cloned());
    let scrubber = Scrubber::new(&values);

    let mut erased = Vec::new();
    for entry in &trail {
        let concerns = entry.recipient_id.is_some_and(|id| ours.contains(&id));
        let message = scrubber.scrub(&entry.message);
        let ip_address = if concerns && ips.contains(&entry.ip_address) {
            TOMBSTONE.to_owned()
        } else {
            entry.ip_address.clone()
        };
        let user_agent = if concerns && agents.contains(&entry.user_agent) {
            TOMBSTONE.to_owned()
        } else {
            entry.user_agent.clone()
        };
        if message != entry.message
            || ip_address != entry.ip_address
            || user_agent != entry.user_agent
        {
            erased.push(Erased {
                id: entry.id,
                message,
                ip_address,
                user_agent,
            });
        }
    }
    audit::erase(&mut tx, &erased).await?;

    erasure::erase_recipients(&mut tx, &recipient_ids, TOMBSTONE).await?;
    let numbers: Vec<String> = people.iter().filter_map(|p| p.phone_e164.clone()).collect();
    erasure::erase_outbox(&mut tx, account_id, &recipient_ids, &numbers, TOMBSTONE).await?;

    let events: Vec<_> = erasure::event_payloads(&mut tx, account_id, &document_ids)
        .await?
        .into_iter()
        .filter_map(|(id, payload)| scrub_payload(&scrubber, &payload).map(|p| (id, p)))
        .collect();
    erasure::set_event_payloads(&mut tx, &events).await?;
    let deliveries: Vec<_> = erasure::delivery_payloads(&mut tx, account_id, &document_ids)
        .await?
        .into_iter()
        .filter_map(|(id, payload)| scrub_payload(&scrubber, &payload).map(|p| (id, p)))
        .collect();
    erasure::set_delivery_payloads(&mut tx, &deliveries).await?;
    let rows: Vec<_> = erasure::bulk_rows(&mut tx, &document_ids)
        .await?
        .into_iter()
        .filter_map(|mut row| {
            let mut changed = scrubber.scrub_json(&mut row.input);
            if let Some(error) = &row.error {
                let scrubbed = scrubber.scrub(error);
                changed |= scrubbed != *error;
                row.error = Some(scrubbed);
            }
            changed.then_some(row)
        })
        .collect();
    erasure::set_bulk_rows(&mut tx, &rows).await?;
    let names: Vec<_> = erasure::attachment_names(&mut tx, &recipient_ids)
        .await?
        .into_iter()
        .filter_map(|(id, name)| {
            let scrubbed = scrubber.scrub(&name);
            (scrubbed != name).then_some((id, scrubbed))
        })
        .collect();
    erasure::set_attachment_names(&mut tx, &names).await?;

    // One entry and one event per document, each document's recipients being distinct
    // addresses (so one of the person's per document).
    let mut recorded: Vec<(Subject, DocumentEvent<'_>)> = locked
        .iter()
        .flat_map(|document| {
            people
                .iter()
                .filter(move |p| p.document_id == document.id)
                .map(move |p| {
                    (
                        Subject::of(document),
                        DocumentEvent::PersonalDataErased { recipient_id: p.id },
                    )
                })
        })
        .collect();
    recorded.dedup_by_key(|(subject, _)| subject.document_id);
    effects::record_batch(&mut tx, &recorded, actor, notifier).await?;
    tx.commit().await?;
    Ok(ErasureView {
        recipient_ids,
        document_ids: locked.iter().map(|d| d.id).collect(),
        erased_at: Timestamp(Utc::now()),
    })
}

/// A stored JSON payload with the person's values replaced, or `None` when it names none of them.
fn scrub_payload(scrubber: &Scrubber, payload: &str) -> Option<String> {
    let mut json: serde_json::Value = serde_json::from_str(payload).ok()?;
    scrubber
        .scrub_json(&mut json)
        .then(|| serde_json::to_string(&json).ok())?
}

fn nothing() -> ErasureView {
    ErasureView {
        recipient_ids: Vec::new(),
        document_ids: Vec::new(),
        erased_at: Timestamp(Utc::now()),
    }
}

/// Replaces a person's values in text: each value, in any case, as a whole word where it
/// begins or ends with a letter or digit (a name "Ann" is not taken out of "Annual"). Values
/// shorter than two characters are left alone, as they would match everywhere.
struct Scrubber {
    pattern: Option<Regex>,
}

impl Scrubber {
    fn new(values: &[String]) -> Self {
        let mut values: Vec<&str> = values
            .iter()
            .map(|v| v.trim())
            .filter(|v| v.chars().count() >= 2 && *v != TOMBSTONE)
            .collect();
        // Longest first, so that an address is taken whole before a name inside it.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        let alternatives: Vec<String> = values
            .iter()
            .map(|v| {
                let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
                format!(
                    "{}{}{}",
                    if word(v.chars().next()) { r"\b" } else { "" },
                    regex::escape(v),
                    if word(v.chars().last()) { r"\b" } else { "" },
                )
            })
            .collect();
        let pattern = (!alternatives.is_empty()).then(|| {
            RegexBuilder::new(&alternatives.join("|"))
                .case_insensitive(true)
                .size_limit(1 << 24)
                .build()
                .expect("escaped values make a pattern")
        });
        Self { pattern }
    }

    fn scrub(&self, text: &str) -> String {
        match &self.pattern {
            Some(pattern) => pattern.replace_all(text, TOMBSTONE).into_owned(),
            None => text.to_owned(),
        }
    }

    /// Scrubs every string of `value` in place; whether anything changed.
    fn scrub_json(&self, value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::String(s) => {
                let scrubbed = self.scrub(s);
                let changed = scrubbed != *s;
                *s = scrubbed;
                changed
            }
            serde_json::Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.scrub_json(item) | changed),
            serde_json::Value::Object(map) => map
                .values_mut()
                .fold(false, |changed, item| self.scrub_json(item) | changed),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_replaced_whole_in_any_case() {
        let scrubber = Scrubber::new(&[
            "Ann Lee".into(),
            "ann@example.com".into(),
            "+447911123456".into(),
            "A".into(),
        ]);
        assert_eq!(
            scrubber.scrub("Document signed by ANN@example.com (Ann Lee), +447911123456"),
            "Document signed by [erased] ([erased]), [erased]"
        );
        assert_eq!(scrubber.scrub("Annual report by A"), "Annual report by A");
        let mut json = serde_json::json!({"recipients": [{"name": "Ann Lee", "email": "ann@example.com"}], "n": 1});
        assert!(scrubber.scrub_json(&mut json));
        assert_eq!(
            json,
            serde_json::json!({"recipients": [{"name": "[erased]", "email": "[erased]"}], "n": 1})
        );
    }
}
