//! A document's page: status and files, recipients (remove, resend), adding recipients, the
//! way to the placement page, sending, cancelling, and the audit trail.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use signet_common::model::{
    AuditEntry, DeliveryStatus, Document, DocumentStatus, Field, Recipient, SmsStatus,
};

use signet_i18n::Language;

use super::{csrf_field, nav};
use crate::html::time;

pub(in crate::routes::console) struct DocumentPage<'a> {
    pub csrf: &'a str,
    pub document: &'a Document,
    pub recipients: &'a [Recipient],
    pub fields: &'a [Field],
    pub trail: &'a [AuditEntry],
    /// The signed link to the document's file.
    pub file_link: &'a str,
    /// Why the last change was refused.
    pub error: Option<&'a str>,
    pub now: DateTime<Utc>,
}

pub(in crate::routes::console) fn document_page(view: DocumentPage<'_>) -> Markup {
    let DocumentPage {
        csrf,
        document,
        recipients,
        fields,
        trail,
        file_link: link,
        error,
        now,
    } = view;
    let completed = document.status == DocumentStatus::Completed;
    let cancellable = matches!(
        document.status,
        DocumentStatus::Draft | DocumentStatus::Sent
    );
    let draft = document.status == DocumentStatus::Draft;
    // The send form's default expiry: a week from now.
    let week = (now + chrono::Duration::days(7))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    html! {
        (nav(csrf))
        h1 { (document.title) }
        @if let Some(error) = error { p.error role="alert" id="error" { (error) } }
        p.banner id="status" { "Status: " strong { (document.status) } " · code " (document.code) " · " (document.pages) " pages" }
        div.card {
            p { a href=(format!("{link}&original=1")) { "Original PDF" } }
            @if completed { p { a href=(link) id="final-pdf" { "Signed PDF with certificate" } } }
            p { small { "Created " (time(document.created_at)) " · modified " (time(document.updated_at))
                @if let Some(expiry) = document.expiry_date { " · expires " (time(expiry)) } } }
            @if cancellable {
                form method="post" action=(format!("/app/documents/{}/cancel", document.id)) {
                    (csrf_field(csrf))
                    button.danger type="submit" { "Cancel document" }
                }
            }
        }
        section.card id="recipients" {
            h2 { "Recipients" }
            @if recipients.is_empty() { p { "None yet." } }
            @for r in recipients {
                h3 { span.swatch style=(format!("background:{}", r.color_code)) {} (r.name) " <" (r.email) "> · " (r.role) " · " (r.status)
                    @if let Some(language) = r.language.as_deref().and_then(Language::from_tag) { " · " span.language lang=(language.tag()) { (language.name()) } }
                    @if let Some(delivery) = r.delivery_status.0 { " · e-mail " span.delivery data-status=(delivery) { (delivery) } }
                    @if let Some(sms) = r.sms_status.0 { " · SMS " span.delivery.sms data-status=(sms) { (sms) } } }
                @if let Some(phone) = &r.phone_e164 { p { small { "Phone " (phone) } } }
                @if draft {
                    form.remove-recipient method="post" action=(format!("/app/documents/{}/recipients/{}/remove", document.id, r.id)) {
                        (csrf_field(csrf))
                        button.danger type="submit" { "Remove " (r.name) " and their fields" }
                    }
                }
                @if r.delivery_status.0 == Some(DeliveryStatus::Failed) {
                    div.failed-delivery {
                        p.error { "The invitation could not be delivered: " (r.delivery_error.as_deref().unwrap_or("unknown reason")) }
                        @if document.status == DocumentStatus::Sent {
                            form method="post" action=(format!("/app/documents/{}/recipients/{}/resend", document.id, r.id)) {
                                (csrf_field(csrf))
                                label for=(format!("resend-{}", r.id)) { "Correct the address if it is wrong, then send the invitation again" }
                                input type="email" id=(format!("resend-{}", r.id)) name="email" value=(r.email) required maxlength="254";
                                button.primary type="submit" { "Send again" }
                            }
                        }
                    }
                }
                @if r.sms_status.0 == Some(SmsStatus::Failed) {
                    p.error.failed-sms { "The SMS invitation could not be delivered: " (r.sms_error.as_deref().unwrap_or("unknown reason")) }
                }
                ul {
                    @for f in fields.iter().filter(|f| f.recipient_id == r.id) {
                        li { (f.field_type) " on page " (f.page) " at " (f.x) ", " (f.y) " (" (f.width) " × " (f.height) ")"
                            @if let Some(value) = f.value.as_deref().filter(|v| !v.starts_with("data:")) { " — " (value) } }
                    }
                }
            }
        }
        @if draft {
            form.card method="post" action=(format!("/app/documents/{}/recipients", document.id)) id="add-recipient" {
                (csrf_field(csrf))
                h2 { "Add a recipient" }
                label for="name" { "Name" } input type="text" id="name" name="name" required maxlength="200";
                label for="email" { "E-mail" } input type="email" id="email" name="email" required maxlength="254";
                label for="role" { "Role" }
                select id="role" name="role" { option value="SIGNER" { "Signer" } option value="VIEWER" { "Viewer" } }
                label for="language" { "Language of their e-mails" }
                (language_select("language", "The document's"))
                button.primary type="submit" { "Add" }
            }
            @if !recipients.is_empty() {
                p.card { a href=(format!("/app/documents/{}/place", document.id)) id="place-fields" { "Place fields on the pages" } }
                form.card method="post" action=(format!("/app/documents/{}/send", document.id)) id="send" {
                    (csrf_field(csrf))
                    h2 { "Send for signing" }
                    label for="message" { "Message" } textarea id="message" name="message" rows="2" required maxlength="5000" {}
                    label for="description" { "Description" } textarea id="description" name="description" rows="2" maxlength="5000" {}
                    label for="expiry" { "Expires (UTC)" } input type="datetime-local" id="expiry" name="expiry" value=(week) required;
                    label for="document-language" { "Language of the certificate (and of e-mails to recipients without one)" }
                    (language_select("document-language", "The default"))
                    button.primary type="submit" { "Send" }
                }
            }
        }
        section.card id="audit" {
            h2 { "Audit trail" }
            table {
                tr { th { "Time" } th { "Event" } th { "Message" } th { "IP" } th { "User agent" } }
                @for e in trail {
                    tr { td { (time(e.created_at)) } td { (e.event) } td { (e.message) } td { (e.ip_address) } td { (e.user_agent) } }
                }
            }
        }
    }
}

/// A menu of the languages Signet speaks, each named in itself, after a first choice of none
/// (`unset`: what that means).
fn language_select(id: &str, unset: &str) -> Markup {
    html! {
        select id=(id) name="language" {
            option value="" { (unset) }
            @for language in Language::ALL {
                option value=(language.tag()) lang=(language.tag()) { (language.name()) }
            }
        }
    }
}
