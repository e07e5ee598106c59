-- Files signers attach to ATTACHMENT fields (docs/fields.md) through their signing link. A
-- field's value, once signed, is the id of one of its rows. Uploads replaced by a later one and
-- uploads never signed with are removed by the file sweep (flows::files) with their rows.
CREATE TABLE signer_attachments (
    id           uuid PRIMARY KEY,
    document_id  uuid NOT NULL REFERENCES documents (id),
    recipient_id uuid NOT NULL REFERENCES recipients (id),
    field_id     uuid NOT NULL REFERENCES fields (id) ON DELETE CASCADE,
    file_key     text NOT NULL UNIQUE,
    file_name    text NOT NULL,
    media_type   text NOT NULL,
    size         bigint NOT NULL CHECK (size > 0),
    sha256       text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX signer_attachments_by_field ON signer_attachments (field_id, created_at);
CREATE INDEX signer_attachments_by_document ON signer_attachments (document_id);
CREATE INDEX signer_attachments_created_at ON signer_attachments (created_at);
