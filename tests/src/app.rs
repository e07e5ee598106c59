//! The application on a loopback port, over its own database and file store.

use std::{collections::HashMap, net::SocketAddr};

use reqwest::{Client, Method, Response};
use serde_json::Value;
use signet_api::{AppState, Server};
use signet_common::{
    Config,
    flows::drafting,
    infra::{
        db::{self, Db},
        files::FileStore,
    },
    model::{AccountId, Actor},
    store::{accounts, api_keys},
};
use uuid::Uuid;

use crate::{file_store::TestStore, http::read, pdfs::pdf, postgres::TestDb, process::binary};

/// The application on a loopback port, over its own database and file store.
pub struct TestApp {
    pub addr: SocketAddr,
    pub base: String,
    pub db: TestDb,
    pub config: Config,
    /// Scratch space for the test's own files (logs, downloads).
    pub files: tempfile::TempDir,
    /// Where the API and the test's workers keep PDFs.
    pub file_store: TestStore,
    pub client: Client,
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(&[]).await
    }

    /// Starts the app with extra environment-style settings (e.g. `API_USAGE_WINDOW_SECS`).
    pub async fn spawn_with(settings: &[(&str, &str)]) -> Self {
        let db = TestDb::new().await;
        Self::spawn_on(db, settings).await
    }

    pub async fn spawn_on(db: TestDb, settings: &[(&str, &str)]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let files = tempfile::tempdir().expect("tempdir");
        let file_store = TestStore::new().await;
        let mut vars: HashMap<String, String> = file_store.settings().into_iter().collect();
        vars.extend([
            ("DATABASE_URL".into(), db.url()),
            ("PUBLIC_URL".into(), format!("http://{addr}")),
            (
                "FILE_URL_SECRET".into(),
                "test-file-url-secret-0123456789abcdef".into(),
            ),
            // Tests share the machine's PostgreSQL with each other (and with whatever else runs
            // there): each in-process API keeps to a small budget.
            ("DATABASE_MAX_CONNECTIONS".into(), "4".into()),
            // The in-process API is the test binary, which is no sandbox child: the real one is.
            (
                "PDF_SANDBOX_PROGRAM".into(),
                binary("signet-api").display().to_string(),
            ),
        ]);
        for (k, v) in settings {
            vars.insert((*k).into(), (*v).into());
        }
        let config = Config::from_vars(vars.clone()).expect("config");
        let app_db = Db::connect_lazy(
            &config.database.url,
            "signet-tests",
            db::PoolBudget::from_config(&config),
        )
        .expect("pool");
        let state = AppState::new(config.clone(), app_db).expect("the file store");
        let server = Server::with_listener(listener, state);
        tokio::spawn(server.run_until(std::future::pending()));
        Self {
            addr,
            base: format!("http://{addr}"),
            db,
            config,
            files,
            file_store,
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
        }
    }

    pub fn store(&self) -> FileStore {
        self.file_store.store()
    }

    /// An account with an API key; returns (account id, key).
    pub async fn account(&self, usage_limit: i32) -> (Uuid, String) {
        let email = format!("owner-{}@example.com", Uuid::new_v4().simple());
        let email = signet_common::model::EmailAddress::parse(&email).expect("an address");
        let account = accounts::create(&self.db.pool, "Owner", &email, usage_limit)
            .await
            .expect("account");
        let key = api_keys::generate(&self.db.pool, account.id)
            .await
            .expect("key");
        (account.id.0, key.key)
    }

    /// An account that signs in to the console with `password` and has no API key yet;
    /// returns (account id, e-mail).
    pub async fn console_account(&self, password: &str) -> (Uuid, String) {
        let (id, _) = self.account(1000).await;
        let account = AccountId(id);
        api_keys::revoke(&self.db.pool, account)
            .await
            .expect("revoke");
        signet_common::flows::sign_in::set_password(&self.db.pool, account, password)
            .await
            .expect("password");
        let email = accounts::find(&self.db.pool, account)
            .await
            .expect("account")
            .email;
        (id, email)
    }

    /// Uploads a generated PDF with the given page sizes as a DRAFT document.
    pub async fn document(&self, account_id: Uuid, title: &str, pages: &[(f64, f64)]) -> Uuid {
        self.document_from(account_id, title, pdf(pages)).await
    }

    /// A DRAFT of the PDF `bytes`, uploaded as the API does.
    pub async fn document_from(&self, account_id: Uuid, title: &str, bytes: Vec<u8>) -> Uuid {
        drafting::upload_document(
            &self.db.pool,
            &self.store(),
            AccountId(account_id),
            title,
            bytes,
            &signet_common::infra::pdf_sandbox::PdfSandbox::new(
                &self.config.limits.pdf_sandbox,
                self.config.limits.pdf,
            )
            .expect("the PDF sandbox"),
            &Actor::Operator,
        )
        .await
        .expect("upload")
        .id
        .0
    }

    /// A request under the API base path; `key` None sends no X-API-KEY header.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> Response {
        let mut request = self
            .client
            .request(method, format!("{}/external/api/v1{path}", self.base));
        if let Some(key) = key {
            request = request.header("X-API-KEY", key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.expect("request")
    }

    pub async fn get(&self, path: &str, key: &str) -> (u16, Value) {
        read(self.call(Method::GET, path, Some(key), None).await).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> (u16, Value) {
        read(self.call(Method::POST, path, Some(key), Some(body)).await).await
    }
}
