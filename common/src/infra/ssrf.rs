//! The guard against webhook URLs that point into the server's own network: only http(s), and
//! no address that is private, loopback, link-local, shared (CGNAT), multicast, reserved or
//! documentation-only — including IPv4 addresses hidden inside IPv6 (mapped, compatible, NAT64,
//! 6to4), local-use NAT64, Teredo and site-local ranges.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Url;

/// Why a URL or address is refused, in words for an operator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("is not an absolute http:// or https:// URL")]
    NotHttp,
    #[error("has no host")]
    NoHost,
    /// An IP address written in the URL: naming it tells the caller nothing new.
    #[error(
        "resolves to {0}, a private, loopback, link-local or otherwise internal address (set WEBHOOK_ALLOW_PRIVATE=true to allow it in development)"
    )]
    Internal(IpAddr),
    /// A host name that resolves to an internal address. The address is not named: it would
    /// tell an account owner how the server's own network is laid out.
    #[error(
        "resolves to a private, loopback, link-local or otherwise internal address (set WEBHOOK_ALLOW_PRIVATE=true to allow it in development)"
    )]
    ResolvesInternal,
    #[error("cannot be resolved: {0}")]
    Unresolvable(String),
    #[error("contains an invisible or direction-changing character ({0}), which no URL needs")]
    HiddenCharacter(String),
}

pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => is_internal_v6(v6),
    }
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || a == 0 // "this network"
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT), 100.64/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast, deprecated
        || ip.is_multicast()
        || a >= 240 // reserved, and the broadcast address
}

fn is_internal_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    let embedded_v4 = || {
        Ipv4Addr::new(
            (segments[6] >> 8) as u8,
            segments[6] as u8,
            (segments[7] >> 8) as u8,
            segments[7] as u8,
        )
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_internal_v4(v4);
    }
    if segments[..6] == [0, 0, 0, 0, 0, 0] {
        // ::/96, the deprecated IPv4-compatible form; covers :: and ::1 too.
        return ip.is_unspecified() || ip.is_loopback() || is_internal_v4(embedded_v4());
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_internal_v4(embedded_v4()); // NAT64
    }
    if segments[0] == 0x2002 {
        // 6to4: the IPv4 address of the site follows the prefix.
        let v4 = Ipv4Addr::new(
            (segments[1] >> 8) as u8,
            segments[1] as u8,
            (segments[2] >> 8) as u8,
            segments[2] as u8,
        );
        return is_internal_v4(v4);
    }
    (segments[0] == 0x64 && segments[1] == 0xff9b && segments[2] == 1) // local-use NAT64 64:ff9b:1::/48
        || (segments[0] == 0x2001 && segments[1] == 0) // Teredo 2001::/32: tunnels to anywhere
        || (segments[0] & 0xffc0) == 0xfec0 // site-local fec0::/10, deprecated
        || (segments[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (segments[0] & 0xff00) == 0xff00 // multicast
        || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
        || (segments[0] == 0x0100 && segments[1..4] == [0, 0, 0]) // discard-only 100::/64
}

/// Checks a webhook URL as it would be dialled: the scheme, then every address its host
/// resolves to now. Used when the URL is set; the worker checks again at each attempt.
pub async fn check_url(url: &str, allow_internal: bool) -> Result<Url, Refusal> {
    let parsed = Url::parse(url).map_err(|_| Refusal::NotHttp)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(Refusal::NotHttp);
    }
    let host = parsed.host_str().ok_or(Refusal::NoHost)?.to_owned();
    if allow_internal {
        return Ok(parsed);
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return if is_internal(ip) {
            Err(Refusal::Internal(ip))
        } else {
            Ok(parsed)
        };
    }
    let addresses: Vec<IpAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| Refusal::Unresolvable(e.to_string()))?
        .map(|a| a.ip())
        .collect();
    match addresses.iter().find(|ip| is_internal(**ip)) {
        Some(ip) => {
            tracing::warn!(host, address = %ip, "refused a URL whose host resolves to an internal address");
            Err(Refusal::ResolvesInternal)
        }
        None if addresses.is_empty() => Err(Refusal::Unresolvable("no addresses".into())),
        None => Ok(parsed),
    }
}

