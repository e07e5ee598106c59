-- The template list's search and sorting (issue #32): a title substring, case-insensitive,
-- through a trigram index as the documents' search; and the other two orders read from an
-- index on the account's templates not archived, as the newest-first order already is.
CREATE INDEX templates_title_search ON templates USING gin (title gin_trgm_ops);
CREATE INDEX templates_by_updated ON templates (account_id, updated_at DESC, id DESC)
    WHERE archived_at IS NULL;
CREATE INDEX templates_by_title ON templates (account_id, title, id)
    WHERE archived_at IS NULL;
