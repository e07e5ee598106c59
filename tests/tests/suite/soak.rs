//! The soak of issue #36, short: two and a half minutes of journeys under seeded faults on a
//! deployment of the real binaries (S3 store behind a proxy the faults cut), then every
//! invariant checked. `scripts/soak.sh` runs it for as long as asked, with any seed.

use std::time::Duration;

use signet_tests::{
    binary, repo_root,
    soak::{Options, StoreKind, run},
};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_short_soak_under_faults_loses_nothing() {
    let out = tempfile::Builder::new()
        .prefix("signet-soak-")
        .tempdir()
        .expect("a directory for the soak");
    let report = run(Options {
        duration: Duration::from_secs(150),
        seed: 36,
        store: StoreKind::S3,
        journeys_per_minute: 10,
        accounts: 4,
        fault_interval: (4, 12),
        bin_dir: binary("signet-api")
            .parent()
            .expect("the binaries' directory")
            .to_path_buf(),
        repo: repo_root(),
        out_dir: out.path().to_path_buf(),
        memory_limit_mib: 512,
    })
    .await;
    if !report.violations.is_empty() {
        // Keep the logs and PDFs of a failed soak for whoever reads the failure.
        let kept = out.keep();
        panic!(
            "the soak found {} violation(s); logs in {}:\n{}",
            report.violations.len(),
            kept.display(),
            report.summary
        );
    }
}
