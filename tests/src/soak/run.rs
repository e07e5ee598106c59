//! A soak from start to end: the deployment up, load and faults for the time asked, every
//! fault healed, every journey ended, then the checks.

use std::{sync::Arc, time::Instant};

use super::{
    checks, deployment, faults, journeys, mail,
    options::{Latencies, Options, Report},
};

/// Runs a soak and checks it. Panics only when the deployment cannot be set up at all; what
/// goes wrong after that is a violation in the report.
pub async fn run(options: Options) -> Report {
    std::fs::create_dir_all(&options.out_dir).expect("the soak's output directory");
    let started = Instant::now();
    let deployment = Arc::new(deployment::Deployment::start(&options).await);
    let accounts = deployment.accounts(options.accounts).await;
    let latencies = Arc::new(Latencies::default());
    let mailbox = Arc::new(mail::MailIndex::new(deployment.mailbox.dir.path()));
    println!(
        "soak: seed {}, {} s, {} journeys/min, {} accounts, file store {:?}; logs in {}",
        options.seed,
        options.duration.as_secs(),
        options.journeys_per_minute,
        options.accounts,
        options.store,
        options.out_dir.display()
    );

    let injector = faults::Injector::new(deployment.clone(), options.seed, options.fault_interval);
    let injecting = tokio::spawn(injector.clone().run_for(options.duration));
    let load = journeys::Load {
        deployment: deployment.clone(),
        accounts,
        mailbox: mailbox.clone(),
        latencies: latencies.clone(),
        faults: injector.active(),
        options: options.clone(),
    };
    let finished = load.run().await;
    let log = injecting.await.expect("the fault injector");
    let _ = std::fs::write(
        options.out_dir.join("faults.tsv"),
        format!("at_s\tfault\ttarget\tlasted_s\tin_flight\n{}", log.lines()),
    );
    println!(
        "soak: load and faults over after {:.0} s; healing",
        started.elapsed().as_secs_f64()
    );
    deployment.heal().await;
    let mut violations = Vec::new();
    let mut journeys = Vec::new();
    for outcome in finished {
        match outcome {
            Ok(journey) => journeys.push(journey),
            Err(violation) => violations.push(violation),
        }
    }
    let checked = checks::check(&deployment, &journeys, &mailbox, &log, &options).await;
    violations.extend(checked.violations);
    let (p50, p95, p99, max, calls) = latencies.percentiles(true);
    let (q50, q95, q99, qmax, quiet) = latencies.percentiles(false);
    let mut summary = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(
        summary,
        "seed {} · {} s of load · file store {:?} · {} journeys/min · {} accounts",
        options.seed,
        options.duration.as_secs(),
        options.store,
        options.journeys_per_minute,
        options.accounts
    );
    let _ = writeln!(summary, "journeys: {}", checked.journeys);
    let _ = writeln!(summary, "faults: {}", log.summary());
    let _ = writeln!(summary, "deliveries: {}", checked.deliveries);
    let _ = writeln!(
        summary,
        "API latency during faults: p50 {p50:.0} ms, p95 {p95:.0} ms, p99 {p99:.0} ms, max {max:.0} ms ({calls} calls)"
    );
    let _ = writeln!(
        summary,
        "API latency between faults: p50 {q50:.0} ms, p95 {q95:.0} ms, p99 {q99:.0} ms, max {qmax:.0} ms ({quiet} calls)"
    );
    let _ = writeln!(summary, "peak memory: {}", deployment.peak_memory());
    let _ = writeln!(
        summary,
        "took {:.0} s in all; {} violation(s)",
        started.elapsed().as_secs_f64(),
        violations.len()
    );
    for violation in &violations {
        let _ = writeln!(summary, "VIOLATION: {violation}");
    }
    let _ = std::fs::write(options.out_dir.join("summary.txt"), &summary);
    println!("{summary}");
    Report {
        violations,
        summary,
    }
}
