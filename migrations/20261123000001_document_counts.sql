-- The document list's `total` without reading the account's documents: per-account, per-status
-- counts kept by triggers in the same transaction as every insert, status change and delete.
--
-- Each count is spread over 16 slots, chosen by the writing session's backend pid, so that
-- concurrent writers in one busy account update different rows instead of queueing on one. A
-- slot may go negative (a document counted in one slot, moved out of its status by another
-- session); only the sum per (account, status) means anything. One transaction always writes
-- one slot, and within a status change it writes the old status before the new one, so two
-- transactions never wait on each other in opposite orders.
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
DECLARE
    my_slot smallint := pg_backend_pid() % 16;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO document_counts (account_id, status, slot, documents)
        VALUES (OLD.account_id, OLD.status, my_slot, -1)
        ON CONFLICT (account_id, status, slot)
        DO UPDATE SET documents = document_counts.documents - 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO document_counts (account_id, status, slot, documents)
        VALUES (NEW.account_id, NEW.status, my_slot, 1)
        ON CONFLICT (account_id, status, slot)
        DO UPDATE SET documents = document_counts.documents + 1;
    END IF;
    RETURN NULL;
END
$$;

-- Creating the triggers locks out writes to documents until this migration commits, so the
-- backfill below and the triggers see the same documents.
CREATE TRIGGER documents_counted
    AFTER INSERT OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION count_documents();
CREATE TRIGGER documents_recounted
    AFTER UPDATE OF status, account_id ON documents
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.account_id IS DISTINCT FROM NEW.account_id)
    EXECUTE FUNCTION count_documents();

INSERT INTO document_counts (account_id, status, slot, documents)
SELECT account_id, status, 0, count(*) FROM documents GROUP BY account_id, status;

-- Each sort key, with and without a status filter, is read in order from an index: a page
-- costs its offset plus its length, whatever the account's size.
CREATE INDEX documents_all_by_updated ON documents (account_id, updated_at, id);
CREATE INDEX documents_all_by_title ON documents (account_id, title, id);

-- Search within one account: trigram matches narrowed to the account inside the index.
CREATE EXTENSION IF NOT EXISTS btree_gin;
DROP INDEX documents_title_search;
CREATE INDEX documents_title_search ON documents USING gin (account_id, title gin_trgm_ops);
