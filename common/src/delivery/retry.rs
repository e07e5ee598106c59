//! One retry policy for everything the worker sends: a schedule of waits, one per failed
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
}
