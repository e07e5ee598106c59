-- Webhook deliveries keep the exact bytes that are signed and sent (jsonb would reorder keys),
-- name their document, and log every attempt.
ALTER TABLE webhook_deliveries ALTER COLUMN payload TYPE text USING payload::text;
ALTER TABLE webhook_deliveries ADD COLUMN document_id uuid REFERENCES documents (id);
ALTER TABLE webhook_deliveries ADD COLUMN last_error text;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_id_key UNIQUE (event_id);

CREATE TABLE webhook_attempts (
    id               uuid PRIMARY KEY,
    account_id       uuid NOT NULL REFERENCES accounts (id),
    delivery_id      uuid NOT NULL REFERENCES webhook_deliveries (id),
    attempt          integer NOT NULL,
    url              text NOT NULL,
    started_at       timestamptz NOT NULL,
    duration_ms      integer NOT NULL,
    response_status  integer,
    -- The first 4 KiB of the response body.
    response_body    text,
    error            text
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, attempt);
