//! Erasure on request (issue #37, GDPR Art. 17; docs/retention.md): one person's name, e-mail
//! address and phone number, what they chose (a decline reason) and the IP addresses and user
//! agents of what they did on their links are replaced by tombstones where the account's rows
//! hold them as theirs, and nothing of anyone else's (issue #48), in one transaction, with an
//! audit entry and a `document.personal_data_erased` event per document. The audit trail still verifies: its
//! entries of format 3 commit to a salted digest of their personal part, which the erasure
//! drops with the salt (`store::audit`).

use std::{
    borrow::Cow,
    collections::{HashMap, HashSet},
};

use chrono::Utc;
use sqlx::PgPool;

use crate::{
    Conflict,
    effects::{self, DocumentEvent, Subject},
    error::{Error, Problems, Result},
    infra::notify::Notifier,
    model::{AccountId, Actor, AuditEntry, DocumentId, DocumentStatus, Recipient, RecipientId},
    store::{
        audit::{self, Erased, TOMBSTONE},
        documents,
        erasure::{self, Person},
        recipients,
    },
    wire::{
        body::Parsed,
        retention::{ErasureInput, ErasureTarget, ErasureView, validate_erasure},
        views::Timestamp,
    },
};

mod scrub;

use scrub::{Identified, Identities, Kind};

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
    let trail = audit::list_many(&mut tx, account_id, &document_ids).await?;
    let everyone = recipients::list_many(&mut tx, &document_ids).await?;
    let identities = identities_by_document(&people, &everyone, &trail);

    // The audit trail: every entry loses the person's identifiers where they stand as theirs;
    // their own entries also lose what they chose (a decline reason, the consent's address and
    // user agent), and those recording what they did on their link its IP address and user
    // agent. No other entry is searched for a value the person chose.
    let mut erased = Vec::new();
    for entry in &trail {
        let Some(identities) = identities.get(&entry.document_id) else {
            continue;
        };
        let theirs = entry.recipient_id.is_some_and(|id| ours.contains(&id));
        let own_words = if theirs {
            effects::without_signer_choices(entry.event, &entry.message, TOMBSTONE)
        } else {
            Cow::Borrowed(entry.message.as_str())
        };
        let message = identities.scrub(&own_words).into_owned();
        let by_them = theirs && effects::done_on_the_link(entry.event, &entry.message);
        // The address the server records when it knows none names no one.
        let ip_address = if by_them && entry.ip_address != "0.0.0.0" {
            TOMBSTONE.to_owned()
        } else {
            entry.ip_address.clone()
        };
        let user_agent = if by_them {
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

    let events = erasure::event_payloads(&mut tx, account_id, &document_ids).await?;
    erasure::set_event_payloads(&mut tx, &scrub_payloads(&identities, events)).await?;
    let deliveries = erasure::delivery_payloads(&mut tx, account_id, &document_ids).await?;
    erasure::set_delivery_payloads(&mut tx, &scrub_payloads(&identities, deliveries)).await?;
    let rows: Vec<_> = erasure::bulk_rows(&mut tx, &document_ids)
        .await?
        .into_iter()
        .filter_map(|mut row| {
            let identities = identities.get(&row.document_id)?;
            let mut changed = identities.scrub_bulk_row(&mut row.input);
            if let Some(error) = &row.error
                && let Cow::Owned(scrubbed) = identities.scrub(error)
            {
                row.error = Some(scrubbed);
                changed = true;
            }
            changed.then_some(row)
        })
        .collect();
    erasure::set_bulk_rows(&mut tx, &rows).await?;
    let names: Vec<_> = erasure::attachment_names(&mut tx, &recipient_ids)
        .await?
        .into_iter()
        .filter_map(
            |(id, document_id, name)| match identities.get(&document_id)?.scrub(&name) {
                Cow::Owned(scrubbed) => Some((id, scrubbed)),
                Cow::Borrowed(_) => None,
            },
        )
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

/// Each of the person's documents' identities: the person's recipients of it (their name,
/// address, numbers, and any address one of their entries says theirs was corrected from) and
/// every other recipient's.
fn identities_by_document(
    people: &[Person],
    everyone: &[Recipient],
    trail: &[AuditEntry],
) -> HashMap<DocumentId, Identities> {
    let ours: HashSet<RecipientId> = people.iter().map(|p| p.id).collect();
    let mut former: HashMap<RecipientId, Vec<&str>> = HashMap::new();
    for entry in trail {
        if let Some(id) = entry.recipient_id.filter(|id| ours.contains(id))
            && let Some(old) = effects::corrected_address(entry.event, &entry.message)
        {
            former.entry(id).or_default().push(old);
        }
    }
    let mut others: HashMap<DocumentId, Vec<(Kind, &str)>> = HashMap::new();
    for r in everyone.iter().filter(|r| !ours.contains(&r.id)) {
        others.entry(r.document_id).or_default().extend(identifiers(
            &r.name,
            &r.email,
            [&r.phone_e164, &r.phone_number],
        ));
    }
    let mut theirs: HashMap<DocumentId, Vec<Identified<'_>>> = HashMap::new();
    for p in people {
        let mut values: Vec<(Kind, &str)> =
            identifiers(&p.name, &p.email, [&p.phone_e164, &p.phone_number]).collect();
        values.extend(
            former
                .get(&p.id)
                .into_iter()
                .flatten()
                .map(|old| (Kind::Address, *old)),
        );
        theirs
            .entry(p.document_id)
            .or_default()
            .push((p.id, values));
    }
    theirs
        .into_iter()
        .map(|(document_id, erased)| {
            let others = others.remove(&document_id).unwrap_or_default();
            (document_id, Identities::new(erased, others))
        })
        .collect()
}

fn identifiers<'a>(
    name: &'a str,
    email: &'a str,
    numbers: [&'a Option<String>; 2],
) -> impl Iterator<Item = (Kind, &'a str)> {
    [(Kind::Name, name), (Kind::Address, email)]
        .into_iter()
        .chain(
            numbers
                .into_iter()
                .flatten()
                .map(|n| (Kind::Phone, n.as_str())),
        )
}

/// The stored JSON bodies that name the person, with the person's values replaced.
fn scrub_payloads<Id>(
    identities: &HashMap<DocumentId, Identities>,
    payloads: Vec<(Id, DocumentId, String)>,
) -> Vec<(Id, String)> {
    payloads
        .into_iter()
        .filter_map(|(id, document_id, payload)| {
            let mut json: serde_json::Value = serde_json::from_str(&payload).ok()?;
            identities
                .get(&document_id)?
                .scrub_json(&mut json)
                .then(|| serde_json::to_string(&json).ok())?
                .map(|scrubbed| (id, scrubbed))
        })
        .collect()
}

fn nothing() -> ErasureView {
    ErasureView {
        recipient_ids: Vec::new(),
        document_ids: Vec::new(),
        erased_at: Timestamp(Utc::now()),
    }
}
