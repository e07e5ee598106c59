//! The kinds of work a worker process can take (`signet-worker --jobs email,webhook`), so that
//! each kind can run on processes of its own and be scaled on its own.
//!
//! One registration path: a job type taken from a queue says its label, concurrency and
//! handler in its `QueuedJob` impl (its queue is `Job::QUEUE`), `JobKind::registration` names
//! the job type of each kind, and `run` builds every worker from that alone.

use signet_common::infra::{
    config::WorkerConcurrency,
    jobs::{CheckCompletion, CreateBulkSend},
};

use crate::{
    jobs::{
        deliver_webhook::DeliverWebhook, dispatch_email::DispatchEmail, dispatch_sms::DispatchSms,
    },
    registration::Registration,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum JobKind {
    /// Invitations and notices over SMTP (`DispatchEmail`): I/O-bound.
    Email,
    /// Completion: the stamped final PDF and certificate (`CheckCompletion`): CPU-bound.
    Completion,
    /// Webhook attempts (`DeliverWebhook`): I/O-bound, at the receivers' pace.
    Webhook,
    /// SMS through the provider (`DispatchSms`): I/O-bound, at the provider's pace.
    Sms,
    /// Bulk sends: each row made into a sent document, in chunks (`CreateBulkSend`):
    /// database-bound.
    Bulk,
    /// The cron sweep: expiry, due reminders, stalled completions queued again, finished jobs
    /// removed.
    Sweep,
}

impl JobKind {
    pub const ALL: [JobKind; 6] = [
        JobKind::Email,
        JobKind::Completion,
        JobKind::Webhook,
        JobKind::Sms,
        JobKind::Bulk,
        JobKind::Sweep,
    ];

    /// The one place that names the job type each kind runs.
    pub fn registration(self) -> Registration {
        match self {
            JobKind::Email => Registration::outbox::<DispatchEmail>(),
            JobKind::Completion => Registration::queued::<CheckCompletion>(),
            JobKind::Webhook => Registration::outbox::<DeliverWebhook>(),
            JobKind::Sms => Registration::outbox::<DispatchSms>(),
            JobKind::Bulk => Registration::queued::<CreateBulkSend>(),
            JobKind::Sweep => Registration::sweep(),
        }
    }

    /// The label of its worker in logs, health answers and `signet_worker_*` metrics, and the
    /// start of its apalis worker names.
    pub fn label(self) -> &'static str {
        self.registration().label
    }

    /// The apalis queue it takes jobs from; the sweep has none (it runs on a schedule).
    pub fn queue(self) -> Option<&'static str> {
        self.registration().queue
    }

    /// How many of its jobs one process runs at once (the sweep runs one at a time).
    pub fn concurrency(self, configured: &WorkerConcurrency) -> usize {
        (self.registration().concurrency)(configured)
    }
}

/// The kinds one process runs: each once, in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobKinds(Vec<JobKind>);

impl JobKinds {
    pub fn all() -> Self {
        Self(JobKind::ALL.to_vec())
    }

    pub fn new(kinds: impl IntoIterator<Item = JobKind>) -> Self {
        let mut kinds: Vec<JobKind> = kinds.into_iter().collect();
        kinds.sort();
        kinds.dedup();
        Self(kinds)
    }

    pub fn contains(&self, kind: JobKind) -> bool {
        self.0.contains(&kind)
    }

    pub fn iter(&self) -> impl Iterator<Item = JobKind> + '_ {
        self.0.iter().copied()
    }

    /// The labels of the kinds that take jobs from a queue (everything but the sweep).
    pub fn queue_labels(&self) -> Vec<&'static str> {
        self.iter()
            .filter(|kind| kind.queue().is_some())
            .map(JobKind::label)
            .collect()
    }

    /// `email,completion`, as `--jobs` takes it.
    pub fn names(&self) -> String {
        self.iter()
            .map(|kind| {
                clap::ValueEnum::to_possible_value(&kind)
                    .expect("every kind has a name")
                    .get_name()
                    .to_owned()
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// `# HELP` lines for the worker's metrics, and its delivery counters at 0 for every label the
/// kinds this process runs can give, so that `increase` and `rate` in alerts see the first
/// failure (a series born at 1 shows no increase).
pub fn describe_metrics(kinds: &JobKinds) {
    use metrics::{counter, describe_counter, describe_gauge, describe_histogram};
    use signet_common::{
        delivery::sms_text::SmsEncoding,
        model::{EmailKind, SmsKind},
    };

    describe_gauge!(
        "signet_jobs_running",
        "Jobs running now in this process, per job type."
    );
    describe_counter!(
        "signet_jobs_total",
        "Jobs finished by this process, per job type and outcome (ok, error)."
    );
    describe_histogram!(
        "signet_job_duration_seconds",
        "How long jobs ran, per job type."
    );
    describe_counter!(
        "signet_emails_total",
        "E-mail attempts, per kind and outcome (sent, retry, failed: for good)."
    );
    describe_counter!(
        "signet_sms_total",
        "SMS attempts, per kind and outcome (sent, retry, failed: for good)."
    );
    describe_counter!(
        "signet_sms_segments_total",
        "Segments of the SMS the provider accepted, per encoding."
    );
    describe_counter!(
        "signet_webhook_attempts_total",
        "Webhook attempts, per outcome (delivered, http_error, connection_error)."
    );
    describe_gauge!(
        "signet_worker_running",
        "1 while the worker of a job type runs in this process, 0 while it is being restarted."
    );
    describe_counter!(
        "signet_worker_restarts_total",
        "Restarts of a job type's worker in this process."
    );
    describe_gauge!(
        "signet_worker_listener_connected",
        "1 while the job listener (LISTEN for new jobs) is connected."
    );
    const SEND_OUTCOMES: [&str; 3] = ["sent", "retry", "failed"];
    if kinds.contains(JobKind::Email) {
        for kind in EmailKind::all() {
            for outcome in SEND_OUTCOMES {
                counter!("signet_emails_total", "kind" => kind.as_str(), "outcome" => outcome)
                    .absolute(0);
            }
        }
    }
    if kinds.contains(JobKind::Sms) {
        for kind in SmsKind::all() {
            for outcome in SEND_OUTCOMES {
                counter!("signet_sms_total", "kind" => kind.as_str(), "outcome" => outcome)
                    .absolute(0);
            }
        }
        for encoding in [SmsEncoding::Gsm7, SmsEncoding::Ucs2] {
            counter!("signet_sms_segments_total", "encoding" => encoding.as_str()).absolute(0);
        }
    }
    if kinds.contains(JobKind::Webhook) {
        for outcome in ["delivered", "http_error", "connection_error"] {
            counter!("signet_webhook_attempts_total", "outcome" => outcome).absolute(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_kept_once_in_order() {
        let kinds = JobKinds::new([JobKind::Webhook, JobKind::Email, JobKind::Webhook]);
        assert_eq!(kinds.names(), "email,webhook");
        assert_eq!(kinds.queue_labels(), ["dispatch-email", "deliver-webhook"]);
        assert_eq!(
            JobKinds::all().names(),
            "email,completion,webhook,sms,bulk,sweep"
        );
        assert!(JobKinds::new([JobKind::Sweep]).queue_labels().is_empty());
    }

    #[test]
    fn every_reported_queue_is_taken_by_one_kind() {
        let queues: Vec<&str> = JobKind::ALL
            .iter()
            .filter_map(|kind| kind.queue())
            .collect();
        assert_eq!(queues, signet_common::infra::jobs::QUEUES);
    }
}
