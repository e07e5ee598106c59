//! The README's bring-up command, run as a new user would: scripts/up.sh, then every curl
//! command it prints, in order, each answering 200 with code DEFAULT.

use std::process::Command;

use signet_tests::{TestDb, repo_root};

#[tokio::test]
async fn bring_up_prints_curl_commands_that_work() {
    let db = TestDb::new().await;
    let data = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let env = [
        ("DATABASE_URL", db.url()),
        ("SIGNET_DATA_DIR", data.path().display().to_string()),
        ("BIND_ADDR", format!("127.0.0.1:{port}")),
        ("PUBLIC_URL", format!("http://127.0.0.1:{port}")),
    ];
    let up = Command::new("bash")
        .arg(repo_root().join("scripts/up.sh"))
        .current_dir(repo_root())
        .envs(env.clone())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&up.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&up.stderr).into_owned();
    let result = std::panic::catch_unwind(|| {
        assert!(up.status.success(), "scripts/up.sh failed:\n{stderr}");
        assert!(stdout.contains("API key:     sk_"), "{stdout}");
        let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("curl ")).collect();
        assert_eq!(commands.len(), 6, "{stdout}");
        for command in commands {
            let output = Command::new("bash").args(["-c", command]).output().unwrap();
            let body = String::from_utf8_lossy(&output.stdout);
            let json: serde_json::Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("{command}\nanswered non-JSON ({e}): {body}"));
            assert_eq!(json["code"], "DEFAULT", "{command}\nanswered {json}");
        }
    });
    let down = Command::new("bash")
        .arg(repo_root().join("scripts/down.sh"))
        .current_dir(repo_root())
        .envs(env)
        .output()
        .unwrap();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    assert!(
        down.status.success(),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
}
