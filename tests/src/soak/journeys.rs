//! The load: complete journeys at a steady rate, each from a script drawn from the seed —
//! upload, recipients, fields, send, then signed to completion, declined, cancelled or left to
//! expire — driven as an integrator and signers would drive them, retrying what a fault
//! interrupted (writes with the same `Idempotency-Key`).

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use chrono::Utc;
use rand::{Rng, SeedableRng, rngs::StdRng, seq::IndexedRandom};
use serde_json::{Value, json};
use signet_common::model::AccountId;
use uuid::Uuid;

use super::{
    deployment::Deployment,
    mail::MailIndex,
    options::{Latencies, Options},
};

/// How a journey is meant to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Ending {
    Completed,
    Declined,
    Cancelled,
    Expired,
}

impl Ending {
    pub(crate) fn status(self) -> &'static str {
        match self {
            Self::Completed => "COMPLETED",
            Self::Declined => "DECLINED",
            Self::Cancelled => "CANCELLED",
            Self::Expired => "EXPIRED",
        }
    }

    pub(crate) fn event(self) -> &'static str {
        match self {
            Self::Completed => "document.completed",
            Self::Declined => "document.declined",
            Self::Cancelled => "document.cancelled",
            Self::Expired => "document.expired",
        }
    }
}

/// People in many scripts and with punctuation, each with the text they type.
const PEOPLE: [(&str, &str); 12] = [
    ("O'Brien, \"Bob\"", "Approved"),
    ("Legal team (legal@acme)", "Reviewed; no changes"),
    ("José Müller; CFO", "Genehmigt: Größe"),
    ("Zoë Ærøskøbing-Łukasiewicz", "Zatwierdzono"),
    ("王芳", "同意"),
    ("Юлия Соколова", "Согласовано"),
    ("محمد الأحمد", "موافق"),
    ("דוד כהן", "מאושר"),
    ("प्रिया शर्मा", "स्वीकृत"),
    ("Ελένη Παπαδοπούλου", "Εγκρίθηκε"),
    ("김민준 <admin> [CEO]", "승인"),
    ("山田 さくら 🌸", "承認"),
];

/// Real PDFs of several producers (`tests/fixtures/pdf`).
const PDFS: [&str; 7] = [
    "minimal-document.pdf",
    "002-trivial-libre-office-writer.pdf",
    "pdflatex-4-pages.pdf",
    "pdflatex-forms.pdf",
    "habibi-rotated.pdf",
    "crazyones-pdfa.pdf",
    "annotated_pdf.pdf",
];

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Person {
    pub name: String,
    pub email: String,
    /// E.164, when the person has a phone number.
    pub phone: Option<String>,
    pub signer: bool,
    /// Signing-order group (1 when the journey has no order).
    pub group: i32,
    /// What they type in their TEXT field.
    pub value: String,
}

/// A journey as scripted and as it went.
#[derive(Debug, Clone)]
pub(crate) struct Journey {
    pub number: usize,
    pub document: Uuid,
    pub ending: Ending,
    pub people: Vec<Person>,
    /// The owner asked for reminders now (`POST …/remind`) before anyone signed.
    pub reminded: bool,
    pub final_pdf: Option<PathBuf>,
}

impl Journey {
    /// The people told of the document: everyone, or the first group when it ended before
    /// the others were reached.
    pub(crate) fn invited(&self) -> impl Iterator<Item = &Person> {
        let first = self.people.iter().map(|p| p.group).min().unwrap_or(1);
        self.people
            .iter()
            .filter(move |p| self.ending == Ending::Completed || p.group == first)
    }

    /// The signer who declines (the first of the first group).
    pub(crate) fn decliner(&self) -> Option<&Person> {
        (self.ending == Ending::Declined)
            .then(|| self.invited().find(|p| p.signer))
            .flatten()
    }
}

