//! The file store the processes of one test share: a directory, or (in `suite_s3`) a bucket
//! on an S3-compatible server on loopback.

use std::collections::HashMap;

use signet_common::{Config, infra::files::FileStore};
use uuid::Uuid;

/// Whether this test binary runs the suite against an S3 bucket: `suite_s3` runs the very
/// same tests as `suite` (its modules are `suite`'s files), with every process of a test
/// sharing a bucket on an S3-compatible server instead of a directory.
pub fn s3_under_test() -> bool {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .is_some_and(|name| name.starts_with("suite_s3"))
}

/// An S3-compatible server on loopback: moto's server mode (PyPI `moto[server]`, which
/// `scripts/test.sh` installs), a real S3 API over HTTP with SigV4, buckets, ranges and
/// presigned URLs. `scripts/test.sh` starts one for the whole run and names it in
/// `SIGNET_TEST_S3_ENDPOINT`; without it, each test starts its own.
pub struct S3Server {
    pub endpoint: String,
    child: Option<std::process::Child>,
}

impl S3Server {
    pub fn start() -> Self {
        use std::io::BufRead as _;
        if let Ok(endpoint) = std::env::var("SIGNET_TEST_S3_ENDPOINT")
            && !endpoint.is_empty()
        {
            return Self {
                endpoint,
                child: None,
            };
        }
        let mut child = std::process::Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", "0"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("moto_server runs (scripts/test.sh installs moto[server])");
        let mut lines = std::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
        let endpoint = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                line.split_once("Running on ")
                    .map(|(_, url)| url.trim().to_owned())
            })
            .expect("moto_server says where it listens");
        // It logs every request: keep reading, or it blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Self {
            endpoint,
            child: Some(child),
        }
    }

    /// A new, empty bucket.
    pub async fn bucket(&self) -> String {
        let bucket = format!("signet-{}", Uuid::new_v4().simple());
        let response = reqwest::Client::new()
            .put(format!("{}/{bucket}", self.endpoint))
            .send()
            .await
            .expect("the S3 server answers");
        assert!(
            response.status().is_success(),
            "create bucket: {}",
            response.status()
        );
        bucket
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The settings of a store in `bucket` of the S3-compatible server at `endpoint` (or a proxy in
/// front of it), with the keys under a prefix as an operator sharing a bucket would set.
pub fn s3_settings(endpoint: &str, bucket: &str) -> Vec<(String, String)> {
    [
        ("FILE_STORE", "s3"),
        ("FILE_STORE_S3_BUCKET", bucket),
        ("FILE_STORE_S3_ENDPOINT", endpoint),
        ("FILE_STORE_S3_REGION", "us-east-1"),
        ("FILE_STORE_S3_PREFIX", "signet"),
        ("FILE_STORE_S3_ACCESS_KEY_ID", "signet-test"),
        ("FILE_STORE_S3_SECRET_ACCESS_KEY", "signet-test-secret"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// The file store the processes of one test share: a directory, or (in `suite_s3`) a bucket of
/// its own on the S3 server, with the keys under a prefix as an operator sharing a bucket
/// would set.
pub struct TestStore {
    pub dir: tempfile::TempDir,
    s3: Option<(S3Server, String)>,
}

impl TestStore {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let s3 = if s3_under_test() {
            let server = S3Server::start();
            let bucket = server.bucket().await;
            Some((server, bucket))
        } else {
            None
        };
        Self { dir, s3 }
    }

    /// The settings that name this store, for `Config` and the binaries' environment.
    pub fn settings(&self) -> Vec<(String, String)> {
        match &self.s3 {
            None => vec![(
                "FILE_STORE_DIR".into(),
                self.dir.path().display().to_string(),
            )],
            Some((server, bucket)) => s3_settings(&server.endpoint, bucket),
        }
    }

    pub fn store(&self) -> FileStore {
        let settings: HashMap<String, String> = self.settings().into_iter().collect();
        let config = Config::from_vars(settings.clone()).expect("config");
        FileStore::from_config(&config.files.store).expect("the file store")
    }

    /// Every key stored.
    pub async fn keys(&self) -> Vec<String> {
        self.store().keys().await.expect("the store lists")
    }
}
