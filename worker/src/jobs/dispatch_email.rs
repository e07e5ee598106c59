//! `DispatchEmail`: sends one claimed outbox row (`jobs::outbox`). While this worker holds the
//! row's lease no other sends it; the SMTP exchange runs with no database connection held. A
//! failed send is due again after the next delay of EMAIL_RETRY_SCHEDULE (±10 % jitter) until
//! the schedule is used up, then the row is marked FAILED. If the database goes away after the
//! message left, the outcome is written once it is back, and the message is not sent again
//! meanwhile.

use std::sync::Arc;

use apalis::prelude::{BoxDynError, Data};
use chrono::Utc;
use signet_common::{
    Error,
    delivery::{
        emails::{self as decide, Dispatch},
        retry::{self, SendOutcome},
    },
    flows::delivery_failures,
    infra::config::WorkerConcurrency,
    model::EmailId,
    store::{
        emails::{self, OutgoingEmail},
        outbox::OutboxTable,
    },
};
use sqlx::PgConnection;
use uuid::Uuid;

use super::outbox::{Event, Leases, OutboxJob, Recorder, Step, Verdict};
use crate::{mail, state::WorkerState};

/// Sends the rows of `outbound_emails`.
pub struct DispatchEmail;

#[tracing::instrument(name = "DispatchEmail", skip_all, fields(email.id = %email.id))]
pub async fn dispatch_email(
    email: OutgoingEmail,
    state: Data<Arc<WorkerState>>,
    recorder: Data<Arc<Recorder<DispatchEmail>>>,
    leases: Data<Arc<Leases>>,
) -> Result<(), BoxDynError> {
    super::outbox::run::<DispatchEmail>(
        email,
        (*state).clone(),
        (*recorder).clone(),
        (*leases).clone(),
    )
    .await
}

impl OutboxJob for DispatchEmail {
    const LABEL: &'static str = "dispatch-email";
    const OUTBOX: OutboxTable = emails::OUTBOX;
    type Row = OutgoingEmail;
    /// The signing or download link the e-mail carries, if any.
    type Message = Option<String>;
    type Outcome = SendOutcome;

    fn concurrency(configured: &WorkerConcurrency) -> usize {
        configured.email
    }

    fn handle(
        row: Self::Row,
        state: Data<Arc<WorkerState>>,
        recorder: Data<Arc<Recorder<Self>>>,
        leases: Data<Arc<Leases>>,
    ) -> impl std::future::Future<Output = Result<(), BoxDynError>> + Send + 'static {
        dispatch_email(row, state, recorder, leases)
    }

    fn id(email: &OutgoingEmail) -> Uuid {
        email.id.into()
    }

    fn trace_context(email: &OutgoingEmail) -> Option<&str> {
        email.trace_context.as_deref()
    }

    async fn load(conn: &mut PgConnection, ids: &[Uuid]) -> Result<Vec<OutgoingEmail>, Error> {
        emails::load(conn, ids).await
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
        delivered: &[(&OutgoingEmail, &SendOutcome)],
    ) -> Result<Vec<Uuid>, Error> {
        let ids: Vec<EmailId> = delivered.iter().map(|(email, _)| email.id).collect();
        let marked = emails::mark_sent(conn, &ids).await?;
        Ok(marked.into_iter().map(Uuid::from).collect())
    }

    async fn record_failure(
        conn: &mut PgConnection,
        email: &OutgoingEmail,
        outcome: &SendOutcome,
        retry_in: Option<std::time::Duration>,
    ) -> Result<Option<i32>, Error> {
        emails::record_failure(conn, email.id, outcome.error(), retry_in).await
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
