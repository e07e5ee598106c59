-- A recipient's phone number in E.164 (`+<country code><national number>`), for SMS. From now on
-- it is set on insert when `country_code` and `phone_number` are both given, after the API has
-- checked them against libphonenumber's numbering plans (common/src/wire/inputs.rs); the two
-- columns keep the values as given, which the document detail returns.
ALTER TABLE recipients ADD COLUMN phone_e164 text;

-- Rows from before: SQL has no numbering plans, so a number is converted only where plain
-- concatenation is certainly its E.164 form, and otherwise left NULL (no SMS for it):
--   * both columns present, the prefix `+<1-4 digits>` not starting with 0, the number only
--     digits and ` .-()`;
--   * the national digits do not start with 0: in most countries that is a trunk prefix that
--     E.164 drops (UK `020 ...` is `+4420...`), in a few (Italy) it belongs to the number, and
--     only libphonenumber can tell;
--   * under `+1` they do not start with 1 (the NANP trunk prefix, `1 555 ...`);
--   * the result has 8 to 15 digits (E.164's maximum is 15).
-- These rows were never checked against a numbering plan; the rule above only keeps out
-- conversions that would change a number, not numbers that do not exist.
UPDATE recipients r
SET phone_e164 = n.e164
FROM (
    SELECT id, country_code || regexp_replace(phone_number, '[ .()-]', '', 'g') AS e164,
           regexp_replace(phone_number, '[ .()-]', '', 'g') AS national
    FROM recipients
    WHERE country_code ~ '^\+[1-9][0-9]{0,3}$'
      AND phone_number ~ '^[0-9 .()-]+$'
) n
WHERE r.id = n.id
  AND n.national ~ '^[1-9]'
  AND NOT (r.country_code = '+1' AND n.national ~ '^1')
  AND length(n.e164) - 1 BETWEEN 8 AND 15;
