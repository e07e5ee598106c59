-- The public /verify page finds the completed document a sealed file belongs to by the file's
-- SHA-256 (and only when its seal holds).
CREATE INDEX documents_by_final_sha256 ON documents (final_sha256) WHERE final_sha256 IS NOT NULL;
