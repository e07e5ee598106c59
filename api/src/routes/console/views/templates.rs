//! The templates pages: the list (search, paging) and a template's page (its roles, fields and
//! defaults, archive, and "Use template").

use std::collections::HashMap;

use maud::{Markup, html};
use signet_common::{
    model::{FieldType, RecipientRole},
    store::templates::{Template, TemplateField, TemplateRole},
};

use super::frame::{csrf_field, nav};
use crate::{
    extract::TemplateListParams,
    html::{count, isolated, time},
};

pub(in crate::routes::console) struct TemplateList<'a> {
    pub csrf: &'a str,
    pub params: &'a TemplateListParams,
    pub found: &'a [Template],
    pub total: i64,
}

pub(in crate::routes::console) fn template_list(view: TemplateList<'_>) -> Markup {
    let TemplateList {
        csrf,
        params: TemplateListParams { query, pairs },
        found,
        total,
    } = view;
    let pages = query.total_pages(total);
    // The same list on another page: every parameter kept but `page`.
    let link = |page: i64| {
        let mut kept: Vec<(String, String)> =
            pairs.iter().filter(|(k, _)| k != "page").cloned().collect();
        kept.push(("page".into(), page.to_string()));
        format!(
            "/app/templates?{}",
            form_urlencoded::Serializer::new(String::new())
                .extend_pairs(kept)
                .finish()
        )
    };
    html! {
        (nav(csrf))
        h1 { "Templates" }
        p { small { "Make a template from a draft document's page (“Make a template”), or through the API from a PDF (docs/api.md, Templates)." } }
        form.card method="get" action="/app/templates" id="filters" {
            label for="search" { "Search titles" }
            input type="search" id="search" name="search" value=(query.search.clone().unwrap_or_default());
            button type="submit" { "Search" }
        }
        p { (count(total, "template", "templates")) }
        // On a phone each row is a card, each value named by its column (`data-label`).
        table.stack id="templates" {
            thead { tr { th { "Title" } th { "Pages" } th { "Created" } th { "Modified" } } }
            tbody {
                @for t in found {
                    tr {
                        td { a href=(format!("/app/templates/{}", t.id)) { (isolated(&t.title)) } }
                        td data-label="Pages" { (t.page_sizes.len()) }
                        td data-label="Created" { (time(t.created_at)) } td data-label="Modified" { (time(t.updated_at)) }
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

pub(in crate::routes::console) struct TemplatePage<'a> {
    pub csrf: &'a str,
    pub template: &'a Template,
    pub roles: &'a [TemplateRole],
    pub fields: &'a [TemplateField],
    /// Why the last "Use template" was refused: what was wrong, and each problem.
    pub error: Option<(&'a str, &'a [String])>,
    /// The "Use template" form as it was filled when it was refused.
    pub form: &'a HashMap<String, String>,
}

pub(in crate::routes::console) fn template_page(view: TemplatePage<'_>) -> Markup {
    let TemplatePage {
        csrf,
        template,
        roles,
        fields,
        error,
        form,
    } = view;
    let archived = template.archived_at.is_some();
    let filled = |name: &str| form.get(name).cloned().unwrap_or_default();
    let text_fields: Vec<&TemplateField> = fields
        .iter()
        .filter(|f| f.field_type == FieldType::Text)
        .collect();
    html! {
        (nav(csrf))
        p { a href="/app/templates" { "← Templates" } }
        h1 { (isolated(&template.title)) }
        @if let Some((error, problems)) = error {
            div.error role="alert" id="error" {
                p { (error) }
                @if !problems.is_empty() { ul id="problems" { @for problem in problems { li { (problem) } } } }
            }
        }
        p.banner id="status" {
            @if archived { strong { "Archived" } " · " }
            (count(template.page_sizes.len() as i64, "page", "pages"))
            " · created " (time(template.created_at)) " · modified " (time(template.updated_at))
        }
        section.card id="defaults" {
            h2 { "Defaults of a send" }
            dl {
                dt { "Message" } dd { (template.message.as_deref().map_or("none", |m| m)) }
                dt { "Description" } dd { (template.description.as_deref().map_or("none", |d| d)) }
                dt { "Expires after" } dd { (template.expiry_days.map_or("no default".to_owned(), |d| count(d, "day", "days"))) }
                dt { "Reminders" } dd {
                    @match &template.reminders {
                        None => "the server's",
                        Some(r) if r.enabled == Some(false) => "none",
                        Some(r) => {
                            "first after " (r.first_after_days.map_or("the server's".to_owned(), |d| count(d, "day", "days")))
                            @if let Some(every) = r.every_days { ", then every " (count(every, "day", "days")) }
                        }
                    }
                }
                dt { "Language" } dd { (template.language.0.map_or("the default", |l| l.name())) }
            }
        }
        @if !archived && roles.is_empty() {
            section.card.banner id="next-step" {
                h2 { "Next: give the template its roles and fields" }
                p { "Nothing can be made from it yet. Add a role for each person a document made from it is for (“Tenant”, “Landlord”), and place each role's fields on the pages." }
                a.button.primary id="edit-roles" href=(format!("/app/templates/{}/place", template.id)) { "Add roles and place fields" }
            }
        }
        section.card id="roles" {
            h2 { "Roles" }
            @if roles.is_empty() { p { "None yet." } }
            @for role in roles {
                h3 { (isolated(&role.name)) " · " (role_words(role.role))
                    @if let Some(order) = role.signing_order { " · signing group " (order) }
                    @if let Some(language) = role.language.0 { " · " span lang=(language.tag()) { (language.name()) } } }
                ul {
                    @for f in fields.iter().filter(|f| f.role_id == role.id) {
                        li { code { (isolated(&f.label)) } " · " (f.field_type) " on page " (f.page) " at " (f.x) ", " (f.y) " (" (f.width) " × " (f.height) ")"
                            @if f.read_only { " · read-only" } }
                    }
                }
            }
            @if !archived && !roles.is_empty() {
                a.button.secondary id="edit-roles" href=(format!("/app/templates/{}/place", template.id)) { "Edit roles and fields" }
            }
        }
        @if !archived && !roles.is_empty() {
            form.card method="post" action=(format!("/app/templates/{}/documents", template.id)) id="use" {
                (csrf_field(csrf))
                h2 { "Use template" }
                label for="use-title" { "Title of the document (blank: the template's)" }
                input type="text" id="use-title" name="title" maxlength="500" value=(filled("title"));
                @for (i, role) in roles.iter().enumerate() {
                    fieldset {
                        legend { (isolated(&role.name)) }
                        label for=(format!("role-{i}-name")) { "Name" }
                        input type="text" id=(format!("role-{i}-name")) name=(format!("role:{}:name", role.name)) required maxlength="200" value=(filled(&format!("role:{}:name", role.name)));
                        label for=(format!("role-{i}-email")) { "E-mail" }
                        input type="email" id=(format!("role-{i}-email")) name=(format!("role:{}:email", role.name)) required maxlength="254" value=(filled(&format!("role:{}:email", role.name)));
                    }
                }
                @if !text_fields.is_empty() {
                    fieldset {
                        legend { "Values of text fields (optional)" }
                        @for (i, f) in text_fields.iter().enumerate() {
                            label for=(format!("value-{i}")) { (isolated(&f.label)) @if f.read_only { " (read-only for the signer)" } }
                            input type="text" id=(format!("value-{i}")) name=(format!("value:{}", f.label)) value=(filled(&format!("value:{}", f.label)));
                        }
                    }
                }
                label.inline { input type="checkbox" name="send" value="on" checked[form.contains_key("send")]; " Send it now" }
                label for="use-message" { "Message (blank: the template's)" }
                textarea id="use-message" name="message" rows="2" maxlength="5000" { (filled("message")) }
                label for="use-expiry" { "Expires (UTC; blank: the template's default)" }
                input type="datetime-local" id="use-expiry" name="expiry" value=(filled("expiry"));
                button.primary type="submit" { "Make the document" }
            }
        }
        @if !archived && !roles.is_empty() { (super::bulk_sends::send_to_a_list(csrf, template, roles, fields)) }
        @if !archived {
            form.card method="post" action=(format!("/app/templates/{}/archive", template.id)) id="archive" {
                (csrf_field(csrf))
                p { small { "Archiving hides the template and makes no more documents from it; documents already made are not changed." } }
                button.danger type="submit" { "Archive template" }
            }
        }
    }
}

/// A role as the owner reads it.
fn role_words(role: RecipientRole) -> &'static str {
    match role {
        RecipientRole::Signer => "Signer",
        RecipientRole::Viewer => "Viewer",
    }
}
