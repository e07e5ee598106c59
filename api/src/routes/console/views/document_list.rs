//! The documents page: upload form, filters (the API's list parameters), the list and paging.

use maud::{Markup, html};
use signet_common::{
    model::Document,
    wire::query::{SortBy, SortOrder, StatusFilter},
};

use super::frame::{csrf_field, nav};
use crate::{
    extract::ListParams,
    html::{count, isolated, time},
};

pub(in crate::routes::console) struct DocumentList<'a> {
    pub csrf: &'a str,
    pub params: &'a ListParams,
    pub found: &'a [Document],
    pub total: i64,
    /// Why the last upload was refused.
    pub upload_error: Option<&'a str>,
}

pub(in crate::routes::console) fn document_list(view: DocumentList<'_>) -> Markup {
    let DocumentList {
        csrf,
        params: ListParams { query, pairs },
        found,
        total,
        upload_error,
    } = view;
    let pages = query.total_pages(total);
    // The same list on another page: every parameter kept but `page`.
    let link = |page: i64| {
        let mut kept: Vec<(String, String)> =
            pairs.iter().filter(|(k, _)| k != "page").cloned().collect();
        kept.push(("page".into(), page.to_string()));
        format!(
            "/app/documents?{}",
            form_urlencoded::Serializer::new(String::new())
                .extend_pairs(kept)
                .finish()
        )
    };
    let selected_status = match query.status {
        Some(StatusFilter::Trash) => "TRASH",
        Some(StatusFilter::Is(s)) => s.as_str(),
        None => "",
    };
    html! {
        (nav(csrf))
        h1 { "Documents" }
        form.card method="post" action="/app/documents" enctype="multipart/form-data" id="upload" {
            (csrf_field(csrf))
            h2 { "Upload a PDF" }
            label for="title" { "Title" }
            input type="text" id="title" name="title" maxlength="500" placeholder="Defaults to the file name";
            label for="file" { "PDF (at most 50 MiB)" }
            input type="file" id="file" name="file" accept="application/pdf" required;
            label.inline for="find-fields" { input type="checkbox" id="find-fields" name="find_fields" value="1"; " Find fields in the PDF (text tags and form fields)" }
            button.primary type="submit" { "Upload" }
            @if let Some(error) = upload_error { p.error role="alert" { (error) } }
        }
        form.card method="get" action="/app/documents" id="filters" {
            label for="search" { "Search titles" }
            input type="search" id="search" name="search" value=(query.search.clone().unwrap_or_default());
            label for="status" { "Status" }
            select id="status" name="status" {
                @for (value, label) in [("", "Any"), ("DRAFT", "Draft"), ("SENT", "Sent"), ("COMPLETED", "Completed"), ("TRASH", "Declined, expired or cancelled")] {
                    option value=(value) selected[value == selected_status] { (label) }
                }
            }
            label for="sortBy" { "Sort by" }
            select id="sortBy" name="sortBy" {
                option value="dateCreated" selected[query.sort_by == SortBy::DateCreated] { "Created" }
                option value="dateModified" selected[query.sort_by == SortBy::DateModified] { "Modified" }
                option value="documentName" selected[query.sort_by == SortBy::DocumentName] { "Title" }
            }
            select name="sortOrder" aria-label="Order" {
                option value="DESC" selected[query.sort_order == SortOrder::Desc] { "Newest / Z first" }
                option value="ASC" selected[query.sort_order == SortOrder::Asc] { "Oldest / A first" }
            }
            button type="submit" { "Apply" }
        }
        p { (count(total, "document", "documents")) }
        // On a phone each row is a card, each value named by its column (`data-label`).
        table.stack id="documents" {
            thead { tr { th { "Title" } th { "Status" } th { "Code" } th { "Pages" } th { "Created" } th { "Modified" } } }
            tbody {
                @for d in found {
                    tr {
                        td { a href=(format!("/app/documents/{}", d.id)) { (isolated(&d.title)) } }
                        td data-label="Status" { (d.status) } td data-label="Code" { (d.code) } td data-label="Pages" { (d.pages) }
                        td data-label="Created" { (time(d.created_at)) } td data-label="Modified" { (time(d.updated_at)) }
                    }
                }
            }
        }
        @if pages > 1 {
            nav id="paging" {
                @if query.page > 1 { a href=(link(query.page - 1)) { "← Previous" } }
                span { "Page " (query.page) " of " (pages) }
                @if query.page < pages { a href=(link(query.page + 1)) { "Next →" } }
            }
        }
    }
}
