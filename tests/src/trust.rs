//! A timestamp authority and a certificate authority with revocation services on loopback,
//! made with OpenSSL.

use std::path::Path;

use uuid::Uuid;

use crate::http::serve_on_loopback;

/// A real RFC 3161 timestamp authority on loopback: `openssl ts -reply` behind a small HTTP
/// server, with a root and a timestamping certificate made by `openssl` at start. It can be
/// made unavailable (answering 503) to show what a completion does then.
pub struct Tsa {
    pub port: u16,
    pub dir: tempfile::TempDir,
    available: std::sync::Arc<std::sync::atomic::AtomicBool>,
    answered: std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Tsa {
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_owned();
        let openssl = |args: &[&str]| openssl(&path, args);
        openssl_root(&path, "tsa-root", "/CN=Test TSA root", "keyCertSign");
        openssl_key_and_csr(&path, "tsa", "/CN=Test TSA");
        std::fs::write(
            path.join("tsa-ext.cnf"),
            "extendedKeyUsage=critical,timeStamping\nkeyUsage=critical,digitalSignature\n",
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "tsa.csr",
            "-CA",
            "tsa-root.pem",
            "-CAkey",
            "tsa-root.key",
            "-CAcreateserial",
            "-out",
            "tsa.pem",
            "-days",
            "30",
            "-sha256",
            "-extfile",
            "tsa-ext.cnf",
        ]);
        std::fs::write(path.join("serial"), "01\n").unwrap();
        std::fs::write(
            path.join("tsa.cnf"),
            format!(
                "[ tsa ]\ndefault_tsa = tsa_config\n[ tsa_config ]\ndir = {}\nserial = $dir/serial\n\
                 crypto_device = builtin\nsigner_cert = $dir/tsa.pem\ncerts = $dir/tsa-root.pem\n\
                 signer_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\n\
                 digests = sha256, sha384, sha512\naccuracy = secs:1\nordering = yes\ntsa_name = yes\n\
                 ess_cert_id_chain = no\ness_cert_id_alg = sha256\n",
                path.display()
            ),
        )
        .unwrap();

        type Shared = (
            std::path::PathBuf,
            std::sync::Arc<std::sync::atomic::AtomicBool>,
            std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
        );
        async fn reply(
            axum::extract::State((dir, available, answered)): axum::extract::State<Shared>,
            body: axum::body::Bytes,
        ) -> axum::response::Response {
            use axum::response::IntoResponse;
            if !available.load(std::sync::atomic::Ordering::SeqCst) {
                answered.lock().unwrap().push(503);
                return (axum::http::StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
            }
            let name = Uuid::new_v4().simple().to_string();
            let query = dir.join(format!("{name}.tsq"));
            let reply = dir.join(format!("{name}.tsr"));
            std::fs::write(&query, &body).unwrap();
            let out = tokio::process::Command::new("openssl")
                .args(["ts", "-reply", "-config"])
                .arg(dir.join("tsa.cnf"))
                .arg("-queryfile")
                .arg(&query)
                .arg("-out")
                .arg(&reply)
                .output()
                .await
                .unwrap();
            if !out.status.success() {
                answered.lock().unwrap().push(500);
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
                    .into_response();
            }
            answered.lock().unwrap().push(200);
            (
                [("content-type", "application/timestamp-reply")],
                std::fs::read(&reply).unwrap(),
            )
                .into_response()
        }
        let available = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let answered = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let router = axum::Router::new()
            .route("/", axum::routing::post(reply))
            .with_state((path.clone(), available.clone(), answered.clone()));
        let (port, task) = serve_on_loopback(router, "the TSA").await;
        Self {
            port,
            dir,
            available,
            answered,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The root that issued the TSA's certificate, to trust when validating.
    pub fn root_pem(&self) -> String {
        self.dir.path().join("tsa-root.pem").display().to_string()
    }

    pub fn set_available(&self, available: bool) {
        self.available
            .store(available, std::sync::atomic::Ordering::SeqCst);
    }

    /// The HTTP statuses it has answered, in order.
    pub fn answered(&self) -> Vec<u16> {
        self.answered.lock().unwrap().clone()
    }
}

impl Drop for Tsa {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Runs `openssl` in `dir` and asserts that it succeeded.
fn openssl(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl runs (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A self-signed P-256 CA certificate `{stem}.pem` with its key `{stem}.key`, valid 30 days,
/// for key usages `usage` (e.g. `keyCertSign,cRLSign`).
fn openssl_root(dir: &Path, stem: &str, subject: &str, usage: &str) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{stem}.key"),
            "-out",
            &format!("{stem}.pem"),
            "-days",
            "30",
            "-subj",
            subject,
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            &format!("keyUsage=critical,{usage}"),
        ],
    );
}

/// A P-256 key `{stem}.key` (PKCS#8) and a certificate request `{stem}.csr` for `subject`.
fn openssl_key_and_csr(dir: &Path, stem: &str, subject: &str) {
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &format!("{stem}.key"),
            "-out",
            &format!("{stem}.csr"),
            "-subj",
            subject,
        ],
    );
}

