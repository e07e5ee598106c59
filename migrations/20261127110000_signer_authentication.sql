-- Signer authentication (issue #34): a recipient may have to pass a check before their signing
-- link shows anything of the document. `auth_method` is ACCESS_CODE (a code the sender gave,
-- kept as an argon2id PHC string in `access_code_hash`), EMAIL_OTP or SMS_OTP (a six-digit
-- code sent when asked, a row of signer_auth_codes). Wrong codes count in `auth_failures`;
-- the fifth sets `auth_locked_at` until the sender unlocks the recipient. `auth_passed_at` is
-- the first pass (the certificate prints it).
ALTER TABLE recipients
    ADD COLUMN auth_method      text CHECK (auth_method IN ('ACCESS_CODE', 'EMAIL_OTP', 'SMS_OTP')),
    ADD COLUMN access_code_hash text,
    ADD COLUMN auth_failures    integer NOT NULL DEFAULT 0,
    ADD COLUMN auth_locked_at   timestamptz,
    ADD COLUMN auth_passed_at   timestamptz,
    ADD CONSTRAINT recipients_access_code_check
        CHECK ((auth_method = 'ACCESS_CODE') = (access_code_hash IS NOT NULL));

-- One-time codes sent to a recipient (EMAIL_OTP, SMS_OTP): the SHA-256 of a random salt and
-- the code, never the code (the outbox row carrying it keeps it in `link_token` only until it
-- is sent). Every row is a send: the resend limits count them.
CREATE TABLE signer_auth_codes (
    id           uuid PRIMARY KEY,
    recipient_id uuid NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    salt         bytea NOT NULL,
    code_hash    bytea NOT NULL,
    sent_at      timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    used_at      timestamptz
);
CREATE INDEX signer_auth_codes_by_recipient ON signer_auth_codes (recipient_id, sent_at);

-- A browser that passed the check: the SHA-256 of the random value of its HttpOnly cookie.
CREATE TABLE signer_auth_passes (
    token_hash   bytea PRIMARY KEY,
    recipient_id uuid NOT NULL REFERENCES recipients (id) ON DELETE CASCADE,
    method       text NOT NULL,
    passed_at    timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX signer_auth_passes_by_recipient ON signer_auth_passes (recipient_id);

-- The one-time code as a message of its own, by e-mail and by SMS.
ALTER TABLE outbound_emails DROP CONSTRAINT outbound_emails_kind_check;
ALTER TABLE outbound_emails ADD CONSTRAINT outbound_emails_kind_check
    CHECK (kind IN ('INVITATION', 'COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED', 'REMINDER', 'CODE'));
DROP INDEX outbound_emails_one_per_kind;
CREATE UNIQUE INDEX outbound_emails_one_per_kind ON outbound_emails (recipient_id, kind)
    WHERE kind NOT IN ('REMINDER', 'CODE');
ALTER TABLE outbound_sms DROP CONSTRAINT outbound_sms_kind_check;
ALTER TABLE outbound_sms ADD CONSTRAINT outbound_sms_kind_check
    CHECK (kind IN ('INVITATION', 'DECLINED', 'EXPIRED', 'CODE'));
