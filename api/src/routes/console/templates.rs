//! The console's templates (issue #32): the list (search and paging), a template's page (its
//! roles, fields and defaults; archive; "Use template"), its roles and fields edited on the
//! placement page, and making one from a DRAFT's page.
//! Same domain functions as the API; a form is made into the API's body and read as the API
//! reads it, so that it needs what the API needs.

use std::collections::{BTreeMap, HashMap};

use axum::{
    body::Body,
    extract::State,
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Redirect, Response},
};
use serde_json::{Map, Value, json};
use signet_common::{
    Problem,
    flows::templates,
    model::{DocumentId, FieldType, TemplateId},
    store,
    wire::{
        body::{self, Parsed},
        templates::{InstantiateInput, TemplateInput, TemplateRoleInput, TemplateUpdateInput},
    },
};

use super::{
    documents::{counted, refused_on_page},
    failure::Failure,
    session::{Console, CsrfForm, NoFields},
    views::{self, Editing, Placement, TemplateList, TemplatePage},
};
use crate::{
    AppState,
    envelope::{Empty, success},
    error::ApiError,
    extract::{ApiBody, ClientActor, DocumentPath, TemplateListParams, TemplatePath},
};

pub(super) async fn list(
    State(state): State<AppState>,
    console: Console,
    params: Result<TemplateListParams, ApiError>,
) -> Result<Response, Failure> {
    let params = params?;
    let (found, total) =
        store::templates::list(&state.db.pool, console.session.account_id, &params.query).await?;
    let body = views::template_list(TemplateList {
        csrf: console.csrf(),
        params: &params,
        found: &found,
        total,
    });
    Ok(views::page(StatusCode::OK, "Templates", body))
}

pub(super) async fn detail(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    render(&state, &console, id, None, &HashMap::new(), StatusCode::OK).await
}

async fn render(
    state: &AppState,
    console: &Console,
    id: TemplateId,
    error: Option<(&str, &[String])>,
    form: &HashMap<String, String>,
    status: StatusCode,
) -> Result<Response, Failure> {
    let (template, roles, fields) =
        templates::detail(&state.db.pool, console.session.account_id, id).await?;
    let body = views::template_page(TemplatePage {
        csrf: console.csrf(),
        template: &template,
        roles: &roles,
        fields: &fields,
        error,
        form,
    });
    Ok(views::page(status, &template.title, body))
}

/// "Use template": one person per role (`role:<name>:name`, `role:<name>:email`), values of
/// TEXT fields (`value:<label>`), and with `send`, the send (`message`, `expiry`; each blank
/// one taken from the template's defaults). Done, the browser goes to the document's page;
/// refused, the template's page shows why, with the form as it was filled.
pub(super) async fn instantiate(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<TemplatePath, ApiError>,
    CsrfForm(form): CsrfForm<HashMap<String, String>>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    let send = form.contains_key("send");
    let input = match body::parse_value::<InstantiateInput>(&instantiate_body(&form)) {
        Ok(input) => input,
        Err(problems) => {
            let error = ApiError::InvalidBody(problems);
            return refused(&state, &console, id, error, &form).await;
        }
    };
    let document_id = DocumentId::new();
    let making = templates::instantiate(
        &state.db.pool,
        console.session.account_id,
        id,
        document_id,
        input,
        &actor,
        &state.notifier,
        None,
    );
    // A send makes Signet send e-mail: counted against the usage as an API request would be.
    let outcome = match send {
        true => counted(&state, &console, making).await,
        false => making.await.map_err(ApiError::from),
    };
    match outcome {
        Ok(()) => Ok(Redirect::to(&format!("/app/documents/{document_id}")).into_response()),
        Err(error) => refused(&state, &console, id, error, &form).await,
    }
}

/// The template's page with why `error` refused the form, when the API would have answered it
/// with a 400, 409 or 429; else the error page.
async fn refused(
    state: &AppState,
    console: &Console,
    id: TemplateId,
    error: ApiError,
    form: &HashMap<String, String>,
) -> Result<Response, Failure> {
    match error {
        ApiError::Rule(..)
        | ApiError::InvalidBody(_)
        | ApiError::RateLimited { .. }
        | ApiError::TemplateArchived => {
            let message = match &error {
                ApiError::InvalidBody(_) => "Nothing was made:".to_owned(),
                other => other.to_string(),
            };
            let problems: Vec<String> = error
                .problems()
                .unwrap_or_default()
                .iter()
                .map(|p| format!("{}: {}", p.field, p.reason))
                .collect();
            render(
                state,
                console,
                id,
                Some((&message, &problems)),
                form,
                error.status(),
            )
            .await
        }
        error => Err(error.into()),
    }
}