/// A small certificate authority with revocation services on loopback, made with OpenSSL's
/// own CA (`openssl ca`): a root, an intermediate CA whose status the root's CRL gives (served
/// at `GET /root.crl`, made afresh by `openssl ca -gencrl` for each request), and a seal
/// certificate whose status the intermediate's OCSP responder gives (`POST /ocsp`, answered
/// by `openssl ocsp -index` for each request). Revoking the seal certificate takes effect at
/// the next request.
pub struct Pki {
    pub dir: tempfile::TempDir,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Pki {
    pub async fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_owned();
        type Shared = (
            std::path::PathBuf,
            std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        );
        async fn answer(
            dir: &Path,
            args: Vec<std::ffi::OsString>,
            out_file: &str,
        ) -> axum::response::Response {
            use axum::response::IntoResponse;
            let out = tokio::process::Command::new("openssl")
                .args(&args)
                .current_dir(dir)
                .output()
                .await
                .unwrap();
            if !out.status.success() {
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
                    .into_response();
            }
            std::fs::read(dir.join(out_file)).unwrap().into_response()
        }
        async fn crl(
            axum::extract::State((dir, asked)): axum::extract::State<Shared>,
        ) -> axum::response::Response {
            asked.lock().unwrap().push("crl".into());
            let name = Uuid::new_v4().simple().to_string();
            let pem = format!("{name}.crl.pem");
            let made = answer(
                &dir,
                ["ca", "-gencrl", "-config", "root.cnf", "-out", &pem]
                    .map(Into::into)
                    .to_vec(),
                &pem,
            )
            .await;
            if !made.status().is_success() {
                return made;
            }
            let der = format!("{name}.crl");
            answer(
                &dir,
                ["crl", "-in", &pem, "-outform", "DER", "-out", &der]
                    .map(Into::into)
                    .to_vec(),
                &der,
            )
            .await
        }
        async fn ocsp(
            axum::extract::State((dir, asked)): axum::extract::State<Shared>,
            body: axum::body::Bytes,
        ) -> axum::response::Response {
            asked.lock().unwrap().push("ocsp".into());
            let name = Uuid::new_v4().simple().to_string();
            let request = format!("{name}.ocsq");
            let response = format!("{name}.ocsr");
            std::fs::write(dir.join(&request), &body).unwrap();
            answer(
                &dir,
                [
                    "ocsp",
                    "-index",
                    "inter-index.txt",
                    "-CA",
                    "inter.pem",
                    "-rsigner",
                    "inter.pem",
                    "-rkey",
                    "inter.key",
                    "-ndays",
                    "1",
                    "-reqin",
                    &request,
                    "-respout",
                    &response,
                ]
                .map(Into::into)
                .to_vec(),
                &response,
            )
            .await
        }
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let router = axum::Router::new()
            .route("/root.crl", axum::routing::get(crl))
            .route("/ocsp", axum::routing::post(ocsp))
            .with_state((path.clone(), asked.clone()));
        let (port, task) = serve_on_loopback(router, "the CA's revocation services").await;

        for ca in ["root", "inter"] {
            std::fs::write(path.join(format!("{ca}-index.txt")), "").unwrap();
            std::fs::write(path.join(format!("{ca}-serial")), "1000\n").unwrap();
            std::fs::write(path.join(format!("{ca}-crlnumber")), "01\n").unwrap();
            std::fs::write(
                path.join(format!("{ca}.cnf")),
                format!(
                    "[ ca ]\ndefault_ca = this\n[ this ]\ndir = {dir}\n\
                     database = $dir/{ca}-index.txt\nnew_certs_dir = $dir\n\
                     serial = $dir/{ca}-serial\ncrlnumber = $dir/{ca}-crlnumber\n\
                     certificate = $dir/{ca}.pem\nprivate_key = $dir/{ca}.key\n\
                     default_md = sha256\ndefault_days = 30\ndefault_crl_days = 7\n\
                     policy = any\nunique_subject = no\n[ any ]\ncommonName = supplied\n\
                     [ intermediate ]\nbasicConstraints = critical,CA:TRUE\n\
                     keyUsage = critical,keyCertSign,cRLSign\n\
                     crlDistributionPoints = URI:http://127.0.0.1:{port}/root.crl\n\
                     [ seal ]\nbasicConstraints = critical,CA:FALSE\n\
                     keyUsage = critical,digitalSignature,nonRepudiation\n\
                     authorityInfoAccess = OCSP;URI:http://127.0.0.1:{port}/ocsp\n",
                    dir = path.display(),
                ),
            )
            .unwrap();
        }
        openssl_root(&path, "root", "/CN=Test CA root", "keyCertSign,cRLSign");
        let issue = |ca: &str, name: &str, extensions: &str| {
            openssl(
                &path,
                &[
                    "ca",
                    "-batch",
                    "-notext",
                    "-config",
                    &format!("{ca}.cnf"),
                    "-extensions",
                    extensions,
                    "-in",
                    &format!("{name}.csr"),
                    "-out",
                    &format!("{name}.pem"),
                ],
            )
        };
        openssl_key_and_csr(&path, "inter", "/CN=Test CA intermediate");
        issue("root", "inter", "intermediate");
        openssl_key_and_csr(&path, "seal", "/CN=Test seal with revocation services");
        issue("inter", "seal", "seal");
        let chain: String = ["seal.pem", "inter.pem", "root.pem"]
            .iter()
            .map(|file| std::fs::read_to_string(path.join(file)).unwrap())
            .collect();
        std::fs::write(path.join("seal-chain.pem"), chain).unwrap();
        Self {
            dir,
            asked,
            task: Some(task),
        }
    }

    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The seal's key (PKCS#8 PEM).
    pub fn seal_key(&self) -> String {
        self.file("seal.key")
    }

    /// The seal's chain, leaf first, root last.
    pub fn seal_chain(&self) -> String {
        self.file("seal-chain.pem")
    }

    pub fn root_pem(&self) -> String {
        self.file("root.pem")
    }

    /// Which services were asked ("ocsp", "crl"), in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }

    /// Revokes the seal certificate in the intermediate's database: its OCSP responder says so
    /// from the next request on.
    pub fn revoke_seal(&self) {
        openssl(
            self.dir.path(),
            &["ca", "-config", "inter.cnf", "-revoke", "seal.pem"],
        );
    }

    /// Takes the services down: what a validator does from now on, it does offline.
    pub fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        self.stop();
    }
}
