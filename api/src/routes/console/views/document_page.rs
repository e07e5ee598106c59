//! A document's page: status and files, recipients (remove, resend), adding recipients, the
//! way to the placement page, sending, cancelling, and the audit trail.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use signet_common::model::{
    AuditEntry, AuthMethod, DeliveryStatus, Document, DocumentStatus, Field, Recipient,
    RecipientRole, RecipientStatus, SmsStatus,
};

use signet_common::model::ReminderDefaults;
use signet_i18n::Language;

use super::frame::{csrf_field, nav};
use crate::html::{count, isolated, time, time_to_the_second};

pub(in crate::routes::console) struct DocumentPage<'a> {
    pub csrf: &'a str,
    pub document: &'a Document,
    pub recipients: &'a [Recipient],
    pub fields: &'a [Field],
    pub trail: &'a [AuditEntry],
    /// The roles whose fields, found in the PDF at upload, wait for a recipient, with their
    /// fields' count.
    pub waiting: &'a [(String, i64)],
    /// The signed link to the document's file.
    pub file_link: &'a str,
    /// Why the last change was refused: what was wrong, and each problem (all of them).
    pub error: Option<(&'a str, &'a [String])>,
    pub now: DateTime<Utc>,
    /// The operator's reminder schedule, the send form's default.
    pub reminders: ReminderDefaults,
}

