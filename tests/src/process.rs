//! Processes the tests run: commands, signals, free ports, the built binaries and the
//! repository's paths.

use std::path::{Path, PathBuf};

/// Runs a command to completion; panics with its output if it fails.
pub(crate) fn run(command: &mut std::process::Command) {
    let output = command.output().expect("run a PostgreSQL command");
    assert!(
        output.status.success(),
        "{command:?} failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A built binary of the workspace (`signet-api`, `signet-worker`) in the target directory
/// this test runs from.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    // target/<profile>/deps/<test binary>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile_dir.join(name);
    assert!(
        path.exists(),
        "{} is missing: build the binaries first (`cargo build --workspace --bins`, as scripts/test.sh does)",
        path.display()
    );
    path
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo root")
        .to_path_buf()
}

/// The real-world PDF fixtures, in the repository (`tests/fixtures/pdf`).
pub fn fixtures_dir() -> PathBuf {
    repo_root().join("tests/fixtures/pdf")
}

pub(crate) fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal} {pid}");
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// Waits (15 s at most) until something accepts connections on the loopback `port`: a server
/// the test started, before the test talks to it.
pub async fn wait_for_listener(what: &str, port: u16) {
    crate::eventually::eventually(what, std::time::Duration::from_secs(15), || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
            .map(drop)
    })
    .await;
}
