-- When each sweep last finished, in whichever worker process ran it: every process's /metrics
-- (and the API's) shows it, so an operator sees when no process runs the sweep any more.
CREATE TABLE sweep_runs (
    sweep       text PRIMARY KEY,
    finished_at timestamptz NOT NULL,
    finished_by text NOT NULL
);
