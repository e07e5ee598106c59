//! `DispatchEmail`: sends one outbox row. The row is locked while it is sent, so no two workers
//! send it at once; a row already sent (or being sent elsewhere) is skipped. A failed send is
//! recorded and retried later by a new, delayed job (EMAIL_RETRY_SCHEDULE, ±10 % jitter) until
//! the schedule is used up, then the row is marked FAILED. If the database goes away after the
//! message left, the outcome is written once it is back, and the message is not sent again
//! meanwhile.

use std::{future::Future, sync::Arc};

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::{
        emails::{self as decide, Dispatch},
        retry::{self, SendOutcome},
    },
    flows::delivery_failures,
    infra::{config::WorkerConcurrency, jobs::DispatchEmail},
    store::emails::{self, OutgoingEmail},
};
use sqlx::PgConnection;

use super::outbox::{self, Event, OutboxJob, Step, Verdict};
use crate::{
    mail,
    registration::QueuedJob,
    state::{OutboxId, WorkerState},
};

#[tracing::instrument(name = "DispatchEmail", skip_all, fields(email.id = %job.email_id))]
pub async fn dispatch_email(
    job: DispatchEmail,
    state: Data<Arc<WorkerState>>,
) -> Result<(), BoxDynError> {
    outbox::run(job, state).await
}

impl QueuedJob for DispatchEmail {
    const LABEL: &'static str = "dispatch-email";

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.email
    }

    fn handle(
        self,
        state: Data<Arc<WorkerState>>,
    ) -> impl Future<Output = Result<(), BoxDynError>> + Send + 'static {
        dispatch_email(self, state)
    }
}

impl OutboxJob for DispatchEmail {
    type Row = OutgoingEmail;
    /// The signing or download link the e-mail carries, if any.
    type Message = Option<String>;
    type Outcome = SendOutcome;

    fn id(email: &OutgoingEmail) -> OutboxId {
        OutboxId::Email(email.id)
    }

    fn retry(email: &OutgoingEmail) -> Self {
        DispatchEmail { email_id: email.id }
    }

    async fn claim(&self, conn: &mut PgConnection) -> Result<Option<OutgoingEmail>, Error> {
        emails::lock_for_dispatch(conn, self.email_id).await
    }

    fn decide(state: &WorkerState, email: &OutgoingEmail) -> Step<Option<String>> {
        let now = Utc::now();
        match decide::dispatch(
            email,
            &state.config.api.public_url,
            &state.completion_links,
            now,
        ) {
            Dispatch::Done => Step::Skip,
            Dispatch::Withdraw => Step::Withdraw,
            Dispatch::Send { link } => Step::Send(link),
        }
    }

    async fn withdraw(conn: &mut PgConnection, email: &OutgoingEmail) -> Result<(), Error> {
        emails::withdraw(conn, email.id).await
    }

    async fn send(
        state: &WorkerState,
        _: &mut PgConnection,
        email: &OutgoingEmail,
        link: Option<String>,
    ) -> Result<SendOutcome, Error> {
        let sent = match mail::message(&state.config, email, link.as_deref()) {
            Ok(message) => state.mailer.send(message).await,
            Err(message) => Err(mail::SendError {
                message,
                permanent: true,
            }),
        };
        Ok(retry::outcome(
            email.attempts,
            sent.map_err(Into::into),
            &state.email_retries,
        ))
    }

    fn verdict(outcome: &SendOutcome) -> Verdict {
        match outcome {
            SendOutcome::Sent => Verdict::Delivered,
            SendOutcome::Failed { retry_in, .. } => Verdict::Failed {
                retry_in: *retry_in,
            },
        }
    }

    async fn record_delivered(
        conn: &mut PgConnection,
        email: &OutgoingEmail,
        _: &SendOutcome,
    ) -> Result<bool, Error> {
        emails::mark_sent(conn, email.id).await
    }

    async fn record_failure(
        conn: &mut PgConnection,
        email: &OutgoingEmail,
        outcome: &SendOutcome,
        give_up: bool,
    ) -> Result<Option<i32>, Error> {
        emails::record_failure(conn, email.id, outcome.error(), give_up).await
    }

    async fn give_up(
        conn: &mut PgConnection,
        state: &WorkerState,
        email: &OutgoingEmail,
        outcome: &SendOutcome,
    ) -> Result<(), Error> {
        delivery_failures::failed_for_good(conn, email, outcome.error(), &state.notifier).await
    }

    fn count(email: &OutgoingEmail, outcome: &SendOutcome) {
        metrics::counter!(
            "signet_emails_total",
            "kind" => email.kind.as_str(),
            "outcome" => outcome.metric_label()
        )
        .increment(1);
    }

    fn log(event: Event<'_, Self>) {
        match event {
            Event::Missing(job) => {
                tracing::debug!(email = %job.email_id, "e-mail missing or being sent by another worker");
            }
            Event::BeingRecorded(email) => {
                tracing::info!(email = %email.id, "e-mail already sent; its outcome is being recorded");
            }
            Event::Withdrawn(email) => {
                tracing::info!(email = %email.id, document_status = %email.document_status, "invitation withdrawn");
            }
            Event::Delivered(email, _) => {
                tracing::info!(email = %email.id, kind = %email.kind, "e-mail sent");
            }
            Event::Retrying(email, outcome, delay) => {
                let error = outcome.error();
                tracing::warn!(email = %email.id, %error, retry_in = ?delay, "e-mail failed; will retry");
            }
            Event::GaveUp(email, outcome, attempts) => {
                let error = outcome.error();
                tracing::error!(email = %email.id, %error, attempts, "e-mail failed for good");
            }
        }
    }
}
