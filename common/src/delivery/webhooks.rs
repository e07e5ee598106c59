//! Webhook attempts per the Standard Webhooks specification: the signature
//! `v1,<base64 HMAC-SHA256(secret, "{id}.{timestamp}.{body}")>`, and what one attempt comes
//! to. 2xx delivers; 410 Gone stops for good; any other status (redirects are not followed), a
//! timeout or a connection error schedules the next attempt per `WEBHOOK_RETRY_SCHEDULE` until
//! it is used up, then the delivery has FAILED.

use std::time::Duration;

use base64::Engine;
use chrono::{DateTime, Utc};

use crate::{
    delivery::retry::RetryPolicy, infra::secrets, model::WebhookDeliveryStatus,
    store::webhooks::AttemptRecord,
};

/// Bytes of a response body kept per attempt.
pub const MAX_LOGGED_BODY: usize = 4096;

/// The error of an attempt at a delivery whose account has since removed its webhook URL.
pub const NO_URL: &str = "the account has no webhook URL";

/// The signature header value for one attempt; `None` when the secret is not base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Option<String> {
    let key = base64::engine::general_purpose::STANDARD
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .ok()?;
    let tag = secrets::hmac_sha256(&key, format!("{id}.{timestamp}.{body}").as_bytes());
    Some(format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(tag)
    ))
}

/// A response as logged: its status and the first [`MAX_LOGGED_BODY`] bytes of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// One attempt as the transport made it.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// Counted from 1: the delivery row's `attempt` + 1.
    pub number: i32,
    /// Where it was posted; `None` when the account has no webhook URL (nothing was posted).
    pub url: Option<String>,
    pub started_at: DateTime<Utc>,
    pub duration: Duration,
    /// `Err`: no response (refused target, connection error, timeout, no URL), and why.
    pub result: Result<Response, String>,
}

/// What `attempt` came to, as the delivery row and its attempt log record it: delivered, failed
/// for good, or another attempt after the policy's next wait.
pub fn outcome(attempt: Attempt, retries: &RetryPolicy) -> AttemptRecord {
    let retry_in = retries.after_failed_attempt(attempt.number);
    let retry_or_fail = if retry_in.is_some() {
        WebhookDeliveryStatus::Pending
    } else {
        WebhookDeliveryStatus::Failed
    };
    let (outcome, response_status, response_body, error) = match attempt.result {
        Ok(response) if (200..300).contains(&response.status) => (
            WebhookDeliveryStatus::Delivered,
            Some(response.status),
            Some(response.body),
            None,
        ),
        Ok(response) if response.status == 410 => (
            WebhookDeliveryStatus::Failed,
            Some(410),
            Some(response.body),
            Some("the receiver answered 410 Gone: no further attempts".to_owned()),
        ),
        Ok(response) => (
            retry_or_fail,
            Some(response.status),
            Some(response.body),
            Some(format!("the receiver answered {}", response.status)),
        ),
        Err(error) => (retry_or_fail, None, None, Some(error)),
    };
    let retry_in = retry_in.filter(|_| outcome == WebhookDeliveryStatus::Pending);
    AttemptRecord {
        attempt: attempt.number,
        url: attempt.url.unwrap_or_default(),
        started_at: attempt.started_at,
        duration_ms: attempt.duration.as_millis().min(i32::MAX as u128) as i32,
        response_status: response_status.map(i32::from),
        response_body,
        error,
        outcome,
        next_attempt_at: retry_in
            .and_then(|delay| chrono::Duration::from_std(delay).ok())
            .map(|delay| attempt.started_at + delay),
        retry_in,
    }
}

