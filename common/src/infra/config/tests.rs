use super::*;
use std::path::PathBuf;

fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    Config::from_vars(vars.iter().copied())
}

#[test]
fn defaults_apply_when_unset_or_empty() {
    let c = config(&[("BIND_ADDR", "  ")]).unwrap();
    assert_eq!(c.api.bind_addr.to_string(), "127.0.0.1:8080");
    assert_eq!(c.api.public_url, "http://localhost:8080");
    assert_eq!(c.api.usage_window_secs, 3600);
    assert_eq!(c.api.usage_default_limit, 1000);
    assert_eq!(c.api.bulk_send_max_rows, 10_000);
    assert_eq!(c.webhook.retry_schedule.len(), 7);
    assert!(c.files.url_secret_generated);
    assert!(c.mail.smtp_url.is_none());
}

#[test]
fn values_are_parsed_and_checked() {
    let c = config(&[
        ("PUBLIC_URL", "https://sign.example.com/"),
        ("TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1"),
        ("FILE_URL_SECRET", "0123456789abcdef0123456789abcdef"),
        ("LOG_FORMAT", "JSON"),
    ])
    .unwrap();
    assert_eq!(c.api.public_url, "https://sign.example.com");
    assert_eq!(c.api.trusted_proxies.len(), 2);
    assert_eq!(c.files.url_secret, b"0123456789abcdef0123456789abcdef");
    assert_eq!(c.logging.format, LogFormat::Json);

    let err = config(&[("API_USAGE_WINDOW_SECS", "0")]).unwrap_err();
    assert_eq!(err.name, "API_USAGE_WINDOW_SECS");
    let err = config(&[("TRUSTED_PROXIES", "nope")]).unwrap_err();
    assert_eq!(err.name, "TRUSTED_PROXIES");
    let err = config(&[("BIND_ADDR", "localhost")]).unwrap_err();
    assert_eq!(err.name, "BIND_ADDR");
}

#[test]
fn the_default_language_is_one_signet_speaks() {
    use signet_i18n::Language;
    assert_eq!(
        config(&[]).unwrap().signing.default_language,
        Language::English
    );
    let c = config(&[("DEFAULT_LANGUAGE", " zh-hans ")]).unwrap();
    assert_eq!(c.signing.default_language, Language::ChineseSimplified);
    let c = config(&[("DEFAULT_LANGUAGE", "HE")]).unwrap();
    assert_eq!(c.signing.default_language, Language::Hebrew);
    for unknown in ["xx", "zh", "de-AT", "english"] {
        let err = config(&[("DEFAULT_LANGUAGE", unknown)]).unwrap_err();
        assert_eq!(err.name, "DEFAULT_LANGUAGE");
        assert!(
            err.to_string().ends_with(
                "expected one of en, de, fr, es, pt, zh-Hans, ar, it, nl, pl, ru, tr, ja, ko, he"
            ),
            "{err}"
        );
    }
}

#[test]
fn a_short_or_placeholder_file_url_secret_is_refused() {
    for secret in [
        "s3cret",
        "change-me",
        "CHANGE-ME",
        "change-me-please-to-something-long-enough",
    ] {
        let err = config(&[("FILE_URL_SECRET", secret)]).unwrap_err();
        assert_eq!(err.name, "FILE_URL_SECRET", "{secret}");
    }
    assert!(config(&[("FILE_URL_SECRET", &"x".repeat(32))]).is_ok());
}

#[test]
fn worker_concurrency_per_kind_falls_back_to_worker_concurrency() {
    let c = config(&[("DATABASE_MAX_CONNECTIONS", "10")]).unwrap();
    assert_eq!(c.worker.concurrency.email, 32, "sends hold no connection");
    assert_eq!(
        c.worker.concurrency.webhook, 32,
        "attempts hold no connection"
    );
    assert!(c.worker.concurrency.completion >= 1, "the CPU count");
    let c = config(&[
        ("WORKER_CONCURRENCY", "3"),
        ("WORKER_WEBHOOK_CONCURRENCY", "20"),
    ])
    .unwrap();
    assert_eq!(
        c.worker.concurrency,
        WorkerConcurrency {
            email: 3,
            completion: 3,
            webhook: 20,
            sms: 3,
            bulk: 3,
        }
    );
    for name in [
        "WORKER_CONCURRENCY",
        "WORKER_EMAIL_CONCURRENCY",
        "WORKER_COMPLETION_CONCURRENCY",
        "WORKER_WEBHOOK_CONCURRENCY",
        "WORKER_SMS_CONCURRENCY",
    ] {
        assert_eq!(config(&[(name, "0")]).unwrap_err().name, name);
    }
}