pub(crate) struct Load {
    pub deployment: Arc<Deployment>,
    pub accounts: Vec<(AccountId, String)>,
    pub mailbox: Arc<MailIndex>,
    pub latencies: Arc<Latencies>,
    pub faults: Arc<AtomicUsize>,
    pub options: Options,
}

/// A wait past this is a journey stuck.
const STEP_DEADLINE: Duration = Duration::from_secs(900);

impl Load {
    /// Starts journeys at the rate asked for the soak's duration; each journey's outcome once
    /// all have ended (a violation when one could not reach its ending).
    pub(crate) async fn run(self) -> Vec<Result<Journey, String>> {
        let load = Arc::new(self);
        let every = Duration::from_secs_f64(60.0 / f64::from(load.options.journeys_per_minute));
        let started = Instant::now();
        let mut running = Vec::new();
        let mut number = 0;
        while started.elapsed() < load.options.duration {
            let load = load.clone();
            running.push(tokio::spawn(async move { load.journey(number).await }));
            number += 1;
            tokio::time::sleep(every).await;
        }
        let mut outcomes = Vec::new();
        for journey in running {
            outcomes.push(
                journey
                    .await
                    .unwrap_or_else(|e| Err(format!("a journey panicked: {e}"))),
            );
        }
        outcomes
    }

    fn script(&self, number: usize) -> (Journey, String) {
        let mut rng =
            StdRng::seed_from_u64(self.options.seed.wrapping_mul(1_000_003) + number as u64);
        let ending = match rng.random_range(0..100) {
            0..55 => Ending::Completed,
            55..70 => Ending::Declined,
            70..85 => Ending::Cancelled,
            _ => Ending::Expired,
        };
        let signers = rng.random_range(1..=3);
        let viewer = rng.random_bool(0.3);
        let ordered = signers > 1 && rng.random_bool(0.4);
        let people = (0..signers + usize::from(viewer))
            .map(|i| {
                let (name, value) = PEOPLE.choose(&mut rng).expect("people");
                let signer = i < signers;
                Person {
                    name: (*name).to_owned(),
                    email: format!("j{number}-{i}@soak.signet.test"),
                    phone: rng
                        .random_bool(0.3)
                        .then(|| format!("+447911{:06}", number * 10 + i)),
                    signer,
                    group: if ordered && signer {
                        i32::try_from(i).unwrap_or(0) + 1
                    } else {
                        1
                    },
                    value: (*value).to_owned(),
                }
            })
            .collect();
        let pdf = *PDFS.choose(&mut rng).expect("a PDF");
        (
            Journey {
                number,
                document: Uuid::nil(),
                ending,
                people,
                reminded: ending == Ending::Completed && signers > 1 && rng.random_bool(0.3),
                final_pdf: None,
            },
            pdf.to_owned(),
        )
    }

