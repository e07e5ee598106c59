-- Prefilled fields (issue #32): a template field says whether the value a document is made
-- with is read-only (stamped as given; the signer does not fill it) or editable (shown filled;
-- the signer may change it). A document's field carries the same flag, copied from the
-- template, and its prefilled value in `value` until the signer's own replaces it.
ALTER TABLE template_fields ADD COLUMN read_only boolean NOT NULL DEFAULT false;
ALTER TABLE fields ADD COLUMN read_only boolean NOT NULL DEFAULT false;
