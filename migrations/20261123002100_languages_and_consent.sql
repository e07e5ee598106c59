-- The language a recipient reads their e-mails in, and the document's language (its certificate,
-- and the e-mails of recipients without their own); NULL means the operator's default. BCP 47
-- tags of the catalogues in i18n/locales.
ALTER TABLE recipients ADD COLUMN language text;
ALTER TABLE documents ADD COLUMN language text;

-- A signer's agreement to use electronic records and signatures (ESIGN Act § 101(c), UETA),
-- given on the signing page before their first field: when, from where, and the words they
-- agreed to, as shown to them.
ALTER TABLE recipients
    ADD COLUMN consented_at timestamptz,
    ADD COLUMN consent_ip text,
    ADD COLUMN consent_user_agent text,
    ADD COLUMN consent_text text;