/// The API's body of `POST /templates/{id}/documents` from the form.
fn instantiate_body(form: &HashMap<String, String>) -> Value {
    let given = |name: &str| {
        form.get(name)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let mut roles: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut values = Map::new();
    for (name, value) in form {
        if let Some(rest) = name.strip_prefix("role:")
            && let Some((role, property @ ("name" | "email"))) = rest.rsplit_once(':')
        {
            roles
                .entry(role.to_owned())
                .or_default()
                .insert(property.to_owned(), value.trim().into());
        } else if let Some(label) = name.strip_prefix("value:")
            && !value.is_empty()
        {
            values.insert(label.to_owned(), value.as_str().into());
        }
    }
    let mut body = json!({"roles": roles});
    if !values.is_empty() {
        body["values"] = values.into();
    }
    if let Some(title) = given("title") {
        body["title"] = title.into();
    }
    if form.contains_key("send") {
        body["send"] = true.into();
        if let Some(message) = given("message") {
            body["message"] = message.into();
        }
        if let Some(expiry) = given("expiry") {
            let expiry = chrono::NaiveDateTime::parse_from_str(&expiry, "%Y-%m-%dT%H:%M")
                .map_or(expiry, |t| t.and_utc().to_rfc3339());
            body["expiryDate"] = expiry.into();
        }
    }
    body
}

pub(super) async fn archive(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    templates::archive(&state.db.pool, console.session.account_id, id).await?;
    Ok(Redirect::to("/app/templates").into_response())
}

/// The placement page for the template's roles and fields (place-fields.mjs with
/// template-roles.mjs). An archived template takes no change: its error page.
pub(super) async fn place(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    let (template, roles, fields) =
        templates::detail(&state.db.pool, console.session.account_id, id).await?;
    if template.archived_at.is_some() {
        return Err(ApiError::TemplateArchived.into());
    }
    let body = views::field_placement(Placement {
        csrf: console.csrf(),
        editing: Editing::Template {
            template: &template,
            roles: &roles,
            fields: &fields,
        },
    });
    Ok(views::page(StatusCode::OK, "Roles and fields", body))
}

/// The template's PDF, for the placement page to draw: to its owner's session only.
pub(super) async fn file(
    State(state): State<AppState>,
    console: Console,
    id: Result<TemplatePath, ApiError>,
) -> Result<Response, Failure> {
    let TemplatePath(id) = id?;
    let (template, _, _) =
        templates::detail(&state.db.pool, console.session.account_id, id).await?;
    let file = state
        .store
        .open(&template.file_key, None)
        .await
        .map_err(signet_common::Error::from)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/pdf".to_owned()),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
            (header::CONTENT_LENGTH, file.size.to_string()),
        ],
        Body::from_stream(file.stream),
    )
        .into_response())
}

/// Saves the placement page's roles, each with its fields, as the whole list `PATCH
/// /templates/{id}` takes (`templates::update`, which checks them); a blank label is given
/// `<role>.<type>.<n>` first. Answers in the envelope so the page can show the refusal, each
/// problem named by the role and field the page shows.
pub(super) async fn save_roles(
    State(state): State<AppState>,
    console: Console,
    headers: HeaderMap,
    id: Result<TemplatePath, ApiError>,
    body: Result<ApiBody<TemplateUpdateInput>, ApiError>,
) -> Result<Response, ApiError> {
    console.check_header(&headers)?;
    let TemplatePath(id) = id?;
    let ApiBody(Parsed { value, problems }) = body?;
    // Only the roles: the title and the defaults are not the page's to change.
    let mut roles = value.roles;
    if let Some(roles) = &mut roles {
        templates::label_blank_fields(roles);
    }
    let shown = ShownRoles::of(roles.as_deref().unwrap_or_default());
    let input = TemplateUpdateInput {
        roles,
        ..TemplateUpdateInput::default()
    };
    templates::update(
        &state.db.pool,
        &state.store,
        &state.gates.pdf,
        console.session.account_id,
        id,
        Parsed {
            value: input,
            problems,
        },
        state.notifier.reminders,
    )
    .await
    .map_err(|error| shown.name_problems(error.into()))?;
    Ok(success("Roles and fields saved", Empty {}))
}

