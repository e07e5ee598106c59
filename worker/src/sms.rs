//! SMS transport: a Twilio-compatible Messages API (`SMS_PROVIDER=twilio`), or text files
//! under `SMS_DIR` (`file`, the default, so that a first run needs no account anywhere).
//! What an answer means is decided in `signet_common::delivery::sms`.

use std::path::PathBuf;

use reqwest::{Client, Url};
use signet_common::{
    Config, VERSION,
    delivery::{retry::SendFailure, sms as decide, sms_text::SmsText},
    infra::{
        config::{SmsProvider, TwilioConfig},
        ssrf,
    },
    model::SmsId,
};

use crate::webhook;

/// One SMS to send.
pub struct Outgoing<'a> {
    pub id: SmsId,
    pub to: &'a str,
    pub text: &'a SmsText,
    /// Where the provider should post delivery reports, if it should.
    pub status_callback: Option<String>,
}

pub enum SmsSender {
    Files { dir: PathBuf, from: String },
    Twilio(TwilioClient),
}

pub struct TwilioClient {
    client: Client,
    messages_url: Url,
    account_sid: String,
    auth_token: String,
    from: String,
    allow_internal: bool,
    pub status_callbacks: bool,
}

impl SmsSender {
    /// The configured sender; `None` when SMS are off. The provider URL passes the SSRF rules
    /// of webhook URLs (unless `SMS_PROVIDER_ALLOW_PRIVATE`), checked here and again, in the
    /// resolver, at every send.
    pub async fn from_config(config: &Config) -> Result<Option<Self>, String> {
        match &config.sms.provider {
            SmsProvider::Off => Ok(None),
            SmsProvider::Files { dir } => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("SMS_DIR {}: {e}", dir.display()))?;
                Ok(Some(Self::Files {
                    dir: dir.clone(),
                    from: config.sms.from.clone(),
                }))
            }
            SmsProvider::Twilio(twilio) => {
                TwilioClient::new(twilio, &config.sms.from, config.sms.allow_private)
                    .await
                    .map(|client| Some(Self::Twilio(client)))
            }
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Self::Files { .. } => "file",
            Self::Twilio(_) => "twilio",
        }
    }

    /// Whether delivery reports are asked for.
    pub fn wants_reports(&self) -> bool {
        matches!(self, Self::Twilio(client) if client.status_callbacks)
    }

    /// Hands one SMS over; the provider's id for it on success.
    #[tracing::instrument(name = "sms.send", skip_all, fields(sms.id = %sms.id, provider = self.kind(), sms.segments = sms.text.segments.count))]
    pub async fn send(&self, sms: Outgoing<'_>) -> Result<Option<String>, SendFailure> {
        match self {
            Self::Files { dir, from } => write_file(dir, from, &sms).await.map(|()| None),
            Self::Twilio(client) => client.send(&sms).await,
        }
    }
}

impl TwilioClient {
    async fn new(config: &TwilioConfig, from: &str, allow_internal: bool) -> Result<Self, String> {
        let missing = |name: &str| format!("{name} must be set for SMS_PROVIDER=twilio");
        let account_sid = config
            .account_sid
            .clone()
            .ok_or_else(|| missing("TWILIO_ACCOUNT_SID"))?;
        if !account_sid.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err("TWILIO_ACCOUNT_SID must be letters and digits only".into());
        }
        let auth_token = config
            .auth_token
            .clone()
            .ok_or_else(|| missing("TWILIO_AUTH_TOKEN"))?;
        let base = ssrf::check_url(&config.base_url, allow_internal)
            .await
            .map_err(|refusal| {
                format!("SMS_TWILIO_BASE_URL {}", private_hint(refusal.to_string()))
            })?;
        let mut base = base;
        if !base.path().ends_with('/') {
            // A provider under a path prefix: the Messages path goes below it, not in its place.
            base.set_path(&format!("{}/", base.path()));
        }
        let messages_url = base
            .join(&format!("2010-04-01/Accounts/{account_sid}/Messages.json"))
            .map_err(|e| format!("SMS_TWILIO_BASE_URL: {e}"))?;
        Ok(Self {
            client: webhook::guarded_client(allow_internal, &format!("Signet-SMS/{VERSION}")),
            messages_url,
            account_sid,
            auth_token,
            from: from.to_owned(),
            allow_internal,
            status_callbacks: config.status_callbacks,
        })
    }

    async fn send(&self, sms: &Outgoing<'_>) -> Result<Option<String>, SendFailure> {
        let transient = |message: String| SendFailure {
            message,
            permanent: false,
        };
        webhook::refuse_internal_literal(&self.messages_url, self.allow_internal)
            .map_err(|e| transient(private_hint(e)))?;
        let mut form = vec![
            ("To", sms.to.to_owned()),
            ("From", self.from.clone()),
            ("Body", sms.text.body.clone()),
        ];
        if let Some(callback) = &sms.status_callback {
            form.push(("StatusCallback", callback.clone()));
        }
        let response = self
            .client
            .post(self.messages_url.clone())
            .basic_auth(&self.account_sid, Some(&self.auth_token))
            .form(&form)
            .send()
            .await
            .map_err(|e| {
                transient(format!(
                    "the SMS provider could not be reached: {}",
                    webhook::describe(e)
                ))
            })?;
        let status = response.status().as_u16();
        let body = response.text().await.map_err(|e| {
            transient(format!(
                "the SMS provider's answer was cut off: {}",
                webhook::describe(e)
            ))
        })?;
        decide::provider_answer(status, &body)
    }
}

/// The SSRF refusal names the webhook setting; for the provider URL it is SMS_PROVIDER_ALLOW_PRIVATE.
fn private_hint(message: String) -> String {
    message.replace("WEBHOOK_ALLOW_PRIVATE", "SMS_PROVIDER_ALLOW_PRIVATE")
}

/// Writes `<SMS_DIR>/<id>.txt` (to a temporary name first, so that a reader never sees half a
/// message; a retried job writes the same file again).
async fn write_file(
    dir: &std::path::Path,
    from: &str,
    sms: &Outgoing<'_>,
) -> Result<(), SendFailure> {
    let segments = sms.text.segments;
    let content = format!(
        "To: {}\nFrom: {from}\nSegments: {} ({})\n\n{}\n",
        sms.to,
        segments.count,
        segments.encoding.as_str(),
        sms.text.body
    );
    let path = dir.join(format!("{}.txt", sms.id));
    let partial = dir.join(format!(".{}.txt.partial", sms.id));
    let written = async {
        tokio::fs::write(&partial, content).await?;
        tokio::fs::rename(&partial, &path).await
    }
    .await;
    written.map_err(|e| SendFailure {
        message: format!("could not write {}: {e}", path.display()),
        permanent: false,
    })
}
