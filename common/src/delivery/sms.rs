//! What dispatching an outbox SMS decides: whether to send it at all and with which text, what
//! the provider's answer came to, what its delivery reports mean, and the signed URL those
//! reports are posted to. A 429, a 5xx or a network failure is retried per
//! `SMS_RETRY_SCHEDULE`; any other 4xx will not change by trying again and fails for good.

use chrono::{DateTime, Utc};

use crate::{
    Error,
    delivery::{
        retry::SendFailure,
        sms_text::{self, SmsText},
    },
    infra::secrets,
    model::{DocumentStatus, SmsId, SmsKind, SmsStatus, reader_language},
    store::sms::{OutgoingSms, Report},
};

impl OutgoingSms {
    /// The language the text is written in: its reader's ([`reader_language`]), as an
    /// e-mail's.
    pub fn language(&self, default: signet_i18n::Language) -> signet_i18n::Language {
        reader_language(self.recipient_language, self.document_language, default)
    }
}

/// What to do with a locked outbox row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    /// Its outcome is written already: nothing to do.
    Done,
    /// An invitation whose document has left SENT, or is past its expiry before the sweep has
    /// run: its link would not work, so it is withdrawn unsent.
    Withdraw,
    Send(SmsText),
}

/// Decides what to do with `sms` at `now`; `public_url` is where signing links point, and
/// `default_language` the operator's `DEFAULT_LANGUAGE` (the text's language when neither the
/// recipient nor the document has one).
pub fn dispatch(
    sms: &OutgoingSms,
    public_url: &str,
    default_language: signet_i18n::Language,
    now: DateTime<Utc>,
) -> Dispatch {
    if sms.status != SmsStatus::Pending {
        return Dispatch::Done;
    }
    let language = sms.language(default_language);
    let sender = &sms.sender_name;
    let title = &sms.document_title;
    match sms.kind {
        SmsKind::Invitation => {
            let closed = sms.document_status != DocumentStatus::Sent
                || sms.expiry_date.is_some_and(|expiry| expiry <= now);
            match (&sms.link_token, closed) {
                (Some(token), false) => Dispatch::Send(sms_text::invitation(
                    language,
                    sender,
                    title,
                    &format!("{public_url}/sign/{}", token.reveal()),
                )),
                // A PENDING invitation always carries its token; without one it has no link.
                _ => Dispatch::Withdraw,
            }
        }
        // Asked for a moment ago, on whatever the document's state: the code only opens the
        // link, which then shows that state.
        SmsKind::Code => match &sms.link_token {
            Some(code) => Dispatch::Send(sms_text::code(language, sender, code.reveal())),
            None => Dispatch::Withdraw,
        },
        SmsKind::Declined => Dispatch::Send(sms_text::declined(language, sender, title)),
        SmsKind::Expired => Dispatch::Send(sms_text::expired(language, sender, title)),
    }
}

/// The longest provider answer kept as a failure reason.
const MAX_ERROR_CHARS: usize = 300;

/// What a Twilio-compatible provider's answer to `POST …/Messages.json` came to: the
/// provider's message id (`sid`) on a 2xx; a failure otherwise, permanent unless it is a 429
/// or a 5xx (or a 408). The reason quotes the provider's `code` and `message` when it gives
/// them.
pub fn provider_answer(status: u16, body: &str) -> Result<Option<String>, SendFailure> {
    let json: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get(name))
            .and_then(|v| match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
    };
    if (200..300).contains(&status) {
        return Ok(field("sid"));
    }
    let detail = match (field("code"), field("message")) {
        (Some(code), Some(message)) => format!("{code} {message}"),
        (None, Some(message)) => message,
        _ => body.trim().to_owned(),
    };
    let mut message = format!("the SMS provider answered HTTP {status}");
    if !detail.is_empty() {
        message.push_str(": ");
        message.push_str(&detail);
    }
    Err(SendFailure {
        message: message.chars().take(MAX_ERROR_CHARS).collect(),
        permanent: !(status == 429 || status == 408 || status >= 500),
    })
}

/// The most digits an `ErrorCode` of a delivery report may have (Twilio's have five).
const MAX_ERROR_CODE_DIGITS: usize = 10;
/// The longest provider message id (`MessageSid`) a delivery report may name (Twilio's have 34
/// characters).
const MAX_MESSAGE_SID_CHARS: usize = 64;

