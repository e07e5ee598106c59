//! Additive: the event feed (issue #34, docs/api.md#event-feed): every event the account's
//! webhooks carry, in order, from a cursor, whether or not a webhook URL is set.

use axum::{
    extract::{RawQuery, State},
    response::Response,
};
use signet_common::{
    store::events,
    wire::events::{EventPage, EventType, EventView, FeedQuery},
};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::refusals::{RateLimited, Unauthenticated};
use crate::{
    AppState,
    envelope::{Empty, Envelope, success},
    error::ApiError,
    extract::ApiAccount,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_events))
}

/// The account's events, oldest first, from a cursor.
///
/// Exactly those its webhooks carry (the same ids, types and bodies), recorded whether or not
/// a webhook URL is set, and kept
/// `EVENT_RETENTION_DAYS` (default 30). Resume with `after` = `nextCursor` (or any item's
/// `cursor`); an event appears once every transaction that was running when it was written has
/// ended, so no later event can be placed before a cursor already handed out.
#[utoipa::path(
    get, path = "/events", tag = "events", security(("api_key" = [])),
    params(
        ("after" = Option<String>, Query, pattern = "^A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048]$", description = "A `cursor` or `nextCursor` this feed returned: the events after it; from the oldest kept without one"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Events per page, 1 to 100; default 10"),
        ("type" = Option<Vec<EventType>>, Query, style = Form, explode = false, min_items = 1, description = "Only events of these types, separated by commas (`document.signed,document.completed`)"),
    ),
    responses(
        (status = 200, description = "Events retrieved successfully", body = Envelope<EventPage>),
        (status = 400, description = "Invalid query parameter: <name>", body = Envelope<Empty>),
        Unauthenticated, RateLimited,
    )
)]
async fn list_events(
    State(state): State<AppState>,
    ApiAccount(account_id): ApiAccount,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let query = FeedQuery::from_pairs(&pairs)?;
    let mut found = events::page(
        &state.db.pool,
        account_id,
        query.after.map(|cursor| cursor.0).unwrap_or_default(),
        query.type_names().as_deref(),
        query.limit + 1,
    )
    .await?;
    let has_more = found.len() as i64 > query.limit;
    found.truncate(query.limit as usize);
    let items: Vec<EventView> = found.iter().map(EventView::new).collect();
    let next_cursor = items
        .last()
        .map(|item| item.cursor.clone())
        .or_else(|| query.after.map(|cursor| cursor.encode()));
    Ok(success(
        "Events retrieved successfully",
        EventPage {
            items,
            next_cursor,
            has_more,
        },
    ))
}
