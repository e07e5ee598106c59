-- Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header) on the external API's POSTs.
-- A row is claimed before its request runs (`locked_until` is the claim's lease: a request
-- that dies mid-way frees its key when the lease ends) and holds the answer once there is one.
-- A successful write stores its answer in the transaction of its effect, so an answer is
-- never lost between the two. The worker's sweep deletes rows past `expires_at`.
CREATE TABLE idempotency_keys (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key text NOT NULL,
    -- SHA-256 of the method, the path and the body (JSON with its object keys sorted).
    fingerprint bytea NOT NULL,
    locked_until timestamptz NOT NULL,
    response_status smallint,
    response_body bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);

CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
