-- Files written to the store before the row that refers to them is committed (an upload's
-- original before its document, a final PDF before its completion). The committing
-- transaction deletes the row; a row left behind means the commit never happened (a failed
-- insert, a discarded rendering, a crash in between), and the worker's sweep removes the file
-- once the row is older than any upload or completion can take.
CREATE TABLE pending_files (
    key text PRIMARY KEY,
    document_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX pending_files_created_at ON pending_files (created_at);
