-- The sender's workflow (issue #21): cancel with a reason, signing order, reminders.

-- Why the owner cancelled, as the recipients' e-mails, the webhook and the detail show it.
ALTER TABLE documents ADD COLUMN cancel_reason text;

-- The document's reminder schedule, fixed on send from the request or the operator's default:
-- the first reminder this many days after a signer's invitation, then every `every` days
-- (0: no more). NULL first: no automatic reminders.
ALTER TABLE documents
    ADD COLUMN reminder_first_after_days integer CHECK (reminder_first_after_days > 0),
    ADD COLUMN reminder_every_days integer CHECK (reminder_every_days >= 0);

-- Signing order: recipients with the same order sign in parallel; a later group is invited
-- when every signer of the earlier groups has signed. NULL counts as 1. `invited_at` is when
-- the recipient's invitation was queued (NULL: their group has not been reached, or the
-- document is a DRAFT). `next_reminder_at` is when the sweep reminds them next.
ALTER TABLE recipients
    ADD COLUMN signing_order integer CHECK (signing_order > 0),
    ADD COLUMN invited_at timestamptz,
    ADD COLUMN next_reminder_at timestamptz;
-- Documents sent before this migration invited every recipient on send.
UPDATE recipients r SET invited_at = d.sent_at
FROM documents d WHERE d.id = r.document_id AND d.sent_at IS NOT NULL;
CREATE INDEX recipients_reminders_due ON recipients (next_reminder_at)
    WHERE next_reminder_at IS NOT NULL;

-- Further signing links of a recipient, besides `recipients.signing_token_hash`: each
-- reminder carries a link of its own (clear tokens are never kept, so the invitation's link
-- cannot be sent again), and the earlier links keep working.
CREATE TABLE signing_links (
    token_hash    bytea PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    recipient_id  uuid NOT NULL REFERENCES recipients (id),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX signing_links_by_recipient ON signing_links (recipient_id);

-- Reminders: any number per recipient; every other kind stays one per recipient.
ALTER TABLE outbound_emails DROP CONSTRAINT outbound_emails_kind_check;
ALTER TABLE outbound_emails ADD CONSTRAINT outbound_emails_kind_check
    CHECK (kind IN ('INVITATION', 'COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED', 'REMINDER'));
ALTER TABLE outbound_emails DROP CONSTRAINT outbound_emails_recipient_id_kind_key;
CREATE UNIQUE INDEX outbound_emails_one_per_kind ON outbound_emails (recipient_id, kind)
    WHERE kind <> 'REMINDER';
