//! The OpenAPI 3.1 document, generated from the same registrations that build the router.

use std::sync::Arc;

use axum::{Router, http::header, routing::get};
use utoipa::{
    Modify, OpenApi,
    openapi::security::{ApiKey, ApiKeyValue, SecurityScheme},
};
use utoipa_axum::router::OpenApiRouter;

use crate::{
    AppState,
    app::BASE_PATH,
    error::{Empty, Envelope},
};

/// The refusals the documented routes share, each described once; a route lists the ones it
/// can answer (`responses(..., Unauthenticated, DocumentNotFound, RateLimited)`). They only
/// describe: no handler builds them (`ApiError` makes the responses), so their body is unread.
#[allow(dead_code)]
pub mod responses {
    use super::{Empty, Envelope};

    /// 401, code UNAUTHENTICATED: no key, or not an active one.
    #[derive(utoipa::IntoResponses)]
    #[response(
        status = 401,
        description = "API key is missing or invalid / Invalid API key"
    )]
    pub struct Unauthenticated(Envelope<Empty>);

    #[derive(utoipa::IntoResponses)]
    #[response(status = 404, description = "Document not found")]
    pub struct DocumentNotFound(Envelope<Empty>);

    #[derive(utoipa::IntoResponses)]
    #[response(status = 413, description = "Request body too large")]
    pub struct BodyTooLarge(Envelope<Empty>);

    #[derive(utoipa::IntoResponses)]
    #[response(status = 429, description = "API rate limit exceeded")]
    pub struct RateLimited(Envelope<Empty>);
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Signet External API",
        version = "1",
        description = "Collect electronic signatures on PDF documents. Every response is an envelope {code, message, data}."
    ),
    modifiers(&ApiKeyScheme),
    tags((name = "documents", description = "Documents, recipients, fields, sending and the audit trail"))
)]
struct ApiDoc;

struct ApiKeyScheme;

impl Modify for ApiKeyScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi
            .components
            .get_or_insert_default()
            .add_security_scheme(
                "api_key",
                SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-KEY"))),
            );
        openapi.servers = Some(vec![utoipa::openapi::Server::new(BASE_PATH)]);
    }
}

/// Splits the documented routes into the router that serves them and their OpenAPI document.
pub fn split(routes: OpenApiRouter<AppState>) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes)
        .split_for_parts()
}

/// The OpenAPI document of the external API.
pub fn document() -> utoipa::openapi::OpenApi {
    split(super::documents::router()).1
}

/// `GET /openapi.json` (public: integrators read it before they have a key).
pub fn router(openapi: &utoipa::openapi::OpenApi) -> Router<AppState> {
    let json: Arc<str> = openapi
        .to_json()
        .expect("the OpenAPI document serialises")
        .into();
    Router::new().route(
        "/openapi.json",
        get(move || {
            let json = json.clone();
            async move {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    json.to_string(),
                )
            }
        }),
    )
}
