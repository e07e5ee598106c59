-- An invitation still in the outbox when its document leaves SENT (cancel, decline, expiry) is
-- WITHDRAWN rather than sent: its signing link would no longer work (docs/security.md).
ALTER TABLE outbound_emails DROP CONSTRAINT outbound_emails_status_check;
ALTER TABLE outbound_emails ADD CONSTRAINT outbound_emails_status_check
    CHECK (status IN ('PENDING', 'SENT', 'FAILED', 'WITHDRAWN'));
