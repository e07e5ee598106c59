//! The OpenAPI 3.1 document, generated from the same registrations that build the router.

use std::sync::Arc;

use axum::{Router, http::header, routing::get};
use serde_json::{Value, json};
use signet_common::wire::inputs::{MAX_FIELDS_PER_REQUEST, MAX_RECIPIENTS_PER_REQUEST};
use utoipa::{
    Modify, OpenApi,
    openapi::security::{ApiKey, ApiKeyValue, SecurityScheme},
};
use utoipa_axum::router::OpenApiRouter;

use crate::{AppState, state::BASE_PATH};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Signet External API",
        version = "1",
        description = "Collect electronic signatures on PDF documents. Every response is an envelope {code, message, data}."
    ),
    modifiers(&ApiKeyScheme),
    tags(
        (name = "documents", description = "Documents, recipients, fields, sending and the audit trail"),
        (name = "templates", description = "Additive: templates made from a document, and documents made from them"),
        (name = "account", description = "Additive: the account's settings (embedded signing's allowed origins, the retention policy) and erasure of a person's personal data"),
        (name = "events", description = "Additive: the event feed, every event the account's webhooks carry, from a cursor")
    )
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
    let (router, openapi) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes)
        .split_for_parts();
    (router, with_cross_cutting(openapi))
}

/// What every operation shares and the route attributes cannot say, added once to the
/// generated document (as JSON, which the whole of OpenAPI 3.1 can be written in): the bounds
/// of the request arrays, `Idempotency-Key` and its answers on every POST, the rate-limit
/// headers on every answer, a recipient's phone number and dialling prefix given together,
/// and the links from a document to what can be done with it (for generated clients and
/// schemathesis's stateful phase).
fn with_cross_cutting(openapi: utoipa::openapi::OpenApi) -> utoipa::openapi::OpenApi {
    let mut doc = serde_json::to_value(&openapi).expect("the OpenAPI document serialises");
    let paths = doc["paths"]
        .as_object_mut()
        .expect("the document has paths");
    for (path, item) in paths.iter_mut() {
        for (method, operation) in item.as_object_mut().into_iter().flatten() {
            let responses = operation["responses"]
                .as_object_mut()
                .expect("every operation has responses");
            // A 401 belongs to no account, so it has no quota to tell.
            for (status, response) in responses.iter_mut().filter(|(s, _)| *s != "401") {
                let headers = &mut response["headers"];
                headers["RateLimit-Policy"] = header_doc(
                    "The account's quota: `\"account\";q=<requests per window>;w=<window in seconds>`",
                    "\"account\";q=1000;w=3600",
                );
                headers["RateLimit"] = header_doc(
                    "What is left of it: `\"account\";r=<requests left>;t=<seconds until the window ends>`",
                    "\"account\";r=998;t=1740",
                );
                if status == "429" {
                    headers["Retry-After"] = header_doc("Seconds until the window ends", "1740");
                }
            }
            if method != "post" {
                continue;
            }
            let max_items = match path.rsplit('/').next() {
                Some("recipients") => Some(MAX_RECIPIENTS_PER_REQUEST),
                Some("fields") => Some(MAX_FIELDS_PER_REQUEST),
                _ => None,
            };
            if let Some(max_items) = max_items {
                let schema = &mut operation["requestBody"]["content"]["application/json"]["schema"];
                schema["minItems"] = json!(1);
                schema["maxItems"] = json!(max_items);
            }
            // `POST /templates` has no path parameter: its list starts here.
            if operation["parameters"].is_null() {
                operation["parameters"] = json!([]);
            }
            let parameters = operation["parameters"]
                .as_array_mut()
                .expect("the parameters are a list");
            parameters.push(json!({
                "name": "Idempotency-Key",
                "in": "header",
                "required": false,
                "description": "Makes a retry safe (send a fresh UUID with each new write, e.g. `\"3f0c6d0e-8f0a-4c55-9f7e-1c2b8d7a9e41\"`): a repeat with the same key and request gets the first answer again (`Idempotent-Replayed: true`) and does nothing else. 1 to 255 visible ASCII characters, quoted or bare; kept 24 hours. See docs/api.md.",
                "schema": {"type": "string", "pattern": IDEMPOTENCY_KEY_PATTERN}
            }));
            let responses = operation["responses"]
                .as_object_mut()
                .expect("every operation has responses");
            let error = json!({"$ref": "#/components/schemas/Envelope_Empty"});
            responses.insert(
                "409".into(),
                json!({
                    "description": "A request with this Idempotency-Key is still being processed",
                    "headers": {"Retry-After": header_doc("Seconds to wait before retrying", "2")},
                    "content": {"application/json": {"schema": error}}
                }),
            );
            responses.insert(
                "422".into(),
                json!({
                    "description": "This Idempotency-Key was used for a different request",
                    "content": {"application/json": {"schema": error}}
                }),
            );
        }
    }
    pair_phone_fields(&mut doc["components"]["schemas"]["RecipientInput"]);
    place_or_anchor(&mut doc["components"]["schemas"]["FieldInput"]);
    place_or_anchor(&mut doc["components"]["schemas"]["TemplateFieldInput"]);
    anchor_occurrence(&mut doc["components"]["schemas"]["AnchorInput"]);
    exactly_one_of(
        &mut doc["components"]["schemas"]["ErasureInput"],
        &["email", "recipientId"],
    );
    add_links(&mut doc);
    serde_json::from_value(doc).expect("the amended OpenAPI document is one")
}

