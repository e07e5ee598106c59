//! How long the seal takes on a given PDF, for `scripts/bench.sh` (release build):
//! `seal_timing FILE.pdf [RUNS]` renders the final PDF once (no fields, a short certificate),
//! then seals it RUNS times (default 5) with a development seal and prints one JSON line:
//! the pages, the final PDF's size, the render time and the seal's median and slowest times,
//! and the median time of adding long-term validation data after it (a DSS update, PAdES
//! B-LT; with the development seal it holds the certificates only, which costs the same file
//! parse and update as with revocation answers).

use std::time::Instant;

use signet_pdf::{
    Certificate, CertificateRecipient, render_final,
    seal::{SealDetails, SealKey, ValidationPlan, seal},
};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: seal_timing FILE.pdf [RUNS]");
    let runs: usize = args
        .next()
        .map_or(5, |n| n.parse().expect("RUNS is a number"));
    let original = std::fs::read(&path).expect("the PDF");
    let pages = signet_pdf::inspect(&original)
        .expect("a PDF Signet accepts")
        .pages;
    let certificate = Certificate {
        language: Default::default(),
        title: "Benchmark".into(),
        code: "SGN-BENCH".into(),
        document_id: "00000000-0000-7000-8000-000000000000".into(),
        original_sha256: signet_pdf::sha256_hex(&original),
        completed_at: "2026-11-23T06:00:00.000Z".into(),
        recipients: vec![CertificateRecipient {
            name: "Ada Lovelace".into(),
            email: "ada@example.com".into(),
            role: "SIGNER".into(),
            status: "SIGNED".into(),
            viewed_at: None,
            signed_at: Some("2026-11-23T06:00:00.000Z".into()),
            ip_address: None,
            user_agent: None,
            consented_at: None,
            consent_ip: None,
            consent_user_agent: None,
            consent_text: None,
            auth_method: None,
            auth_passed_at: None,
            fields: Vec::new(),
        }],
        audit: Vec::new(),
    };
    let started = Instant::now();
    let rendered = render_final(&original, &[], &certificate).expect("rendered");
    let render_ms = started.elapsed().as_secs_f64() * 1000.0;
    let key = SealKey::development().expect("a development seal");
    let details = SealDetails {
        reason: "Completed in Signet, document SGN-BENCH",
        signing_time: chrono::Utc::now(),
        stamped_sha256: &rendered.stamped_sha256,
    };
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let sealed = seal(&rendered.bytes, &key, &details).expect("sealed");
            std::hint::black_box(sealed);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let sealed = seal(&rendered.bytes, &key, &details).expect("sealed");
    let plan = ValidationPlan::new(&key, None).expect("a plan");
    let mut dss_times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let with_dss = plan.embed(&sealed, &[], chrono::Utc::now()).expect("a DSS");
            std::hint::black_box(with_dss);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    dss_times.sort_by(f64::total_cmp);
    println!(
        "{{\"pages\": {pages}, \"bytes\": {}, \"render_ms\": {render_ms:.1}, \"seal_median_ms\": {:.1}, \"seal_max_ms\": {:.1}, \"dss_median_ms\": {:.1}, \"runs\": {runs}}}",
        rendered.bytes.len(),
        times[times.len() / 2],
        times[times.len() - 1],
        dss_times[dss_times.len() / 2]
    );
}
