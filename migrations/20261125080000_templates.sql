-- Templates (issue #32): a document's PDF, roles and labelled fields prepared once and
-- instantiated per deal. The PDF is shared with the document it was made from (an original is
-- never changed once stored); the file sweep keeps a file any template refers to.
CREATE TABLE templates (
    id                 uuid PRIMARY KEY,
    account_id         uuid NOT NULL REFERENCES accounts (id),
    title              text NOT NULL,
    file_key           text NOT NULL,
    sha256             text NOT NULL,
    page_sizes         jsonb NOT NULL,
    -- The document it was made from, for the record only.
    source_document_id uuid,
    archived_at        timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
-- The list: an account's templates not archived, newest first.
CREATE INDEX templates_by_created ON templates (account_id, created_at DESC, id DESC)
    WHERE archived_at IS NULL;
CREATE INDEX templates_by_file_key ON templates (file_key);

CREATE TABLE template_roles (
    id            uuid PRIMARY KEY,
    template_id   uuid NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
    name          text NOT NULL,
    role          text NOT NULL CHECK (role IN ('SIGNER', 'VIEWER')),
    signing_order integer CHECK (signing_order > 0),
    language      text,
    position      integer NOT NULL,
    UNIQUE (template_id, name)
);

CREATE TABLE template_fields (
    id          uuid PRIMARY KEY,
    template_id uuid NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
    role_id     uuid NOT NULL REFERENCES template_roles (id) ON DELETE CASCADE,
    label       text NOT NULL,
    type        text NOT NULL CHECK (type IN ('SIGNATURE', 'TEXT', 'DATE', 'INITIALS')),
    page        integer NOT NULL CHECK (page > 0),
    x           double precision NOT NULL,
    y           double precision NOT NULL,
    width       double precision NOT NULL,
    height      double precision NOT NULL,
    position    integer NOT NULL,
    UNIQUE (template_id, label)
);
CREATE INDEX template_fields_by_role ON template_fields (role_id);
