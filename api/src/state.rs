//! The state every handler shares, and the bounds of a request that the router and the
//! handlers both read. It imports nothing of the router, so handlers can name it without a
//! cycle through `app`.

use std::{sync::Arc, time::Duration};

use signet_common::{
    Config,
    delivery::sms::StatusCallbacks,
    infra::{
        db::Db,
        files::{FileLinks, FileStore},
        limits::Gates,
        notify::Notifier,
        secrets::FeedCursorKey,
    },
};

pub const BASE_PATH: &str = "/external/api/v1";
pub const BODY_LIMIT_BYTES: usize = 1024 * 1024;
/// A bulk send's rows: 10,000 rows of a few roles and values fit several times over.
pub const BULK_SEND_BODY_LIMIT_BYTES: usize = 16 * 1024 * 1024;

/// The body limit of the route matched as `path` (`/external/api/v1/templates/{id}/bulk-sends`).
pub fn body_limit(path: &str) -> usize {
    if path.ends_with("/bulk-sends") {
        BULK_SEND_BODY_LIMIT_BYTES
    } else {
        BODY_LIMIT_BYTES
    }
}
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub config: Arc<Config>,
    pub store: FileStore,
    pub links: FileLinks,
    pub notifier: Notifier,
    /// Checks the signed URLs the SMS provider posts delivery reports to.
    pub sms_callbacks: StatusCallbacks,
    /// The root `/verify` trusts, as PEM: the last certificate of SEAL_CERT_FILE, when it is
    /// set (empty otherwise). Its checks run in the PDF sandbox, which is handed it as text.
    pub seal_anchors: String,
    pub gates: Gates,
    /// Signs and checks the event feed's cursors.
    pub feed_cursors: FeedCursorKey,
}

impl AppState {
    /// The state, or why the file store cannot be used (`FILE_STORE…`).
    pub fn new(config: Config, db: Db) -> Result<Self, String> {
        // Counting starts with the first request, not with the first scrape.
        signet_common::infra::telemetry::metrics();
        Ok(Self {
            store: FileStore::from_config(&config.files.store)
                .map_err(|e| format!("FILE_STORE: {e}"))?,
            links: FileLinks::new(
                &config.api.public_url,
                &config.files.url_secret,
                config.files.url_ttl,
            ),
            notifier: Notifier::from_config(&config),
            sms_callbacks: StatusCallbacks::new(&config.api.public_url, &config.files.url_secret),
            seal_anchors: seal_anchors(&config),
            feed_cursors: FeedCursorKey::from_file_url_secret(&config.files.url_secret),
            gates: Gates::new(&config.limits).map_err(|e| format!("PDF_SANDBOX_PROGRAM: {e}"))?,
            config: Arc::new(config),
            db,
        })
    }
}

/// The root of the seal's chain in SEAL_CERT_FILE, which `/verify` trusts. Without it (a
/// development seal per worker, or a PKCS#12 seal with no PEM chain given to the API), a seal
/// can still be checked, but is not trusted.
fn seal_anchors(config: &Config) -> String {
    let Some(chain_file) = &config.seal.cert_file else {
        return String::new();
    };
    match std::fs::read_to_string(chain_file)
        .map_err(|e| e.to_string())
        .and_then(|pem| signet_pdf::seal::certificates_from_pem(&pem))
        .and_then(|chain| signet_pdf::seal::certificates_to_pem(chain.last()))
    {
        Ok(root) => root,
        Err(e) => {
            tracing::warn!(file = %chain_file.display(), error = %e, "SEAL_CERT_FILE cannot be read: /verify trusts no seal");
            String::new()
        }
    }
}
