//! What dispatching an outbox e-mail decides: whether to send it at all, with which link, and
//! what a send came to. A failed send is retried per `EMAIL_RETRY_SCHEDULE` until it is used
//! up; a permanent failure (an SMTP 5xx, a message that cannot be built) is not retried
//! ([`crate::delivery::retry::outcome`]).

use chrono::{DateTime, Utc};

use crate::{
    infra::files::FileLinks,
    model::{DeliveryStatus, DocumentStatus, EmailKind, RecipientStatus, reader_language},
    store::emails::OutgoingEmail,
};

impl OutgoingEmail {
    /// The language the e-mail is written in: its reader's ([`reader_language`]).
    pub fn language(&self, default: signet_i18n::Language) -> signet_i18n::Language {
        reader_language(self.recipient_language, self.document_language, default)
    }
}

/// What to do with a locked outbox row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    /// Its outcome is written already (sent, failed for good or withdrawn): nothing to do.
    Done,
    /// An invitation or reminder whose document has left SENT (cancelled, declined, expired),
    /// or is past its expiry before the sweep has run: its link would not work, so it is
    /// withdrawn unsent; so is a reminder to a signer who has signed since it was queued.
    Withdraw,
    /// Send it, with this link: the signing link of an invitation, the download link of the
    /// final PDF in a completion notice.
    Send { link: Option<String> },
}

