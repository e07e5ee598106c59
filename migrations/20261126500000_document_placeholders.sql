-- Fields found in a DRAFT document's PDF (text tags, form fields) by the console's upload,
-- waiting, grouped by role, for the recipient they will be given (docs/console.md).
CREATE TABLE document_placeholders (
    id            bigserial PRIMARY KEY,
    document_id   uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    role_name     text NOT NULL,
    role_position integer NOT NULL,
    -- A field as POST /documents/{id}/fields takes it, without its recipientEmail.
    field         jsonb NOT NULL
);

CREATE INDEX document_placeholders_document ON document_placeholders (document_id, role_position, id);
