//! The console's documents: the list (the API's filters, search, sorting and paging), the
//! document page, recipients, field placement, send, cancel (after a confirmation page),
//! reminders and resend. Same domain
//! functions as the API and the CLI, and the API's extractors for ids and the list's query;
//! those are taken as `Result`s so that their refusal is shown as a page, after the CSRF check.

use axum::{
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Map, Value};
use signet_common::{
    flows::{delivery_failures, drafting, found_fields, reminders, signer_auth},
    infra::db::Lsn,
    model::{DocumentId, RecipientRole},
    store::{accounts, documents},
    wire::{
        body::{self, Parsed},
        inputs::{CancelInput, FieldInput, FieldPlacement, RecipientInput, SendInput},
    },
};

use super::{
    failure::Failure,
    session::{Console, CsrfForm, NoFields},
    views::{self, DocumentList, DocumentPage, Editing, Placement},
};
use crate::{
    AppState,
    envelope::{Empty, success},
    error::ApiError,
    extract::{ApiJson, ClientActor, DocumentPath, ListParams, Reads, RecipientPath},
};

pub(super) async fn list(
    console: Console,
    reads: Reads,
    params: Result<ListParams, ApiError>,
) -> Result<Response, Failure> {
    render_list(&reads, &console, &params?, None, StatusCode::OK).await
}

/// The list, read where `reads` says (after a write of the handler's own: the primary).
pub(super) async fn render_list(
    reads: &signet_common::infra::db::Reads,
    console: &Console,
    params: &ListParams,
    upload_error: Option<&str>,
    status: StatusCode,
) -> Result<Response, Failure> {
    let account_id = console.session.account_id;
    let (found, total) =
        signet_common::read!(reads, |db| documents::list(db, account_id, &params.query))?;
    let body = views::document_list(DocumentList {
        csrf: console.csrf(),
        params,
        found: &found,
        total,
        upload_error,
    });
    Ok(views::page(status, "Documents", body))
}

pub(super) async fn detail(
    State(state): State<AppState>,
    console: Console,
    reads: Reads,
    id: Result<DocumentPath, ApiError>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    render_detail(&state, &reads, &console, id, None, StatusCode::OK).await
}

async fn render_detail(
    state: &AppState,
    reads: &signet_common::infra::db::Reads,
    console: &Console,
    id: DocumentId,
    error: Option<(&str, &[String])>,
    status: StatusCode,
) -> Result<Response, Failure> {
    let account_id = console.session.account_id;
    let (document, recipients, fields, trail, waiting) = signet_common::read!(reads, |db| async {
        let (document, recipients, fields) = drafting::document_detail(db, account_id, id).await?;
        let trail = drafting::audit_trail(db, account_id, id).await?;
        let waiting = found_fields::waiting(db, id).await?;
        Ok::<_, signet_common::Error>((document, recipients, fields, trail, waiting))
    })?;
    let now = Utc::now();
    let body = views::document_page(DocumentPage {
        csrf: console.csrf(),
        document: &document,
        recipients: &recipients,
        fields: &fields,
        trail: &trail,
        waiting: &waiting,
        file_link: &state.links.url(document.id, now),
        error,
        now,
        reminders: state.notifier.reminders,
    });
    Ok(views::page(status, &document.title, body))
}

/// A change the API would refuse with a 400 (or a 429, the account's usage being used up) is
/// shown on the document page, which is left as it was, with every problem the API would list;
/// done, the browser goes back to the page.
async fn refused_or(
    state: &AppState,
    console: &Console,
    id: DocumentId,
    outcome: Result<impl Sized, impl Into<ApiError>>,
) -> Result<Response, Failure> {
    match outcome.map_err(Into::into) {
        Ok(_) => Ok(Redirect::to(&format!("/app/documents/{id}")).into_response()),
        Err(error) => refused_on_page(state, console, id, error).await,
    }
}

