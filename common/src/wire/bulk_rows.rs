//! A bulk send's rows as read from a JSON body or a CSV file (docs/templates.md), under hard
//! limits (docs/security.md): the reading is one pass over the input, every count is refused as
//! soon as it passes its limit, and the rows take about the size of the values they hold.
//!
//! Column names are kept once, in a table of at most [`MAX_COLUMNS`]; each row keeps its
//! values in one string and a column number and length per value (four bytes). The rows take
//! at most 1.5 times a JSON body and 5 times a CSV file (whose densest cell, `v,`, is two
//! bytes); the tests below measure it.

use std::{collections::HashMap, fmt};

use serde::{
    Deserialize, Deserializer,
    de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor},
};

use crate::{
    error::{Problem, Problems},
    wire::spreadsheet,
};

/// The most distinct columns the rows of one bulk send may name: more than any template has
/// (100 roles of five person columns, 1,000 field labels).
pub const MAX_COLUMNS: usize = 2_000;
/// The most rows read from one body, whatever `BULK_SEND_MAX_ROWS` allows (the setting may not
/// exceed it); past it the rest are counted, not read.
pub const MAX_ROWS_READ: usize = 100_000;
/// The longest column name read, in bytes: more than any role's person column or field label.
pub const MAX_COLUMN_NAME_BYTES: usize = 1_000;
/// The most problems noted while reading; the rest are counted.
const MAX_READ_PROBLEMS: usize = 1_000;

/// The longest value a row may hold, in bytes (more than any property takes).
pub const MAX_VALUE_BYTES: usize = u16::MAX as usize;

/// One row: its number (from 1), the CSV line it starts on, and its values with a column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub number: usize,
    pub line: Option<u64>,
    /// Every value, one after another.
    text: Box<str>,
    /// Each value's column (in [`ReadRows::columns`]) and length in `text`.
    cells: Box<[(u16, u16)]>,
}

/// A row as it is read, made into a [`Row`] of the exact size when it is whole.
#[derive(Default)]
struct RowBuilder {
    text: String,
    cells: Vec<(u16, u16)>,
}

impl RowBuilder {
    /// Adds a value; `false` when it is longer than [`MAX_VALUE_BYTES`].
    fn push(&mut self, column: u16, value: &str) -> bool {
        let Ok(len) = u16::try_from(value.len()) else {
            return false;
        };
        self.text.push_str(value);
        self.cells.push((column, len));
        true
    }

    fn build(self, number: usize, line: Option<u64>) -> Row {
        Row {
            number,
            line,
            text: self.text.into_boxed_str(),
            cells: self.cells.into_boxed_slice(),
        }
    }
}

impl Row {
    /// The row's values (blank ones left out), each with its column's number.
    pub fn cells(&self) -> impl Iterator<Item = (usize, &str)> {
        let mut start = 0;
        self.cells.iter().map(move |&(column, len)| {
            let value = &self.text[start..start + usize::from(len)];
            start += usize::from(len);
            (usize::from(column), value)
        })
    }

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

/// Why a column is not taken.
enum Refused {
    TooMany,
    LongName,
}

fn long_name() -> String {
    format!("a column's name is at most {MAX_COLUMN_NAME_BYTES} bytes")
}

/// The rows of a bulk send and the columns they name, with what was wrong in reading them.
#[derive(Debug, Clone, Default)]
pub struct ReadRows {
    /// The column names, in order of first appearance (a CSV's header order).
    pub columns: Vec<String>,
    /// Where each column is first named: `header.<name>` (line 1) or `rows[N].<name>`.
    pub first_named: Vec<String>,
    pub rows: Vec<Row>,
    /// Rows given in all, read or not.
    pub count: usize,
    /// What is said of rows that have none.
    when_empty: &'static str,
    problems: Vec<Problem>,
    unlisted: usize,
    by_name: HashMap<String, u16>,
    /// The last row that gave each column a value: a key given twice in a row is found at once.
    last_row_of: Vec<usize>,
}

impl ReadRows {
    fn note(&mut self, field: String, reason: impl Into<String>) {
        if self.problems.len() < MAX_READ_PROBLEMS {
            self.problems.push(Problem::new(field, reason));
        } else {
            self.unlisted += 1;
        }
    }

    /// The column named `name`, added when new; `Err` past [`MAX_COLUMNS`] or for a name
    /// longer than [`MAX_COLUMN_NAME_BYTES`] (not kept).
    fn column(&mut self, name: &str, named_at: impl FnOnce() -> String) -> Result<u16, Refused> {
        if let Some(&column) = self.by_name.get(name) {
            return Ok(column);
        }
        if name.len() > MAX_COLUMN_NAME_BYTES {
            return Err(Refused::LongName);
        }
        if self.columns.len() >= MAX_COLUMNS {
            return Err(Refused::TooMany);
        }
        let column = self.columns.len() as u16;
        self.columns.push(name.to_owned());
        self.first_named.push(named_at());
        self.by_name.insert(name.to_owned(), column);
        self.last_row_of.push(0);
        Ok(column)
    }

