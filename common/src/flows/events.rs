//! The event feed (issue #34, `GET /events`): a page of the account's events after a cursor,
//! each with a cursor signed for the account (docs/api.md, "Event feed").

use sqlx::PgPool;

use crate::{
    error::Result,
    infra::secrets::FeedCursorKey,
    model::AccountId,
    store::events,
    wire::events::{EventPage, EventView, FeedCursor, FeedQuery, GivenCursor, not_a_cursor},
};

/// Up to `query.limit` of the account's events after `query.after`, oldest first. A format-1
/// cursor (unsigned, from before cursors were signed) is taken only where it names one of the
/// account's events; anywhere else it is refused as any cursor the feed did not give is.
#[tracing::instrument(name = "events::page", skip_all)]
pub async fn page(
    pool: &PgPool,
    key: &FeedCursorKey,
    account_id: AccountId,
    query: FeedQuery,
) -> Result<EventPage> {
    if let Some(GivenCursor::Unsigned(place)) = query.after
        && !events::is_place_of_event(pool, account_id, place).await?
    {
        return Err(not_a_cursor());
    }
    let mut found = events::page(
        pool,
        account_id,
        query.after.map(GivenCursor::place).unwrap_or_default(),
        query.type_names().as_deref(),
        query.limit + 1,
    )
    .await?;
    let has_more = found.len() as i64 > query.limit;
    found.truncate(query.limit as usize);
    let items: Vec<EventView> = found
        .iter()
        .map(|event| EventView::new(event, key, account_id))
        .collect();
    let next_cursor = items.last().map(|item| item.cursor.clone()).or_else(|| {
        query
            .after
            .map(|after| FeedCursor(after.place()).encode(key, account_id))
    });
    Ok(EventPage {
        items,
        next_cursor,
        has_more,
    })
}
