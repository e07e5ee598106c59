//! The placement page: the pages rendered with pdf.js, where `place-fields.mjs` does the work.
//! One page for what has fields placed on its PDF: a DRAFT document (fields for its recipients)
//! or a template (its roles, edited on the page, and their labelled fields).

use maud::{Markup, html};
use signet_common::{
    flows::drafting::PALETTE,
    model::{Document, Field, Recipient},
    store::templates::{Template, TemplateField, TemplateRole},
};

use super::frame::nav;
use crate::{
    html::{isolated, isolated_text},
    routes::assets,
};

pub(in crate::routes::console) struct Placement<'a> {
    pub csrf: &'a str,
    pub editing: Editing<'a>,
}

/// What the page places fields on.
pub(in crate::routes::console) enum Editing<'a> {
    Document {
        document: &'a Document,
        recipients: &'a [Recipient],
        fields: &'a [Field],
        /// The signed link to the document's file.
        file_link: &'a str,
    },
    Template {
        template: &'a Template,
        roles: &'a [TemplateRole],
        fields: &'a [TemplateField],
    },
}

/// What differs between a document's page and a template's, for the shared markup.
struct Subject {
    kind: &'static str,
    heading: &'static str,
    title: String,
    /// Whom fields are placed for: `{key, name, color}` (a template's roles say more).
    people: Vec<serde_json::Value>,
    /// The fields already saved, to show, move, resize and remove.
    saved: Vec<serde_json::Value>,
    file_url: String,
    /// What stands in for the pages when the browser cannot draw them.
    failed_text: &'static str,
    base: String,
    save_url: String,
}

pub(in crate::routes::console) fn field_placement(view: Placement<'_>) -> Markup {
    let Placement { csrf, editing } = view;
    let subject = subject(&editing);
    let template = matches!(editing, Editing::Template { .. });
    html! {
        (nav(csrf))
        h1 { (subject.heading) " · " (isolated(&subject.title)) }
        @if template {
            section.card #roles-editor {
                h2 { "Roles" }
                p { small { "Whoever a document made from the template is for takes a role: a signer signs its fields, a viewer receives a copy. Signers of a lower signing group sign first." } }
                div #role-list {}
                button.secondary type="button" id="add-role" { "Add a role" }
            }
        }
        div.card #toolbar {
            @if let Editing::Document { recipients, .. } = &editing {
                label for="recipient" { "Recipient" }
                select id="recipient" { @for r in *recipients { option value=(r.email) { (isolated_text(&r.name, false)) " <" (isolated_text(&r.email, false)) ">" } } }
            } @else {
                label for="recipient" { "Role" }
                select id="recipient" {}
            }
            label for="type" { "Field" }
            select id="type" { option { "SIGNATURE" } option { "INITIALS" } option { "DATE" } option { "TEXT" } }
            p #placement-hint { small { "Click or tap a page to place a field; drag a field to move it, its corner to resize it; its × removes it." @if template { " Label the fields in the list under the pages." } " Nothing changes until you save." } }
            button.primary type="button" id="save" { @if template { "Save roles and fields" } @else { "Save fields" } }
            " " a.button.secondary href=(subject.base) { "Back" }
            p id="placement-status" role="status" style="white-space:pre-wrap" {}
        }
        div #placement
            data-kind=(subject.kind)
            data-pdfjs-url=(format!("{}/pdf.min.mjs", assets::BASE))
            data-worker-url=(format!("{}/pdf.worker.min.mjs", assets::BASE))
            data-file-url=(subject.file_url)
            data-failed-text=(subject.failed_text)
            data-save-url=(subject.save_url)
            data-done-url=(subject.base)
            data-csrf=(csrf)
            data-palette=(serde_json::to_string(&PALETTE).expect("serialisable"))
            data-people=(serde_json::to_string(&subject.people).expect("serialisable"))
            data-fields=(serde_json::to_string(&subject.saved).expect("serialisable")) {}
        @if template {
            section.card #fields-editor {
                h2 { "Fields" }
                p { small { "A document made from the template takes a TEXT field's value by its label; a read-only one is stamped with that value and its signer does not fill it. A blank label becomes ‹role›.‹type›.‹n›." } }
                ol #field-list {}
            }
        }
        script type="module" src=(format!("{}/place-fields.mjs", assets::BASE)) {}
    }
}

fn subject(editing: &Editing<'_>) -> Subject {
    // A name is drawn in a <bdi> by the page's script: balanced for it here, as
    // `html::isolated` does (signet_i18n::bidi::balanced). A role's name is also edited in an
    // input, where it must be as stored: it is given as it is too.
    let balanced = |name: &str| signet_i18n::bidi::balanced(name).into_owned();
    match *editing {
        Editing::Document {
            document,
            recipients,
            fields,
            file_link,
        } => {
            let id = document.id;
            Subject {
                kind: "document",
                heading: "Place fields",
                title: document.title.clone(),
                people: recipients
                    .iter()
                    .map(|r| serde_json::json!({"key": r.email, "name": balanced(&r.name), "color": r.color_code}))
                    .collect(),
                saved: fields
                    .iter()
                    .filter_map(|f| {
                        let recipient = recipients.iter().find(|r| r.id == f.recipient_id)?;
                        Some(serde_json::json!({
                            "id": f.id, "person": recipient.email, "type": f.field_type,
                            "page": f.page, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
                        }))
                    })
                    .collect(),
                file_url: format!("{file_link}&original=1"),
                failed_text: "This document's pages cannot be shown here, so fields cannot be placed on them. Reload the page; if it stays empty, upload the PDF again.",
                base: format!("/app/documents/{id}"),
                save_url: format!("/app/documents/{id}/fields"),
            }
        }
        Editing::Template {
            template,
            roles,
            fields,
        } => {
            let id = template.id;
            let key = |i: usize| format!("r{i}");
            Subject {
                kind: "template",
                heading: "Roles and fields",
                title: template.title.clone(),
                people: roles
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        serde_json::json!({
                            "key": key(i), "name": r.name, "shown": balanced(&r.name),
                            "color": PALETTE[i % PALETTE.len()], "role": r.role,
                            "signingOrder": r.signing_order, "language": r.language.0.map(|l| l.tag()),
                        })
                    })
                    .collect(),
                saved: fields
                    .iter()
                    .filter_map(|f| {
                        let i = roles.iter().position(|r| r.id == f.role_id)?;
                        // The properties this page does not edit go back as they came, so that
                        // saving the roles keeps them (a choice's options, a number's bounds…).
                        let mut properties = serde_json::to_value(&f.rules.0).ok()?;
                        let properties = properties.as_object_mut()?;
                        properties.insert("required".into(), f.required.into());
                        if let Some(value) = &f.value {
                            properties.insert("value".into(), value.clone().into());
                        }
                        Some(serde_json::json!({
                            "person": key(i), "label": f.label, "type": f.field_type,
                            "readOnly": f.read_only, "properties": properties,
                            "page": f.page, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
                        }))
                    })
                    .collect(),
                file_url: format!("/app/templates/{id}/file"),
                failed_text: "This template's pages cannot be shown here, so fields cannot be placed on them. Reload the page; if it stays empty, make the template again from a PDF that opens.",
                base: format!("/app/templates/{id}"),
                save_url: format!("/app/templates/{id}/roles"),
            }
        }
    }
}
