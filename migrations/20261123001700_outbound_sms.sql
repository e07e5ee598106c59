-- The SMS outbox, like outbound_emails: one row per text message that must go out to a
-- recipient with a phone number, written in the transaction of the change that causes it and
-- sent by a DispatchSms job. `to_e164` is the number when the row was queued. `link_token`
-- holds the recipient's signing token in clear only until the message is handed to the
-- provider. `provider_message_id` is the provider's id (Twilio's `sid`), by which its
-- delivery-status callbacks find the row. `segments` and `encoding` are what the text costs.
CREATE TABLE outbound_sms (
    id                   uuid PRIMARY KEY,
    account_id           uuid NOT NULL REFERENCES accounts (id),
    document_id          uuid NOT NULL REFERENCES documents (id),
    recipient_id         uuid NOT NULL REFERENCES recipients (id),
    kind                 text NOT NULL CHECK (kind IN ('INVITATION', 'DECLINED', 'EXPIRED')),
    to_e164              text NOT NULL,
    link_token           text,
    status               text NOT NULL DEFAULT 'PENDING'
                         CHECK (status IN ('PENDING', 'SENT', 'DELIVERED', 'FAILED', 'WITHDRAWN')),
    attempts             integer NOT NULL DEFAULT 0,
    last_error           text,
    provider_message_id  text UNIQUE,
    segments             integer,
    encoding             text,
    created_at           timestamptz NOT NULL DEFAULT now(),
    sent_at              timestamptz,
    delivered_at         timestamptz,
    UNIQUE (recipient_id, kind)
);
CREATE INDEX outbound_sms_by_document ON outbound_sms (document_id);

-- SMS queued per account (number '') and per number of the account, per UTC day: the daily
-- caps (SMS_DAILY_CAP_PER_ACCOUNT, SMS_DAILY_CAP_PER_NUMBER) are checked against these rows,
-- under their row locks, in the transaction that queues the messages.
CREATE TABLE sms_daily_counts (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    number      text NOT NULL,
    day         date NOT NULL,
    queued      integer NOT NULL,
    PRIMARY KEY (account_id, number, day)
);
-- The sweep forgets the counts of days before yesterday.
CREATE INDEX sms_daily_counts_by_day ON sms_daily_counts (day);
