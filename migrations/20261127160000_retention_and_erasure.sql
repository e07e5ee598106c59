-- Retention and erasure (issue #37, docs/retention.md).

-- Retention: an account may have its documents' files removed this many days after the
-- document ended (COMPLETED, DECLINED, EXPIRED or CANCELLED). NULL: never (the default).
ALTER TABLE accounts ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 1 AND 36500);

-- When the document ended (set by the statement that ends it), and when and why its files were
-- removed. The keys and hashes stay: they say what was stored and signed.
ALTER TABLE documents
    ADD COLUMN ended_at timestamptz,
    ADD COLUMN files_removed_at timestamptz,
    ADD COLUMN files_removed_reason text CHECK (files_removed_reason IN ('RETENTION_POLICY')),
    ADD CONSTRAINT documents_files_removed_check
        CHECK ((files_removed_at IS NULL) = (files_removed_reason IS NULL));
-- Documents that ended before: their last change was their end (nothing changes an ended
-- document).
UPDATE documents SET ended_at = coalesce(completed_at, updated_at)
WHERE status IN ('COMPLETED', 'DECLINED', 'EXPIRED', 'CANCELLED');
-- The retention sweep's read: an account's ended documents that still have their files,
-- oldest end first.
CREATE INDEX documents_retention_due ON documents (account_id, ended_at)
    WHERE ended_at IS NOT NULL AND files_removed_at IS NULL;

-- Files the retention sweep has decided to remove, written in the transaction that marks their
-- document: the store's removals happen after the commit, and a row goes only once its file is
-- gone, so no file is lost track of if the process dies in between.
CREATE TABLE file_deletions (
    key          text PRIMARY KEY,
    document_id  uuid NOT NULL REFERENCES documents (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX file_deletions_by_age ON file_deletions (created_at);

-- Erasure: a recipient whose personal data was erased on request (their name, e-mail address,
-- phone number, IP addresses and user agents replaced by tombstones).
ALTER TABLE recipients ADD COLUMN erased_at timestamptz;
