-- Signet business schema. Every business table carries account_id and every query filters by it,
-- so another account's row is indistinguishable from a missing one, and the schema can be
-- distributed by account_id when one database is not enough.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE accounts (
    id                  uuid PRIMARY KEY,
    name                text NOT NULL,
    email               text NOT NULL,
    api_usage_count     integer NOT NULL DEFAULT 0 CHECK (api_usage_count >= 0),
    api_usage_limit     integer NOT NULL CHECK (api_usage_limit >= 0),
    usage_window_start  timestamptz NOT NULL DEFAULT now(),
    webhook_url         text,
    webhook_secret      text NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

CREATE TABLE api_keys (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    key_hash      bytea NOT NULL UNIQUE,
    display       text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);
-- At most one active key per account.
CREATE UNIQUE INDEX api_keys_one_active_per_account ON api_keys (account_id) WHERE revoked_at IS NULL;

CREATE TABLE documents (
    id                uuid PRIMARY KEY,
    account_id        uuid NOT NULL REFERENCES accounts (id),
    code              text NOT NULL UNIQUE,
    title             text NOT NULL,
    status            text NOT NULL CHECK (status IN ('DRAFT', 'SENT', 'COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED')),
    file_key          text NOT NULL,
    sha256            text NOT NULL,
    pages             integer NOT NULL CHECK (pages > 0),
    page_sizes        jsonb NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    sent_at           timestamptz,
    expiry_date       timestamptz,
    completed_at      timestamptz,
    send_message      text,
    send_description  text,
    final_file_key    text,
    final_sha256      text
);
CREATE INDEX documents_by_created ON documents (account_id, status, created_at, id);
CREATE INDEX documents_by_updated ON documents (account_id, status, updated_at, id);
CREATE INDEX documents_by_title ON documents (account_id, status, title, id);
CREATE INDEX documents_all_by_created ON documents (account_id, created_at, id);
CREATE INDEX documents_title_search ON documents USING gin (title gin_trgm_ops);
CREATE INDEX documents_expiring ON documents (expiry_date) WHERE status = 'SENT';

CREATE TABLE recipients (
    id                  uuid PRIMARY KEY,
    account_id          uuid NOT NULL REFERENCES accounts (id),
    document_id         uuid NOT NULL REFERENCES documents (id),
    name                text NOT NULL,
    email               text NOT NULL,
    role                text NOT NULL CHECK (role IN ('SIGNER', 'VIEWER')),
    country_code        text,
    phone_number        text,
    status              text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'VIEWED', 'SIGNED', 'DECLINED')),
    color_code          text NOT NULL,
    signing_token_hash  bytea UNIQUE,
    position            integer NOT NULL,
    viewed_at           timestamptz,
    signed_at           timestamptz,
    declined_at         timestamptz,
    decline_reason      text,
    UNIQUE (document_id, position)
);
CREATE UNIQUE INDEX recipients_email_per_document ON recipients (document_id, lower(email));

CREATE TABLE fields (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    document_id   uuid NOT NULL REFERENCES documents (id),
    recipient_id  uuid NOT NULL REFERENCES recipients (id),
    type          text NOT NULL CHECK (type IN ('SIGNATURE', 'TEXT', 'DATE', 'INITIALS')),
    page          integer NOT NULL CHECK (page > 0),
    x             double precision NOT NULL CHECK (x >= 0),
    y             double precision NOT NULL CHECK (y >= 0),
    width         double precision NOT NULL CHECK (width > 0),
    height        double precision NOT NULL CHECK (height > 0),
    value         text,
    filled_at     timestamptz,
    created_at    timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX fields_by_document ON fields (document_id, recipient_id);

-- Append-only, hash-chained per document: hash = sha256(prev_hash || canonical entry).
CREATE TABLE audit_entries (
    seq          bigserial PRIMARY KEY,
    id           uuid NOT NULL UNIQUE,
    account_id   uuid NOT NULL REFERENCES accounts (id),
    document_id  uuid NOT NULL REFERENCES documents (id),
    event        text NOT NULL CHECK (event IN ('CREATED', 'SENT', 'VIEWED', 'SIGNED', 'DECLINED', 'COMPLETED', 'EXPIRED', 'UPDATED')),
    message      text NOT NULL,
    ip_address   text NOT NULL,
    user_agent   text NOT NULL,
    created_at   timestamptz NOT NULL,
    prev_hash    bytea NOT NULL,
    hash         bytea NOT NULL
);
CREATE INDEX audit_entries_by_document ON audit_entries (document_id, seq);

CREATE FUNCTION audit_entries_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_entries is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_entries_no_update_or_delete
    BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_entries_append_only();
CREATE TRIGGER audit_entries_no_truncate
    BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_entries_append_only();

-- One row per e-mail that must go out; the unique key makes dispatch idempotent.
-- link_token holds the recipient's signing token in clear only until the e-mail is sent
-- (recipients keep just its hash), because the worker renders the link after the API made it.
CREATE TABLE outbound_emails (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    document_id   uuid NOT NULL REFERENCES documents (id),
    recipient_id  uuid NOT NULL REFERENCES recipients (id),
    kind          text NOT NULL CHECK (kind IN ('INVITATION', 'COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED')),
    message_id    text NOT NULL UNIQUE,
    link_token    text,
    status        text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT', 'FAILED')),
    attempts      integer NOT NULL DEFAULT 0,
    sent_at       timestamptz,
    last_error    text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (recipient_id, kind)
);
CREATE INDEX outbound_emails_by_document ON outbound_emails (document_id);

CREATE TABLE webhook_deliveries (
    id               uuid PRIMARY KEY,
    account_id       uuid NOT NULL REFERENCES accounts (id),
    event_id         text NOT NULL,
    event_type       text NOT NULL,
    payload          jsonb NOT NULL,
    attempt          integer NOT NULL DEFAULT 0,
    status           text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DELIVERED', 'FAILED')),
    response_status  integer,
    response_body    text,
    duration_ms      integer,
    next_attempt_at  timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries (account_id, status, created_at);
