//! E-mail: rendering each kind of outbox row (text and HTML parts) and sending it over SMTP
//! with lettre, or writing `.eml` files when no SMTP server is configured.

use lettre::{
    AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
    message::{Mailbox, MultiPart},
};
use signet_common::{
    Config,
    model::{EmailAddress, EmailKind, RecipientRole},
    store::emails::OutgoingEmail,
};
use signet_i18n::Language;

pub use crate::smtp::SendError;

pub enum Mailer {
    /// `smtp://` (plain or STARTTLS): connections of our own with Nagle off (see `smtp`).
    Pooled(crate::smtp::SmtpPool),
    /// `smtps://` (implicit TLS): lettre's transport and pool.
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Files(AsyncFileTransport<Tokio1Executor>),
}

impl Mailer {
    /// `SMTP_URL` as lettre reads it: `smtp://host:port` (plain), `smtp://host?tls=required`
    /// (STARTTLS), `smtps://host` (TLS), with `user:password@` for credentials. Unset: `.eml`
    /// files under `MAIL_DIR`.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        match &config.mail.smtp_url {
            Some(url) => match crate::smtp::SmtpPool::from_url(url)? {
                Some(pool) => Ok(Self::Pooled(pool)),
                None => AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map(|builder| Self::Smtp(builder.build()))
                    .map_err(|e| e.to_string()),
            },
            None => {
                std::fs::create_dir_all(&config.mail.dir)
                    .map_err(|e| format!("MAIL_DIR {}: {e}", config.mail.dir.display()))?;
                Ok(Self::Files(AsyncFileTransport::new(&config.mail.dir)))
            }
        }
    }

    #[tracing::instrument(name = "smtp.send", skip_all, fields(transport = self.kind()))]
    pub async fn send(&self, message: Message) -> Result<(), SendError> {
        match self {
            Self::Pooled(pool) => pool.send(message.envelope(), &message.formatted()).await,
            Self::Smtp(transport) => transport
                .send(message)
                .await
                .map(drop)
                .map_err(SendError::from),
            Self::Files(transport) => {
                transport
                    .send(message)
                    .await
                    .map(drop)
                    .map_err(|e| SendError {
                        permanent: false,
                        message: e.to_string(),
                    })
            }
        }
    }
}

impl Mailer {
    fn kind(&self) -> &'static str {
        match self {
            Self::Pooled(_) | Self::Smtp(_) => "smtp",
            Self::Files(_) => "file",
        }
    }
}

/// The parts of an e-mail, before addressing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// Builds the message of an outbox row, in the recipient's language (else the document's, else
/// `DEFAULT_LANGUAGE`). `link` is the signing link for invitations and the download link of the
/// final PDF for completion notices.
pub fn message(
    config: &Config,
    email: &OutgoingEmail,
    link: Option<&str>,
) -> Result<Message, String> {
    let rendered = render(email, link, email.language(config.signing.default_language));
    // Built from its parts, never formatted and parsed back: lettre encodes any name (commas,
    // quotes, brackets, `@`, any script) as a quoted string or RFC 2047 encoded word.
    let address = EmailAddress::parse(&email.recipient_email)
        .map_err(|reason| format!("recipient address: {reason}"))?;
    let name = email.recipient_name.trim();
    let to = Mailbox::new((!name.is_empty()).then(|| name.to_owned()), address.into());
    Message::builder()
        .from(
            config
                .mail
                .from
                .parse()
                .map_err(|e| format!("MAIL_FROM: {e}"))?,
        )
        .to(to)
        .subject(rendered.subject)
        .message_id(Some(email.message_id.clone()))
        .multipart(MultiPart::alternative_plain_html(
            rendered.text,
            rendered.html,
        ))
        .map_err(|e| e.to_string())
}

/// One paragraph of an e-mail, as plain text and as HTML (the `<p>`'s content).
struct Paragraph {
    text: String,
    html: String,
    /// The sender's own words: the HTML paragraph takes its direction from them.
    own: bool,
}

