//! Issue #29: the hostile PDF corpus (`signet_tests::hostile`) thrown at a real `signet-api`
//! (console upload and the anonymous `/verify`) and at a real `signet-worker` (a hostile
//! original reaching completion). Every request is answered with a refusal that says why, the
//! API and the worker stay under 256 MiB because the parsing happens in sandbox children, and
//! `/healthz` and an authenticated list keep answering throughout.

use reqwest::StatusCode;
use signet_tests::{ApiProcess, LETTER, Mailbox, TestApp, WorkerProcess, hostile};

use crate::real_names::send_to;
use crate::security::{Probe, RSS_CAP_KIB, documents_of, peak_rss_kib, peak_rss_kib_of, signed_in};
use crate::signing_flow::{invitations, sign};

/// A file posted to `/verify` as the client at `ip` (the API trusts loopback as a proxy).
async fn verify(base: &str, ip: &str, pdf: &[u8]) -> (StatusCode, String, Option<String>) {
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(pdf.to_vec()).file_name("final.pdf"),
    );
    let response = reqwest::Client::new()
        .post(format!("{base}/verify"))
        .header("x-forwarded-for", ip)
        .multipart(form)
        .send()
        .await
        .expect("an answer");
    let status = response.status();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, response.text().await.unwrap(), retry_after)
}

/// The metric the API keeps of its sandbox children's largest resident size, in MiB.
async fn children_peak_mib(base: &str) -> f64 {
    let metrics = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("signet_pdf_sandbox_child_peak_rss_bytes "))
        .and_then(|value| value.trim().parse::<f64>().ok())
        .map_or(0.0, |bytes| bytes / (1024.0 * 1024.0))
}

fn unescaped(html: &str) -> String {
    html.replace("&#39;", "'").replace("&quot;", "\"")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_hostile_corpus_is_refused_at_upload_and_verify_and_the_api_stays_small() {
    let app = TestApp::spawn().await;
    let api = ApiProcess::start(
        &app,
        &[
            ("TRUSTED_PROXIES", "127.0.0.1"),
            ("VERIFY_PER_CLIENT_PER_MINUTE", "1000"),
        ],
    )
    .await;
    let (_, key) = app.account(100_000).await;
    let (account, mut console) = signed_in(&app, &api).await;
    let corpus = hostile::corpus(&hostile::sealed_sample());

    let probe = Probe::start(&api.base, &key);
    for file in &corpus {
        let csrf = console.csrf().await;
        let upload = console.upload(&csrf, file.bytes.clone()).await;
        let body = unescaped(&upload.body);
        println!("upload {}: {} {}", file.name, upload.status, refusal(&body));
        if file.uploadable {
            assert_eq!(
                upload.status,
                StatusCode::SEE_OTHER,
                "{}: {body}",
                file.name
            );
        } else {
            assert_eq!(
                upload.status,
                StatusCode::BAD_REQUEST,
                "{}: {body}",
                file.name
            );
            assert!(
                body.contains("Cannot upload: the PDF"),
                "{}: {body}",
                file.name
            );
        }

        let (status, page, _) = verify(&api.base, "203.0.113.1", &file.bytes).await;
        let page = unescaped(&page);
        println!("verify {}: {status} {}", file.name, refusal(&page));
        assert_eq!(
            status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{}: {page}",
            file.name
        );
        assert!(
            page.contains("The seal does not hold"),
            "{}: {page}",
            file.name
        );
    }
    let uploadable = corpus.iter().filter(|file| file.uploadable).count();
    assert_eq!(
        documents_of(&app, account).await,
        uploadable as i64,
        "nothing else stored"
    );

    // Ten at once, from ten clients: each is checked or turned away at once, never queued
    // without end. The small ones that cost the most: a turned-away request is answered
    // before its body is read, and a client still writing a large body when the connection
    // closes may see the broken pipe instead of the answer.
    let heaviest = ["xref-fan-out", "object-stream-arrays", "byte-range-prefix"];
    let files: Vec<&Vec<u8>> = corpus
        .iter()
        .filter(|file| heaviest.contains(&file.name))
        .map(|file| &file.bytes)
        .collect();
    let answers = futures::future::join_all((0..10).map(|i| {
        let ip = format!("198.51.100.{}", i + 1);
        let pdf = files[i % files.len()];
        let base = api.base.clone();
        async move { verify(&base, &ip, pdf).await }
    }))
    .await;
    let failed_probes = probe.finish("the hostile corpus", &api).await;
    for (status, page, retry_after) in &answers {
        match *status {
            StatusCode::UNPROCESSABLE_ENTITY => assert!(page.contains("The seal does not hold")),
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(page.contains("Too many files are being checked"));
                assert_eq!(retry_after.as_deref(), Some("5"));
            }
            other => panic!("ten at once: {other} {page}"),
        }
    }
    println!(
        "ten at once: {} checked, {} turned away; sandbox children's peak RSS {:.0} MiB",
        answers
            .iter()
            .filter(|a| a.0 == StatusCode::UNPROCESSABLE_ENTITY)
            .count(),
        answers
            .iter()
            .filter(|a| a.0 == StatusCode::TOO_MANY_REQUESTS)
            .count(),
        children_peak_mib(&api.base).await,
    );
    assert_eq!(
        failed_probes, 0,
        "/healthz and GET /documents kept answering"
    );
    let peak = peak_rss_kib(&api);
    assert!(peak < RSS_CAP_KIB, "API peak RSS {} MiB", peak / 1024);
    // The default address-space limit of a child is 1024 MiB; its resident size is within it.
    assert!(children_peak_mib(&api.base).await <= 1024.0);
}

