//! Additive: the event feed (issue #34, docs/api.md#event-feed): every event the account's
//! webhooks carry, in order, from a cursor, whether or not a webhook URL is set.

use axum::{
    extract::{RawQuery, State},
    response::Response,
};
use signet_common::{
    flows::events,
    wire::events::{EventPage, EventType, FeedQuery},
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
/// ended, so no later event can be placed before a cursor already handed out. A cursor is
/// signed for the account it was given to: another account's, an altered or a made-up one is
/// refused (`400`, `after`: "must be a cursor this feed returned"), as is a cursor of the first
/// format (23 characters) that names none of the account's events.
#[utoipa::path(
    get, path = "/events", tag = "events", security(("api_key" = [])),
    params(
        ("after" = Option<String>, Query, pattern = "^(A[g-v][A-Za-z0-9_-]{42}|A[Q-Za-f][A-Za-z0-9_-]{20}[AEIMQUYcgkosw048])$", description = "A `cursor` or `nextCursor` this feed returned to this account: the events after it; from the oldest kept without one. Its pattern is its shape only: a string of it that the feed did not sign for the account is refused (400)"),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Events per page, 1 to 100; default 10"),
        ("type" = Option<Vec<EventType>>, Query, style = Form, explode = false, min_items = 1, description = "Only events of these types, separated by commas (`document.signed,document.completed`)"),
    ),
    responses(
        (status = 200, description = "Events retrieved successfully", body = Envelope<EventPage>),
        (status = 400, description = "Invalid query parameter: <name>. `after`: \"must be a cursor this feed returned\" for any string that is not a cursor this feed signed for the account (another account's, altered, made up) or an unsigned first-format cursor that names none of its events", body = Envelope<Empty>),
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
    let query = FeedQuery::from_pairs(&pairs, &state.feed_cursors, account_id)?;
    let page = events::page(&state.db.pool, &state.feed_cursors, account_id, query).await?;
    Ok(success("Events retrieved successfully", page))
}