/// The document page with why `error` refused a change, when the API would have answered it
/// with a 400 (or a 429); else the error page.
pub(super) async fn refused_on_page(
    state: &AppState,
    console: &Console,
    id: DocumentId,
    error: ApiError,
) -> Result<Response, Failure> {
    match error {
        error @ (ApiError::Rule(..) | ApiError::InvalidBody(_) | ApiError::RateLimited { .. }) => {
            let message = match &error {
                ApiError::RateLimited { retry_after_secs } => {
                    format!("{error}; try again in {retry_after_secs} seconds")
                }
                // The API's general message says nothing to a person filling in a form.
                ApiError::InvalidBody(_) => "Nothing was changed:".to_owned(),
                _ => error.to_string(),
            };
            let problems: Vec<String> = error
                .problems()
                .unwrap_or_default()
                .iter()
                .map(|p| format!("{}: {}", p.field, p.reason))
                .collect();
            render_detail(
                state,
                &state.db.reads(Lsn::LATEST),
                console,
                id,
                Some((&message, &problems)),
                error.status(),
            )
            .await
        }
        error => Err(error.into()),
    }
}

/// Runs `action`, a console action that makes Signet send e-mail, once it is counted against
/// the account's usage like an API request (docs/console.md); over the limit, it does not run.
pub(super) async fn counted<T>(
    state: &AppState,
    console: &Console,
    action: impl Future<Output = signet_common::error::Result<T>>,
) -> Result<T, ApiError> {
    let window_secs = state.config.api.usage_window_secs;
    let account_id = console.session.account_id;
    if let Some(retry_after_secs) =
        accounts::count_console_action(&state.db.pool, account_id, window_secs).await?
    {
        return Err(ApiError::RateLimited { retry_after_secs });
    }
    Ok(action.await?)
}

pub(super) async fn add_recipient(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(form): CsrfForm<RecipientForm>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let role = match form.role.as_deref() {
        Some("VIEWER") => RecipientRole::Viewer,
        _ => RecipientRole::Signer,
    };
    let input = RecipientInput {
        name: form.name,
        email: form.email,
        role,
        country_code: None,
        phone_number: None,
        language: chosen_language(form.language.as_deref()),
        // Not a whole number: 0, which the validation refuses by name.
        signing_order: form
            .signing_order
            .as_deref()
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .map(|v| v.parse().unwrap_or(0)),
        embedded: false,
        authentication: None,
    };
    let outcome = drafting::add_recipients(
        &state.db.pool,
        console.session.account_id,
        id,
        Parsed::whole(vec![input]),
        &actor,
        None,
    )
    .await;
    refused_or(&state, &console, id, outcome).await
}

/// Gives the fields found in the PDF for a role to a new recipient (the form under "Fields
/// found in the PDF").
pub(super) async fn assign_role(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(form): CsrfForm<AssignRoleForm>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let outcome = found_fields::assign_role(
        &state.db.pool,
        console.session.account_id,
        id,
        &form.role,
        form.name,
        form.email,
        &actor,
    )
    .await;
    refused_or(&state, &console, id, outcome).await
}

pub(super) async fn send(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(form): CsrfForm<SendForm>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    // Read as the API reads its body, so that the form needs what the API needs.
    let input = match body::parse_value::<SendInput>(&send_body(&form)) {
        Ok(input) => input,
        Err(problems) => {
            return refused_or(
                &state,
                &console,
                id,
                Err::<(), _>(ApiError::InvalidBody(problems)),
            )
            .await;
        }
    };
    let sending = drafting::send_document(
        &state.db.pool,
        console.session.account_id,
        id,
        input,
        &actor,
        &state.notifier,
        None,
    );
    let outcome = counted(&state, &console, sending).await;
    refused_or(&state, &console, id, outcome).await
}

