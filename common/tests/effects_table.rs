//! docs/architecture.md's table of events and their effects is made from
//! `DocumentEvent::{audit_entry, emails, sms, webhook, queues_completion}`, for every variant,
//! so it cannot drift from the code. `UPDATE_DOCS=1 cargo test -p signet-common --test
//! effects_table` writes the table into the document after a change.

use std::collections::BTreeSet;

use chrono::Utc;
use signet_common::{
    effects::{DocumentEvent, DocumentEventKind},
    infra::secrets::SigningToken,
    model::{
        AccountId, AuditEntryId, AuthMethod, DocumentId, EmailKind, OptionalStatus, Recipient,
        RecipientId, RecipientRole, RecipientStatus, SmsKind, StoredLanguage,
    },
};
use strum::IntoEnumIterator;
use uuid::Uuid;

const START: &str = "<!-- events table: made by common/tests/effects_table.rs -->";
const END: &str = "<!-- end of events table -->";

fn recipient(
    email: &str,
    role: RecipientRole,
    status: RecipientStatus,
    invited: bool,
) -> Recipient {
    Recipient {
        id: RecipientId::new(),
        account_id: AccountId(Uuid::nil()),
        document_id: DocumentId(Uuid::nil()),
        name: email.into(),
        email: email.into(),
        role,
        country_code: Some("+44".into()),
        phone_number: Some("7911 123456".into()),
        phone_e164: Some("+447911123456".into()),
        status,
        color_code: "#000000".into(),
        position: 0,
        viewed_at: None,
        signed_at: None,
        declined_at: None,
        decline_reason: None,
        language: StoredLanguage::default(),
        signing_order: None,
        invited_at: invited.then(Utc::now),
        next_reminder_at: None,
        last_reminded_at: None,
        consented_at: None,
        consent_ip: None,
        consent_user_agent: None,
        consent_text: None,
        delivery_status: OptionalStatus::default(),
        sms_status: OptionalStatus::default(),
        sms_error: None,
        embedded: false,
        auth_method: OptionalStatus::default(),
        auth_failures: 0,
        auth_locked_at: None,
        auth_passed_at: None,
        delivery_error: None,
    }
}

/// Who a set of recipients is, in the words of the table: `subject` is the one the event
/// concerns (who signed, declined, was reminded).
fn who(ids: &BTreeSet<RecipientId>, people: &People, subject: RecipientId) -> String {
    let invited: BTreeSet<_> = people.invited().collect();
    let others: BTreeSet<_> = invited
        .iter()
        .copied()
        .filter(|&id| id != subject)
        .collect();
    let waiting: BTreeSet<_> = [people.bob.id].into();
    if *ids == invited {
        "each recipient invited".into()
    } else if *ids == others {
        "the other recipients invited".into()
    } else if *ids == waiting {
        "each signer still to sign".into()
    } else if *ids == [subject].into() {
        "the recipient".into()
    } else {
        panic!("no words for this set of recipients: {ids:?}; add them here")
    }
}

/// Ann (a signer who has signed, or the one who acts), Bob (a signer who opened it and has not
/// signed), Vic (a viewer), all invited; Zed (a signer of a later group, not invited yet).
struct People {
    ann: Recipient,
    bob: Recipient,
    vic: Recipient,
    zed: Recipient,
}

impl People {
    fn new() -> Self {
        use RecipientRole::*;
        use RecipientStatus::*;
        Self {
            ann: recipient("ann@example.com", Signer, Signed, true),
            bob: recipient("bob@example.com", Signer, Viewed, true),
            vic: recipient("vic@example.com", Viewer, Pending, true),
            zed: recipient("zed@example.com", Signer, Pending, false),
        }
    }

    fn all(&self) -> Vec<Recipient> {
        [&self.ann, &self.bob, &self.vic, &self.zed]
            .into_iter()
            .cloned()
            .collect()
    }

    fn invited(&self) -> impl Iterator<Item = RecipientId> {
        [self.ann.id, self.bob.id, self.vic.id].into_iter()
    }
}

