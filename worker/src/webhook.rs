//! The webhook HTTP client: no redirects, no proxy, a 15 s timeout, and an SSRF guard in the DNS
//! resolver, so the address that is checked is the address that is dialled.

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
        let client = Client::builder()
            .redirect(redirect::Policy::none())
            // A proxy from HTTP(S)_PROXY would resolve and dial the target itself, past the
            // address check below.
            .no_proxy()
            .timeout(TIMEOUT)
            .user_agent(format!("Signet-Webhooks/{VERSION}"))
            .dns_resolver(Arc::new(GuardedResolver { allow_internal }))
            .build()
            .expect("the webhook HTTP client builds");
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
        // An IP literal is not resolved, so the resolver's check would not see it.
        if let Some(ip) = literal_ip(&url)
            && !self.allow_internal
            && ssrf::is_internal(ip)
        {
            return Err(ssrf::Refusal::Internal(ip).to_string());
        }
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

fn literal_ip(url: &Url) -> Option<std::net::IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(ip.into()),
        url::Host::Ipv6(ip) => Some(ip.into()),
        url::Host::Domain(_) => None,
    }
}

/// The full error chain: reqwest's top-level message alone hides the cause.
fn describe(error: reqwest::Error) -> String {
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
                return Err(ssrf::Refusal::Internal(internal.ip()).to_string().into());
            }
            let addrs: Addrs = Box::new(addresses.into_iter());
            Ok(addrs)
        })
    }
}