    async fn journey(&self, number: usize) -> Result<Journey, String> {
        let (mut journey, pdf) = self.script(number);
        let key = self.accounts[number % self.accounts.len()].1.clone();
        let client = Client {
            load: self,
            key,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client"),
        };
        // What a failed step reports: the journey, its script and the step.
        let ending = journey.ending;
        let at = |step: &'static str| {
            let pdf = pdf.clone();
            move |e: String| format!("journey {number} ({ending:?}, {pdf}): {step}: {e}")
        };
        let account = self.accounts[number % self.accounts.len()].0;
        let file = self.options.repo.join("tests/fixtures/pdf").join(&pdf);
        let title = format!("Soak journey {number} — {pdf}");
        let uploading = Instant::now();
        journey.document = loop {
            match self.deployment.upload(account, &file, &title).await {
                Ok(id) => break id,
                // The database or the store is down: an operator runs the command again.
                Err(e) if uploading.elapsed() < STEP_DEADLINE => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
                Err(e) => return Err(at("upload")(e)),
            }
        };
        let doc = journey.document;
        let recipients: Vec<Value> = journey
            .people
            .iter()
            .map(|p| {
                let mut r = json!({
                    "name": p.name,
                    "email": p.email,
                    "role": if p.signer { "SIGNER" } else { "VIEWER" },
                    "signingOrder": p.group,
                });
                if let Some(phone) = &p.phone {
                    r["countryCode"] = json!("+44");
                    r["phoneNumber"] = json!(format!("0{}", &phone[3..]));
                }
                r
            })
            .collect();
        client
            .write(&format!("/documents/{doc}/recipients"), json!(recipients))
            .await
            .map_err(at("recipients"))?;
        let fields: Vec<Value> = journey
            .people
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                let y = 40 + 60 * i;
                let text = json!({"recipientEmail": p.email, "type": "TEXT", "page": 1, "x": 290, "y": y, "width": 260, "height": 28});
                if p.signer {
                    vec![
                        json!({"recipientEmail": p.email, "type": "SIGNATURE", "page": 1, "x": 36, "y": y, "width": 220, "height": 28}),
                        text,
                    ]
                } else {
                    // Every recipient needs a field; a viewer's is never filled.
                    vec![text]
                }
            })
            .collect();
        client
            .write(&format!("/documents/{doc}/fields"), json!(fields))
            .await
            .map_err(at("fields"))?;
        let expiry = if journey.ending == Ending::Expired {
            Utc::now() + chrono::Duration::seconds(150)
        } else {
            Utc::now() + chrono::Duration::days(30)
        };
        let mut send = json!({
            "message": format!("Please sign — journey {number}"),
            "description": "Soak",
            "expiryDate": expiry.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        });
        if journey.reminded {
            send["reminders"] = json!({"enabled": true, "firstAfterDays": 1, "everyDays": 1});
        }
        client
            .write(&format!("/documents/{doc}/send"), send)
            .await
            .map_err(at("send"))?;

        let first_group: Vec<Person> = journey.invited().cloned().collect();
        match journey.ending {
            Ending::Completed => {
                if journey.reminded {
                    client
                        .write(&format!("/documents/{doc}/remind"), json!({}))
                        .await
                        .map_err(at("remind"))?;
                }
                let mut groups: Vec<i32> = journey.people.iter().map(|p| p.group).collect();
                groups.sort_unstable();
                groups.dedup();
                for group in groups {
                    // Viewers open their link first: once the last signer has signed, an
                    // invitation still waiting out an SMTP outage is withdrawn, and a viewer
                    // would wait for a link that no longer comes.
                    let mut people: Vec<&Person> =
                        journey.people.iter().filter(|p| p.group == group).collect();
                    people.sort_by_key(|p| p.signer);
                    for person in people {
                        let link = self.link(&person.email).await.map_err(at("invitation"))?;
                        client.open(&link).await.map_err(at("open"))?;
                        if person.signer {
                            client.sign(&link, person).await.map_err(at("sign"))?;
                        }
                    }
                }
                let detail = client
                    .wait_for_status(doc, Ending::Completed)
                    .await
                    .map_err(at("completion"))?;
                let pdf = client.download(&detail).await.map_err(at("download"))?;
                let path = self
                    .options
                    .out_dir
                    .join(format!("final-{number}-{doc}.pdf"));
                std::fs::write(&path, pdf).map_err(|e| at("keep the final PDF")(e.to_string()))?;
                journey.final_pdf = Some(path);
            }
            Ending::Declined => {
                let person = journey.decliner().cloned().expect("a signer");
                let link = self.link(&person.email).await.map_err(at("invitation"))?;
                client.open(&link).await.map_err(at("open"))?;
                client
                    .signer_action(
                        &link,
                        "decline",
                        json!({"reason": "Wrong address — «ändern»"}),
                    )
                    .await
                    .map_err(at("decline"))?;
                client
                    .wait_for_status(doc, Ending::Declined)
                    .await
                    .map_err(at("declined"))?;
            }
            Ending::Cancelled => {
                // Cancelled once the first invitation is out, so there is someone to tell.
                self.link(&first_group[0].email)
                    .await
                    .map_err(at("invitation"))?;
                client
                    .write(
                        &format!("/documents/{doc}/cancel"),
                        json!({"reason": "Superseded by v2"}),
                    )
                    .await
                    .map_err(at("cancel"))?;
                client
                    .wait_for_status(doc, Ending::Cancelled)
                    .await
                    .map_err(at("cancelled"))?;
            }
            Ending::Expired => {
                client
                    .wait_for_status(doc, Ending::Expired)
                    .await
                    .map_err(at("expiry"))?;
            }
        }
        Ok(journey)
    }

    /// The signing link mailed to `email`, once it has arrived.
    async fn link(&self, email: &str) -> Result<String, String> {
        let started = Instant::now();
        loop {
            if let Some(link) = self.mailbox.link_for(email) {
                return Ok(link);
            }
            if started.elapsed() > STEP_DEADLINE {
                return Err(format!(
                    "no invitation reached {email} in {STEP_DEADLINE:?}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

struct Client<'a> {
    load: &'a Load,
    key: String,
    http: reqwest::Client,
}

/// An answer worth retrying: no answer, the service unavailable, or told to slow down.
fn retryable(status: u16) -> bool {
    status == 429 || status == 408 || status >= 500
}

impl Client<'_> {
    /// One of the APIs, in turn (a load balancer's round robin).
    fn base(&self, attempt: usize) -> &str {
        let bases = &self.load.deployment.api_bases;
        &bases[attempt % bases.len()]
    }

    /// A request, retried until it gets an answer that is not a retryable failure: its
    /// status, its JSON body, and whether an earlier attempt may have been carried out
    /// without its answer arriving.
    async fn request(
        &self,
        build: impl Fn(&str) -> reqwest::RequestBuilder,
    ) -> Result<(u16, Value, bool), String> {
        let started = Instant::now();
        let mut ambiguous = false;
        let mut last = String::new();
        for attempt in 0.. {
            if started.elapsed() > STEP_DEADLINE {
                return Err(format!("no answer in {STEP_DEADLINE:?}; last: {last}"));
            }
            let during_fault = self.load.faults.load(Ordering::SeqCst) > 0;
            let sent = Instant::now();
            match build(self.base(attempt)).send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    self.load.latencies.record(
                        sent.elapsed(),
                        during_fault || self.load.faults.load(Ordering::SeqCst) > 0,
                    );
                    let body: Value = response.json().await.unwrap_or(Value::Null);
                    if !retryable(status) {
                        return Ok((status, body, ambiguous));
                    }
                    last = format!("{status} {body}");
                }
                Err(e) => {
                    // A request that was written may have been carried out.
                    ambiguous |= !e.is_connect();
                    last = e.to_string();
                }
            }
            tokio::time::sleep(Duration::from_millis(500 + 250 * (attempt as u64 % 8))).await;
        }
        unreachable!()
    }

    /// A write of the external API, retried with one `Idempotency-Key`; its answer if 200.
    /// A `409` saying the first attempt with the key is still being processed (its answer was
    /// lost, and it still runs, on a busy machine) is retried after its `Retry-After`, as
    /// docs/api.md tells integrators to.
    async fn write(&self, path: &str, body: Value) -> Result<Value, String> {
        let idempotency_key = Uuid::new_v4().to_string();
        let started = Instant::now();
        loop {
            let (status, answer, _) = self
                .request(|base| {
                    self.http
                        .post(format!("{base}/external/api/v1{path}"))
                        .header("X-API-KEY", &self.key)
                        .header("Idempotency-Key", &idempotency_key)
                        .json(&body)
                })
                .await?;
            let in_flight = status == 409
                && answer["message"]
                    == "A request with this Idempotency-Key is still being processed";
            if in_flight && started.elapsed() < STEP_DEADLINE {
                // The API's Retry-After for this answer.
                tokio::time::sleep(Duration::from_secs(2)).await;
                continue;
            }
            return if status == 200 {
                Ok(answer)
            } else {
                Err(format!("POST {path}: {status} {answer}"))
            };
        }
    }

    /// The link on the API this attempt goes to.
    fn on(&self, link: &str, base: &str) -> String {
        let path = link.find("/sign/").map_or(link, |at| &link[at..]);
        format!("{base}{path}")
    }

    /// Opens the signing page and its session (a view, once).
    async fn open(&self, link: &str) -> Result<(), String> {
        let (status, body, _) = self
            .request(|base| self.http.get(format!("{}/session", self.on(link, base))))
            .await?;
        if status == 200 {
            Ok(())
        } else {
            Err(format!("session: {status} {body}"))
        }
    }

    /// A signer's POST; a 409 after an attempt whose answer was lost is that attempt's success.
    async fn signer_action(&self, link: &str, action: &str, body: Value) -> Result<(), String> {
        let (status, answer, ambiguous) = self
            .request(|base| {
                self.http
                    .post(format!("{}/{action}", self.on(link, base)))
                    .json(&body)
            })
            .await?;
        if status == 200 || (ambiguous && status == 409) {
            Ok(())
        } else {
            Err(format!("{action}: {status} {answer}"))
        }
    }

    async fn sign(&self, link: &str, person: &Person) -> Result<(), String> {
        let (status, session, _) = self
            .request(|base| self.http.get(format!("{}/session", self.on(link, base))))
            .await?;
        if status != 200 {
            return Err(format!("session: {status} {session}"));
        }
        let session = &session["data"];
        if session["recipient"]["consentedAt"].is_null() {
            self.signer_action(link, "consent", json!({"language": "en"}))
                .await?;
        }
        let fields: Vec<Value> = session["fields"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|f| {
                let value = if f["type"] == "SIGNATURE" {
                    &person.name
                } else {
                    &person.value
                };
                json!({"id": f["id"], "value": value})
            })
            .collect();
        self.signer_action(link, "submit", json!({"fields": fields}))
            .await
    }

    /// Polls the document until it has the ending's status; its detail.
    async fn wait_for_status(&self, doc: Uuid, ending: Ending) -> Result<Value, String> {
        let started = Instant::now();
        loop {
            let (status, detail, _) = self
                .request(|base| {
                    self.http
                        .get(format!("{base}/external/api/v1/documents/{doc}"))
                        .header("X-API-KEY", &self.key)
                })
                .await?;
            let now = detail["data"]["status"].as_str().unwrap_or_default();
            if status == 200 && now == ending.status() {
                return Ok(detail["data"].clone());
            }
            if ["COMPLETED", "DECLINED", "CANCELLED", "EXPIRED"].contains(&now) {
                return Err(format!("ended {now}, not {}", ending.status()));
            }
            if started.elapsed() > STEP_DEADLINE {
                return Err(format!("still {now} after {STEP_DEADLINE:?}"));
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// The final PDF, by the detail's link (on whichever API answers).
    async fn download(&self, detail: &Value) -> Result<Vec<u8>, String> {
        let link = detail["filePath"].as_str().ok_or("no filePath")?.to_owned();
        let path = link
            .find("/files/")
            .map_or(link.as_str(), |at| &link[at..])
            .to_owned();
        let started = Instant::now();
        for attempt in 0usize.. {
            if let Ok(response) = self
                .http
                .get(format!("{}{path}", self.base(attempt)))
                .send()
                .await
                && response.status() == 200
                && let Ok(bytes) = response.bytes().await
            {
                return Ok(bytes.to_vec());
            }
            if started.elapsed() > STEP_DEADLINE {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        Err(format!("{path} did not download"))
    }
}
