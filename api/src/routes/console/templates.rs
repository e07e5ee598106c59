//! The console's templates (issue #32): the list (search and paging), a template's page (its
//! roles, fields and defaults; archive; "Use template"), and making one from a DRAFT's page.
//! Same domain functions as the API; a form is made into the API's body and read as the API
//! reads it, so that it needs what the API needs.

use std::collections::{BTreeMap, HashMap};

use axum::{
    extract::State,
    http::StatusCode,
    response::{IntoResponse, Redirect, Response},
};
use serde_json::{Map, Value, json};
use signet_common::{
    flows::templates,
    model::{DocumentId, TemplateId},
    store,
    wire::{
        body::{self, Parsed},
        templates::{InstantiateInput, TemplateInput},
    },
};

use super::{
    documents::{counted, refused_on_page},
    failure::Failure,
    session::{Console, CsrfForm, NoFields},
    views::{self, TemplateList, TemplatePage},
};
use crate::{
    AppState,
    error::ApiError,
    extract::{ClientActor, DocumentPath, TemplateListParams, TemplatePath},
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
