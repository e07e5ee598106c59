//! One retry policy for everything the worker sends, and what a send came to: a schedule of waits, one per failed
//! attempt (`EMAIL_RETRY_SCHEDULE`, `WEBHOOK_RETRY_SCHEDULE`), each drawn within ±10 % so that
//! attempts that failed together do not all come back at the same moment.

use std::time::Duration;

use rand::Rng;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    schedule: Vec<Duration>,
}

impl RetryPolicy {
    /// `schedule[n - 1]` is the wait after failed attempt `n`; once it is used up, give up.
    pub fn new(schedule: Vec<Duration>) -> Self {
        Self { schedule }
    }

    /// The wait before trying again after failed attempt `n` (counted from 1, as the outbox and
    /// delivery rows count attempts), with jitter; `None` when the schedule is used up: give up.
    pub fn after_failed_attempt(&self, n: i32) -> Option<Duration> {
        self.scheduled(n).map(jitter)
    }

    /// The wait the schedule names after failed attempt `n`, before jitter.
    pub fn scheduled(&self, n: i32) -> Option<Duration> {
        let index = usize::try_from(n).ok()?.checked_sub(1)?;
        self.schedule.get(index).copied()
    }
}

/// `delay`, give or take 10 %.
pub fn jitter(delay: Duration) -> Duration {
    delay.mul_f64(rand::rng().random_range(0.9..=1.1))
}

/// A send that failed, as the transport reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendFailure {
    pub message: String,
    /// Not worth trying again (an SMTP 5xx such as an unknown mailbox, a provider's 4xx, or a
    /// message that cannot be built).
    pub permanent: bool,
}

/// What sending an e-mail or an SMS came to, to be written to its outbox row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    Sent,
    Failed {
        error: String,
        /// The wait before the next attempt; `None`: failed for good.
        retry_in: Option<Duration>,
    },
}

impl SendOutcome {
    /// The `outcome` label of `signet_emails_total` and `signet_sms_total`.
    pub fn metric_label(&self) -> &'static str {
        match self {
            SendOutcome::Sent => "sent",
            SendOutcome::Failed {
                retry_in: Some(_), ..
            } => "retry",
            SendOutcome::Failed { retry_in: None, .. } => "failed",
        }
    }

    /// Why it failed; empty when it was sent.
    pub fn error(&self) -> &str {
        match self {
            SendOutcome::Sent => "",
            SendOutcome::Failed { error, .. } => error,
        }
    }
}

/// What a send of a message that had failed `previous_attempts` times came to.
pub fn outcome(
    previous_attempts: i32,
    sent: Result<(), SendFailure>,
    retries: &RetryPolicy,
) -> SendOutcome {
    match sent {
        Ok(()) => SendOutcome::Sent,
        Err(failure) => SendOutcome::Failed {
            retry_in: if failure.permanent {
                None
            } else {
                retries.after_failed_attempt(previous_attempts + 1)
            },
            error: failure.message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn one_wait_per_failed_attempt_then_give_up() {
        let policy = RetryPolicy::new(vec![secs(10), secs(60), secs(300)]);
        assert_eq!(policy.scheduled(1), Some(secs(10)));
        assert_eq!(policy.scheduled(2), Some(secs(60)));
        assert_eq!(policy.scheduled(3), Some(secs(300)));
        assert_eq!(policy.scheduled(4), None);
        assert_eq!(policy.after_failed_attempt(4), None);
        // Not an attempt: nothing to retry.
        assert_eq!(policy.scheduled(0), None);
        assert_eq!(policy.scheduled(-1), None);
    }

    #[test]
    fn an_empty_schedule_gives_up_at_once() {
        assert_eq!(RetryPolicy::new(vec![]).after_failed_attempt(1), None);
    }

    #[test]
    fn waits_are_jittered_by_at_most_ten_percent() {
        let policy = RetryPolicy::new(vec![secs(100)]);
        let waits: Vec<Duration> = (0..200)
            .map(|_| policy.after_failed_attempt(1).expect("scheduled"))
            .collect();
        assert!(waits.iter().all(|w| (secs(90)..=secs(110)).contains(w)));
        assert!(waits.iter().any(|w| *w != secs(100)), "some jitter");
    }

    fn failure(permanent: bool) -> Result<(), SendFailure> {
        Err(SendFailure {
            message: "421 try later".to_owned(),
            permanent,
        })
    }

    #[test]
    fn a_send_is_sent() {
        let outcome = outcome(0, Ok(()), &RetryPolicy::new(vec![secs(10)]));
        assert_eq!(outcome, SendOutcome::Sent);
        assert_eq!(outcome.metric_label(), "sent");
    }

    #[test]
    fn a_transient_failure_retries_until_the_schedule_is_used_up() {
        let retries = RetryPolicy::new(vec![secs(10), secs(60)]);
        let first = outcome(0, failure(false), &retries);
        let SendOutcome::Failed {
            error,
            retry_in: Some(wait),
        } = &first
        else {
            panic!("a retry: {first:?}")
        };
        assert_eq!(error, "421 try later");
        assert!((secs(9)..=secs(11)).contains(wait));
        assert_eq!(first.metric_label(), "retry");
        let second = outcome(1, failure(false), &retries);
        assert!(matches!(second, SendOutcome::Failed { retry_in: Some(w), .. } if w >= secs(54)));
        let last = outcome(2, failure(false), &retries);
        assert!(matches!(last, SendOutcome::Failed { retry_in: None, .. }));
        assert_eq!(last.metric_label(), "failed");
    }

    #[test]
    fn a_permanent_failure_is_not_retried() {
        let outcome = outcome(0, failure(true), &RetryPolicy::new(vec![secs(10)]));
        assert_eq!(
            outcome,
            SendOutcome::Failed {
                error: "421 try later".to_owned(),
                retry_in: None
            }
        );
        assert_eq!(outcome.metric_label(), "failed");
    }
}