/// The placement page: pages rendered with pdf.js (place-fields.mjs does the work).
pub(super) async fn place(
    State(state): State<AppState>,
    console: Console,
    id: Result<DocumentPath, ApiError>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let (document, recipients, fields) =
        drafting::document_detail(&state.db.pool, console.session.account_id, id).await?;
    let body = views::field_placement(Placement {
        csrf: console.csrf(),
        editing: Editing::Document {
            document: &document,
            recipients: &recipients,
            fields: &fields,
            file_link: &state.links.url(id, Utc::now()),
        },
    });
    Ok(views::page(StatusCode::OK, "Place fields", body))
}

/// What the placement page saves: the saved fields it keeps, each with its box (moved or
/// resized, or not), and the new ones. Saved fields it leaves out are removed.
#[derive(serde::Deserialize)]
pub(super) struct Arrangement {
    #[serde(default)]
    keep: Vec<FieldPlacement>,
    #[serde(default)]
    add: Vec<FieldInput>,
}

/// Saves the placement page's fields in one change (`drafting::arrange_fields`: new fields by
/// the rules of `POST /documents/:id/fields`); answers in the envelope so the page can show the
/// API's messages.
pub(super) async fn save_fields(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    headers: HeaderMap,
    id: Result<DocumentPath, ApiError>,
    ApiJson(arrangement): ApiJson<Arrangement>,
) -> Result<Response, ApiError> {
    console.check_header(&headers)?;
    let DocumentPath(id) = id?;
    drafting::arrange_fields(
        &state.db.pool,
        console.session.account_id,
        id,
        arrangement.keep,
        arrangement.add,
        &actor,
    )
    .await?;
    Ok(success("Fields saved", Empty {}))
}

/// Removes a recipient and their fields from a DRAFT document.
pub(super) async fn remove_recipient(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    RecipientPath(recipient): RecipientPath,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let outcome = match recipient {
        Some(recipient) => {
            drafting::remove_recipient(
                &state.db.pool,
                console.session.account_id,
                id,
                recipient,
                &actor,
            )
            .await
        }
        None => Err(drafting::not_a_recipient()),
    };
    refused_or(&state, &console, id, outcome).await
}

/// Unlocks a recipient whose signing link five wrong codes locked (issue #34).
pub(super) async fn unlock_recipient(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    RecipientPath(recipient): RecipientPath,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let outcome = match recipient {
        Some(recipient) => {
            signer_auth::unlock(
                &state.db.pool,
                console.session.account_id,
                id,
                recipient,
                &actor,
            )
            .await
        }
        None => Err(signet_common::Error::RecipientNotFound),
    };
    refused_or(&state, &console, id, outcome).await
}

/// Sends a failed invitation again, to the corrected address if one was typed.
pub(super) async fn resend_invitation(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    RecipientPath(recipient): RecipientPath,
    CsrfForm(form): CsrfForm<ResendForm>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let outcome = match recipient {
        Some(recipient) => {
            // Checked once the action is counted, as every console action that sends e-mail is.
            let resending = async {
                let corrected = delivery_failures::corrected_address(form.email.as_deref())?;
                delivery_failures::resend_invitation(
                    &state.db.pool,
                    console.session.account_id,
                    id,
                    recipient,
                    corrected.as_ref(),
                    &actor,
                    &state.notifier,
                )
                .await
            };
            counted(&state, &console, resending).await
        }
        // What `resend_invitation` answers for any id that is no invitation of the document.
        None => Err(ApiError::Rule(
            signet_common::Rule::NotResendable,
            Vec::new(),
        )),
    };
    refused_or(&state, &console, id, outcome).await
}

