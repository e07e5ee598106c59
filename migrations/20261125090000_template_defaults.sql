-- Defaults kept on a template (issue #32): what a document made from it is sent with when the
-- instantiating request does not say. `reminders` is the send's `reminders` object as given.
ALTER TABLE templates
    ADD COLUMN message     text,
    ADD COLUMN description text,
    ADD COLUMN expiry_days integer CHECK (expiry_days BETWEEN 1 AND 365),
    ADD COLUMN reminders   jsonb,
    ADD COLUMN language    text;
