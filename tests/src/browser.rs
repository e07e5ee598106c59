//! The browser scripts (tests/browser/*.mjs, Playwright driving headless Chromium): run with
//! the environment a test gives them, they print their findings as their last JSON line.

use std::{ffi::OsStr, path::PathBuf};

use serde_json::Value;

use crate::process::repo_root;

/// One run of a browser script.
pub struct BrowserScript {
    command: tokio::process::Command,
}

impl BrowserScript {
    /// `node tests/browser/{script}`; panics at once when the browser packages are missing.
    pub fn new(script: &str) -> Self {
        let dir = repo_root().join("tests/browser");
        for package in ["playwright-core", "axe-core"] {
            assert!(
                dir.join("node_modules").join(package).exists(),
                "{package} is missing: run `npm ci --prefix tests/browser` (scripts/test.sh does)"
            );
        }
        let mut command = tokio::process::Command::new("node");
        command.arg(dir.join(script)).current_dir(&dir);
        Self { command }
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    /// Runs the script to its end and gives its findings.
    pub async fn findings(mut self) -> Value {
        let output = self
            .command
            .output()
            .await
            .expect("node (scripts/test.sh installs it)");
        browser_findings(&output)
    }
}

/// Where browser tests keep their screenshots (`target/screenshots`), made if need be.
pub fn screenshots_dir() -> PathBuf {
    let shots = repo_root().join("target/screenshots");
    std::fs::create_dir_all(&shots).expect("target/screenshots can be made");
    shots
}

/// The findings a browser script prints as its last JSON line, or a panic showing all it
/// printed.
fn browser_findings(output: &std::process::Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| {
            panic!(
                "no findings from the browser:\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        })
}