    /// Hands what was wrong in reading to `problems`; the rows are kept only when `max_rows`
    /// is respected (else that is one problem).
    /// `max_rows` above [`MAX_ROWS_READ`] counts as that.
    pub fn checked(mut self, max_rows: usize, problems: &mut Problems) -> Self {
        let max_rows = max_rows.min(MAX_ROWS_READ);
        if self.count == 0 && self.problems.is_empty() {
            let reason = match self.when_empty {
                "" => "at least one row is required",
                reason => reason,
            };
            problems.invalid("rows", reason);
        } else if self.count > max_rows {
            problems.invalid(
                "rows",
                format!("at most {max_rows} rows; this has {}", self.count),
            );
            self.rows.clear();
        }
        for problem in self.problems.drain(..) {
            problems.invalid(problem.field, problem.reason);
        }
        if self.unlisted > 0 {
            problems.invalid(
                "rows",
                format!("and {} more problems in reading the rows", self.unlisted),
            );
        }
        self
    }
}

impl ReadRows {
    /// The rows as JSON objects of their columns, as they are stored.
    pub fn as_objects(&self) -> impl serde::Serialize + '_ {
        RowObjects(self)
    }
}

struct RowObjects<'r>(&'r ReadRows);

impl serde::Serialize for RowObjects<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        let ReadRows { columns, rows, .. } = self.0;
        let mut seq = serializer.serialize_seq(Some(rows.len()))?;
        for row in rows {
            seq.serialize_element(&Cells(row, columns))?;
        }
        return seq.end();

        struct Cells<'r>(&'r Row, &'r [String]);
        impl serde::Serialize for Cells<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.cells.len()))?;
                for (column, value) in self.0.cells() {
                    map.serialize_entry(&self.1[column], value)?;
                }
                map.end()
            }
        }
    }
}

/// The rows of a JSON body (`"rows": [{"Tenant.email": "…"}, …]`): each an object of strings
/// (or `null`; blank is no value), read as they stream in.
impl<'de> Deserialize<'de> for ReadRows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(RowsVisitor)
    }
}

struct RowsVisitor;

impl<'de> Visitor<'de> for RowsVisitor {
    type Value = ReadRows;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ReadRows, A::Error> {
        let mut read = ReadRows::default();
        loop {
            if read.count >= MAX_ROWS_READ {
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    break;
                }
                read.count += 1;
                continue;
            }
            let number = read.count + 1;
            let seed = RowSeed {
                read: &mut read,
                number,
            };
            match seq.next_element_seed(seed)? {
                None => break,
                Some(Some(row)) => read.rows.push(row),
                Some(None) => {}
            }
            read.count += 1;
        }
        Ok(read)
    }
}