/// A key of 1 to 255 visible ASCII characters, spaces allowed inside (quotes, as the draft's
/// structured-field form writes them, included in the count).
const IDEMPOTENCY_KEY_PATTERN: &str = "^[!-~](?:[ -~]{0,253}[!-~])?$";

fn header_doc(description: &str, example: &str) -> Value {
    json!({"description": description, "schema": {"type": "string"}, "example": example})
}

/// An object that takes exactly one of `properties` (`POST /erasures`): the object and the rule
/// become an `allOf`, as utoipa's model keeps no `oneOf` beside `properties` (a `oneOf` set on
/// the object itself was dropped on the way back into the model). Each branch requires its
/// property and leaves the others absent or `null`, so a body with two matches no branch.
fn exactly_one_of(schema: &mut Value, properties: &[&str]) {
    let mut object = schema.take();
    let example = object
        .as_object_mut()
        .and_then(|o| {
            // Neither is required on its own: the branches say which.
            o.remove("required");
            o.remove("example")
        })
        .unwrap_or(Value::Null);
    let branches: Vec<Value> = properties
        .iter()
        .map(|chosen| {
            let mut own = serde_json::Map::new();
            for p in properties {
                let property = if p == chosen {
                    object["properties"][p].clone()
                } else {
                    json!({"type": "null"})
                };
                own.insert((*p).to_owned(), property);
            }
            json!({"title": format!("By {chosen}"), "type": "object", "required": [chosen], "properties": own})
        })
        .collect();
    *schema = json!({"allOf": [object, {"oneOf": branches}], "example": example});
}

/// `countryCode` and `phoneNumber` come together or not at all (the server refuses one without
/// the other): a rule between two properties, which the derived schema cannot state. The
/// object and the rule become an `allOf` (utoipa's model keeps no `anyOf` beside `properties`).
fn pair_phone_fields(recipient: &mut Value) {
    let mut object = recipient.take();
    let example = object
        .as_object_mut()
        .and_then(|o| o.remove("example"))
        .unwrap_or(Value::Null);
    *recipient = json!({
        "allOf": [
            object,
            {
                "anyOf": [
                    {
                        "title": "No phone number",
                        "type": "object",
                        "properties": {
                            "countryCode": {"type": "null"},
                            "phoneNumber": {"type": "null"}
                        }
                    },
                    {
                        "title": "A phone number with its dialling prefix",
                        "type": "object",
                        "required": ["countryCode", "phoneNumber"],
                        "properties": {
                            "countryCode": {"type": "string"},
                            "phoneNumber": {"type": "string"}
                        }
                    }
                ]
            }
        ],
        "example": example
    });
}

/// A field is placed by `page`, `x` and `y`, or by an `anchor` instead: one of the two, which
/// the derived schema (all optional) cannot state. And an anchor's `occurrence` is a number
/// from 1 or the word `all`.
fn place_or_anchor(field: &mut Value) {
    let mut object = field.take();
    let example = object
        .as_object_mut()
        .and_then(|o| o.remove("example"))
        .unwrap_or(Value::Null);
    *field = json!({
        "allOf": [
            object,
            {
                "oneOf": [
                    {
                        "title": "Placed on a page",
                        "type": "object",
                        "required": ["page", "x", "y"],
                        "properties": {
                            "page": {"type": "integer"},
                            "x": {"type": "number"},
                            "y": {"type": "number"},
                            "anchor": {"type": "null"}
                        }
                    },
                    {
                        "title": "Placed at text of the PDF",
                        "type": "object",
                        "required": ["anchor"],
                        "properties": {
                            "anchor": {"type": "object"},
                            "page": {"type": "null"},
                            "x": {"type": "null"},
                            "y": {"type": "null"}
                        }
                    }
                ]
            }
        ],
        "example": example
    });
}

