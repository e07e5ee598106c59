-- Bulk send (issue #32, docs/templates.md): one template, many rows, each made into a sent
-- document by the `bulk` worker in chunks. A row is made at most once: its status changes
-- from PENDING in the transaction that writes its document.
CREATE TABLE bulk_sends (
    id               uuid PRIMARY KEY,
    account_id       uuid NOT NULL REFERENCES accounts (id),
    template_id      uuid NOT NULL REFERENCES templates (id),
    status           text NOT NULL DEFAULT 'RUNNING'
                     CHECK (status IN ('RUNNING', 'COMPLETED', 'CANCELLED')),
    -- What the request gave for every row (title, message, description, expiryDate, language).
    overrides        jsonb NOT NULL,
    total            integer NOT NULL CHECK (total > 0),
    -- Who asked, as the documents' audit trails record it.
    actor_ip         text,
    actor_user_agent text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz
);
CREATE INDEX bulk_sends_by_account ON bulk_sends (account_id, created_at DESC);

CREATE TABLE bulk_send_rows (
    bulk_send_id uuid NOT NULL REFERENCES bulk_sends (id) ON DELETE CASCADE,
    -- 1-based, as the request's errors name them.
    row_number   integer NOT NULL,
    -- The row's columns as given (`{"Tenant.email": …, "Company": …}`), blank ones left out.
    input        jsonb NOT NULL,
    status       text NOT NULL DEFAULT 'PENDING'
                 CHECK (status IN ('PENDING', 'SENT', 'FAILED', 'CANCELLED')),
    document_id  uuid REFERENCES documents (id),
    error        text,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bulk_send_id, row_number)
);
-- The worker's scan: a bulk send's rows still to make, in order.
CREATE INDEX bulk_send_rows_pending ON bulk_send_rows (bulk_send_id, row_number)
    WHERE status = 'PENDING';
-- The progress answer's failures, in order.
CREATE INDEX bulk_send_rows_failed ON bulk_send_rows (bulk_send_id, row_number)
    WHERE status = 'FAILED';
