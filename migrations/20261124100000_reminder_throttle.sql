-- Throttled reminders (issue #29): at most one reminder per recipient per
-- REMINDER_MIN_INTERVAL_HOURS, whoever asks (API, console, CLI, the sweep), and one reusable
-- reminder link per recipient instead of a new one per reminder.

-- When the recipient was last sent a reminder (queued, under the document's row lock).
ALTER TABLE recipients ADD COLUMN last_reminded_at timestamptz;
-- Recipients reminded before this migration: their latest reminder's e-mail.
UPDATE recipients r SET last_reminded_at = e.latest
FROM (SELECT recipient_id, max(created_at) AS latest FROM outbound_emails
      WHERE kind = 'REMINDER' GROUP BY recipient_id) e
WHERE e.recipient_id = r.id;

-- The recipient's reminder link: its clear token is HMAC(key, recipient id || reminder_link_id)
-- (docs/security.md, "Reminders"), so every reminder re-sends it while nothing clear is stored.
-- NULL: a link made before this migration (a random token, kept working), or one whose token can
-- no longer be derived because the key changed. One derivable link per recipient at most.
ALTER TABLE signing_links ADD COLUMN reminder_link_id uuid;
CREATE UNIQUE INDEX signing_links_one_reminder_link ON signing_links (recipient_id)
    WHERE reminder_link_id IS NOT NULL;
