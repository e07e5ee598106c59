//! Text messages to recipients with a phone number (docs/sms.md): the provider, the sender,
//! retries and the daily caps.

use std::{path::PathBuf, time::Duration};

use serde::Deserialize;

use super::{
    de,
    vars::{ConfigError, Vars},
};

/// SMS: which provider, who sends, how failures are retried, and the daily caps.
#[derive(Clone, PartialEq, Eq)]
pub struct SmsConfig {
    pub provider: SmsProvider,
    /// SMS_FROM: the sender, a number in E.164 or an alphanumeric sender id where allowed.
    pub from: String,
    /// SMS_RETRY_SCHEDULE: seconds to wait after each failed attempt (429, 5xx, network).
    pub retry_schedule: Vec<Duration>,
    /// SMS_DAILY_CAP_PER_NUMBER: SMS one account may queue to one number per UTC day.
    pub daily_cap_per_number: i32,
    /// SMS_DAILY_CAP_PER_ACCOUNT: SMS one account may queue per UTC day.
    pub daily_cap_per_account: i32,
    /// SMS_PROVIDER_ALLOW_PRIVATE: let the provider URL resolve to an internal address (tests,
    /// a provider gateway on the operator's own network).
    pub allow_private: bool,
}

/// SMS_PROVIDER: where SMS go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmsProvider {
    /// `none`: no SMS are queued; phone numbers are only validated and stored.
    Off,
    /// `file` (the default): each SMS is written as a text file under SMS_DIR.
    Files { dir: PathBuf },
    /// `twilio`: Twilio's Messages API, or any provider that speaks it.
    Twilio(TwilioConfig),
}

/// Twilio-compatible provider settings. The credentials are read from the environment only
/// (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN) and checked by the worker, which alone needs them.
#[derive(Clone, PartialEq, Eq)]
pub struct TwilioConfig {
    /// SMS_TWILIO_BASE_URL, `https://api.twilio.com` by default; no trailing slash.
    pub base_url: String,
    pub account_sid: Option<String>,
    pub auth_token: Option<String>,
    /// SMS_STATUS_CALLBACKS: ask the provider to report delivery to a signed URL under
    /// PUBLIC_URL (on by default).
    pub status_callbacks: bool,
}

impl std::fmt::Debug for TwilioConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TwilioConfig")
            .field("base_url", &self.base_url)
            .field("account_sid", &self.account_sid)
            .field(
                "auth_token",
                &self.auth_token.as_ref().map(|_| "<redacted>"),
            )
            .field("status_callbacks", &self.status_callbacks)
            .finish()
    }
}

impl std::fmt::Debug for SmsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let provider = match &self.provider {
            SmsProvider::Off => "none".to_owned(),
            SmsProvider::Files { dir } => format!("file:{}", dir.display()),
            SmsProvider::Twilio(t) => format!("twilio:{}", t.base_url),
        };
        f.debug_struct("SmsConfig")
            .field("provider", &provider)
            .field("from", &self.from)
            .field("daily_cap_per_number", &self.daily_cap_per_number)
            .field("daily_cap_per_account", &self.daily_cap_per_account)
            .finish_non_exhaustive()
    }
}

impl SmsConfig {
    pub fn enabled(&self) -> bool {
        self.provider != SmsProvider::Off
    }

    pub(super) fn load(vars: &Vars) -> Result<Self, ConfigError> {
        let v: SmsVars = vars.load()?;
        let provider = match v.provider.to_ascii_lowercase().as_str() {
            "none" | "off" => SmsProvider::Off,
            "file" => SmsProvider::Files { dir: v.dir },
            "twilio" => SmsProvider::Twilio(TwilioConfig {
                base_url: v.twilio_base_url,
                account_sid: v.twilio_account_sid,
                auth_token: v.twilio_auth_token,
                // Only read (and checked) for this provider.
                status_callbacks: de::parse_bool(&v.status_callbacks)
                    .map_err(|reason| ConfigError::new("SMS_STATUS_CALLBACKS", reason))?,
            }),
            other => {
                return Err(ConfigError::new(
                    "SMS_PROVIDER",
                    format!("expected file, twilio or none, got {other:?}"),
                ));
            }
        };
        Ok(Self {
            provider,
            from: v.from,
            retry_schedule: v.retry_schedule,
            daily_cap_per_number: v.daily_cap_per_number,
            daily_cap_per_account: v.daily_cap_per_account,
            allow_private: v.allow_private,
        })
    }
}

#[derive(Deserialize)]
#[serde(default)]
struct SmsVars {
    #[serde(rename = "SMS_PROVIDER")]
    provider: String,
    #[serde(rename = "SMS_DIR")]
    dir: PathBuf,
    #[serde(rename = "SMS_TWILIO_BASE_URL", deserialize_with = "de::base_url")]
    twilio_base_url: String,
    #[serde(rename = "TWILIO_ACCOUNT_SID", deserialize_with = "de::some")]
    twilio_account_sid: Option<String>,
    #[serde(rename = "TWILIO_AUTH_TOKEN", deserialize_with = "de::some")]
    twilio_auth_token: Option<String>,
    #[serde(rename = "SMS_STATUS_CALLBACKS")]
    status_callbacks: String,
    #[serde(rename = "SMS_FROM")]
    from: String,
    #[serde(rename = "SMS_RETRY_SCHEDULE", deserialize_with = "de::retry_schedule")]
    retry_schedule: Vec<Duration>,
    #[serde(
        rename = "SMS_DAILY_CAP_PER_NUMBER",
        deserialize_with = "de::positive_i32"
    )]
    daily_cap_per_number: i32,
    #[serde(
        rename = "SMS_DAILY_CAP_PER_ACCOUNT",
        deserialize_with = "de::positive_i32"
    )]
    daily_cap_per_account: i32,
    #[serde(
        rename = "SMS_PROVIDER_ALLOW_PRIVATE",
        deserialize_with = "de::boolean"
    )]
    allow_private: bool,
}

impl Default for SmsVars {
    fn default() -> Self {
        Self {
            provider: "file".to_owned(),
            dir: PathBuf::from("./data/sms"),
            twilio_base_url: "https://api.twilio.com".to_owned(),
            twilio_account_sid: None,
            twilio_auth_token: None,
            status_callbacks: "true".to_owned(),
            from: "Signet".to_owned(),
            retry_schedule: [10, 60, 300, 1800].map(Duration::from_secs).to_vec(),
            daily_cap_per_number: 10,
            daily_cap_per_account: 1000,
            allow_private: false,
        }
    }
}