/// The send form as the body of `POST /documents/{id}/send`: `message`, `description` and
/// `expiry` (a datetime-local value, which has no zone: the form says UTC) as the API's
/// properties, absent when the form lacks them; the language chosen; the reminder choice
/// (off when its box is unticked, else the days given, blank for the operator's default).
fn send_body(form: &SendForm) -> Value {
    let mut body = Map::new();
    for (name, value) in [
        ("message", &form.message),
        ("description", &form.description),
    ] {
        if let Some(value) = value {
            body.insert(name.into(), value.as_str().into());
        }
    }
    if let Some(expiry) = &form.expiry {
        let expiry = chrono::NaiveDateTime::parse_from_str(expiry, "%Y-%m-%dT%H:%M")
            .map_or_else(|_| expiry.clone(), |t| t.and_utc().to_rfc3339());
        body.insert("expiryDate".into(), expiry.into());
    }
    if let Some(language) = chosen_language(form.language.as_deref()) {
        body.insert("language".into(), language.tag().into());
    }
    let days = |value: &Option<String>| -> Option<Value> {
        let value = value.as_deref().map(str::trim).filter(|v| !v.is_empty())?;
        // Not a whole number: given as typed, which the reading refuses by name.
        Some(
            value
                .parse::<i64>()
                .map_or_else(|_| value.into(), Into::into),
        )
    };
    let mut reminders = Map::new();
    reminders.insert("enabled".into(), form.reminders.is_some().into());
    for (property, value) in [
        ("firstAfterDays", &form.reminder_first_after_days),
        ("everyDays", &form.reminder_every_days),
    ] {
        if let Some(days) = days(value) {
            reminders.insert(property.into(), days);
        }
    }
    body.insert("reminders".into(), reminders.into());
    body.into()
}

/// Cancelling asks first: this page says what will happen and takes the reason.
pub(super) async fn confirm_cancel(
    State(state): State<AppState>,
    console: Console,
    id: Result<DocumentPath, ApiError>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let (document, recipients, _) =
        drafting::document_detail(&state.db.pool, console.session.account_id, id).await?;
    let body = views::cancel_page(console.csrf(), &document, &recipients);
    Ok(views::page(
        StatusCode::OK,
        &format!("Cancel {}", document.title),
        body,
    ))
}

pub(super) async fn cancel(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(form): CsrfForm<CancelForm>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let input = CancelInput {
        reason: form.reason,
    };
    let cancelling = drafting::cancel_document(
        &state.db.pool,
        console.session.account_id,
        id,
        input,
        &actor,
        &state.notifier,
    );
    let outcome = counted(&state, &console, cancelling).await;
    refused_or(&state, &console, id, outcome).await
}

/// Reminds every signer who has not signed, now (but those reminded within the interval).
pub(super) async fn remind(
    State(state): State<AppState>,
    console: Console,
    ClientActor(actor): ClientActor,
    id: Result<DocumentPath, ApiError>,
    CsrfForm(NoFields {}): CsrfForm<NoFields>,
) -> Result<Response, Failure> {
    let DocumentPath(id) = id?;
    let reminding = reminders::remind_now(
        &state.db.pool,
        console.session.account_id,
        id,
        &actor,
        &state.notifier,
    );
    let outcome = counted(&state, &console, reminding).await;
    refused_or(&state, &console, id, outcome).await
}

/// The language chosen in a form's menu; none for its first choice (or anything else).
fn chosen_language(tag: Option<&str>) -> Option<signet_i18n::Language> {
    tag.and_then(signet_i18n::Language::from_tag)
}

/// The add-recipient form.
#[derive(Deserialize)]
pub(super) struct RecipientForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    signing_order: Option<String>,
}

/// The form that gives a role's found fields to a recipient.
#[derive(Deserialize)]
pub(super) struct AssignRoleForm {
    #[serde(default)]
    role: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
}

/// The send form (see [`send_body`]); `reminders` is its tick box.
#[derive(Deserialize)]
pub(super) struct SendForm {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    expiry: Option<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    reminders: Option<String>,
    #[serde(default)]
    reminder_first_after_days: Option<String>,
    #[serde(default)]
    reminder_every_days: Option<String>,
}

/// The resend form: the corrected address, if one was typed.
#[derive(Deserialize)]
pub(super) struct ResendForm {
    #[serde(default)]
    email: Option<String>,
}

/// The cancel form.
#[derive(Deserialize)]
pub(super) struct CancelForm {
    #[serde(default)]
    reason: Option<String>,
}