/// Reads a delivery report as Twilio posts it (`MessageStatus`, `ErrorCode`): `None` for the
/// intermediate states (queued, sending, sent, …), which change nothing. The reason recorded
/// (in the row and the audit trail) holds only the status's own name and an error code of
/// digits; any other `ErrorCode` is recorded as an unknown one, never as given.
pub fn report(message_status: &str, error_code: Option<&str>) -> Option<Report> {
    let status = match message_status.to_ascii_lowercase().as_str() {
        "delivered" | "read" => return Some(Report::Delivered),
        "undelivered" => "undelivered",
        "failed" => "failed",
        _ => return None,
    };
    let error = match error_code.map(str::trim).filter(|c| !c.is_empty()) {
        None => format!("the provider reported it {status}"),
        Some(code)
            if code.len() <= MAX_ERROR_CODE_DIGITS && code.bytes().all(|b| b.is_ascii_digit()) =>
        {
            format!("the provider reported it {status} (error {code})")
        }
        Some(_) => format!("the provider reported it {status} (an unknown error code)"),
    };
    Some(Report::Undelivered { error })
}

/// The provider's id for the message (`MessageSid`) as a delivery report gives it: at most 64
/// visible ASCII characters, else the report is refused (a `400`, which the provider does not
/// retry) rather than compared with the stored id.
pub fn message_sid(given: Option<&str>) -> Result<Option<&str>, Error> {
    match given {
        Some(sid)
            if sid.len() > MAX_MESSAGE_SID_CHARS || !sid.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            Err(Error::invalid(
                "MessageSid",
                format!("must be at most {MAX_MESSAGE_SID_CHARS} visible ASCII characters"),
            ))
        }
        sid => Ok(sid),
    }
}

/// The signed URL a provider posts an SMS's delivery reports to, and its check. The signature
/// covers the row's id, so a report can only change the row it was issued for.
#[derive(Clone)]
pub struct StatusCallbacks {
    public_url: String,
    secret: Vec<u8>,
}

impl StatusCallbacks {
    pub fn new(public_url: &str, secret: &[u8]) -> Self {
        Self {
            public_url: public_url.trim_end_matches('/').to_owned(),
            secret: secret.to_vec(),
        }
    }

    fn message(sms_id: SmsId) -> String {
        format!("sms-status:{sms_id}")
    }

    pub fn url(&self, sms_id: SmsId) -> String {
        let sig = hex::encode(secrets::hmac_sha256(
            &self.secret,
            Self::message(sms_id).as_bytes(),
        ));
        format!("{}/sms/status/{sms_id}?sig={sig}", self.public_url)
    }