#[test]
fn a_seal_is_pem_files_or_a_pkcs12_file_with_its_password() {
    assert!(config(&[]).unwrap().seal.source.is_none());
    let pem = config(&[("SEAL_KEY_FILE", "k.pem"), ("SEAL_CERT_FILE", "c.pem")]).unwrap();
    assert!(matches!(pem.seal.source, Some(SealSource::Pem { .. })));
    let p12 = config(&[
        ("SEAL_PKCS12_FILE", "s.p12"),
        ("SEAL_PKCS12_PASSWORD", "pw"),
    ])
    .unwrap();
    assert!(matches!(p12.seal.source, Some(SealSource::Pkcs12 { .. })));
    assert!(
        !format!("{:?}", p12.seal.source).contains("pw"),
        "the password is never printed"
    );
    for (vars, name) in [
        (&[("SEAL_KEY_FILE", "k.pem")][..], "SEAL_CERT_FILE"),
        (&[("SEAL_CERT_FILE", "c.pem")][..], "SEAL_KEY_FILE"),
        (&[("SEAL_PKCS12_FILE", "s.p12")][..], "SEAL_PKCS12_PASSWORD"),
        (
            &[("SEAL_KEY_FILE", "k.pem"), ("SEAL_PKCS12_FILE", "s.p12")][..],
            "SEAL_PKCS12_FILE",
        ),
    ] {
        assert_eq!(config(vars).unwrap_err().name, name, "{vars:?}");
    }
}

#[test]
fn sms_goes_to_files_unless_told_otherwise() {
    let c = config(&[]).unwrap();
    assert_eq!(
        c.sms.provider,
        SmsProvider::Files {
            dir: PathBuf::from("./data/sms")
        }
    );
    assert!(c.sms.enabled());
    assert_eq!(c.sms.daily_cap_per_number, 10);
    assert!(!config(&[("SMS_PROVIDER", "none")]).unwrap().sms.enabled());
    let c = config(&[
        ("SMS_PROVIDER", "Twilio"),
        ("SMS_TWILIO_BASE_URL", "http://127.0.0.1:9/"),
        ("TWILIO_ACCOUNT_SID", "AC123"),
        ("TWILIO_AUTH_TOKEN", "very-secret-token"),
    ])
    .unwrap();
    let SmsProvider::Twilio(twilio) = &c.sms.provider else {
        panic!("twilio")
    };
    assert_eq!(twilio.base_url, "http://127.0.0.1:9");
    assert_eq!(twilio.account_sid.as_deref(), Some("AC123"));
    assert!(twilio.status_callbacks);
    assert!(
        !format!("{:?}", c.sms).contains("very-secret-token"),
        "the token is never printed"
    );
    assert_eq!(
        config(&[("SMS_PROVIDER", "carrier-pigeon")])
            .unwrap_err()
            .name,
        "SMS_PROVIDER"
    );
    assert_eq!(
        config(&[("SMS_DAILY_CAP_PER_ACCOUNT", "0")])
            .unwrap_err()
            .name,
        "SMS_DAILY_CAP_PER_ACCOUNT"
    );
}

#[test]
fn limits_have_defaults_and_are_checked() {
    let c = config(&[]).unwrap();
    assert_eq!(c.limits.pdf.max_inflated_bytes, 64 * 1024 * 1024);
    assert_eq!(c.limits.upload_concurrency, 2);
    assert_eq!(c.limits.sign_in_free_failures, 5);
    assert!(c.limits.sign_in_hash_concurrency >= 1);
    let err = config(&[("SIGN_IN_HASH_CONCURRENCY", "0")]).unwrap_err();
    assert_eq!(err.name, "SIGN_IN_HASH_CONCURRENCY");
}