/// Decides what to do with `email` at `now`. `public_url` is where signing links point;
/// `completion_links` signs the download links of completion notices.
pub fn dispatch(
    email: &OutgoingEmail,
    public_url: &str,
    completion_links: &FileLinks,
    now: DateTime<Utc>,
) -> Dispatch {
    if email.status != DeliveryStatus::Pending {
        return Dispatch::Done;
    }
    let withdrawn = email.document_status != DocumentStatus::Sent
        || email.expiry_date.is_some_and(|expiry| expiry <= now);
    if email.kind == EmailKind::Invitation && withdrawn {
        return Dispatch::Withdraw;
    }
    if email.kind == EmailKind::Reminder
        && (withdrawn
            || !matches!(
                email.recipient_status,
                RecipientStatus::Pending | RecipientStatus::Viewed
            ))
    {
        return Dispatch::Withdraw;
    }
    let link = match email.kind {
        EmailKind::Invitation | EmailKind::Reminder => email
            .link_token
            .as_ref()
            .map(|token| format!("{public_url}/sign/{}", token.reveal())),
        EmailKind::Completed => Some(completion_links.url(email.document_id, now)),
        _ => None,
    };
    Dispatch::Send { link }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{
        infra::secrets::SigningToken,
        model::{AccountId, DocumentId, EmailId, RecipientId, RecipientRole, StoredLanguage},
    };

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn links() -> FileLinks {
        FileLinks::new("https://signet.test", b"secret", secs(3600))
    }

    fn now() -> DateTime<Utc> {
        "2025-01-02T03:04:05Z".parse().expect("a timestamp")
    }

    fn email(kind: EmailKind) -> OutgoingEmail {
        OutgoingEmail {
            id: EmailId::new(),
            recipient_id: RecipientId::new(),
            account_id: AccountId::new(),
            document_id: DocumentId::new(),
            kind,
            message_id: "<id@signet.test>".to_owned(),
            link_token: Some(SigningToken::from_link("token".to_owned())),
            status: DeliveryStatus::Pending,
            attempts: 0,
            recipient_name: "Ann".to_owned(),
            recipient_email: "ann@signet.test".to_owned(),
            recipient_role: RecipientRole::Signer,
            recipient_status: RecipientStatus::Pending,
            document_title: "Lease".to_owned(),
            document_code: "ABC".to_owned(),
            document_status: DocumentStatus::Sent,
            send_message: None,
            send_description: None,
            expiry_date: None,
            sender_name: "Acme".to_owned(),
            declined_by: None,
            decline_reason: None,
            cancel_reason: None,
            recipient_language: StoredLanguage::default(),
            document_language: StoredLanguage::default(),
            trace_context: None,
        }
    }

    #[test]
    fn an_email_is_in_the_recipients_language_else_the_documents_else_the_default() {
        use signet_i18n::Language;
        let mut email = email(EmailKind::Invitation);
        assert_eq!(email.language(Language::French), Language::French);
        email.document_language = Some("zh-Hans".to_owned()).into();
        assert_eq!(
            email.language(Language::French),
            Language::ChineseSimplified
        );
        email.recipient_language = Some("ar".to_owned()).into();
        assert_eq!(email.language(Language::French), Language::Arabic);
        // A tag no longer spoken (a catalogue removed) falls through to the next.
        email.recipient_language = Some("tlh".to_owned()).into();
        assert_eq!(
            email.language(Language::French),
            Language::ChineseSimplified
        );
    }

    fn decide(email: &OutgoingEmail) -> Dispatch {
        dispatch(email, "https://signet.test", &links(), now())
    }

    #[test]
    fn only_pending_rows_are_dispatched() {
        for status in [
            DeliveryStatus::Sent,
            DeliveryStatus::Failed,
            DeliveryStatus::Withdrawn,
        ] {
            let email = OutgoingEmail {
                status,
                ..email(EmailKind::Invitation)
            };
            assert_eq!(decide(&email), Dispatch::Done);
        }
    }

    #[test]
    fn invitations_carry_the_signing_link() {
        assert_eq!(
            decide(&email(EmailKind::Invitation)),
            Dispatch::Send {
                link: Some("https://signet.test/sign/token".to_owned())
            }
        );
    }

    #[test]
    fn completion_notices_carry_a_download_link() {
        let email = email(EmailKind::Completed);
        let expected = links().url(email.document_id, now());
        assert_eq!(
            dispatch(
                &OutgoingEmail {
                    document_status: DocumentStatus::Completed,
                    ..email
                },
                "https://signet.test",
                &links(),
                now()
            ),
            Dispatch::Send {
                link: Some(expected)
            }
        );
    }

    #[test]
    fn other_notices_carry_no_link() {
        for kind in [
            EmailKind::Declined,
            EmailKind::Expired,
            EmailKind::Cancelled,
        ] {
            let email = OutgoingEmail {
                document_status: DocumentStatus::Declined,
                ..email(kind)
            };
            assert_eq!(decide(&email), Dispatch::Send { link: None });
        }
    }

    #[test]
    fn reminders_carry_their_link_unless_the_signer_acted_or_the_document_closed() {
        assert_eq!(
            decide(&email(EmailKind::Reminder)),
            Dispatch::Send {
                link: Some("https://signet.test/sign/token".to_owned())
            }
        );
        for status in [
            DocumentStatus::Completed,
            DocumentStatus::Cancelled,
            DocumentStatus::Declined,
            DocumentStatus::Expired,
        ] {
            let email = OutgoingEmail {
                document_status: status,
                ..email(EmailKind::Reminder)
            };
            assert_eq!(decide(&email), Dispatch::Withdraw, "{status}");
        }
        let signed = OutgoingEmail {
            recipient_status: RecipientStatus::Signed,
            ..email(EmailKind::Reminder)
        };
        assert_eq!(decide(&signed), Dispatch::Withdraw);
    }

    #[test]
    fn invitations_to_a_document_no_longer_open_are_withdrawn() {
        for status in [
            DocumentStatus::Cancelled,
            DocumentStatus::Declined,
            DocumentStatus::Expired,
        ] {
            let email = OutgoingEmail {
                document_status: status,
                ..email(EmailKind::Invitation)
            };
            assert_eq!(decide(&email), Dispatch::Withdraw);
        }
        let due = OutgoingEmail {
            expiry_date: Some(now()),
            ..email(EmailKind::Invitation)
        };
        assert_eq!(decide(&due), Dispatch::Withdraw);
        let later = OutgoingEmail {
            expiry_date: Some(now() + chrono::Duration::seconds(1)),
            ..email(EmailKind::Invitation)
        };
        assert!(matches!(decide(&later), Dispatch::Send { .. }));
    }
}
