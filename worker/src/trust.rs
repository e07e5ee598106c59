//! The timestamp authority's HTTP client (RFC 3161 over HTTP: `POST` of a DER TimeStampReq as
//! `application/timestamp-query`, a DER TimeStampResp back). What the answer means is checked
//! in `signet_pdf::seal::timestamp_token`.

use std::{future::Future, pin::Pin, time::Duration};

use reqwest::{Client, redirect};
use signet_common::{VERSION, flows::completion::Timestamper};

/// How long one request to the authority may take.
const TIMEOUT: Duration = Duration::from_secs(15);
/// The largest answer read: a token with a chain of a few certificates is a few KiB.
const MAX_RESPONSE: usize = 64 * 1024;

pub struct TsaClient {
    client: Client,
    url: String,
}

impl TsaClient {
    pub fn new(url: &str) -> Result<Self, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("TSA_URL {url:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("TSA_URL {url:?}: not an http(s) URL"));
        }
        let client = Client::builder()
            .redirect(redirect::Policy::none())
            .timeout(TIMEOUT)
            .user_agent(format!("Signet/{VERSION}"))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            client,
            url: url.to_owned(),
        })
    }
}

impl Timestamper for TsaClient {
    fn timestamp<'a>(
        &'a self,
        request: Vec<u8>,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + Send + 'a>> {
        Box::pin(async move {
            let response = self
                .client
                .post(&self.url)
                .header("content-type", "application/timestamp-query")
                .body(request)
                .send()
                .await
                .map_err(|e| {
                    format!(
                        "the timestamp authority could not be reached: {}",
                        crate::webhook::describe(e)
                    )
                })?;
            let status = response.status();
            if !status.is_success() {
                return Err(format!(
                    "the timestamp authority answered HTTP {}",
                    status.as_u16()
                ));
            }
            let body = response
                .bytes()
                .await
                .map_err(|e| format!("the timestamp authority's answer was cut off: {e}"))?;
            if body.len() > MAX_RESPONSE {
                return Err("the timestamp authority's answer is too large".into());
            }
            Ok(body.to_vec())
        })
    }
}