/// The subject and parts of an outbox row in `language`: every sentence is a message of
/// `i18n/locales/<tag>/email.ftl`; the sender's own message and description are kept as given.
/// Every value placed in a sentence (names, titles, addresses, reasons, times) is isolated so
/// that it cannot reorder the sentence: in the text part and the subject by Unicode isolates
/// where it could ([`Language::format_text`]), in the HTML part in a `<bdi>`
/// ([`Language::format_html`]).
pub fn render(email: &OutgoingEmail, link: Option<&str>, language: Language) -> Rendered {
    let title = email.document_title.as_str();
    let sender = email.sender_name.as_str();
    let say = |id: &str, args: &[(&'static str, &str)]| Paragraph {
        text: language.format_text(id, args),
        html: language.format_html(id, args),
        own: false,
    };
    // The sender's message and description are paragraphs of their own, in their own
    // direction: a line of plain text is a bidi paragraph already, an HTML one gets `dir=auto`.
    let own = |words: &str| Paragraph {
        text: words.to_owned(),
        html: escape(words),
        own: true,
    };
    let blank = || Paragraph {
        text: String::new(),
        html: String::new(),
        own: false,
    };
    let mut paragraphs: Vec<Paragraph> = vec![
        say("email-greeting", &[("name", email.recipient_name.as_str())]),
        blank(),
    ];
    let subject;
    let mut action = None;
    match email.kind {
        EmailKind::Invitation => {
            let verb = match email.recipient_role {
                RecipientRole::Signer => "sign",
                RecipientRole::Viewer => "view",
            };
            let about = [("sender", sender), ("title", title)];
            subject = language.format_text(&format!("email-invitation-subject-{verb}"), &about);
            paragraphs.push(say(&format!("email-invitation-body-{verb}"), &about));
            if let Some(message) = email.send_message.as_deref().filter(|m| !m.is_empty()) {
                paragraphs.extend([blank(), own(message)]);
            }
            if let Some(description) = email.send_description.as_deref().filter(|d| !d.is_empty()) {
                paragraphs.extend([blank(), own(description)]);
            }
            if let Some(expiry) = email.expiry_date {
                let expiry = language.time(expiry);
                paragraphs.extend([
                    blank(),
                    say("email-link-expires", &[("expiry", expiry.as_str())]),
                ]);
            }
            action = link.map(|l| (format!("email-invitation-action-{verb}"), l.to_owned()));
        }
        EmailKind::Completed => {
            subject = language.format_text("email-completed-subject", &[("title", title)]);
            paragraphs.push(say("email-completed-body", &[("title", title)]));
            action = link.map(|l| ("email-completed-action".to_owned(), l.to_owned()));
        }
        EmailKind::Declined => {
            subject = language.format_text("email-declined-subject", &[("title", title)]);
            let someone = language.text("email-declined-someone");
            let who = email.declined_by.as_deref().unwrap_or(&someone);
            paragraphs.push(say(
                "email-declined-body",
                &[("who", who), ("title", title)],
            ));
            if let Some(reason) = email.decline_reason.as_deref() {
                paragraphs.extend([blank(), say("email-declined-reason", &[("reason", reason)])]);
            }
        }
        EmailKind::Expired => {
            subject = language.format_text("email-expired-subject", &[("title", title)]);
            paragraphs.push(say("email-expired-body", &[("title", title)]));
        }
        EmailKind::Cancelled => {
            subject = language.format_text("email-cancelled-subject", &[("title", title)]);
            paragraphs.push(say(
                "email-cancelled-body",
                &[("sender", sender), ("title", title)],
            ));
            if let Some(reason) = email.cancel_reason.as_deref() {
                paragraphs.extend([
                    blank(),
                    say("email-cancelled-reason", &[("reason", reason)]),
                ]);
            }
        }
        // Nothing of the document but who sent it: the code opens it.
        EmailKind::Code => {
            let code = email.link_token.as_ref().map_or("", |c| c.reveal());
            let minutes = signet_common::flows::signer_auth::CODE_VALID_MINUTES.to_string();
            subject = language.format_text("email-code-subject", &[("code", code)]);
            paragraphs.extend([
                say("email-code-body", &[("sender", sender)]),
                blank(),
                say("email-code-line", &[("code", code)]),
                blank(),
                say("email-code-expires", &[("minutes", minutes.as_str())]),
                say("email-code-ignore", &[]),
            ]);
        }
        EmailKind::Reminder => {
            let about = [("sender", sender), ("title", title)];
            subject = language.format_text("email-reminder-subject", &about);
            paragraphs.push(say("email-reminder-body", &about));
            if let Some(expiry) = email.expiry_date {
                let expiry = language.time(expiry);
                paragraphs.extend([
                    blank(),
                    say("email-link-expires", &[("expiry", expiry.as_str())]),
                ]);
            }
            action = link.map(|l| ("email-invitation-action-sign".to_owned(), l.to_owned()));
        }
    }
    let mut text = paragraphs
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut html: String = paragraphs
        .iter()
        .map(|p| match (p.html.is_empty(), p.own) {
            (true, _) => String::new(),
            (false, true) => format!("<p dir=\"auto\">{}</p>", p.html),
            (false, false) => format!("<p>{}</p>", p.html),
        })
        .collect();
    if let Some((label, url)) = &action {
        let label = language.text(label);
        text.push_str(&format!("\n\n{label}:\n{url}\n"));
        html.push_str(&format!(
            "<p><a href=\"{}\" style=\"display:inline-block;padding:10px 16px;background:#1f4fd1;color:#fff;text-decoration:none;border-radius:4px\">{}</a></p><p style=\"color:#666;font-size:12px\">{}</p>",
            escape(url),
            escape(&label),
            language.format_html("email-paste-link", &[("url", url.as_str())])
        ));
    }
    let code = say(
        "email-document-code",
        &[("code", email.document_code.as_str())],
    );
    let sent_by = say("email-sent-by", &[("sender", sender)]);
    text.push_str(&format!("\n\n{}\n-- \n{}\n", code.text, sent_by.text));
    html.push_str(&format!(
        "<p style=\"color:#666;font-size:12px\">{}<br>{}</p>",
        code.html, sent_by.html
    ));
    Rendered {
        subject,
        text,
        html: format!(
            "<!doctype html><html lang=\"{tag}\" dir=\"{dir}\"><body dir=\"{dir}\" style=\"font-family:sans-serif\">{html}</body></html>",
            tag = language.tag(),
            dir = language.direction(),
        ),
    }
}

fn escape(s: &str) -> String {
    signet_i18n::bidi::escape_html(s)
}

#[cfg(test)]
mod tests {
    use signet_common::{
        infra::secrets::SigningToken,
        model::{
            AccountId, DeliveryStatus, DocumentId, DocumentStatus, EmailId, RecipientId,
            RecipientStatus, StoredLanguage,
        },
    };

    use super::*;

    fn invitation(title: &str, name: &str) -> OutgoingEmail {
        OutgoingEmail {
            id: EmailId::new(),
            recipient_id: RecipientId::new(),
            account_id: AccountId::new(),
            document_id: DocumentId::new(),
            kind: EmailKind::Invitation,
            message_id: "<id@signet.test>".to_owned(),
            link_token: Some(SigningToken::from_link("token".to_owned())),
            status: DeliveryStatus::Pending,
            attempts: 0,
            recipient_name: name.to_owned(),
            recipient_email: "ann@signet.test".to_owned(),
            recipient_role: RecipientRole::Signer,
            recipient_status: RecipientStatus::Pending,
            document_title: title.to_owned(),
            document_code: "ABC".to_owned(),
            document_status: DocumentStatus::Sent,
            send_message: Some("Pay <now>\u{202E}!".to_owned()),
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
    fn values_that_could_reorder_a_sentence_are_isolated_in_both_parts() {
        let email = invitation("Lease \u{202E}fdp.exe", "Mallory \u{2069}\u{202E}x");
        let rendered = render(
            &email,
            Some("https://signet.test/sign/t"),
            Language::English,
        );
        assert_eq!(
            rendered.subject,
            "Acme sent you \"\u{2068}Lease \u{202E}fdp.exe\u{2069}\" to sign"
        );
        assert!(
            rendered
                .text
                .contains("Acme has sent you \"\u{2068}Lease \u{202E}fdp.exe\u{2069}\" to sign."),
            "{}",
            rendered.text
        );
        // The stray PDI that would have closed the isolate early is left out.
        assert!(
            rendered
                .text
                .starts_with("Hello \u{2068}Mallory \u{202E}x\u{2069},"),
            "{}",
            rendered.text
        );
        assert!(
            rendered.html.contains(
                "<bdi>Acme</bdi> has sent you &quot;<bdi>Lease \u{202E}fdp.exe</bdi>&quot; to sign."
            ),
            "{}",
            rendered.html
        );
        assert!(
            rendered
                .html
                .contains("<p dir=\"auto\">Pay &lt;now&gt;\u{202E}!</p>")
        );
        // Plain values are left as they are.
        let plain = render(&invitation("Lease", "Ann"), None, Language::English);
        assert_eq!(plain.subject, "Acme sent you \"Lease\" to sign");
        assert!(plain.text.starts_with("Hello Ann,"));
        assert!(plain.html.contains("<p>Hello <bdi>Ann</bdi>,</p>"));
    }
}