pub(in crate::routes::console) fn document_page(view: DocumentPage<'_>) -> Markup {
    let DocumentPage {
        csrf,
        document,
        recipients,
        fields,
        trail,
        waiting,
        file_link: link,
        error,
        now,
        reminders,
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
        h1 { (isolated(&document.title)) }
        @if let Some((error, problems)) = error {
            div.error role="alert" id="error" {
                p { (error) }
                @if !problems.is_empty() { ul id="problems" { @for problem in problems { li { (problem) } } } }
            }
        }
        p.banner id="status" { "Status: " strong { (document.status) } " · code " (document.code) " · " (count(document.pages, "page", "pages")) }
        div.card {
            @if let Some(removed) = document.files_removed_at {
                p id="files-removed" { "The files were removed on " (time(removed))
                    " under the account's retention policy; their SHA-256 are in the audit trail." }
            } @else {
                p { a href=(format!("{link}&original=1")) { "Original PDF" } }
                @if completed { p { a href=(link) id="final-pdf" { "Signed PDF with certificate" } } }
            }
            p { small { "Created " (time(document.created_at)) " · modified " (time(document.updated_at))
                @if let Some(expiry) = document.expiry_date { " · expires " (time(expiry)) } } }
            @if let Some(reason) = &document.cancel_reason { p id="cancel-reason" { "Cancelled because: " (isolated(reason)) } }
            // The schedule is what will happen: only while the document is out for signing.
            @if let (Some(first), DocumentStatus::Sent) = (document.reminder_first_after_days, document.status) {
                p id="reminder-schedule" { small { "Reminders to signers who have not signed: first after " (days(first))
                    @match document.reminder_every_days.unwrap_or(0) { 0 => {}, every => { ", then every " (days(every)) } }
                    ", until the expiry date" } }
            }
            @if document.status == DocumentStatus::Sent {
                form method="post" action=(format!("/app/documents/{}/remind", document.id)) id="remind" {
                    (csrf_field(csrf))
                    button.secondary type="submit" { "Remind signers who have not signed" }
                }
            }
            @if cancellable {
                p { a.button.danger href=(format!("/app/documents/{}/cancel", document.id)) id="cancel" { "Cancel document…" } }
            }
        }
        section.card id="recipients" {
            h2 { "Recipients" }
            @if recipients.is_empty() { p { "None yet." } }
            @for r in recipients {
                h3 { span.swatch style=(format!("background:{}", r.color_code)) {} (isolated(&r.name)) " <" (isolated(&r.email)) "> · " (role_words(r.role)) " · " span.state data-status=(r.status) { (state_words(r.role, r.status)) }
                    @if let Some(language) = r.language.0 { " · " span.language lang=(language.tag()) { (language.name()) } }
                    @if let Some(delivery) = r.delivery_status.0 { " · e-mail " span.delivery data-status=(delivery) { (delivery) } }
                    @if let Some(sms) = r.sms_status.0 { " · SMS " span.delivery.sms data-status=(sms) { (sms) } } }
                @if let Some(order) = r.signing_order { p.signing-order { small { "Signing order: group " (order) } } }
                @if !draft && r.invited_at.is_none() && matches!(document.status, DocumentStatus::Sent) {
                    p.waiting { small { "Invited when every signer of the earlier groups has signed" } }
                }
                @if let Some(last) = r.last_reminded_at { p.last-reminder { small { "Last reminded " (time(last)) } } }
                @if let Some(next) = r.next_reminder_at { p.next-reminder { small { "Next reminder " (time(next)) } } }
                @if let Some(phone) = &r.phone_e164 { p { small { "Phone " (phone) } } }
                @if let Some(method) = r.auth_method.0 {
                    p.authentication data-method=(method) { small { "Identity check: " (auth_words(method))
                        @if let Some(passed) = r.auth_passed_at { " · passed " (time(passed)) } } }
                    @if r.auth_locked_at.is_some() {
                        div.locked {
                            p.error { "Locked after " (r.auth_failures) " wrong codes: the signing link shows nothing until you unlock it." }
                            form method="post" action=(format!("/app/documents/{}/recipients/{}/unlock", document.id, r.id)) {
                                (csrf_field(csrf))
                                button.primary type="submit" { "Unlock " (isolated(&r.name)) }
                            }
                        }
                    }
                }
                @if draft {
                    form.remove-recipient method="post" action=(format!("/app/documents/{}/recipients/{}/remove", document.id, r.id)) {
                        (csrf_field(csrf))
                        button.danger type="submit" { "Remove " (isolated(&r.name)) " and their fields" }
                    }
                }
                @if r.delivery_status.0 == Some(DeliveryStatus::Failed) {
                    div.failed-delivery {
                        p.error { "The invitation could not be delivered: " (isolated(r.delivery_error.as_deref().unwrap_or("unknown reason"))) }
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
                    p.error.failed-sms { "The SMS invitation could not be delivered: " (isolated(r.sms_error.as_deref().unwrap_or("unknown reason"))) }
                }
                ul {
                    @for f in fields.iter().filter(|f| f.recipient_id == r.id) {
                        li { (f.field_type) " on page " (f.page) " at " (f.x) ", " (f.y) " (" (f.width) " × " (f.height) ")"
                            @if let Some(value) = f.value.as_deref().filter(|v| !v.starts_with("data:")) { " — " (isolated(value)) } }
                    }
                }
            }
        }
        @if draft && !waiting.is_empty() {
            section.card id="placeholders" {
                h2 { "Fields found in the PDF" }
                p { "Give each role a person: they become a signer with the role's fields. The document cannot be sent before." }
                @for (i, (role, found)) in waiting.iter().enumerate() {
                    form.placeholder-role method="post" action=(format!("/app/documents/{}/placeholders", document.id)) data-role=(role) {
                        (csrf_field(csrf))
                        h3 { (isolated(role)) " · " (count(*found, "field", "fields")) }
                        input type="hidden" name="role" value=(role);
                        label for=(format!("role-name-{i}")) { "Name" } input type="text" id=(format!("role-name-{i}")) name="name" required maxlength="200";
                        label for=(format!("role-email-{i}")) { "E-mail" } input type="email" id=(format!("role-email-{i}")) name="email" required maxlength="254";
                        button.primary type="submit" { "Give " (isolated(role)) " to this person" }
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
                label for="signing_order" { "Signing order (optional: groups sign in ascending order; blank counts as 1)" }
                input type="number" id="signing_order" name="signing_order" min="1" max="1000" step="1";
                button.primary type="submit" { "Add" }
            }
            @if !recipients.is_empty() {
                p.card { a href=(format!("/app/documents/{}/place", document.id)) id="place-fields" { "Place fields on the pages" } }
                form.card method="post" action=(format!("/app/documents/{}/send", document.id)) id="send" {
                    (csrf_field(csrf))
                    h2 { "Send for signing" }
                    label for="message" { "Message" } textarea id="message" name="message" rows="2" required maxlength="5000" {}
                    label for="description" { "Description (may be left empty)" } textarea id="description" name="description" rows="2" maxlength="5000" {}
                    label for="expiry" { "Expires (UTC)" } input type="datetime-local" id="expiry" name="expiry" value=(week) required;
                    label for="document-language" { "Language of the certificate (and of e-mails to recipients without one)" }
                    (language_select("document-language", "The default"))
                    fieldset id="reminders" {
                        legend { "Reminders to signers who have not signed" }
                        label.inline { input type="checkbox" name="reminders" value="on" checked[reminders.first_after_days > 0]; " Send reminders by e-mail" }
                        label for="reminder_first_after_days" { "First reminder after (days)" }
                        input type="number" id="reminder_first_after_days" name="reminder_first_after_days" min="1" max="365" step="1" value=(reminders.first_after_days.max(1));
                        label for="reminder_every_days" { "Then every (days; 0 for no more)" }
                        input type="number" id="reminder_every_days" name="reminder_every_days" min="0" max="365" step="1" value=(reminders.every_days);
                    }
                    button.primary type="submit" { "Send" }
                }
                form.card method="post" action=(format!("/app/documents/{}/template", document.id)) id="make-template" {
                    (csrf_field(csrf))
                    h2 { "Make a template" }
                    p { small { "Keeps this PDF, its recipients as roles and their fields, to make documents like it for other people. This document is not changed." } }
                    label for="template-title" { "Title of the template" }
                    input type="text" id="template-title" name="title" maxlength="500" value=(document.title);
                    @for (i, r) in recipients.iter().enumerate() {
                        label for=(format!("template-role-{i}")) { "Role of " (isolated(&r.name)) " (e.g. Tenant)" }
                        input type="text" id=(format!("template-role-{i}")) name=(format!("role:{}", r.email)) maxlength="100" value=(r.name);
                    }
                    button.secondary type="submit" { "Make a template" }
                }
            }
        }
        section.card id="audit" {
            h2 { "Audit trail" }
            table.stack {
                thead { tr { th { "Time" } th { "Event" } th { "Message" } th { "IP" } th { "User agent" } } }
                tbody {
                    @for e in trail {
                        tr { td { (time_to_the_second(e.created_at)) } td data-label="Event" { (e.event) } td data-label="Message" { (isolated(&e.message)) } td data-label="IP" { (isolated(&e.ip_address)) } td data-label="User agent" { (isolated(&e.user_agent)) } }
                    }
                }
            }
        }
    }
}

fn days(n: i32) -> String {
    count(n, "day", "days")
}

/// What cancelling will do, and the reason to give; the document page links here.
pub(in crate::routes::console) fn cancel_page(
    csrf: &str,
    document: &Document,
    recipients: &[Recipient],
) -> Markup {
    let told: Vec<&Recipient> = recipients
        .iter()
        .filter(|r| r.invited_at.is_some())
        .collect();
    html! {
        (nav(csrf))
        h1 { "Cancel “" (isolated(&document.title)) "”?" }
        form.card method="post" action=(format!("/app/documents/{}/cancel", document.id)) id="confirm-cancel" {
            (csrf_field(csrf))
            @if told.is_empty() {
                p { "No one has been invited yet, so no one will be told." }
            } @else {
                p { "The signing links stop working, and these recipients are told by e-mail, with your reason:" }
                ul { @for r in &told { li { (isolated(&r.name)) " <" (isolated(&r.email)) ">" } } }
            }
            p { "The document moves to the trash (declined, expired or cancelled). This cannot be undone." }
            label for="reason" { "Reason (optional; at most 1000 characters)" }
            textarea id="reason" name="reason" rows="3" maxlength="1000" {}
            button.danger type="submit" { "Cancel the document" }
            " "
            a.button.secondary href=(format!("/app/documents/{}", document.id)) { "Keep it" }
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

/// A recipient's role as the owner reads it.
fn role_words(role: RecipientRole) -> &'static str {
    match role {
        RecipientRole::Signer => "Signer",
        RecipientRole::Viewer => "Viewer (receives a copy; signs nothing)",
    }
}

/// What a recipient has done, in words, by role (as the certificate says it): a viewer who has
/// not opened the document is not "pending" anything.
fn state_words(role: RecipientRole, status: RecipientStatus) -> &'static str {
    match (role, status) {
        (_, RecipientStatus::Pending) => "has not opened the document",
        (RecipientRole::Signer, RecipientStatus::Viewed) => "opened the document; has not signed",
        (RecipientRole::Viewer, RecipientStatus::Viewed) => "opened the document",
        (_, RecipientStatus::Signed) => "signed",
        (_, RecipientStatus::Declined) => "declined to sign",
    }
}

/// A signer authentication method in the console's words.
fn auth_words(method: AuthMethod) -> &'static str {
    match method {
        AuthMethod::AccessCode => "access code",
        AuthMethod::EmailOtp => "one-time code by e-mail",
        AuthMethod::SmsOtp => "one-time code by SMS",
    }
}
