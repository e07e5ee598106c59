//! The API settings of DESIGN and the spec: the key (shown once, then masked; regenerate,
//! revoke), usage, the webhook URL, its signing secret (reveal, rotate) and the delivery log
//! with replay. Each action answers with the settings page and what it did.

use axum::{
    extract::{Path, State},
    http::StatusCode,
    response::Response,
};
use chrono::{Duration, Utc};
use serde::Deserialize;
use signet_common::{
    Error,
    flows::{embedding, sign_in},
    infra::ssrf,
    model::WebhookDeliveryId,
    store::{accounts, api_keys, webhooks},
    wire::{body::Parsed, embedding::EmbeddingInput},
};

use super::{
    failure::Failure,
    session::{Console, CsrfForm, NoFields},
    views::{self, Flash, Settings},
};
use crate::{AppState, error::ApiError};

/// Webhook deliveries the settings page lists, newest first.
const DELIVERIES_SHOWN: i64 = 50;

pub(super) async fn show(
    State(state): State<AppState>,
    console: Console,
) -> Result<Response, Failure> {
    settings_page(&state, &console, Flash::default(), StatusCode::OK).await
}

async fn settings_page(
    state: &AppState,
    console: &Console,
    flash: Flash,
    status: StatusCode,
) -> Result<Response, Failure> {
    let pool = &state.db.pool;
    let account = accounts::find(pool, console.session.account_id).await?;
    let key = api_keys::active(pool, account.id).await?;
    let deliveries = webhooks::recent(pool, account.id, DELIVERIES_SHOWN).await?;
    let embed_origins = embedding::origins(pool, account.id).await?;
    let window = Duration::seconds(state.config.api.usage_window_secs);
    let window_open = account.usage_window_start + window > Utc::now();
    let (used, resets) = if window_open {
        (
            account.api_usage_count,
            Some(account.usage_window_start + window),
        )
    } else {
        (0, None)
    };
    let body = views::settings(Settings {
        csrf: console.csrf(),
        account: &account,
        key: key.as_ref(),
        used,
        resets,
        deliveries: &deliveries,
        embed_origins: &embed_origins,
        flash: &flash,
    });
    Ok(views::page(status, "API settings", body))
}

pub(super) async fn generate_key(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let key = api_keys::generate(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        new_key: Some(key.key),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

pub(super) async fn revoke_key(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    api_keys::revoke(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        notice: Some("The key was revoked. Generate a new one to use the API again.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

/// The webhook URL form.
#[derive(Deserialize)]
pub(super) struct WebhookUrlForm {
    #[serde(default)]
    url: String,
}

pub(super) async fn set_webhook_url(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(form): CsrfForm<WebhookUrlForm>,
) -> Result<Response, Failure> {
    let url = form.url.trim();
    let (flash, status) =
        match ssrf::webhook_url_setting(url, state.config.webhook.allow_private).await {
            Ok(webhook_url) => {
                let update = accounts::AccountUpdate {
                    usage_limit: None,
                    webhook_url: Some(webhook_url),
                };
                accounts::update(&state.db.pool, console.session.account_id, &update).await?;
                let flash = Flash {
                    notice: Some("Webhook URL saved.".into()),
                    ..Flash::default()
                };
                (flash, StatusCode::OK)
            }
            Err(refusal) => {
                let flash = Flash {
                    error: Some(format!(
                        "The webhook URL {} {refusal}.",
                        crate::html::isolated_text(url, false)
                    )),
                    ..Flash::default()
                };
                (flash, StatusCode::BAD_REQUEST)
            }
        };
    settings_page(&state, &console, flash, status).await
}

/// The embedded signing origins form: one origin per line.
#[derive(Deserialize)]
pub(super) struct EmbeddingForm {
    #[serde(default)]
    origins: String,
}

pub(super) async fn set_embedding(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(form): CsrfForm<EmbeddingForm>,
) -> Result<Response, Failure> {
    let input = EmbeddingInput {
        allowed_origins: form
            .origins
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect(),
    };
    let pool = &state.db.pool;
    let account_id = console.session.account_id;
    let (flash, status) =
        match embedding::set_origins(pool, account_id, Parsed::whole(input.clone())).await {
            Ok(_) => {
                let flash = Flash {
                    notice: Some("Embedded signing origins saved.".into()),
                    ..Flash::default()
                };
                (flash, StatusCode::OK)
            }
            Err(Error::Invalid(problems)) => {
                // Named by the line they were typed on, which the API's index is one less than.
                let lines: Vec<String> = problems
                    .iter()
                    .map(|p| {
                        let line = p
                            .field
                            .strip_prefix("allowedOrigins[")
                            .and_then(|rest| rest.strip_suffix(']'))
                            .and_then(|i| i.parse::<usize>().ok());
                        match line.and_then(|i| input.allowed_origins.get(i)) {
                            Some(origin) => format!(
                                "{}: {}",
                                crate::html::isolated_text(origin, false),
                                p.reason
                            ),
                            None => p.reason.clone(),
                        }
                    })
                    .collect();
                let flash = Flash {
                    error: Some(format!("Not saved. {}.", lines.join("; "))),
                    ..Flash::default()
                };
                (flash, StatusCode::BAD_REQUEST)
            }
            Err(e) => return Err(e.into()),
        };
    settings_page(&state, &console, flash, status).await
}

pub(super) async fn reveal_secret(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let account = accounts::find(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        secret: Some(account.webhook_secret),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

pub(super) async fn rotate_secret(
    State(state): State<AppState>,
    console: Console,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let secret = sign_in::rotate_webhook_secret(&state.db.pool, console.session.account_id).await?;
    let flash = Flash {
        secret: Some(secret),
        notice: Some("The signing secret was rotated.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}

pub(super) async fn replay(
    State(state): State<AppState>,
    console: Console,
    Path(id): Path<WebhookDeliveryId>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    // Another account's delivery is indistinguishable from a missing one.
    webhooks::replay(&state.db.pool, id, Some(console.session.account_id))
        .await?
        .ok_or(Failure::Api(ApiError::RouteNotFound))?;
    let flash = Flash {
        notice: Some("A new attempt is queued.".into()),
        ..Flash::default()
    };
    settings_page(&state, &console, flash, StatusCode::OK).await
}