/// The `outcome` label of `signet_webhook_attempts_total` for an attempt.
pub fn metric_label(record: &AttemptRecord) -> &'static str {
    match (record.outcome, record.response_status) {
        (WebhookDeliveryStatus::Delivered, _) => "delivered",
        (_, Some(_)) => "http_error",
        _ => "connection_error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    /// Three attempts in all: two waits.
    fn policy() -> RetryPolicy {
        RetryPolicy::new(vec![secs(5), secs(300)])
    }

    fn attempt(number: i32, result: Result<Response, String>) -> Attempt {
        Attempt {
            number,
            url: Some("https://receiver.test/hook".to_owned()),
            started_at: "2025-01-02T03:04:05Z".parse().expect("a timestamp"),
            duration: Duration::from_millis(42),
            result,
        }
    }

    fn answered(status: u16) -> Result<Response, String> {
        Ok(Response {
            status,
            body: format!("body {status}"),
        })
    }

    #[test]
    fn standard_webhooks_reference_vector() {
        assert_eq!(
            sign(
                "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
                "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
                1649367553,
                r#"{"email":"test@example.com","username":"test_user"}"#,
            )
            .as_deref(),
            Some("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=")
        );
    }

    #[test]
    fn a_secret_that_is_not_base64_signs_nothing() {
        assert_eq!(sign("whsec_not base64!", "msg_1", 1, "{}"), None);
    }

    #[test]
    fn any_2xx_delivers() {
        for status in [200, 202, 204, 299] {
            let record = outcome(attempt(1, answered(status)), &policy());
            assert_eq!(record.outcome, WebhookDeliveryStatus::Delivered);
            assert_eq!(record.response_status, Some(i32::from(status)));
            assert_eq!(record.response_body, Some(format!("body {status}")));
            assert_eq!(record.error, None);
            assert_eq!((record.retry_in, record.next_attempt_at), (None, None));
            assert_eq!(metric_label(&record), "delivered");
        }
    }

    #[test]
    fn the_attempt_is_logged_as_made() {
        let record = outcome(attempt(2, answered(200)), &policy());
        assert_eq!(record.attempt, 2);
        assert_eq!(record.url, "https://receiver.test/hook");
        assert_eq!(record.started_at, attempt(2, answered(200)).started_at);
        assert_eq!(record.duration_ms, 42);
        let mut long = attempt(1, answered(200));
        long.duration = Duration::from_secs(u64::MAX / 2);
        assert_eq!(outcome(long, &policy()).duration_ms, i32::MAX);
    }

    #[test]
    fn gone_stops_for_good_even_with_attempts_left() {
        let record = outcome(attempt(1, answered(410)), &policy());
        assert_eq!(record.outcome, WebhookDeliveryStatus::Failed);
        assert_eq!(record.response_status, Some(410));
        assert_eq!(
            record.error.as_deref(),
            Some("the receiver answered 410 Gone: no further attempts")
        );
        assert_eq!((record.retry_in, record.next_attempt_at), (None, None));
        assert_eq!(metric_label(&record), "http_error");
    }

    #[test]
    fn other_statuses_retry_per_the_schedule() {
        for status in [199, 302, 400, 404, 500, 503] {
            let made = attempt(2, answered(status));
            let started_at = made.started_at;
            let record = outcome(made, &policy());
            assert_eq!(record.outcome, WebhookDeliveryStatus::Pending, "{status}");
            assert_eq!(
                record.error,
                Some(format!("the receiver answered {status}"))
            );
            assert_eq!(record.response_body, Some(format!("body {status}")));
            let wait = record.retry_in.expect("a retry");
            assert!((secs(270)..=secs(330)).contains(&wait), "{wait:?}");
            assert_eq!(
                record.next_attempt_at,
                Some(started_at + chrono::Duration::from_std(wait).expect("in range"))
            );
            assert_eq!(metric_label(&record), "http_error");
        }
    }

    #[test]
    fn connection_errors_and_timeouts_retry_per_the_schedule() {
        let record = outcome(attempt(1, Err("timed out".to_owned())), &policy());
        assert_eq!(record.outcome, WebhookDeliveryStatus::Pending);
        assert_eq!(record.error.as_deref(), Some("timed out"));
        assert_eq!(record.response_status, None);
        assert_eq!(record.response_body, None);
        assert!(record.retry_in.is_some() && record.next_attempt_at.is_some());
        assert_eq!(metric_label(&record), "connection_error");
    }

    #[test]
    fn the_schedule_used_up_fails_the_delivery() {
        for result in [answered(500), Err("connection refused".to_owned())] {
            let record = outcome(attempt(3, result), &policy());
            assert_eq!(record.outcome, WebhookDeliveryStatus::Failed);
            assert_eq!((record.retry_in, record.next_attempt_at), (None, None));
            assert!(record.error.is_some());
        }
    }

    #[test]
    fn no_url_is_a_failed_attempt_posted_nowhere() {
        let mut made = attempt(1, Err(NO_URL.to_owned()));
        made.url = None;
        let record = outcome(made, &policy());
        assert_eq!(record.url, "");
        assert_eq!(record.outcome, WebhookDeliveryStatus::Pending);
        assert_eq!(record.error.as_deref(), Some(NO_URL));
    }
}
