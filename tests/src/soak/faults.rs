//! The fault injector: on a schedule drawn from the seed, faults start at random intervals and
//! overlap; each heals itself when its time is up. Every fault is logged with what was in
//! flight when it struck, which bounds the duplicates it may cause.

use std::{
    collections::{BTreeMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use rand::{Rng, SeedableRng, rngs::StdRng};
use uuid::Uuid;

use super::deployment::Deployment;

/// One injected fault.
#[derive(Debug, Clone)]
pub(crate) struct Injected {
    pub at: Duration,
    pub kind: &'static str,
    pub target: String,
    pub lasted: Duration,
    /// Outbox rows leased (being sent) at some point while it lasted.
    pub in_flight: i64,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct FaultLog {
    pub injected: Vec<Injected>,
}

impl FaultLog {
    pub(crate) fn summary(&self) -> String {
        let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for fault in &self.injected {
            *by_kind.entry(fault.kind).or_default() += 1;
        }
        format!(
            "{} injected ({})",
            self.injected.len(),
            by_kind
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// One line per fault: when it struck (seconds into the soak), what, on which target, for
    /// how long, with how many messages in flight.
    pub(crate) fn lines(&self) -> String {
        self.injected
            .iter()
            .map(|f| {
                format!(
                    "{:.1}\t{}\t{}\t{:.1}\t{}\n",
                    f.at.as_secs_f64(),
                    f.kind,
                    f.target,
                    f.lasted.as_secs_f64(),
                    f.in_flight
                )
            })
            .collect()
    }

    /// Messages in flight at every fault: the most duplicates the faults may have caused.
    pub(crate) fn in_flight(&self) -> i64 {
        self.injected.iter().map(|f| f.in_flight).sum()
    }
}

#[derive(Debug, Clone, Copy)]
enum Peer {
    Smtp,
    Sms,
    Webhooks,
    FileStore,
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    KillApi(usize),
    KillWorker(usize),
    /// SIGSTOP past the lease (three heartbeats of a second), then SIGCONT.
    PauseWorker(usize),
    RestartDatabase {
        immediate: bool,
    },
    /// Connections refused (the proxy in front closed).
    Stop(Peer),
    /// Requests accepted and never answered until the fault ends.
    Hang(Peer),
    /// The next requests answered 500.
    Answer500(Peer),
}

impl Fault {
    fn kind(self) -> &'static str {
        match self {
            Self::KillApi(_) => "kill-api",
            Self::KillWorker(_) => "kill-worker",
            Self::PauseWorker(_) => "pause-worker",
            Self::RestartDatabase { immediate: false } => "restart-postgres-fast",
            Self::RestartDatabase { immediate: true } => "restart-postgres-immediate",
            Self::Stop(Peer::Smtp) => "stop-smtp",
            Self::Stop(Peer::Sms) => "stop-sms",
            Self::Stop(Peer::Webhooks) => "stop-webhooks",
            Self::Stop(Peer::FileStore) => "stop-file-store",
            Self::Hang(Peer::Smtp) => "hang-smtp",
            Self::Hang(Peer::Sms) => "hang-sms",
            Self::Hang(_) => "hang-webhooks",
            Self::Answer500(Peer::Sms) => "500-sms",
            Self::Answer500(_) => "500-webhooks",
        }
    }

    /// What it holds: two faults on one target never overlap.
    fn target(self, deployment: &Deployment) -> String {
        match self {
            Self::KillApi(i) => deployment.apis[i].name.clone(),
            Self::KillWorker(i) | Self::PauseWorker(i) => deployment.workers[i].name.clone(),
            Self::RestartDatabase { .. } => "postgres".into(),
            Self::Stop(peer) | Self::Hang(peer) | Self::Answer500(peer) => format!("{peer:?}"),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Injector {
    deployment: Arc<Deployment>,
    rng: Arc<Mutex<StdRng>>,
    interval: (u64, u64),
    active: Arc<AtomicUsize>,
    busy: Arc<Mutex<HashSet<String>>>,
    log: Arc<Mutex<FaultLog>>,
}

impl Injector {
    pub(crate) fn new(deployment: Arc<Deployment>, seed: u64, interval: (u64, u64)) -> Self {
        Self {
            deployment,
            rng: Arc::new(Mutex::new(StdRng::seed_from_u64(seed))),
            interval,
            active: Arc::default(),
            busy: Arc::default(),
            log: Arc::default(),
        }
    }

    /// How many faults are active right now (the load's latencies are split by it).
    pub(crate) fn active(&self) -> Arc<AtomicUsize> {
        self.active.clone()
    }

    /// Injects faults for `duration`, then waits for each to heal; the log of what was done.
    pub(crate) async fn run_for(self, duration: Duration) -> FaultLog {
        let started = Instant::now();
        let mut running = Vec::new();
        loop {
            let wait = {
                let mut rng = self.rng.lock().unwrap();
                Duration::from_secs(rng.random_range(self.interval.0..=self.interval.1))
            };
            tokio::time::sleep(wait).await;
            if started.elapsed() >= duration {
                break;
            }
            let Some((fault, lasts)) = self.draw() else {
                continue;
            };
            let injector = self.clone();
            let at = started.elapsed();
            running.push(tokio::spawn(async move {
                injector.inject(fault, lasts, at).await;
            }));
        }
        for fault in running {
            let _ = fault.await;
        }
        self.log.lock().unwrap().clone()
    }

    /// The next fault and how long it lasts, on a target no other fault holds.
    fn draw(&self) -> Option<(Fault, Duration)> {
        let deployment = &self.deployment;
        let mut rng = self.rng.lock().unwrap();
        let workers = deployment.workers.len();
        let apis = deployment.apis.len();
        let fault = match rng.random_range(0..100) {
            0..18 => Fault::KillWorker(rng.random_range(0..workers)),
            18..30 => Fault::KillApi(rng.random_range(0..apis)),
            30..40 => Fault::PauseWorker(rng.random_range(0..workers)),
            40..46 => Fault::RestartDatabase { immediate: false },
            46..52 => Fault::RestartDatabase { immediate: true },
            52..60 => Fault::Stop(Peer::Smtp),
            60..66 => Fault::Stop(Peer::Sms),
            66..72 => Fault::Stop(Peer::Webhooks),
            72..80 if deployment.s3_proxy.is_some() => Fault::Stop(Peer::FileStore),
            72..80 => Fault::Hang(Peer::Smtp),
            80..85 => Fault::Hang(Peer::Smtp),
            85..89 => Fault::Hang(Peer::Sms),
            89..93 => Fault::Hang(Peer::Webhooks),
            93..97 => Fault::Answer500(Peer::Webhooks),
            _ => Fault::Answer500(Peer::Sms),
        };
        let lasts = Duration::from_secs(match fault {
            Fault::KillApi(_) | Fault::KillWorker(_) => rng.random_range(1..=5),
            Fault::PauseWorker(_) => rng.random_range(5..=15),
            Fault::RestartDatabase { .. } => rng.random_range(2..=10),
            Fault::Stop(_) | Fault::Hang(_) => rng.random_range(10..=60),
            Fault::Answer500(_) => rng.random_range(10..=30),
        });
        drop(rng);
        let target = fault.target(deployment);
        self.busy
            .lock()
            .unwrap()
            .insert(target)
            .then_some((fault, lasts))
    }

    /// The outbox rows leased (being sent) right now; none while the database is down.
    async fn leased(&self) -> Vec<Uuid> {
        let leased = tokio::time::timeout(
            Duration::from_secs(1),
            sqlx::query_scalar::<_, Uuid>(
                "SELECT id FROM outbound_emails
                 WHERE status = 'PENDING' AND lease_owner IS NOT NULL AND due_at > now()
                 UNION ALL SELECT id FROM outbound_sms
                 WHERE status = 'PENDING' AND lease_owner IS NOT NULL AND due_at > now()
                 UNION ALL SELECT id FROM webhook_deliveries
                 WHERE status = 'PENDING' AND lease_owner IS NOT NULL AND due_at > now()",
            )
            .fetch_all(&self.deployment.db.pool),
        )
        .await;
        leased.ok().and_then(Result::ok).unwrap_or_default()
    }

    /// Samples the leased rows every half second until `done`: every message in flight at
    /// some point of a fault, which the fault may have made go twice.
    fn watch_in_flight(
        &self,
        done: tokio::sync::watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<HashSet<Uuid>> {
        let injector = self.clone();
        let mut done = done;
        tokio::spawn(async move {
            let mut seen = HashSet::new();
            loop {
                seen.extend(injector.leased().await);
                tokio::select! {
                    _ = done.wait_for(|d| *d) => break,
                    () = tokio::time::sleep(Duration::from_millis(500)) => {}
                }
            }
            seen.extend(injector.leased().await);
            seen
        })
    }

    fn proxy(&self, peer: Peer) -> &crate::TcpProxy {
        let deployment = &self.deployment;
        match peer {
            Peer::Smtp => &deployment.smtp_proxy,
            Peer::Sms => &deployment.sms_proxy,
            Peer::Webhooks => &deployment.hooks_proxy,
            Peer::FileStore => deployment.s3_proxy.as_ref().expect("an S3 store"),
        }
    }

    async fn inject(&self, fault: Fault, lasts: Duration, at: Duration) {
        let deployment = &self.deployment;
        let target = fault.target(deployment);
        let (ended, done) = tokio::sync::watch::channel(false);
        let watching = self.watch_in_flight(done);
        // The first sample is taken before the fault strikes.
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.active.fetch_add(1, Ordering::SeqCst);
        let began = Instant::now();
        match fault {
            Fault::KillApi(i) => {
                deployment.apis[i].kill();
                tokio::time::sleep(lasts).await;
                deployment.apis[i].start();
            }
            Fault::KillWorker(i) => {
                deployment.workers[i].kill();
                tokio::time::sleep(lasts).await;
                deployment.workers[i].start();
            }
            Fault::PauseWorker(i) => {
                deployment.workers[i].signal("STOP");
                tokio::time::sleep(lasts).await;
                deployment.workers[i].signal("CONT");
            }
            Fault::RestartDatabase { immediate } => {
                let cluster = &deployment.cluster;
                tokio::task::block_in_place(|| {
                    if immediate {
                        cluster.stop_immediately();
                    } else {
                        cluster.stop();
                    }
                });
                deployment
                    .database_up
                    .store(false, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(lasts).await;
                tokio::task::block_in_place(|| cluster.start_again());
                deployment
                    .database_up
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
            Fault::Stop(peer) => {
                let proxy = self.proxy(peer);
                proxy.cut().await;
                tokio::time::sleep(lasts).await;
                proxy.restore().await;
            }
            Fault::Hang(Peer::Smtp) => {
                // The server itself frozen mid-conversation.
                deployment.mailbox.pause();
                tokio::time::sleep(lasts).await;
                deployment.mailbox.resume();
            }
            Fault::Hang(peer) => {
                // Connections accepted, requests swallowed, nothing answered.
                let proxy = self.proxy(peer);
                proxy.hang().await;
                tokio::time::sleep(lasts).await;
                proxy.cut().await;
                proxy.restore().await;
            }
            Fault::Answer500(peer) => {
                // A burst of 500s, as many as a busy receiver would fail in `lasts`.
                let burst = vec![500; usize::try_from(lasts.as_secs()).unwrap_or(10) * 2];
                match peer {
                    Peer::Sms => deployment.sms.respond_with(&burst),
                    _ => deployment.hooks.respond_with(&burst),
                }
                tokio::time::sleep(lasts).await;
            }
        }
        self.active.fetch_sub(1, Ordering::SeqCst);
        // Sends a fault interrupted end with its last sample: a lease outlives them by design.
        tokio::time::sleep(Duration::from_secs(1)).await;
        ended.send_replace(true);
        let in_flight = watching.await.map_or(0, |seen| seen.len());
        let in_flight = i64::try_from(in_flight).unwrap_or(i64::MAX);
        self.busy.lock().unwrap().remove(&target);
        self.log.lock().unwrap().injected.push(Injected {
            at,
            kind: fault.kind(),
            target,
            lasted: began.elapsed(),
            in_flight,
        });
    }
}
