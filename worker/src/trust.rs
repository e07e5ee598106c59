//! The seal's network services over HTTP: the timestamp authority (RFC 3161: `POST` of a DER
//! TimeStampReq as `application/timestamp-query`, a DER TimeStampResp back) and the revocation
//! services the seal's certificates name (RFC 6960 OCSP: `POST` as `application/ocsp-request`;
//! RFC 5280 CRLs: `GET`). What the answers mean is checked in `signet_pdf::seal`.

use std::time::Duration;

use reqwest::{Client, redirect};
use signet_common::{
    VERSION,
    flows::completion::{ServiceAnswer, TrustServices},
};
use signet_pdf::seal::RevocationSource;

/// How long one request to an authority may take.
const TIMEOUT: Duration = Duration::from_secs(15);
/// The largest timestamp read: a token with a chain of a few certificates is a few KiB.
const MAX_TIMESTAMP: usize = 64 * 1024;
/// The largest revocation answer read: a CA's CRL can list many thousands of certificates.
const MAX_REVOCATION: usize = 16 * 1024 * 1024;

pub struct TrustClient {
    client: Client,
    tsa_url: Option<String>,
}

impl TrustClient {
    /// The client, with the timestamp authority at `tsa_url` (TSA_URL) if there is one.
    pub fn new(tsa_url: Option<&str>) -> Result<Self, String> {
        if let Some(url) = tsa_url {
            let parsed = url::Url::parse(url).map_err(|e| format!("TSA_URL {url:?}: {e}"))?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(format!("TSA_URL {url:?}: not an http(s) URL"));
            }
        }
        let client = Client::builder()
            .redirect(redirect::Policy::limited(3))
            .timeout(TIMEOUT)
            .user_agent(format!("Signet/{VERSION}"))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            client,
            tsa_url: tsa_url.map(str::to_owned),
        })
    }

    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        service: &str,
        limit: usize,
    ) -> Result<Vec<u8>, String> {
        let response = request.send().await.map_err(|e| {
            format!(
                "{service} could not be reached: {}",
                crate::webhook::describe(e)
            )
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("{service} answered HTTP {}", status.as_u16()));
        }
        if response
            .content_length()
            .is_some_and(|len| len > limit as u64)
        {
            return Err(format!("{service}'s answer is too large"));
        }
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("{service}'s answer was cut off: {e}"))?;
        if body.len() > limit {
            return Err(format!("{service}'s answer is too large"));
        }
        Ok(body.to_vec())
    }
}

impl TrustServices for TrustClient {
    fn timestamps(&self) -> bool {
        self.tsa_url.is_some()
    }

    fn timestamp(&self, request: Vec<u8>) -> ServiceAnswer<'_> {
        Box::pin(async move {
            let url = self
                .tsa_url
                .as_deref()
                .ok_or("no timestamp authority is configured")?;
            let request = self
                .client
                .post(url)
                .header("content-type", "application/timestamp-query")
                .body(request);
            self.exchange(request, "the timestamp authority", MAX_TIMESTAMP)
                .await
        })
    }

    fn revocation<'a>(&'a self, source: &'a RevocationSource) -> ServiceAnswer<'a> {
        Box::pin(async move {
            // Asked afresh for every seal, not cached: a revoked certificate stops the very
            // next completion.
            let (request, service) = match source {
                RevocationSource::Ocsp { url, request } => (
                    self.client
                        .post(url)
                        .header("content-type", "application/ocsp-request")
                        .body(request.clone()),
                    format!("the OCSP responder {url}"),
                ),
                RevocationSource::Crl { url } => (
                    self.client.get(url),
                    format!("the CRL distribution point {url}"),
                ),
            };
            self.exchange(request, &service, MAX_REVOCATION).await
        })
    }
}
