//! How a variable's text becomes a setting: `deserialize_with` functions over the environment's
//! strings. Each fails with the reason of the one message format, `NAME: reason` (the name is
//! added by the loader from the field at fault).

use std::{fmt::Display, str::FromStr, time::Duration};

use ipnet::IpNet;
use serde::{Deserialize, Deserializer, de::Error as _};

fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    String::deserialize(d)
}

/// Applies `check` to the variable's text, its error becoming the reason.
fn with<'de, D: Deserializer<'de>, T>(
    d: D,
    check: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, D::Error> {
    check(&text(d)?).map_err(D::Error::custom)
}

/// A set variable; unset ones keep the part's default.
pub fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Any `FromStr` value, surrounding blanks aside.
pub fn parsed<'de, D: Deserializer<'de>, T: FromStr>(d: D) -> Result<T, D::Error>
where
    T::Err: Display,
{
    with(d, parse)
}

pub fn parse<T: FromStr>(value: &str) -> Result<T, String>
where
    T::Err: Display,
{
    value
        .trim()
        .parse()
        .map_err(|e: T::Err| format!("{value:?}: {e}"))
}

pub fn positive_number(value: &str) -> Result<u64, String> {
    match parse::<u64>(value)? {
        0 => Err("must be greater than zero".into()),
        n => Ok(n),
    }
}

/// A whole number greater than zero.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    with(d, positive_number)
}

pub fn positive_usize<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    positive(d).map(|n| n as usize)
}

/// Greater than zero; more than `u32` holds is taken as its largest.
pub fn positive_u32<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    positive(d).map(|n| n.min(u32::MAX.into()) as u32)
}

/// Greater than zero; more than `i32` holds is taken as its largest.
pub fn positive_i32<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    positive(d).map(|n| n.min(i32::MAX as u64) as i32)
}

/// A number of seconds greater than zero.
pub fn positive_secs<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    positive(d).map(Duration::from_secs)
}

/// A number of milliseconds greater than zero.
pub fn positive_millis<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    positive(d).map(Duration::from_millis)
}

pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    with(d, parse_bool)
}

pub fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => Err(format!("expected true or false, got {value:?}")),
    }
}

/// A URL without its trailing slashes.
pub fn base_url<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    text(d).map(|url| url.trim_end_matches('/').to_owned())
}

/// Comma-separated PostgreSQL URLs (`DATABASE_READ_URL`), each checked to parse. The reason
/// names the URL by its place, never by its text (it may hold a password).
pub fn database_urls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    with(d, |value| {
        let urls = list(value, |v| Ok(v.to_owned()))?;
        for (n, url) in urls.iter().enumerate() {
            // sqlx parses a URL of any scheme; the message names the URL by its place, as
            // its text may hold a password.
            let scheme = url.split_once("://").map(|(scheme, _)| scheme);
            if !matches!(scheme, Some("postgres" | "postgresql"))
                || url.parse::<sqlx::postgres::PgConnectOptions>().is_err()
            {
                return Err(format!(
                    "URL {} is not a PostgreSQL URL (postgres://user@host:port/database)",
                    n + 1
                ));
            }
        }
        Ok(urls)
    })
}

fn list<T>(value: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(item)
        .collect()
}

/// Comma-separated numbers of seconds: the waits after each failed attempt.
pub fn retry_schedule<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Duration>, D::Error> {
    with(d, |value| {
        list(value, |v| parse::<u64>(v).map(Duration::from_secs))
    })
}

/// Comma-separated IP addresses and CIDR ranges.
pub fn networks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<IpNet>, D::Error> {
    with(d, |value| {
        list(value, |v| {
            v.parse::<IpNet>()
                .or_else(|_| v.parse::<std::net::IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{v:?} is neither an IP address nor a CIDR range"))
        })
    })
}
