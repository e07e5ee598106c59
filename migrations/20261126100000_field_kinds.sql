-- More kinds of field (issue #33, docs/fields.md): the kinds a field may be, and the
-- properties every field now has. A field is required unless it says otherwise (the contract's
-- four kinds always were); `rules` holds the properties of its kind (options, bounds, length,
-- pattern) as JSON, checked when the field was made. A template's field keeps the same, and a
-- value to prefill its documents' field with.
ALTER TABLE fields DROP CONSTRAINT fields_type_check;
ALTER TABLE fields ADD CONSTRAINT fields_type_check CHECK (type IN (
    'SIGNATURE', 'TEXT', 'DATE', 'INITIALS', 'CHECKBOX', 'RADIO', 'DROPDOWN', 'NUMBER', 'EMAIL',
    'NAME', 'COMPANY', 'ATTACHMENT'));
ALTER TABLE fields
    ADD COLUMN label    text,
    ADD COLUMN required boolean NOT NULL DEFAULT true,
    ADD COLUMN rules    jsonb NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX fields_label_unique ON fields (document_id, label) WHERE label IS NOT NULL;

ALTER TABLE template_fields DROP CONSTRAINT template_fields_type_check;
ALTER TABLE template_fields ADD CONSTRAINT template_fields_type_check CHECK (type IN (
    'SIGNATURE', 'TEXT', 'DATE', 'INITIALS', 'CHECKBOX', 'RADIO', 'DROPDOWN', 'NUMBER', 'EMAIL',
    'NAME', 'COMPANY', 'ATTACHMENT'));
ALTER TABLE template_fields
    ADD COLUMN required boolean NOT NULL DEFAULT true,
    ADD COLUMN rules    jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN value    text;
