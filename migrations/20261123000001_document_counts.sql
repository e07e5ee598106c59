-- The document list's `total` without reading the account's documents: per-account, per-status
-- counts kept by triggers in the same transaction as every insert, status change and delete.
--
-- Each count is spread over 16 slots, chosen by the writing session's backend pid, so that
-- concurrent writers in one busy account update different rows instead of queueing on one. A
-- slot may go negative (a document counted in one slot, moved out of its status by another
-- session); only the sum per (account, status) means anything.
--
-- The triggers run once per statement over its transition tables, so a statement that inserts
-- or moves many documents writes each (account, status) once, not once per document (updating
-- one row many times in one transaction costs PostgreSQL more with every update). Each writes
-- its rows in (account, status) order, so that two transactions never wait on each other in
-- opposite orders; the expiry sweep, the one writer of many accounts' documents in one
-- transaction, takes its documents in account order.
CREATE TABLE document_counts (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    status      text NOT NULL,
    slot        smallint NOT NULL,
    documents   bigint NOT NULL,
    PRIMARY KEY (account_id, status, slot)
) WITH (
    -- Few rows, each updated by every status change: leave room on each page for the new
    -- versions (HOT updates), and vacuum after a thousand dead ones rather than a fraction.
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 1000
);

CREATE FUNCTION count_documents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO document_counts (account_id, status, slot, documents)
        SELECT account_id, status, pg_backend_pid() % 16, count(*)
        FROM inserted GROUP BY account_id, status ORDER BY account_id, status
        ON CONFLICT (account_id, status, slot)
        DO UPDATE SET documents = document_counts.documents + excluded.documents;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO document_counts (account_id, status, slot, documents)
        SELECT account_id, status, pg_backend_pid() % 16, -count(*)
        FROM deleted GROUP BY account_id, status ORDER BY account_id, status
        ON CONFLICT (account_id, status, slot)
        DO UPDATE SET documents = document_counts.documents + excluded.documents;
    ELSE
        INSERT INTO document_counts (account_id, status, slot, documents)
        SELECT account_id, status, pg_backend_pid() % 16, sum(change)
        FROM (SELECT o.account_id, o.status, -1 AS change
              FROM before o JOIN after n ON n.id = o.id
              WHERE (o.account_id, o.status) IS DISTINCT FROM (n.account_id, n.status)
              UNION ALL
              SELECT n.account_id, n.status, 1
              FROM before o JOIN after n ON n.id = o.id
              WHERE (o.account_id, o.status) IS DISTINCT FROM (n.account_id, n.status)) moves
        GROUP BY account_id, status HAVING sum(change) <> 0 ORDER BY account_id, status
        ON CONFLICT (account_id, status, slot)
        DO UPDATE SET documents = document_counts.documents + excluded.documents;
    END IF;
    RETURN NULL;
END
$$;

-- Creating the triggers locks out writes to documents until this migration commits, so the
-- backfill below and the triggers see the same documents.
CREATE TRIGGER documents_counted_on_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION count_documents();
CREATE TRIGGER documents_counted_on_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION count_documents();
CREATE TRIGGER documents_counted_on_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS before NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION count_documents();

INSERT INTO document_counts (account_id, status, slot, documents)
SELECT account_id, status, 0, count(*) FROM documents GROUP BY account_id, status;

-- Each sort key, with and without a status filter, is read in order from an index: a page
-- costs its offset plus its length, whatever the account's size.
CREATE INDEX documents_all_by_updated ON documents (account_id, updated_at, id);
CREATE INDEX documents_all_by_title ON documents (account_id, title, id);

-- Search keeps the trigram index on titles alone (documents_title_search). With the account in
-- the same GIN index (btree_gin), every search read the account's whole posting list: 114
-- searches/s for a one-match term at a million documents, against 949 without (pgbench, same
-- SQL, docs/performance.md).
