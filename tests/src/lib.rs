//! Support for the end-to-end suite: a fresh PostgreSQL database per test (cloned from a
//! migrated template), the real application on a loopback socket, generated PDFs, and the
//! paths of the real binaries.

mod app;
mod binaries;
mod browser;
mod eventually;
mod file_store;
pub mod hostile;
mod http;
mod mailbox;
mod pdfs;
mod pgbouncer;
mod postgres;
mod process;
mod proxy;
mod receiver;
mod sms_provider;
pub mod soak;
mod trust;

pub use app::TestApp;
pub use binaries::{ApiProcess, WorkerProcess};
pub use browser::{BrowserScript, screenshots_dir};
pub use eventually::{
    described_by, eventually, eventually_blocking, poll_until, poll_until_blocking,
};
pub use file_store::{S3Server, TestStore, s3_settings, s3_under_test};
pub use http::{assert_error, read};
pub use mailbox::{Mail, Mailbox};
pub use pdfs::{LETTER, pdf};
pub use pgbouncer::{PGBOUNCER, PgBouncer, Pooling};
pub use postgres::{PgCluster, PgServer, TEST_APPLICATION_NAME, TestDb, admin_options};
pub use process::{binary, fixtures_dir, free_port, repo_root, wait_for_listener};
pub use proxy::TcpProxy;
pub use receiver::{Received, Receiver};
pub use sms_provider::{SmsProvider, TWILIO_SID, TWILIO_TOKEN, Texted};
pub use trust::{Pki, Tsa};
