-- Embedded signing (issue #34): an integrator opens a recipient's signing page inside its own
-- product, from a short-lived single-use URL, in a frame its account allows.

-- An embedded recipient gets no invitation (e-mail or SMS) and no reminder: the integrator
-- brings them to the page.
ALTER TABLE recipients ADD COLUMN embedded boolean NOT NULL DEFAULT false;

-- The origins (scheme://host[:port]) that may frame the account's embedded signing pages and
-- receive their messages.
ALTER TABLE accounts ADD COLUMN embed_allowed_origins text[] NOT NULL DEFAULT '{}';

-- One signing session: a ticket (the URL the API hands out, single-use, opened before
-- ticket_expires_at) which, once used, becomes a session bound to the browser that used it
-- (its cookie's hash, until expires_at). Only hashes are stored.
CREATE TABLE embedded_sessions (
    id                 uuid PRIMARY KEY,
    account_id         uuid NOT NULL REFERENCES accounts (id),
    document_id        uuid NOT NULL REFERENCES documents (id),
    recipient_id       uuid NOT NULL REFERENCES recipients (id),
    ticket_hash        bytea NOT NULL UNIQUE,
    ticket_expires_at  timestamptz NOT NULL,
    -- The origin that frames the page, when the integrator named one; else any allowed one.
    parent_origin      text,
    return_url         text,
    used_at            timestamptz,
    browser_hash       bytea UNIQUE,
    expires_at         timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((used_at IS NULL) = (browser_hash IS NULL) AND (used_at IS NULL) = (expires_at IS NULL))
);
CREATE INDEX embedded_sessions_by_recipient ON embedded_sessions (recipient_id);
