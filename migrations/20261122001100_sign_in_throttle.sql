-- Sign-in throttling by key rather than by account, so that an unknown address is throttled
-- exactly like a known one (nothing tells them apart) and one source cannot lock an account
-- for everyone: 'address:<e-mail>|<source>' counts failures for one address from one source,
-- 'source:<source>' counts them from one source whatever the address (docs/security.md).
CREATE TABLE sign_in_throttle (
    key            text PRIMARY KEY,
    failures       integer NOT NULL DEFAULT 0,
    blocked_until  timestamptz,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_throttle_by_age ON sign_in_throttle (updated_at);

ALTER TABLE accounts DROP COLUMN failed_sign_ins;
ALTER TABLE accounts DROP COLUMN sign_in_blocked_until;
