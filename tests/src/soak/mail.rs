//! The SMTP server's Maildir, read incrementally: each message parsed once however often the
//! journeys look.

use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
    sync::Mutex,
};

/// One received e-mail: what the checks and the signers need of it.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub message_id: String,
    pub to: String,
    /// The signing link it carries, if any.
    pub link: Option<String>,
}

#[derive(Default)]
struct Seen {
    files: HashSet<PathBuf>,
    mails: Vec<Received>,
}

pub(crate) struct MailIndex {
    dir: PathBuf,
    seen: Mutex<Seen>,
}

impl MailIndex {
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            seen: Mutex::default(),
        }
    }

    /// Every message received so far.
    pub(crate) fn all(&self) -> Vec<Received> {
        let mut seen = self.seen.lock().unwrap();
        self.read_new(&mut seen);
        seen.mails.clone()
    }

    fn read_new(&self, seen: &mut Seen) {
        for sub in ["new", "cur"] {
            let Ok(entries) = std::fs::read_dir(self.dir.join(sub)) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if seen.files.contains(&path) {
                    continue;
                }
                let Ok(raw) = std::fs::read(&path) else {
                    continue;
                };
                let Some(mail) = crate::Mail::parse(&raw) else {
                    continue;
                };
                let text = &mail.text;
                let link = text.find("/sign/").and_then(|start| {
                    let begin = text[..start].rfind("http")?;
                    Some(
                        text[begin..]
                            .chars()
                            .take_while(|c| !c.is_whitespace())
                            .collect(),
                    )
                });
                let mail = Received {
                    message_id: mail.message_id.trim_matches(['<', '>']).to_owned(),
                    to: mail.to,
                    link,
                };
                seen.files.insert(path);
                seen.mails.push(mail);
            }
        }
    }

    /// The signing link mailed to `to`, if one has arrived.
    pub(crate) fn link_for(&self, to: &str) -> Option<String> {
        let mut seen = self.seen.lock().unwrap();
        self.read_new(&mut seen);
        seen.mails
            .iter()
            .find(|m| m.to == to && m.link.is_some())
            .and_then(|m| m.link.clone())
    }

    /// How many copies of each Message-ID arrived.
    pub(crate) fn copies(&self) -> HashMap<String, usize> {
        let mut copies = HashMap::new();
        for mail in self.all() {
            *copies.entry(mail.message_id).or_default() += 1;
        }
        copies
    }
}
