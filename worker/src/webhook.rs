//! The webhook HTTP client: no redirects, no proxy, a 15 s timeout, and an SSRF guard in the DNS
//! resolver, so the address that is checked is the address that is dialled. The SMS provider's
//! client is built the same way (`guarded_client`).

use std::{net::SocketAddr, sync::Arc, time::Duration};

use reqwest::{
    Client, Url,
    dns::{Addrs, Name, Resolve, Resolving},
    redirect,
};
use signet_common::{VERSION, delivery::webhooks, infra::ssrf};

pub const TIMEOUT: Duration = Duration::from_secs(15);

pub use webhooks::Response;

pub struct WebhookClient {
    client: Client,
    allow_internal: bool,
}

impl WebhookClient {
    pub fn new(allow_internal: bool) -> Self {
        let client = guarded_client(allow_internal, &format!("Signet-Webhooks/{VERSION}"));
        Self {
            client,
            allow_internal,
        }
    }

    /// Posts one signed attempt. `Err` is a failure before any response (refused target,
    /// connection error, timeout).
    #[tracing::instrument(name = "webhook.attempt", skip_all, fields(webhook.id = event_id))]
    pub async fn post(
        &self,
        url: &str,
        event_id: &str,
        body: &str,
        secret: &str,
    ) -> Result<Response, String> {
        let url = Url::parse(url).map_err(|e| format!("invalid webhook URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("the webhook URL is not http(s)".into());
        }
        refuse_internal_literal(&url, self.allow_internal)?;
        let timestamp = chrono::Utc::now().timestamp();
        let signature = webhooks::sign(secret, event_id, timestamp, body)
            .ok_or("the account's webhook secret is not valid base64")?;
        let mut response = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .header("webhook-id", event_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(body.to_owned())
            .send()
            .await
            .map_err(describe)?;
        let status = response.status().as_u16();
        let mut kept = Vec::new();
        while kept.len() < webhooks::MAX_LOGGED_BODY {
            match response.chunk().await {
                Ok(Some(chunk)) => kept.extend_from_slice(&chunk),
                _ => break,
            }
        }
        kept.truncate(webhooks::MAX_LOGGED_BODY);
        Ok(Response {
            status,
            body: String::from_utf8_lossy(&kept).into_owned(),
        })
    }
}

/// An HTTP client for targets outside the server's network (webhook receivers, the SMS
/// provider): no redirects, no proxy, a 15 s timeout, and the SSRF guard in its resolver.
pub fn guarded_client(allow_internal: bool, user_agent: &str) -> Client {
    Client::builder()
        .redirect(redirect::Policy::none())
        // A proxy from HTTP(S)_PROXY would resolve and dial the target itself, past the
        // address check in the resolver.
        .no_proxy()
        .timeout(TIMEOUT)
        .user_agent(user_agent)
        .dns_resolver(Arc::new(GuardedResolver { allow_internal }))
        .build()
        .expect("the guarded HTTP client builds")
}

/// An IP literal is not resolved, so the resolver's check would not see it: checked here.
pub fn refuse_internal_literal(url: &Url, allow_internal: bool) -> Result<(), String> {
    match literal_ip(url) {
        Some(ip) if !allow_internal && ssrf::is_internal(ip) => {
            Err(ssrf::Refusal::Internal(ip).to_string())
        }
        _ => Ok(()),
    }
}

fn literal_ip(url: &Url) -> Option<std::net::IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(ip.into()),
        url::Host::Ipv6(ip) => Some(ip.into()),
        url::Host::Domain(_) => None,
    }
}

/// The full error chain: reqwest's top-level message alone hides the cause.
pub fn describe(error: reqwest::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if error.is_timeout() {
        message = format!("timed out after {TIMEOUT:?}: {message}");
    }
    message
}

struct GuardedResolver {
    allow_internal: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_internal = self.allow_internal;
        Box::pin(async move {
            let addresses: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if !allow_internal
                && let Some(internal) = addresses.iter().find(|a| ssrf::is_internal(a.ip()))
            {
                // The error reaches the account's delivery log: the address is for the
                // operator's log only.
                tracing::warn!(host = name.as_str(), address = %internal.ip(), "refused to dial a host that resolves to an internal address");
                return Err(ssrf::Refusal::ResolvesInternal.to_string().into());
            }
            let addrs: Addrs = Box::new(addresses.into_iter());
            Ok(addrs)
        })
    }
}