/// One row of a JSON body; `None` when it is not an object (noted).
struct RowSeed<'r> {
    read: &'r mut ReadRows,
    number: usize,
}

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = Option<Row>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Row>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RowSeed<'_> {
    type Value = Option<Row>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of columns")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Row>, A::Error> {
        let Self { read, number } = self;
        let mut row = RowBuilder::default();
        let mut overflowed = false;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let name = key.as_str();
            let column = match read.column(name, || format!("rows[{number}].{name}")) {
                Ok(column) => column,
                Err(refused) => {
                    map.next_value::<IgnoredAny>()?;
                    match refused {
                        Refused::LongName => read.note(format!("rows[{number}]"), long_name()),
                        Refused::TooMany if !std::mem::replace(&mut overflowed, true) => read.note(
                            format!("rows[{number}]"),
                            format!("the rows name more than {MAX_COLUMNS} different columns"),
                        ),
                        Refused::TooMany => {}
                    }
                    continue;
                }
            };
            if std::mem::replace(&mut read.last_row_of[usize::from(column)], number) == number {
                map.next_value::<IgnoredAny>()?;
                read.note(
                    format!("rows[{number}].{name}"),
                    "appears more than once in the row",
                );
                continue;
            }
            match map.next_value::<Cell<'de>>()? {
                Cell::Text(text) if text.trim().is_empty() => {}
                Cell::Text(text) => {
                    if !row.push(column, &text) {
                        read.note(format!("rows[{number}].{name}"), too_long());
                    }
                }
                Cell::Null => {}
                Cell::Other => read.note(format!("rows[{number}].{name}"), "must be a string"),
            }
        }
        Ok(Some(row.build(number, None)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Row>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.not_an_object()
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Row>, E> {
        self.not_an_object()
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Row>, E> {
        self.not_an_object()
    }
}

impl RowSeed<'_> {
    fn not_an_object<E>(self) -> Result<Option<Row>, E> {
        self.read.note(
            format!("rows[{}]", self.number),
            "must be an object of columns",
        );
        Ok(None)
    }
}

/// A column name, borrowed from the body where it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl Key<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a column name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A value of a row: text, `null`, or anything else (refused).
enum Cell<'de> {
    Text(std::borrow::Cow<'de, str>),
    Null,
    Other,
}

impl<'de> Deserialize<'de> for Cell<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CellVisitor;
        impl<'de> Visitor<'de> for CellVisitor {
            type Value = Cell<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or null")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cell<'de>, E> {
                Ok(Cell::Text(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell<'de>, E> {
                Ok(Cell::Text(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Cell<'de>, E> {
                Ok(Cell::Text(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Cell<'de>, E> {
                Ok(Cell::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Cell<'de>, E> {
                Ok(Cell::Null)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Cell<'de>, E> {
                Ok(Cell::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Cell<'de>, E> {
                Ok(Cell::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Cell<'de>, E> {
                Ok(Cell::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Cell<'de>, E> {
                Ok(Cell::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cell<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Cell::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cell<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Cell::Other)
            }
        }
        deserializer.deserialize_any(CellVisitor)
    }
}

fn too_long() -> String {
    format!("is longer than the {MAX_VALUE_BYTES} bytes a value may be")
}

/// The rows of a CSV file (RFC 4180; UTF-8, with or without a byte order mark): a header row
/// naming the columns, then one record per row. A header of more than [`MAX_COLUMNS`] columns
/// is refused before any row is read.
pub fn rows_from_csv(bytes: &[u8]) -> ReadRows {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut read = ReadRows::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(false) => {
            read.note(
                "rows".into(),
                "the CSV is empty: a header row and at least one row are required",
            );
            return read;
        }
        Err(e) => {
            read.note(
                "header".into(),
                format!("cannot be read as CSV: {}", csv_error(&e, Some(1))),
            );
            return read;
        }
        Ok(true) => {}
    }
    if record.len() > MAX_COLUMNS {
        read.note(
            "header".into(),
            format!(
                "has {} columns; a bulk send takes at most {MAX_COLUMNS} (line 1)",
                record.len()
            ),
        );
        return read;
    }
    // Each header column's place in the table; `None`: blank, repeated or not text.
    let mut header: Vec<Option<u16>> = Vec::with_capacity(record.len());
    for (index, name) in record.iter().enumerate() {
        // A cell written `'=…` (as the console's header download writes one a spreadsheet would
        // run) names the column `=…`.
        let name = match std::str::from_utf8(name) {
            Ok(name) => spreadsheet::unmarked(name.trim()),
            Err(_) => {
                read.note(
                    format!("header[{}]", index + 1),
                    "cannot be read as CSV: not UTF-8 (line 1)",
                );
                header.push(None);
                continue;
            }
        };
        if name.is_empty() {
            read.note(
                format!("header[{}]", index + 1),
                "a column needs a name (line 1)",
            );
            header.push(None);
        } else if read.by_name.contains_key(name) {
            read.note(format!("header.{name}"), "appears more than once (line 1)");
            header.push(None);
        } else if name.len() > MAX_COLUMN_NAME_BYTES {
            read.note(
                format!("header[{}]", index + 1),
                format!("{} (line 1)", long_name()),
            );
            header.push(None);
        } else {
            let at = format!("header.{name}");
            header.push(read.column(name, || at).ok());
        }
    }
    let mut lines = Lines {
        bytes,
        counted_to: 0,
        newlines: 0,
    };
    loop {
        let number = read.count + 1;
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Err(e) => {
                read.count += 1;
                let line = e.position().map(|p| lines.line_at(p.byte() as usize));
                read.note(
                    format!("rows[{number}]"),
                    format!("cannot be read as CSV: {}", csv_error(&e, line)),
                );
                continue;
            }
            Ok(true) => {}
        }
        let line = lines.line_at(record.position().map_or(0, |p| p.byte()) as usize);
        if record.len() <= 1 && record.iter().all(|value| value.trim_ascii().is_empty()) {
            // A blank line (the file's last, often): no row.
            continue;
        }
        read.count += 1;
        if read.count > MAX_ROWS_READ {
            continue;
        }
        if record.len() != header.len() {
            read.note(
                format!("rows[{number}]"),
                format!(
                    "has {} values, the header {} columns (line {line})",
                    record.len(),
                    header.len(),
                ),
            );
            continue;
        }
        let mut row = RowBuilder {
            text: String::with_capacity(record.as_slice().len()),
            cells: Vec::with_capacity(record.len()),
        };
        for (column, value) in header.iter().zip(record.iter()) {
            let Some(column) = *column else { continue };
            let at = || format!("rows[{number}].{}", read.columns[usize::from(column)]);
            match std::str::from_utf8(value) {
                Ok(value) if value.trim().is_empty() => {}
                Ok(value) => {
                    if !row.push(column, value) {
                        read.note(at(), format!("{} (line {line})", too_long()));
                    }
                }
                Err(_) => read.note(
                    at(),
                    format!("cannot be read as CSV: not UTF-8 (line {line})"),
                ),
            }
        }
        read.rows.push(row.build(number, Some(line)));
    }
    read.when_empty = "the CSV has a header but no row";
    read
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

#[cfg(test)]
mod tests;
