-- A search's exact `total` without counting its matches on every request (issue #35): for the
-- terms an account has searched that match many of its documents, per-status counts kept by
-- triggers in the same transaction as every insert, delete, status change and title change,
-- as document_counts is for the whole account. Counting 125,000 matches of a million-document
-- account took ~0.3 s of one core per request (the trigram index finds candidates, every one
-- is read and checked); a kept term's total is a sum over at most 6 × 16 rows.
--
-- A term is kept when its first search finds at least 1,000 matches (fewer are cheap to
-- count each time), at most 32 per account (the least recently searched is dropped), so a
-- document write checks its title against at most 32 patterns of its account.
--
-- Exactness under concurrent writers: the first search of a term counts its matches while
-- holding an exclusive advisory lock on the account, and every write that can change a term's
-- count takes the same lock shared (in the trigger, before it reads the account's terms) and
-- holds it to its commit. So a writer either finished before the count (its documents are in
-- the count) or reads the kept term after it is committed (its trigger counts its documents).
-- That needs each trigger statement to see what committed before it: document writers run at
-- READ COMMITTED (every one in this codebase does). Lock key: (35, hashtext(account_id::text)),
-- the same in store/documents.rs.

CREATE TABLE document_search_terms (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    -- The ILIKE pattern exactly as the search used it (`%term%`, metacharacters escaped).
    pattern     text NOT NULL,
    -- When a search last used it, to the hour (eviction order).
    used_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, pattern)
);

-- Spread over 16 slots by the writer's backend pid, like document_counts: only the sum per
-- (account, pattern, status) means anything.
CREATE TABLE document_search_counts (
    account_id  uuid NOT NULL,
    pattern     text NOT NULL,
    status      text NOT NULL,
    slot        smallint NOT NULL,
    documents   bigint NOT NULL,
    PRIMARY KEY (account_id, pattern, status, slot)
) WITH (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_analyze_scale_factor = 0,
    autovacuum_analyze_threshold = 1000
);

CREATE FUNCTION count_search_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM pg_advisory_xact_lock_shared(35, hashtext(account_id::text))
        FROM (SELECT DISTINCT account_id FROM inserted) a;
        INSERT INTO document_search_counts (account_id, pattern, status, slot, documents)
        SELECT t.account_id, t.pattern, d.status, pg_backend_pid() % 16, count(*)
        FROM inserted d
        JOIN document_search_terms t
          ON t.account_id = d.account_id AND d.title ILIKE t.pattern ESCAPE '\'
        GROUP BY t.account_id, t.pattern, d.status ORDER BY 1, 2, 3
        ON CONFLICT (account_id, pattern, status, slot)
        DO UPDATE SET documents = document_search_counts.documents + excluded.documents;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM pg_advisory_xact_lock_shared(35, hashtext(account_id::text))
        FROM (SELECT DISTINCT account_id FROM deleted) a;
        INSERT INTO document_search_counts (account_id, pattern, status, slot, documents)
        SELECT t.account_id, t.pattern, d.status, pg_backend_pid() % 16, -count(*)
        FROM deleted d
        JOIN document_search_terms t
          ON t.account_id = d.account_id AND d.title ILIKE t.pattern ESCAPE '\'
        GROUP BY t.account_id, t.pattern, d.status ORDER BY 1, 2, 3
        ON CONFLICT (account_id, pattern, status, slot)
        DO UPDATE SET documents = document_search_counts.documents + excluded.documents;
    ELSE
        -- Only a change of account, status or title can change a count: an update of anything
        -- else (`updated_at`, a send's message) takes no lock and reads no terms.
        PERFORM pg_advisory_xact_lock_shared(35, hashtext(account_id::text))
        FROM (SELECT DISTINCT unnest(ARRAY[o.account_id, n.account_id]) AS account_id
              FROM before o JOIN after n ON n.id = o.id
              WHERE (o.account_id, o.status, o.title) IS DISTINCT FROM
                    (n.account_id, n.status, n.title)) a;
        IF FOUND THEN
            INSERT INTO document_search_counts (account_id, pattern, status, slot, documents)
            SELECT t.account_id, t.pattern, c.status, pg_backend_pid() % 16, sum(c.change)
            FROM (SELECT o.account_id, o.status, o.title, -1 AS change
                  FROM before o JOIN after n ON n.id = o.id
                  WHERE (o.account_id, o.status, o.title) IS DISTINCT FROM
                        (n.account_id, n.status, n.title)
                  UNION ALL
                  SELECT n.account_id, n.status, n.title, 1
                  FROM before o JOIN after n ON n.id = o.id
                  WHERE (o.account_id, o.status, o.title) IS DISTINCT FROM
                        (n.account_id, n.status, n.title)) c
            JOIN document_search_terms t
              ON t.account_id = c.account_id AND c.title ILIKE t.pattern ESCAPE '\'
            GROUP BY t.account_id, t.pattern, c.status HAVING sum(c.change) <> 0
            ORDER BY 1, 2, 3
            ON CONFLICT (account_id, pattern, status, slot)
            DO UPDATE SET documents = document_search_counts.documents + excluded.documents;
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER documents_searched_on_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION count_search_terms();
CREATE TRIGGER documents_searched_on_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS deleted
    FOR EACH STATEMENT EXECUTE FUNCTION count_search_terms();
CREATE TRIGGER documents_searched_on_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS before NEW TABLE AS after
    FOR EACH STATEMENT EXECUTE FUNCTION count_search_terms();
