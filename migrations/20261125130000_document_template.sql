-- Which template a document was made from (issue #32), for the record only: the document has
-- copied everything it needs, so a template changed or archived changes no document.
ALTER TABLE documents ADD COLUMN template_id uuid;