/// The refusal's sentence, for the printed table.
fn refusal(page: &str) -> String {
    ["Cannot upload: ", "The seal does not hold: "]
        .iter()
        .find_map(|start| {
            let at = page.find(start)?;
            Some(page[at..].split('<').next().unwrap_or_default().to_owned())
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn verify_admits_a_client_at_its_rate_and_refuses_what_is_too_large() {
    let app = TestApp::spawn().await;
    let api = ApiProcess::start(
        &app,
        &[
            ("TRUSTED_PROXIES", "127.0.0.1"),
            ("VERIFY_PER_CLIENT_PER_MINUTE", "3"),
            ("VERIFY_MAX_MIB", "1"),
        ],
    )
    .await;
    let pdf = signet_tests::pdf(&[LETTER]);
    for _ in 0..3 {
        let (status, page, _) = verify(&api.base, "192.0.2.7", &pdf).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{page}");
        assert!(page.contains("it has no signature field"), "{page}");
    }
    let (status, page, retry_after) = verify(&api.base, "192.0.2.7", &pdf).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{page}");
    assert!(
        page.contains("You have checked 3 files in the last minute."),
        "{page}"
    );
    let wait: u64 = retry_after.expect("Retry-After").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Another client, even behind the same proxy, has its own rate.
    let (status, _, _) = verify(&api.base, "192.0.2.8", &pdf).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    // One over VERIFY_MAX_MIB is refused before it is parsed.
    let large = hostile::one_page_with(&[vec![b' '; 1024 * 1024]]);
    let (status, page, _) = verify(&api.base, "192.0.2.9", &large).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{page}");
    assert!(
        page.contains("The file is larger than the 1 MiB this page checks."),
        "{page}"
    );
}

/// A hostile original that was stored before uploads were sandboxed (written into the store
/// here) reaches completion: the worker's sandbox child is stopped by its memory limit, the
/// completion fails and says why in the log, the document stays SENT, and the worker stays
/// small and alive.
#[tokio::test]
async fn a_hostile_original_fails_its_completion_in_the_sandbox_not_the_worker() {
    let app = TestApp::spawn().await;
    let mailbox = Mailbox::start().await;
    let worker = WorkerProcess::start(&app, &mailbox.url(), &[("PDF_SANDBOX_MEMORY_MIB", "512")]);
    let (account, key) = app.account(1000).await;
    let doc = send_to(&app, account, &key, &[("Ana Lima", "ana@signet.test", "x")]).await;
    let file_key: String = sqlx::query_scalar("SELECT file_key FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    app.store()
        .put(&file_key, hostile::plain_arrays(12_000_000).into())
        .await
        .unwrap();

    let links = invitations(&mailbox, 1).await;
    assert_eq!(
        sign(&app, &links["ana@signet.test"], &["Ana Lima", "x"])
            .await
            .0,
        200
    );
    let failure = worker.wait_for_log("completion failed").await;
    assert!(
        failure.contains("needs more than 512 MiB of memory to read")
            || failure.contains("values or nests them"),
        "{failure}"
    );
    let status: String = sqlx::query_scalar("SELECT status::text FROM documents WHERE id = $1")
        .bind(doc)
        .fetch_one(&app.db.pool)
        .await
        .unwrap();
    assert_eq!(
        status, "SENT",
        "nothing was completed from a file that could not be read"
    );
    let peak = peak_rss_kib_of(worker.child.id());
    println!("worker peak RSS {} MiB", peak / 1024);
    assert!(peak < RSS_CAP_KIB, "worker peak RSS {} MiB", peak / 1024);
}
