-- The outbox rows are the queue of e-mails, SMS and webhook deliveries (issue #35): a worker
-- claims due rows in a short transaction by moving `due_at` forward by its lease and writing
-- its name in `lease_owner`, sends with no transaction open, and records the outcome. A row
-- whose worker died is due again when the lease runs out. No apalis job is kept per message.
--
-- `due_at`: when the row may next be claimed: now for a new row, the retry's time after a
-- failed attempt, the end of the lease while a worker holds it.
-- `lease_owner`: the worker that holds the lease, or, once the row is sent, the one that sent
-- it (a failed attempt waiting for its retry is held by no one).
-- `trace_context`: the W3C trace context of the request (or job) that queued the row, so that
-- its dispatch continues that trace.

ALTER TABLE outbound_emails
    ADD COLUMN due_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN lease_owner text,
    ADD COLUMN trace_context text;
ALTER TABLE outbound_sms
    ADD COLUMN due_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN lease_owner text,
    ADD COLUMN trace_context text;
ALTER TABLE webhook_deliveries
    ADD COLUMN due_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN lease_owner text,
    ADD COLUMN trace_context text;

-- A delivery waiting for its next attempt keeps that time.
UPDATE webhook_deliveries SET due_at = next_attempt_at
WHERE status = 'PENDING' AND next_attempt_at IS NOT NULL;

-- The claim walks the accounts with pending rows (one index probe per account) and takes each
-- one's due rows in order: round robin by account, so that no account waits behind another's
-- backlog.
CREATE INDEX outbound_emails_claim ON outbound_emails (account_id, due_at) WHERE status = 'PENDING';
CREATE INDEX outbound_sms_claim ON outbound_sms (account_id, due_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries (account_id, due_at) WHERE status = 'PENDING';

-- The jobs that used to carry one message each: their rows are PENDING and due, and are
-- claimed from the outbox now.
DO $$
BEGIN
    IF to_regclass('apalis.jobs') IS NOT NULL THEN
        DELETE FROM apalis.jobs
        WHERE job_type IN ('signet.dispatch_email', 'signet.dispatch_sms', 'signet.deliver_webhook')
          AND status IN ('Pending', 'Queued', 'Running', 'Failed');
    END IF;
END $$;
