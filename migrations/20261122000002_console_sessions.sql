-- The web console: account passwords (argon2id PHC strings), sign-in throttling, sessions.
ALTER TABLE accounts ADD COLUMN password_hash text;
ALTER TABLE accounts ADD COLUMN failed_sign_ins integer NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN sign_in_blocked_until timestamptz;

CREATE TABLE console_sessions (
    token_hash  bytea PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    csrf_token  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX console_sessions_by_account ON console_sessions (account_id);