fn anchor_occurrence(anchor: &mut Value) {
    anchor["properties"]["occurrence"] = json!({
        "description": "Which occurrence, counted from 1 in page and reading order, or `\"all\"` (a field at each); default 1",
        "oneOf": [
            {"type": "integer", "minimum": 1},
            {"type": "string", "pattern": "^all$"},
            {"type": "null"}
        ]
    });
}

/// From a listed or fetched document to what can be done with it.
fn add_links(doc: &mut Value) {
    let targets = [
        ("GetDocument", "get_document"),
        ("AddRecipients", "add_recipients"),
        ("AddFields", "add_fields"),
        ("SendDocument", "send_document"),
        ("GetAuditTrail", "get_audit_trail"),
    ];
    let links = |id: &str| -> Value {
        targets
            .iter()
            .map(|(name, operation)| {
                (
                    (*name).to_owned(),
                    json!({"operationId": operation, "parameters": {"id": id}}),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let paths = &mut doc["paths"];
    paths["/documents"]["get"]["responses"]["200"]["links"] =
        links("$response.body#/data/items/0/id");
    paths["/documents/{id}"]["get"]["responses"]["200"]["links"] = links("$response.body#/data/id");
    for operation in ["recipients", "fields", "send"] {
        paths[format!("/documents/{{id}}/{operation}")]["post"]["responses"]["200"]["links"] =
            links("$request.path.id");
    }
}

/// Every documented route of the external API: the router serves these and the document
/// describes them.
pub fn documented() -> OpenApiRouter<AppState> {
    super::documents::router()
        .merge(super::templates::router())
        .merge(super::bulk_sends::router())
        .merge(super::embedding::router())
        .merge(super::events::router())
        .merge(super::retention::router())
}

/// The OpenAPI document of the external API.
pub fn document() -> utoipa::openapi::OpenApi {
    split(documented()).1
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

#[cfg(test)]
mod tests {
    use signet_common::wire::{inputs, query};

    use super::*;

    /// JSON Schema patterns and the route attributes take literals: they must say what the
    /// validators' constants say.
    #[test]
    fn the_schema_states_the_validators_bounds() {
        let doc = serde_json::to_value(document()).unwrap();
        let schemas = &doc["components"]["schemas"];
        let bounds = [
            (
                &schemas["RecipientInput"]["allOf"][0]["properties"]["name"]["maxLength"],
                inputs::MAX_NAME_CHARS as i64,
            ),
            (
                &schemas["RecipientInput"]["allOf"][0]["properties"]["email"]["maxLength"],
                signet_common::model::email_address::MAX_EMAIL_CHARS as i64,
            ),
            (
                &schemas["SendInput"]["properties"]["message"]["maxLength"],
                inputs::MAX_MESSAGE_CHARS as i64,
            ),
            (
                &schemas["SendInput"]["properties"]["description"]["maxLength"],
                inputs::MAX_MESSAGE_CHARS as i64,
            ),
        ];
        for (stated, enforced) in bounds {
            assert_eq!(stated, &json!(enforced));
        }
        let list = &doc["paths"]["/documents"]["get"]["parameters"];
        let parameter = |name: &str| {
            list.as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap()["schema"]
                .clone()
        };
        assert_eq!(parameter("limit")["maximum"], json!(query::MAX_LIMIT));
        assert_eq!(parameter("page")["maximum"], json!(query::MAX_PAGE));
        let feed = doc["paths"]["/events"]["get"]["parameters"]
            .as_array()
            .unwrap();
        let feed_parameter =
            |name: &str| feed.iter().find(|p| p["name"] == name).unwrap()["schema"].clone();
        assert_eq!(
            feed_parameter("after")["pattern"],
            json!(signet_common::wire::events::AFTER_PATTERN)
        );
        assert_eq!(feed_parameter("limit")["maximum"], json!(query::MAX_LIMIT));
        for cursor in [
            &schemas["EventView"]["properties"]["cursor"],
            &schemas["EventPage"]["properties"]["nextCursor"],
        ] {
            assert_eq!(
                cursor["pattern"],
                json!(signet_common::wire::events::CURSOR_PATTERN)
            );
        }
        let body = |path: &str| {
            doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
                .clone()
        };
        assert_eq!(
            body("/documents/{id}/recipients")["maxItems"],
            json!(inputs::MAX_RECIPIENTS_PER_REQUEST)
        );
        assert_eq!(
            body("/documents/{id}/fields")["maxItems"],
            json!(inputs::MAX_FIELDS_PER_REQUEST)
        );
    }
}
