-- Read-your-writes with read replicas (issue #37): after an account's write through the API,
-- its API replicas record the primary's WAL insert position here (as bytes since 0/0), and a
-- read for that account goes to a streaming replica only once the replica has replayed at
-- least that far. The authenticating statement every request already runs returns it, so the
-- guarantee holds across API processes behind any balancer at no extra round trip on reads.
ALTER TABLE accounts ADD COLUMN read_after_lsn bigint NOT NULL DEFAULT 0;
