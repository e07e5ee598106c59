//! The placement page: the pages rendered with pdf.js, where `place-fields.mjs` does the work.

use maud::{Markup, html};
use signet_common::model::{Document, Field, Recipient};

use super::frame::nav;
use crate::{
    html::{isolated, isolated_text},
    routes::assets,
};

pub(in crate::routes::console) struct Placement<'a> {
    pub csrf: &'a str,
    pub document: &'a Document,
    pub recipients: &'a [Recipient],
    pub fields: &'a [Field],
    /// The signed link to the document's file.
    pub file_link: &'a str,
}

pub(in crate::routes::console) fn field_placement(view: Placement<'_>) -> Markup {
    let Placement {
        csrf,
        document,
        recipients,
        fields,
        file_link,
    } = view;
    let id = document.id;
    let people: Vec<serde_json::Value> = recipients
        .iter()
        // The name is drawn in a <bdi> by the page's script: balanced for it here, as
        // `html::isolated` does (signet_i18n::bidi::balanced).
        .map(|r| {
            let name = signet_i18n::bidi::balanced(&r.name);
            serde_json::json!({"email": r.email, "name": name, "color": r.color_code})
        })
        .collect();
    // The fields already saved, to show, move, resize and remove.
    let saved: Vec<serde_json::Value> = fields
        .iter()
        .filter_map(|f| {
            let recipient = recipients.iter().find(|r| r.id == f.recipient_id)?;
            Some(serde_json::json!({
                "id": f.id, "recipientEmail": recipient.email, "type": f.field_type,
                "page": f.page, "x": f.x, "y": f.y, "width": f.width, "height": f.height,
            }))
        })
        .collect();
    html! {
        (nav(csrf))
        h1 { "Place fields · " (isolated(&document.title)) }
        div.card #toolbar {
            label for="recipient" { "Recipient" }
            select id="recipient" { @for r in recipients { option value=(r.email) { (isolated_text(&r.name, false)) " <" (isolated_text(&r.email, false)) ">" } } }
            label for="type" { "Field" }
            select id="type" { option { "SIGNATURE" } option { "INITIALS" } option { "DATE" } option { "TEXT" } }
            p #placement-hint { small { "Click or tap a page to place a field; drag a field to move it, its corner to resize it; its × removes it. Nothing changes until you save." } }
            button.primary type="button" id="save" { "Save fields" }
            " " a.button.secondary href=(format!("/app/documents/{id}")) { "Back" }
            p id="placement-status" role="status" style="white-space:pre-wrap" {}
        }
        div #placement
            data-pdfjs-url=(format!("{}/pdf.min.mjs", assets::BASE))
            data-worker-url=(format!("{}/pdf.worker.min.mjs", assets::BASE))
            data-file-url=(format!("{file_link}&original=1"))
            data-failed-text="This document's pages cannot be shown here, so fields cannot be placed on them. Reload the page; if it stays empty, upload the PDF again."
            data-save-url=(format!("/app/documents/{id}/fields"))
            data-done-url=(format!("/app/documents/{id}"))
            data-csrf=(csrf)
            data-recipients=(serde_json::to_string(&people).expect("serialisable"))
            data-fields=(serde_json::to_string(&saved).expect("serialisable")) {}
        script type="module" src=(format!("{}/place-fields.mjs", assets::BASE)) {}
    }
}
