-- Audit entries name the recipient they concern (a view, a signature, a decline, a failed
-- e-mail, a resent invitation), so that the completion certificate finds a recipient's entries
-- by id instead of by parsing message text.
--
-- `format` says what an entry's hash covers: 1 = the fields listed in store/audit.rs
-- `canonical`; 2 = the same and the recipient. Entries written before this migration keep
-- format 1 and their hashes; their recipient is filled in once, below, from the message they
-- were written with (the only time Signet reads a recipient out of a message), and is not
-- covered by their hash. Every entry written from now on is format 2.
ALTER TABLE audit_entries ADD COLUMN recipient_id uuid;
ALTER TABLE audit_entries ADD COLUMN format smallint NOT NULL DEFAULT 1 CHECK (format IN (1, 2));
ALTER TABLE audit_entries ALTER COLUMN format DROP DEFAULT;

ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_no_update_or_delete;
UPDATE audit_entries a SET recipient_id = r.id
FROM recipients r
WHERE r.document_id = a.document_id
  AND a.event IN ('VIEWED', 'SIGNED', 'DECLINED')
  AND (a.message = 'Document viewed by ' || r.email
       OR a.message = 'Document signed by ' || r.email
       OR a.message = 'Document declined by ' || r.email
       OR starts_with(a.message, 'Document declined by ' || r.email || ': '));
ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_no_update_or_delete;