/// A webhook URL as an account setting is given (the console's form, `--webhook-url`): blank
/// removes the URL (`Ok(None)`); anything else must pass [`check_url`] and is kept as parsed.
pub async fn webhook_url_setting(
    given: &str,
    allow_internal: bool,
) -> Result<Option<String>, Refusal> {
    let given = given.trim();
    if given.is_empty() {
        return Ok(None);
    }
    // The URL parser would percent-encode it into the path: refused instead, so that the URL
    // an operator reads back is the one they meant to give.
    if let Some(hidden) = signet_i18n::bidi::first_hidden(given) {
        return Err(Refusal::HiddenCharacter(signet_i18n::bidi::code_point(
            hidden,
        )));
    }
    check_url(given, allow_internal)
        .await
        .map(|parsed| Some(parsed.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_refused_and_public_ones_allowed() {
        for internal in [
            "64:ff9b:1::a00:1",
            "2002:7f00:1::",
            "2002:a00:1::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "fec0::1",
            "192.88.99.1",
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "::ffff:127.0.0.1",
            "10.0.0.1",
            "10.255.0.9",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "::ffff:10.0.0.1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "224.0.0.1",
            "239.1.1.1",
            "240.0.0.1",
            "255.255.255.255",
            "192.0.2.10",
            "198.51.100.7",
            "203.0.113.1",
            "198.18.0.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b::7f00:1",
            "::127.0.0.1",
            "2001:db8::1",
            "192.0.0.8",
        ] {
            assert!(
                is_internal(internal.parse().unwrap()),
                "{internal} must be refused"
            );
        }
        for public in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "2001:db9::1",
        ] {
            assert!(
                !is_internal(public.parse().unwrap()),
                "{public} must be allowed"
            );
        }
    }

    #[tokio::test]
    async fn urls_are_checked_after_resolution() {
        for url in [
            "http://127.0.0.1/hook",
            "http://[::1]:8080/",
            "http://[::ffff:127.0.0.1]/",
            "https://10.1.2.3/",
            "http://172.16.5.4/",
            "http://192.168.0.10/",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.1.1/",
            "http://0.0.0.0/",
            "http://[::ffff:10.0.0.1]/",
        ] {
            assert!(
                matches!(check_url(url, false).await, Err(Refusal::Internal(_))),
                "{url}"
            );
            assert!(
                check_url(url, true).await.is_ok(),
                "{url} is allowed when private targets are"
            );
        }
        let by_name = check_url("http://localhost:9000/hook", false)
            .await
            .unwrap_err();
        assert_eq!(by_name, Refusal::ResolvesInternal);
        let said = by_name.to_string();
        assert!(
            !said.contains("127.0.0.1") && !said.contains("::1"),
            "a host name's address is not named: {said}"
        );
        assert!(check_url("http://localhost:9000/hook", true).await.is_ok());
        for url in [
            "ftp://example.com/",
            "not a url",
            "file:///etc/passwd",
            "mailto:a@b.co",
        ] {
            assert_eq!(
                check_url(url, false).await.unwrap_err(),
                Refusal::NotHttp,
                "{url}"
            );
        }
        assert!(check_url("https://93.184.216.34/hook", false).await.is_ok());
    }

    #[tokio::test]
    async fn a_blank_webhook_setting_removes_the_url() {
        assert_eq!(webhook_url_setting("  ", false).await, Ok(None));
        assert_eq!(
            webhook_url_setting(" https://93.184.216.34/hook ", false).await,
            Ok(Some("https://93.184.216.34/hook".into()))
        );
        assert!(matches!(
            webhook_url_setting("http://127.0.0.1/", false).await,
            Err(Refusal::Internal(_))
        ));
    }

    #[tokio::test]
    async fn a_webhook_url_with_a_hidden_character_is_refused() {
        for (url, named) in [
            ("https://93.184.216.34/\u{202E}kooh", "U+202E"),
            ("https://93.184.216.34/ho\u{200B}ok", "U+200B"),
        ] {
            assert_eq!(
                webhook_url_setting(url, true).await,
                Err(Refusal::HiddenCharacter(named.into()))
            );
        }
    }
}
