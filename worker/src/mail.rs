//! E-mail: rendering each kind of outbox row (text and HTML parts) and sending it over SMTP
//! with lettre, or writing `.eml` files when no SMTP server is configured.

use chrono::SecondsFormat;
use lettre::{
    AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor,
    message::{Mailbox, MultiPart},
};
use signet_common::{
    Config,
    model::{EmailKind, RecipientRole},
    store::emails::OutgoingEmail,
};
use signet_i18n::{FluentValue, Language};

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
        match &config.smtp_url {
            Some(url) => match crate::smtp::SmtpPool::from_url(url)? {
                Some(pool) => Ok(Self::Pooled(pool)),
                None => AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map(|builder| Self::Smtp(builder.build()))
                    .map_err(|e| e.to_string()),
            },
            None => {
                std::fs::create_dir_all(&config.mail_dir)
                    .map_err(|e| format!("MAIL_DIR {}: {e}", config.mail_dir.display()))?;
                Ok(Self::Files(AsyncFileTransport::new(&config.mail_dir)))
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

/// A failed send. A permanent one (an SMTP 5xx such as an unknown mailbox, or a message that
/// cannot be built) is not retried.
#[derive(Debug)]
pub struct SendError {
    pub message: String,
    pub permanent: bool,
}

impl SendError {
    /// A failure worth trying again (the server unreachable or slow).
    pub fn transient(message: String) -> Self {
        Self {
            message,
            permanent: false,
        }
    }
}

impl From<SendError> for signet_common::delivery::retry::SendFailure {
    fn from(e: SendError) -> Self {
        Self {
            message: e.message,
            permanent: e.permanent,
        }
    }
}

impl From<lettre::transport::smtp::Error> for SendError {
    fn from(e: lettre::transport::smtp::Error) -> Self {
        Self {
            permanent: e.is_permanent(),
            message: e.to_string(),
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
    let rendered = render(email, link, email.language(config.default_language));
    // Built from its parts, never formatted and parsed back: lettre encodes any name (commas,
    // quotes, brackets, `@`, any script) as a quoted string or RFC 2047 encoded word.
    let address = signet_common::wire::inputs::mail_address(&email.recipient_email)
        .map_err(|reason| format!("recipient address: {reason}"))?;
    let name = email.recipient_name.trim();
    let to = Mailbox::new((!name.is_empty()).then(|| name.to_owned()), address);
    Message::builder()
        .from(
            config
                .mail_from
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

/// The subject and parts of an outbox row in `language`: every sentence is a message of
/// `i18n/locales/<tag>/email.ftl`; the sender's own message and description are kept as given.
pub fn render(email: &OutgoingEmail, link: Option<&str>, language: Language) -> Rendered {
    let title = email.document_title.as_str();
    let sender = email.sender_name.as_str();
    // In right-to-left text each argument is isolated (U+2068 … U+2069, as `<bdi>` does), so
    // that a time, an address or a Latin title keeps its own order among Arabic words: without
    // it `2099-01-01T00:00:00Z` after Arabic reads as Arabic numbers and is reordered.
    let say = |id: &str, args: &[(&'static str, &str)]| {
        let args: Vec<(&'static str, FluentValue<'_>)> = args
            .iter()
            .map(|&(name, value)| {
                let value = if language.is_right_to_left() {
                    format!("\u{2068}{value}\u{2069}")
                } else {
                    value.to_owned()
                };
                (name, FluentValue::from(value))
            })
            .collect();
        language.format(id, &args)
    };
    let mut lines: Vec<String> = vec![
        say("email-greeting", &[("name", email.recipient_name.as_str())]),
        String::new(),
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
            subject = say(&format!("email-invitation-subject-{verb}"), &about);
            lines.push(say(&format!("email-invitation-body-{verb}"), &about));
            if let Some(message) = email.send_message.as_deref().filter(|m| !m.is_empty()) {
                lines.extend([String::new(), message.to_owned()]);
            }
            if let Some(description) = email.send_description.as_deref().filter(|d| !d.is_empty()) {
                lines.extend([String::new(), description.to_owned()]);
            }
            if let Some(expiry) = email.expiry_date {
                let expiry = expiry.to_rfc3339_opts(SecondsFormat::Secs, true);
                lines.extend([
                    String::new(),
                    say("email-link-expires", &[("expiry", expiry.as_str())]),
                ]);
            }
            action = link.map(|l| {
                (
                    say(&format!("email-invitation-action-{verb}"), &[]),
                    l.to_owned(),
                )
            });
        }
        EmailKind::Completed => {
            subject = say("email-completed-subject", &[("title", title)]);
            lines.push(say("email-completed-body", &[("title", title)]));
            action = link.map(|l| (say("email-completed-action", &[]), l.to_owned()));
        }
        EmailKind::Declined => {
            subject = say("email-declined-subject", &[("title", title)]);
            let someone = say("email-declined-someone", &[]);
            let who = email.declined_by.as_deref().unwrap_or(&someone);
            lines.push(say(
                "email-declined-body",
                &[("who", who), ("title", title)],
            ));
            if let Some(reason) = email.decline_reason.as_deref() {
                lines.extend([
                    String::new(),
                    say("email-declined-reason", &[("reason", reason)]),
                ]);
            }
        }
        EmailKind::Expired => {
            subject = say("email-expired-subject", &[("title", title)]);
            lines.push(say("email-expired-body", &[("title", title)]));
        }
        EmailKind::Cancelled => {
            subject = say("email-cancelled-subject", &[("title", title)]);
            lines.push(say(
                "email-cancelled-body",
                &[("sender", sender), ("title", title)],
            ));
            if let Some(reason) = email.cancel_reason.as_deref() {
                lines.extend([
                    String::new(),
                    say("email-cancelled-reason", &[("reason", reason)]),
                ]);
            }
        }
        EmailKind::Reminder => {
            let about = [("sender", sender), ("title", title)];
            subject = say("email-reminder-subject", &about);
            lines.push(say("email-reminder-body", &about));
            if let Some(expiry) = email.expiry_date {
                let expiry = expiry.to_rfc3339_opts(SecondsFormat::Secs, true);
                lines.extend([
                    String::new(),
                    say("email-link-expires", &[("expiry", expiry.as_str())]),
                ]);
            }
            action = link.map(|l| (say("email-invitation-action-sign", &[]), l.to_owned()));
        }
    }
    let mut text = lines.join("\n");
    let mut html: String = lines
        .iter()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("<p>{}</p>", escape(l))
            }
        })
        .collect();
    if let Some((label, url)) = &action {
        text.push_str(&format!("\n\n{label}:\n{url}\n"));
        html.push_str(&format!(
            "<p><a href=\"{}\" style=\"display:inline-block;padding:10px 16px;background:#1f4fd1;color:#fff;text-decoration:none;border-radius:4px\">{}</a></p><p style=\"color:#666;font-size:12px\">{}</p>",
            escape(url),
            escape(label),
            escape(&say("email-paste-link", &[("url", url.as_str())]))
        ));
    }
    let code = say(
        "email-document-code",
        &[("code", email.document_code.as_str())],
    );
    let sent_by = say("email-sent-by", &[("sender", sender)]);
    text.push_str(&format!("\n\n{code}\n-- \n{sent_by}\n"));
    html.push_str(&format!(
        "<p style=\"color:#666;font-size:12px\">{}<br>{}</p>",
        escape(&code),
        escape(&sent_by)
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
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
