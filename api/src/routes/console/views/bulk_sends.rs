//! Bulk send in the console: the "Send to a list" section of a template's page, the preview of
//! a CSV (the rows ready, or each bad row as the API names it), and a bulk send's progress.

use maud::{Markup, html};
use signet_common::{
    Problem,
    model::{BulkSendId, BulkSendStatus, FieldType},
    store::templates::{Template, TemplateField, TemplateRole},
    wire::bulk_sends::BulkSendView,
};

use super::frame::{csrf_field, nav};
use crate::{
    html::{count, isolated, time},
    routes::assets,
};

/// Each column a CSV for the template takes, and whether a row must give it: per role its
/// person (`<Role>.name`, `.email`, then the optional ones), then the TEXT fields' labels.
pub(in crate::routes::console) fn bulk_columns(
    roles: &[TemplateRole],
    fields: &[TemplateField],
) -> Vec<(String, bool)> {
    let mut columns = Vec::new();
    for role in roles {
        for (part, required) in [
            ("name", true),
            ("email", true),
            ("countryCode", false),
            ("phoneNumber", false),
            ("language", false),
        ] {
            columns.push((format!("{}.{part}", role.name), required));
        }
    }
    for field in fields.iter().filter(|f| f.field_type == FieldType::Text) {
        columns.push((field.label.clone(), false));
    }
    columns
}

/// The send's options, shared by the section and the preview's forms.
fn send_options(message: &str, expiry: &str) -> Markup {
    html! {
        label for="bulk-message" { "Message (blank: the template's)" }
        textarea id="bulk-message" name="message" rows="2" maxlength="5000" { (message) }
        label for="bulk-expiry" { "Expires (UTC; blank: the template's default after each send)" }
        input type="datetime-local" id="bulk-expiry" name="expiry" value=(expiry);
    }
}

/// The CSV upload form, checked first (nothing is sent before the preview's Send).
fn upload_form(csrf: &str, template: &Template, message: &str, expiry: &str) -> Markup {
    html! {
        form method="post" enctype="multipart/form-data" id="bulk-upload"
            action=(format!("/app/templates/{}/bulk-sends/preview", template.id)) {
            (csrf_field(csrf))
            label for="bulk-file" { "CSV file (UTF-8, a header row, one row per document)" }
            input type="file" id="bulk-file" name="file" accept=".csv,text/csv" required;
            (send_options(message, expiry))
            button.primary type="submit" { "Check the list" }
        }
    }
}

/// "Send to a list" on a template's page: the columns its CSV takes, and the upload.
pub(in crate::routes::console) fn send_to_a_list(
    csrf: &str,
    template: &Template,
    roles: &[TemplateRole],
    fields: &[TemplateField],
) -> Markup {
    html! {
        section.card id="bulk" {
            h2 { "Send to a list" }
            p { "One sent document per row of a CSV file. Every row is checked first; you see the result before anything is sent." }
            details {
                summary { "Columns of the header row" }
                ul id="bulk-columns" {
                    @for (column, required) in bulk_columns(roles, fields) {
                        li { code { (isolated(&column)) } @if required { " · required" } @else { " · optional" } }
                    }
                }
                p { small { "A role's phone number takes its countryCode (e.g. +44) for SMS; its language is a tag such as en or fr. A text field's column gives its value." } }
            }
            p { a href=(format!("/app/templates/{}/bulk-sends/header.csv", template.id)) download { "Download the CSV header" } }
            (upload_form(csrf, template, "", ""))
        }
    }
}

/// What the preview shows.
pub(in crate::routes::console) enum Preview<'a> {
    /// Every row is good: the CSV (base64) and the id the Send will create it with.
    Ready {
        rows: usize,
        csv: &'a str,
        id: BulkSendId,
    },
    /// Nothing is sent: each problem, as the API lists them.
    Refused(&'a [Problem]),
}

pub(in crate::routes::console) struct BulkPreview<'a> {
    pub csrf: &'a str,
    pub template: &'a Template,
    pub preview: Preview<'a>,
    pub message: &'a str,
    pub expiry: &'a str,
}

/// `rows[17].Tenant.email` → ("17", "Tenant.email"); `header.X` → ("header", "X").
fn row_and_column(field: &str) -> (String, String) {
    if let Some(rest) = field.strip_prefix("rows[")
        && let Some((row, column)) = rest.split_once("].")
    {
        return (row.to_owned(), column.to_owned());
    }
    match field.split_once('.') {
        Some(("header", column)) => ("header".into(), column.into()),
        _ => (String::new(), field.to_owned()),
    }
}

