-- The event feed (issue #34, `GET /external/api/v1/events`, docs/api.md#event-feed): every
-- event an account's webhooks carry, recorded whether or not the account has a webhook URL and
-- kept EVENT_RETENTION_DAYS (the sweep removes older ones). A webhook delivery carries its
-- event's id (`webhook_deliveries.event_id` is `msg_` and this id's 32 hex digits) and body; it
-- names the event by value, not by a foreign key, because the delivery log outlives the feed.
CREATE TABLE events (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    -- None for an event about no one document (`bulk_send.completed`).
    document_id uuid REFERENCES documents (id),
    event_type  text NOT NULL,
    -- The exact bytes of the webhook's body.
    payload     text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    -- The feed's order is (txid, position): the writing transaction's id, then the order of
    -- writing within it. The feed shows only events of transactions older than the oldest
    -- one still running (pg_snapshot_xmin), so no event can appear later before a cursor a
    -- reader already holds; a sequence alone commits out of order. docs/api.md explains.
    txid        xid8 NOT NULL DEFAULT pg_current_xact_id(),
    position    bigint GENERATED ALWAYS AS IDENTITY
);
-- A page is one range read of this index, whatever the account's size.
CREATE INDEX events_feed ON events (account_id, txid, position);
-- The sweep's retention.
CREATE INDEX events_by_age ON events (created_at);

-- Events delivered before the feed existed, within the default retention, with the ids their
-- webhooks carried, in the order they were made.
INSERT INTO events (id, account_id, document_id, event_type, payload, created_at)
SELECT substr(event_id, 5)::uuid, account_id, document_id, event_type, payload, created_at
FROM webhook_deliveries
WHERE created_at > now() - interval '30 days' AND event_id ~ '^msg_[0-9a-f]{32}$'
ORDER BY created_at, id;
