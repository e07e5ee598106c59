-- Audit format 3 (issue #37, docs/retention.md). Written so that it can run again on a schema
-- whose `format` column was made anew (tests/tests/suite/upgrades.rs replays older migrations).

-- Audit format 3: the entry's hash covers a salted digest of its personal part (message,
-- IP address, user agent) instead of the values, so the values (and the salt) can be erased
-- and the chain still verifies. `personal_salt` is NULL once erased; `personal_digest` never
-- changes. An erased entry of format 1 or 2, whose hash covered the values themselves, keeps
-- its hash and its place in the chain: what it said can no longer be checked (docs/retention.md).
ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_format_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_format_check CHECK (format IN (1, 2, 3));
ALTER TABLE audit_entries
    ADD COLUMN IF NOT EXISTS personal_salt bytea,
    ADD COLUMN IF NOT EXISTS personal_digest bytea,
    ADD COLUMN IF NOT EXISTS erased_at timestamptz;
ALTER TABLE audit_entries DROP CONSTRAINT IF EXISTS audit_entries_personal_check;
ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_personal_check
        CHECK ((format >= 3) = (personal_digest IS NOT NULL)
               AND (erased_at IS NOT NULL OR format < 3 OR personal_salt IS NOT NULL));

-- Still append-only, with one exception: an erasure may replace an entry's message, IP address
-- and user agent (and drop its salt) when it marks the entry erased. Nothing the hash covers
-- directly may change, and no row may be deleted.
CREATE OR REPLACE FUNCTION audit_entries_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND NEW.erased_at IS NOT NULL
       AND NEW.personal_salt IS NULL
       AND (NEW.seq, NEW.id, NEW.account_id, NEW.document_id, NEW.event, NEW.recipient_id,
            NEW.created_at, NEW.prev_hash, NEW.hash, NEW.format, NEW.personal_digest)
           IS NOT DISTINCT FROM
           (OLD.seq, OLD.id, OLD.account_id, OLD.document_id, OLD.event, OLD.recipient_id,
            OLD.created_at, OLD.prev_hash, OLD.hash, OLD.format, OLD.personal_digest)
    THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit_entries is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