/// A field as the placement page shows it: its label, type and page.
type ShownField = (String, FieldType, i64);

/// The roles (name, fields) as the placement page shows them, to name a problem by them.
struct ShownRoles(Vec<(String, Vec<ShownField>)>);

impl ShownRoles {
    fn of(roles: &[TemplateRoleInput]) -> Self {
        Self(
            roles
                .iter()
                .map(|role| {
                    let fields = role
                        .fields
                        .iter()
                        .map(|f| (f.label.trim().to_owned(), f.field_type, f.page.unwrap_or(0)));
                    (role.name.trim().to_owned(), fields.collect())
                })
                .collect(),
        )
    }

    /// `error` with each problem's `roles[0].fields[1].x` named as the page shows it: `Role
    /// “Tenant”, field “Rent” (TEXT on page 1), x`.
    fn name_problems(&self, error: ApiError) -> ApiError {
        let named = |problems: Vec<Problem>| {
            problems
                .into_iter()
                .map(|p| Problem::new(self.name(&p.field), p.reason))
                .collect()
        };
        match error {
            ApiError::InvalidBody(problems) => ApiError::InvalidBody(named(problems)),
            ApiError::Rule(rule, problems) => ApiError::Rule(rule, named(problems)),
            other => other,
        }
    }

    fn name(&self, path: &str) -> String {
        let indexed = |rest: &str, prefix: &str| -> Option<(usize, String)> {
            let (index, rest) = rest.strip_prefix(prefix)?.split_once(']')?;
            Some((index.parse().ok()?, rest.to_owned()))
        };
        let Some((i, rest)) = indexed(path, "roles[") else {
            return path.to_owned();
        };
        let Some((name, fields)) = self.0.get(i) else {
            return path.to_owned();
        };
        let quoted = |text: &str| format!("“{}”", signet_i18n::bidi::in_text(text, false));
        let mut named = match name.is_empty() {
            true => format!("Role {}", i + 1),
            false => format!("Role {}", quoted(name)),
        };
        let mut rest = rest;
        if let Some((j, after)) = indexed(&rest, ".fields[")
            && let Some((label, field_type, page)) = fields.get(j)
        {
            named.push_str(&format!(
                ", field {} ({field_type} on page {page})",
                quoted(label)
            ));
            rest = after;
        }
        match rest.strip_prefix('.') {
            Some("signingOrder") => named.push_str(", signing group"),
            Some("readOnly") => named.push_str(", read-only"),
            Some("role") => named.push_str(", signer or viewer"),
            Some(property) => named.push_str(&format!(", {property}")),
            None if rest.is_empty() => {}
            None => named.push_str(&rest),
        }
        named
    }
}

/// "Make a template" on a DRAFT's page: its `title` and a role name per recipient
/// (`role:<email>`; blank: the recipient's name). Done, the browser goes to the template's
/// page; refused, the document's page shows why.
pub(super) async fn make_from_document(
    State(state): State<AppState>,
    console: Console,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(form): CsrfForm<HashMap<String, String>>,
) -> Result<Response, Failure> {
    let DocumentPath(document_id) = id?;
    let roles: BTreeMap<String, String> = form
        .iter()
        .filter_map(|(name, value)| {
            let email = name.strip_prefix("role:")?;
            let value = value.trim();
            (!value.is_empty()).then(|| (email.to_owned(), value.to_owned()))
        })
        .collect();
    let title = form
        .get("title")
        .map(|t| t.trim())
        .filter(|t| !t.is_empty());
    let input = TemplateInput {
        document_id,
        title: title.map(str::to_owned),
        roles: Some(roles),
        fields: None,
        message: None,
        description: None,
        expiry_days: None,
        reminders: None,
        language: None,
    };
    let id = TemplateId::new();
    let outcome = templates::create(
        &state.db.pool,
        console.session.account_id,
        id,
        Parsed::whole(input),
        state.notifier.reminders,
        None,
    )
    .await;
    match outcome {
        Ok(()) => Ok(Redirect::to(&format!("/app/templates/{id}")).into_response()),
        Err(error) => refused_on_page(&state, &console, document_id, error.into()).await,
    }
}
