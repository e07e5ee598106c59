//! A real SMTP server on loopback (aiosmtpd) and the e-mails it received.

use crate::{
    eventually::wait_for_matching,
    process::{free_port, signal, wait_for_listener},
};

/// A real SMTP server on loopback (aiosmtpd, from PyPI) delivering into a Maildir.
pub struct Mailbox {
    pub port: u16,
    pub dir: tempfile::TempDir,
    child: std::process::Child,
}

/// One received e-mail, decoded.
#[derive(Debug, Clone)]
pub struct Mail {
    pub message_id: String,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

impl Mail {
    /// A raw message as received, decoded; `None` if it is not one.
    pub(crate) fn parse(raw: &[u8]) -> Option<Self> {
        let parsed = mail_parser::MessageParser::default().parse(raw)?;
        Some(Self {
            message_id: parsed.message_id().unwrap_or_default().to_owned(),
            to: parsed
                .to()
                .and_then(|to| to.first())
                .and_then(|a| a.address())
                .unwrap_or_default()
                .to_owned(),
            subject: parsed.subject().unwrap_or_default().to_owned(),
            text: parsed.body_text(0).unwrap_or_default().into_owned(),
            html: parsed.body_html(0).unwrap_or_default().into_owned(),
        })
    }
}

impl Mailbox {
    pub async fn start() -> Self {
        Self::start_on(free_port()).await
    }

    pub async fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().expect("maildir");
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("maildir");
        }
        let child = std::process::Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            .arg(dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start aiosmtpd (python3 -m pip install aiosmtpd; scripts/test.sh does)");
        wait_for_listener(&format!("aiosmtpd to start on port {port}"), port).await;
        Self { port, dir, child }
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Freezes the server (SIGSTOP): connections are accepted by the kernel but nothing is
    /// answered, so sends in flight hang until `resume`.
    pub fn pause(&self) {
        signal(self.child.id(), "STOP");
    }

    pub fn resume(&self) {
        signal(self.child.id(), "CONT");
    }

    pub fn messages(&self) -> Vec<Mail> {
        let mut mails = Vec::new();
        for sub in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.path().join(sub)) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(raw) = std::fs::read(entry.path()) else {
                    continue;
                };
                if let Some(mail) = Mail::parse(&raw) {
                    mails.push(mail);
                }
            }
        }
        mails
    }

    /// Waits until at least `count` messages matching `filter` arrived; returns them.
    pub async fn wait_for(
        &self,
        count: usize,
        timeout: std::time::Duration,
        filter: impl Fn(&Mail) -> bool,
    ) -> Vec<Mail> {
        wait_for_matching(|| self.messages(), count, timeout, filter).await
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
