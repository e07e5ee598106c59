//! Who is invited when: the signing order. Recipients with the same `signingOrder` form a
//! group and sign in parallel; a group is invited when every signer of the groups before it
//! has signed, and viewers are invited with their group. Without any order everyone is one
//! group, invited on send.

use sqlx::PgConnection;

use crate::{
    effects::{self, DocumentEvent, Subject},
    error::Result,
    infra::{notify::Notifier, secrets::SigningToken},
    model::{Actor, Document, Recipient, RecipientId, RecipientRole, RecipientStatus},
    store::recipients,
};

/// The recipients whose turn has come and who were not invited yet: those of every group up
/// to the first that still has a signer who has not signed (all of them, once every signer
/// has signed).
pub fn due(recipients: &[Recipient]) -> Vec<&Recipient> {
    let first_open_group = recipients
        .iter()
        .filter(|r| r.role == RecipientRole::Signer && r.status != RecipientStatus::Signed)
        .map(Recipient::group)
        .min();
    recipients
        .iter()
        .filter(|r| r.invited_at.is_none() && first_open_group.is_none_or(|g| r.group() <= g))
        .collect()
}

/// On the caller's transaction, which holds the document's lock: invites the recipients whose
/// turn has come (each gets a signing token, `invited_at` and their first reminder; an
/// embedded one `invited_at` alone) and
/// records the event: SENT on send, a group's invitation after a signature.
pub async fn invite_due(
    conn: &mut PgConnection,
    document: &Document,
    everyone: &[Recipient],
    actor: &Actor,
    notifier: &Notifier,
) -> Result<()> {
    let on_send = everyone.iter().all(|r| r.invited_at.is_none());
    let due = due(everyone);
    if due.is_empty() {
        return Ok(());
    }
    // An embedded recipient gets no link: they sign through the integrator's sessions.
    let embedded = due.iter().filter(|r| r.embedded).count();
    let (tokens, hashes): (Vec<_>, Vec<_>) = due
        .iter()
        .filter(|r| !r.embedded)
        .map(|r| {
            let token = SigningToken::generate();
            let hash = token.hash();
            ((r.id, token), (r.id, hash))
        })
        .unzip();
    recipients::set_signing_token_hashes(conn, &hashes).await?;
    let ids: Vec<RecipientId> = due.iter().map(|r| r.id).collect();
    recipients::mark_invited(conn, document.id, &ids).await?;
    let event = if on_send {
        DocumentEvent::Sent {
            waiting: everyone.len() - tokens.len() - embedded,
            embedded,
            invitations: tokens,
        }
    } else {
        DocumentEvent::GroupInvited {
            group: due.iter().map(|r| r.group()).max().unwrap_or(1),
            emails: due.iter().map(|r| r.email.as_str()).collect(),
            invitations: tokens,
        }
    };
    effects::record(conn, Subject::of(document), event, actor, notifier).await
}

#[cfg(test)]
mod tests {
    use chrono::Utc;

    use super::*;

    fn recipient(role: RecipientRole, order: Option<i32>) -> Recipient {
        Recipient {
            name: "R".into(),
            signing_order: order,
            ..Recipient::for_tests("r@x.test", role)
        }
    }

    fn ids(due: Vec<&Recipient>) -> Vec<RecipientId> {
        due.into_iter().map(|r| r.id).collect()
    }

    #[test]
    fn without_an_order_everyone_is_invited_at_once() {
        let all = [
            recipient(RecipientRole::Signer, None),
            recipient(RecipientRole::Signer, None),
            recipient(RecipientRole::Viewer, None),
        ];
        assert_eq!(due(&all).len(), 3);
    }

    #[test]
    fn groups_are_invited_when_every_earlier_signer_has_signed() {
        use RecipientRole::{Signer, Viewer};
        // Group 1: a viewer only, so group 2 opens with it; group 3 waits for both group-2
        // signers; absent counts as 1.
        let mut all = vec![
            recipient(Viewer, None),
            recipient(Signer, Some(2)),
            recipient(Signer, Some(2)),
            recipient(Viewer, Some(3)),
            recipient(Signer, Some(3)),
        ];
        assert_eq!(ids(due(&all)), vec![all[0].id, all[1].id, all[2].id]);
        for r in &mut all[..3] {
            r.invited_at = Some(Utc::now());
        }
        all[1].status = RecipientStatus::Signed;
        assert!(due(&all).is_empty(), "one group-2 signer is still to sign");
        all[2].status = RecipientStatus::Signed;
        assert_eq!(ids(due(&all)), vec![all[3].id, all[4].id]);
        for r in &mut all[3..] {
            r.invited_at = Some(Utc::now());
        }
        assert!(due(&all).is_empty(), "everyone was invited");
    }

    #[test]
    fn viewers_after_the_last_signer_are_invited_when_everyone_has_signed() {
        let mut all = vec![
            recipient(RecipientRole::Signer, Some(1)),
            recipient(RecipientRole::Viewer, Some(5)),
        ];
        assert_eq!(ids(due(&all)), vec![all[0].id]);
        all[0].invited_at = Some(Utc::now());
        all[0].status = RecipientStatus::Signed;
        assert_eq!(ids(due(&all)), vec![all[1].id]);
    }
}