    pub fn verify(&self, sms_id: SmsId, sig: &str) -> bool {
        hex::decode(sig).is_ok_and(|tag| {
            secrets::hmac_sha256_verify(&self.secret, Self::message(sms_id).as_bytes(), &tag)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        infra::secrets::SigningToken,
        model::{AccountId, DocumentId, RecipientId, StoredLanguage},
    };
    use signet_i18n::Language;

    fn now() -> DateTime<Utc> {
        "2025-01-02T03:04:05Z".parse().expect("a timestamp")
    }

    fn sms(kind: SmsKind) -> OutgoingSms {
        OutgoingSms {
            id: SmsId::new(),
            account_id: AccountId::new(),
            document_id: DocumentId::new(),
            recipient_id: RecipientId::new(),
            kind,
            to_e164: "+447700900123".to_owned(),
            link_token: Some(SigningToken::from_link("token".to_owned())),
            status: SmsStatus::Pending,
            attempts: 0,
            document_title: "Lease".to_owned(),
            document_status: DocumentStatus::Sent,
            expiry_date: None,
            sender_name: "Acme".to_owned(),
            recipient_language: StoredLanguage::default(),
            document_language: StoredLanguage::default(),
            trace_context: None,
        }
    }

    #[test]
    fn an_invitation_carries_the_signing_link_until_the_document_closes() {
        let Dispatch::Send(text) = dispatch(
            &sms(SmsKind::Invitation),
            "https://s.test",
            Language::English,
            now(),
        ) else {
            panic!("sent")
        };
        assert!(
            text.body.ends_with("https://s.test/sign/token"),
            "{}",
            text.body
        );
        for status in [DocumentStatus::Cancelled, DocumentStatus::Declined] {
            let closed = OutgoingSms {
                document_status: status,
                ..sms(SmsKind::Invitation)
            };
            assert_eq!(
                dispatch(&closed, "https://s.test", Language::English, now()),
                Dispatch::Withdraw
            );
        }
        let due = OutgoingSms {
            expiry_date: Some(now()),
            ..sms(SmsKind::Invitation)
        };
        assert_eq!(
            dispatch(&due, "https://s.test", Language::English, now()),
            Dispatch::Withdraw
        );
        let sent = OutgoingSms {
            status: SmsStatus::Sent,
            ..sms(SmsKind::Invitation)
        };
        assert_eq!(
            dispatch(&sent, "https://s.test", Language::English, now()),
            Dispatch::Done
        );
    }

    #[test]
    fn a_text_is_in_its_readers_language_else_the_documents_else_the_default() {
        let body = |recipient: Option<&str>, document: Option<&str>, default| {
            let sms = OutgoingSms {
                recipient_language: recipient.map(str::to_owned).into(),
                document_language: document.map(str::to_owned).into(),
                ..sms(SmsKind::Declined)
            };
            match dispatch(&sms, "https://s.test", default, now()) {
                Dispatch::Send(text) => text.body,
                other => panic!("{other:?}"),
            }
        };
        assert!(body(None, None, Language::English).starts_with("\"Lease\" from Acme was"));
        assert!(body(None, None, Language::Italian).starts_with("\"Lease\" di Acme è stato"));
        assert!(body(None, Some("ru"), Language::Italian).starts_with("В подписании «Lease»"));
        assert!(body(Some("pl"), Some("ru"), Language::Italian).starts_with("Dokument \"Lease\""));
    }

    #[test]
    fn notices_go_out_after_the_document_closed_and_carry_no_link() {
        for kind in [SmsKind::Declined, SmsKind::Expired] {
            let notice = OutgoingSms {
                document_status: DocumentStatus::Declined,
                link_token: None,
                ..sms(kind)
            };
            let Dispatch::Send(text) =
                dispatch(&notice, "https://s.test", Language::English, now())
            else {
                panic!("sent")
            };
            assert!(!text.body.contains("https://"), "{}", text.body);
        }
    }

    #[test]
    fn provider_answers_are_sorted_into_retry_and_give_up() {
        assert_eq!(
            provider_answer(201, r#"{"sid": "SM123", "status": "queued"}"#),
            Ok(Some("SM123".to_owned()))
        );
        let busy =
            provider_answer(429, r#"{"code": 20429, "message": "Too Many Requests"}"#).unwrap_err();
        assert!(!busy.permanent);
        assert_eq!(
            busy.message,
            "the SMS provider answered HTTP 429: 20429 Too Many Requests"
        );
        assert!(!provider_answer(503, "").unwrap_err().permanent);
        let refused = provider_answer(
            400,
            r#"{"code": 21211, "message": "The 'To' number is not a valid phone number."}"#,
        )
        .unwrap_err();
        assert!(refused.permanent);
        assert!(refused.message.contains("21211"), "{}", refused.message);
        assert!(
            provider_answer(401, "<html>nope</html>")
                .unwrap_err()
                .permanent
        );
    }

    #[test]
    fn only_final_reports_change_a_row() {
        assert_eq!(report("delivered", None), Some(Report::Delivered));
        assert_eq!(
            report("undelivered", Some("30003")),
            Some(Report::Undelivered {
                error: "the provider reported it undelivered (error 30003)".to_owned()
            })
        );
        for passing in ["queued", "sending", "sent", "accepted"] {
            assert_eq!(report(passing, None), None);
        }
    }

    #[test]
    fn a_report_records_nothing_it_was_not_meant_to_say() {
        let undelivered = |code| match report("UNDELIVERED", Some(code)) {
            Some(Report::Undelivered { error }) => error,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            undelivered("30003"),
            "the provider reported it undelivered (error 30003)"
        );
        for odd in [
            "30\u{0}03",
            "<script>",
            "12345678901",
            "-1",
            "30003 then some words",
        ] {
            assert_eq!(
                undelivered(odd),
                "the provider reported it undelivered (an unknown error code)",
                "{odd:?}"
            );
        }
        assert_eq!(message_sid(Some("SM0123abcd")).unwrap(), Some("SM0123abcd"));
        assert_eq!(message_sid(None).unwrap(), None);
        for odd in ["SM\u{0}1", "SM 1", &"S".repeat(65)] {
            assert!(message_sid(Some(odd)).is_err(), "{odd:?}");
        }
    }

    #[test]
    fn callback_urls_are_signed_for_one_row() {
        let callbacks =
            StatusCallbacks::new("https://s.test/", b"0123456789abcdef0123456789abcdef");
        let id = SmsId::new();
        let url = callbacks.url(id);
        let sig = url.split("sig=").nth(1).unwrap();
        assert!(url.starts_with(&format!("https://s.test/sms/status/{id}?sig=")));
        assert!(callbacks.verify(id, sig));
        assert!(!callbacks.verify(SmsId::new(), sig));
        assert!(!callbacks.verify(id, "00"));
        assert!(!callbacks.verify(id, "not hex"));
    }
}