pub(in crate::routes::console) fn bulk_preview(view: BulkPreview<'_>) -> Markup {
    let BulkPreview {
        csrf,
        template,
        preview,
        message,
        expiry,
    } = view;
    let template_url = format!("/app/templates/{}", template.id);
    html! {
        (nav(csrf))
        p { a href=(template_url) { "← " (isolated(&template.title)) } }
        h1 { "Send to a list" }
        @match preview {
            Preview::Ready { rows, csv, id } => {
                section.card id="ready" {
                    p.banner role="status" { strong { (count(rows as i64, "row", "rows")) " ready" } ", each made into a document from this template and sent." }
                    form method="post" action=(format!("{template_url}/bulk-sends")) id="bulk-confirm" {
                        (csrf_field(csrf))
                        input type="hidden" name="id" value=(id);
                        input type="hidden" name="csv" value=(csv);
                        input type="hidden" name="message" value=(message);
                        input type="hidden" name="expiry" value=(expiry);
                        dl {
                            dt { "Message" } dd { @if message.trim().is_empty() { "the template's" } @else { (message) } }
                            dt { "Expires" } dd { @if expiry.trim().is_empty() { "the template's default" } @else { (expiry) " UTC" } }
                        }
                        button.primary type="submit" { "Send " (count(rows as i64, "document", "documents")) }
                    }
                }
            }
            Preview::Refused(problems) => {
                div.error role="alert" id="error" {
                    p { "Nothing was sent. Fix these in the file and check it again:" }
                }
                table.stack id="problems" {
                    thead { tr { th { "Row" } th { "Column" } th { "Problem" } } }
                    tbody {
                        @for problem in problems {
                            @let (row, column) = row_and_column(&problem.field);
                            tr {
                                td data-label="Row" { (row) }
                                td data-label="Column" { @if !column.is_empty() { code { (isolated(&column)) } } }
                                td data-label="Problem" { (problem.reason) }
                            }
                        }
                    }
                }
            }
        }
        section.card id="bulk" {
            h2 { "Check another file" }
            (upload_form(csrf, template, message, expiry))
        }
    }
}

pub(in crate::routes::console) struct BulkProgress<'a> {
    pub csrf: &'a str,
    pub view: &'a BulkSendView,
}

/// A bulk send's progress: while RUNNING, the page's script follows it (`progress.json`) and
/// shows the page again once it is done; without script, the Refresh link.
pub(in crate::routes::console) fn bulk_progress(view: BulkProgress<'_>) -> Markup {
    let BulkProgress { csrf, view } = view;
    let running = view.status == BulkSendStatus::Running;
    let done = view.created + view.failed + view.cancelled;
    let url = format!("/app/bulk-sends/{}", view.id);
    html! {
        (nav(csrf))
        p { a href=(format!("/app/templates/{}", view.template_id)) { "← The template" } }
        h1 { "Bulk send" }
        section.card id="progress" data-status=(view.status) data-url=(format!("{url}/progress.json")) {
            p.banner id="status" { strong { (view.status) } " · started " (time(view.created_at.0))
                @if let Some(finished) = &view.finished_at { " · finished " (time(finished.0)) } }
            label for="bar" { "Rows done" }
            progress id="bar" style="width:100%" max=(view.total.max(1)) value=(done) { (done) " of " (view.total) }
            p id="counts" aria-live="polite" {
                span id="done" { (done) } " of " (count(view.total, "row", "rows")) " done: "
                span id="created" { (view.created) } " made and sent, "
                span id="failed" { (view.failed) } " failed, "
                span id="cancelled" { (view.cancelled) } " cancelled, "
                span id="pending" { (view.pending) } " waiting."
            }
            @if running {
                p { small { "This page follows the send while it runs. " a href=(url) { "Refresh" } } }
                script type="module" src=(format!("{}/bulk-progress.mjs", assets::BASE)) {}
            }
        }
        @if !view.failures.is_empty() {
            section.card id="failures" {
                h2 { "Failed rows" }
                @if view.failed > view.failures.len() as i64 { p { small { "The first " (view.failures.len()) " of " (view.failed) "." } } }
                table.stack {
                    thead { tr { th { "Row" } th { "Why" } } }
                    tbody { @for f in &view.failures { tr { td data-label="Row" { (f.row) } td data-label="Why" { (f.reason) } } } }
                }
            }
        }
        @if running {
            form.card method="post" action=(format!("{url}/cancel")) id="cancel" {
                (csrf_field(csrf))
                p { small { "Cancelling makes no more documents from the list; the documents already sent stay as they are." } }
                button.danger type="submit" { "Cancel the rest" }
            }
        }
    }
}