#[test]
fn the_reminder_interval_defaults_to_a_day_and_zero_turns_it_off() {
    assert_eq!(config(&[]).unwrap().reminders.min_interval_hours, 24);
    let off = config(&[("REMINDER_MIN_INTERVAL_HOURS", "0")]).unwrap();
    assert_eq!(off.reminders.min_interval_hours, 0);
    for bad in ["-1", "1.5", "8785"] {
        let err = config(&[("REMINDER_MIN_INTERVAL_HOURS", bad)]).unwrap_err();
        assert_eq!(err.name, "REMINDER_MIN_INTERVAL_HOURS", "{bad}");
    }
}

#[test]
fn every_error_reads_name_then_reason() {
    for (vars, message) in [
        (
            &[("API_USAGE_WINDOW_SECS", "0")][..],
            "API_USAGE_WINDOW_SECS: must be greater than zero",
        ),
        (
            &[("BIND_ADDR", "localhost")][..],
            "BIND_ADDR: \"localhost\": invalid socket address syntax",
        ),
        (
            &[("WEBHOOK_ALLOW_PRIVATE", "maybe")][..],
            "WEBHOOK_ALLOW_PRIVATE: expected true or false, got \"maybe\"",
        ),
        (
            &[("EMAIL_RETRY_SCHEDULE", "10, x")][..],
            "EMAIL_RETRY_SCHEDULE: \"x\": invalid digit found in string",
        ),
        (
            &[("FILE_STORE", "s3")][..],
            "FILE_STORE_S3_BUCKET: must be set with FILE_STORE=s3",
        ),
    ] {
        let err = config(vars).unwrap_err();
        assert_eq!(err.to_string(), format!("invalid configuration: {message}"));
    }
}

#[test]
fn other_variables_are_ignored_and_an_empty_pkcs12_password_is_a_password() {
    let c = config(&[
        ("PATH", "/usr/bin"),
        ("SEAL_PKCS12_FILE", "s.p12"),
        ("SEAL_PKCS12_PASSWORD", ""),
    ])
    .unwrap();
    assert!(matches!(
        c.seal.source,
        Some(SealSource::Pkcs12 { password: Some(ref p), .. }) if p.is_empty()
    ));
}

#[test]
fn the_event_feed_keeps_thirty_days_unless_told_otherwise() {
    assert_eq!(config(&[]).unwrap().sweep.event_retention_days, 30);
    let c = config(&[("EVENT_RETENTION_DAYS", "90")]).unwrap();
    assert_eq!(c.sweep.event_retention_days, 90);
    for bad in ["0", "-1", "3651", "a month"] {
        let err = config(&[("EVENT_RETENTION_DAYS", bad)]).unwrap_err();
        assert_eq!(err.name, "EVENT_RETENTION_DAYS", "{bad}");
    }
}

#[test]
fn read_replicas_are_urls_and_sampled_within_half_the_lag_bound() {
    let c = config(&[]).unwrap();
    assert!(c.database.read_urls.is_empty());
    assert_eq!(c.database.direct_url(), c.database.url);
    let c = config(&[
        (
            "DATABASE_READ_URL",
            "postgres://a@10.0.0.2:5432/signet, postgres://a@10.0.0.3/signet",
        ),
        ("DATABASE_READ_MAX_LAG_MS", "1000"),
        ("DATABASE_READ_SAMPLE_MS", "500"),
    ])
    .unwrap();
    assert_eq!(c.database.read_urls.len(), 2);
    let Err(err) = config(&[
        ("DATABASE_READ_URL", "postgres://a@10.0.0.2/signet"),
        ("DATABASE_READ_MAX_LAG_MS", "1000"),
        ("DATABASE_READ_SAMPLE_MS", "600"),
    ]) else {
        panic!("a sample interval longer than half the bound is refused");
    };
    assert_eq!(err.name, "DATABASE_READ_SAMPLE_MS");
    let Err(err) = config(&[(
        "DATABASE_READ_URL",
        "postgres://a:secret@10.0.0.2/signet, mysql://b:hidden@x/y",
    )]) else {
        panic!("a URL that is not PostgreSQL's is refused");
    };
    assert_eq!(err.name, "DATABASE_READ_URL");
    assert!(
        !err.reason.contains("hidden") && err.reason.contains("URL 2"),
        "named by place, never by text: {}",
        err.reason
    );
}