fn row(
    kind: DocumentEventKind,
    event: &DocumentEvent,
    people: &People,
    subject: RecipientId,
) -> String {
    let name: &'static str = kind.into();
    let entry = event.audit_entry();
    let audit = format!(
        "`{}`{}",
        entry.event.as_str(),
        if entry.recipient_id.is_some() {
            ", with the recipient"
        } else {
            ""
        }
    );
    let emails: Vec<(EmailKind, RecipientId)> = event
        .emails()
        .iter()
        .map(|e| (e.kind, e.recipient_id))
        .collect();
    let texts: Vec<(SmsKind, RecipientId)> = event
        .sms()
        .iter()
        .map(|s| (s.kind, s.recipient_id))
        .collect();
    let describe = |sent: &[(&'static str, RecipientId)]| -> String {
        let kinds: BTreeSet<&str> = sent.iter().map(|(k, _)| *k).collect();
        let cells: Vec<String> = kinds
            .iter()
            .map(|kind| {
                let ids = sent
                    .iter()
                    .filter(|(k, _)| k == kind)
                    .map(|(_, id)| *id)
                    .collect();
                format!("`{kind}` to {}", who(&ids, people, subject))
            })
            .collect();
        if cells.is_empty() {
            "—".into()
        } else {
            cells.join("; ")
        }
    };
    let emails: Vec<_> = emails.into_iter().map(|(k, id)| (k.as_str(), id)).collect();
    let texts: Vec<_> = texts.into_iter().map(|(k, id)| (k.as_str(), id)).collect();
    let webhook = event.webhook().map_or("—".to_owned(), |w| format!("`{w}`"));
    let jobs = if event.queues_completion() {
        "`CheckCompletion`"
    } else {
        "—"
    };
    format!(
        "| `{name}` | {audit} | {} | {} | {webhook} | {jobs} |",
        describe(&emails),
        describe(&texts)
    )
}

fn table() -> String {
    let people = People::new();
    let everyone = people.all();
    let invitations: Vec<(RecipientId, SigningToken)> = people
        .invited()
        .map(|id| (id, SigningToken::from_link("token".to_owned())))
        .collect();
    let ann = people.ann.id;
    let samples: Vec<(DocumentEvent, RecipientId)> = vec![
        (DocumentEvent::Created, ann),
        (DocumentEvent::DraftChanged("Recipients added".into()), ann),
        (
            DocumentEvent::Sent {
                invitations: invitations.clone(),
                embedded: 0,
                waiting: 1,
            },
            ann,
        ),
        (
            DocumentEvent::GroupInvited {
                group: 2,
                invitations: invitations.clone(),
                emails: vec!["ann@example.com"],
            },
            ann,
        ),
        (
            DocumentEvent::Reminded {
                recipient: &people.ann,
                link_token: SigningToken::from_link("token".to_owned()),
            },
            ann,
        ),
        (DocumentEvent::Viewed(&people.ann), ann),
        (
            DocumentEvent::Signed {
                by: &people.ann,
                last: false,
            },
            ann,
        ),
        (
            DocumentEvent::Signed {
                by: &people.ann,
                last: true,
            },
            ann,
        ),
        (
            DocumentEvent::Declined {
                by: &people.ann,
                reason: Some("No"),
                recipients: &everyone,
            },
            ann,
        ),
        (
            DocumentEvent::Completed {
                entry: (AuditEntryId(Uuid::nil()), Utc::now()),
                recipients: &everyone,
            },
            ann,
        ),
        (
            DocumentEvent::Expired {
                recipients: &everyone,
            },
            ann,
        ),
        (
            DocumentEvent::Cancelled {
                reason: None,
                recipients: &everyone,
            },
            ann,
        ),
        (
            DocumentEvent::DeliveryFailed {
                recipient: (ann, "ann@example.com"),
                kind: EmailKind::Invitation,
                reason: "550 no such user",
            },
            ann,
        ),
        (
            DocumentEvent::SmsFailed {
                recipient_id: ann,
                to: "+447911123456",
                kind: SmsKind::Invitation,
                reason: "daily cap",
            },
            ann,
        ),
        (
            DocumentEvent::InvitationResent {
                recipient_id: ann,
                old_email: "ann@example.com",
                new_email: "ann@example.org",
            },
            ann,
        ),
        (
            DocumentEvent::CodeEmailed {
                recipient: &people.ann,
                code: SigningToken::from_link("123456".to_owned()),
            },
            ann,
        ),
        (
            DocumentEvent::CodeTexted {
                recipient: &people.ann,
                code: SigningToken::from_link("123456".to_owned()),
            },
            ann,
        ),
        (
            DocumentEvent::AuthPassed {
                recipient: &people.ann,
                method: AuthMethod::AccessCode,
            },
            ann,
        ),
        (
            DocumentEvent::AuthLocked {
                recipient: &people.ann,
                method: AuthMethod::EmailOtp,
                failures: 5,
            },
            ann,
        ),
        (
            DocumentEvent::AuthUnlocked {
                recipient: &people.ann,
            },
            ann,
        ),
        (
            DocumentEvent::FilesRemoved {
                retention_days: 30,
                sha256: "ab",
                final_sha256: Some("cd"),
            },
            ann,
        ),
        (DocumentEvent::PersonalDataErased { recipient_id: ann }, ann),
    ];
    let sampled: BTreeSet<&str> = samples
        .iter()
        .map(|(e, _)| DocumentEventKind::from(e).into())
        .collect();
    for kind in DocumentEventKind::iter() {
        let name: &str = kind.into();
        assert!(sampled.contains(name), "{name} has no sample here: add one");
    }
    let mut lines = vec![
        "| `DocumentEvent` | audit entry | e-mails | SMS (to recipients with a number) | webhook | job |".to_owned(),
        "|---|---|---|---|---|---|".to_owned(),
    ];
    for (event, subject) in &samples {
        let kind = DocumentEventKind::from(event);
        let mut line = row(kind, event, &people, *subject);
        if let DocumentEvent::Signed { last, .. } = event {
            let which = if *last {
                "the last signature"
            } else {
                "a signature before the last"
            };
            line = line.replacen("`Signed`", &format!("`Signed` ({which})"), 1);
        }
        lines.push(line);
    }
    lines.join("\n")
}

#[test]
fn the_architecture_documents_events_table_is_the_codes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = doc.split_once(START).expect("the table's start marker");
    let (_, after) = rest.split_once(END).expect("the table's end marker");
    let made = format!("{before}{START}\n{}\n{END}{after}", table());
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &made).unwrap();
    }
    assert!(
        doc == made,
        "docs/architecture.md's events table is not the code's; run with UPDATE_DOCS=1 to write it:\n{}",
        table()
    );
}
