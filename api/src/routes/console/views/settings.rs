//! The API settings page: key, usage, webhook URL, signing secret, deliveries, and the origins
//! allowed to frame embedded signing.

use chrono::{DateTime, Utc};
use maud::{Markup, html};
use signet_common::store::{accounts::Account, api_keys::ActiveKey, webhooks::Delivery};

use super::frame::{csrf_field, nav};
use crate::{
    html::{isolated, time},
    routes::assets,
};

/// What the settings page shows once, right after an action.
#[derive(Default)]
pub(in crate::routes::console) struct Flash {
    pub new_key: Option<String>,
    pub secret: Option<String>,
    pub notice: Option<String>,
    pub error: Option<String>,
}

pub(in crate::routes::console) struct Settings<'a> {
    pub csrf: &'a str,
    pub account: &'a Account,
    pub key: Option<&'a ActiveKey>,
    /// Requests counted in the current usage window, and when it resets (`None`: no window
    /// is open; the next request starts one).
    pub used: i32,
    pub resets: Option<DateTime<Utc>>,
    pub deliveries: &'a [Delivery],
    /// The origins allowed to frame the account's embedded signing pages.
    pub embed_origins: &'a [String],
    pub flash: &'a Flash,
}

pub(in crate::routes::console) fn settings(view: Settings<'_>) -> Markup {
    let Settings {
        csrf: token,
        account,
        key,
        used,
        resets,
        deliveries,
        embed_origins,
        flash,
    } = view;
    let csrf = csrf_field(token);
    html! {
        (nav(token))
        h1 { "API settings" }
        p { (isolated(&account.name)) " · " (isolated(&account.email)) }
        @if let Some(notice) = &flash.notice { p.banner role="status" { (notice) } }
        @if let Some(error) = &flash.error { p.error role="alert" { (error) } }
        section.card id="key" {
            h2 { "API key" }
            @if let Some(new_key) = &flash.new_key {
                p.banner { "Copy your new key now. It will not be shown again." }
                p { code id="new-key" { (new_key) } " "
                    button type="button" data-copy="new-key" { "Copy" } }
                script type="module" src=(format!("{}/copy.mjs", assets::BASE)) {}
            }
            @match key {
                Some(key) => {
                    p { "Active key: " code id="masked-key" { (key.display) } }
                    p { small { "Created " (time(key.created_at)) @if let Some(used) = key.last_used_at { " · last used " (time(used)) } } }
                    form method="post" action="/app/settings/api/key/generate" { (csrf) button.danger type="submit" { "Regenerate" } " " small { "The current key stops working at once." } }
                    form method="post" action="/app/settings/api/key/revoke" { (csrf) button.danger type="submit" { "Revoke" } }
                }
                None => {
                    p { "No active key." }
                    form method="post" action="/app/settings/api/key/generate" { (csrf) button.primary type="submit" { "Generate a key" } }
                }
            }
        }
        section.card id="usage" {
            h2 { "Usage" }
            p { strong id="usage-count" { (used) } " of " strong id="usage-limit" { (account.api_usage_limit) } " " (if account.api_usage_limit == 1 { "request" } else { "requests" }) " in the current window" }
            p { small { @match resets { Some(at) => { "The window resets at " (time(at)) "." }, None => { "A new window starts with the next request." } } } }
        }
        section.card id="webhook" {
            h2 { "Webhook" }
            form method="post" action="/app/settings/api/webhook" {
                (csrf)
                label for="webhook-url" { "URL (empty to remove)" }
                input type="url" id="webhook-url" name="url" value=(account.webhook_url.clone().unwrap_or_default()) placeholder="https://example.com/hooks/signet";
                button.primary type="submit" { "Save" }
            }
            h3 { "Signing secret" }
            @match &flash.secret {
                Some(secret) => p { code id="webhook-secret" { (secret) } },
                None => form method="post" action="/app/settings/api/webhook/secret/reveal" { (csrf) button type="submit" { "Reveal" } },
            }
            form method="post" action="/app/settings/api/webhook/secret/rotate" { (csrf) button.danger type="submit" { "Rotate" } " " small { "Receivers must switch to the new secret." } }
            h3 { "Deliveries" }
            @if deliveries.is_empty() { p { "None yet." } } @else {
                table.stack id="deliveries" {
                    thead { tr { th { "Event" } th { "Status" } th { "Attempts" } th { "Last response" } th { "Created" } th {} } }
                    tbody {
                        @for d in deliveries {
                            tr {
                                td { (d.event_type) }
                                td data-label="Status" { (d.status) }
                                td data-label="Attempts" { (d.attempt) }
                                td data-label="Last response" { (isolated(&d.response_status.map(|s| s.to_string()).or_else(|| d.last_error.clone()).unwrap_or_default())) }
                                td data-label="Created" { (time(d.created_at)) }
                                td { form method="post" action=(format!("/app/settings/api/deliveries/{}/replay", d.id)) { (csrf) button type="submit" { "Replay" } } }
                            }
                        }
                    }
                }
            }
        }
        section.card id="embedding" {
            h2 { "Embedded signing" }
            p { "The origins that may show your recipients' signing pages inside your product (in a frame) and receive their messages. One per line: " code { "https://app.example.com" } " (" code { "http" } " only for localhost); at most 20." }
            form method="post" action="/app/settings/api/embedding" {
                (csrf)
                label for="embed-origins" { "Allowed origins (empty: none)" }
                textarea id="embed-origins" name="origins" rows="4" placeholder="https://app.example.com" { (embed_origins.join("\n")) }
                button.primary type="submit" { "Save" }
            }
        }
    }
}
