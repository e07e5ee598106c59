//! The bodies and views of the templates routes (issue #32; docs/templates.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use signet_i18n::Language;
use utoipa::ToSchema;

use crate::{
    model::{DocumentId, FieldType, RecipientRole, TemplateId},
    wire::{
        inputs::{FieldOption, FieldPropertiesInput, RemindersInput, optional_whole_number},
        views::{Pixels, Timestamp},
    },
};

/// The body of `POST /templates`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"documentId": "0192f0c1-5b7e-7c3a-9d4e-2f1a3b4c5d6e", "title": "Lease", "roles": {"zoe@example.com": "Tenant"}}))]
pub struct TemplateInput {
    /// A DRAFT document of the account, with recipients: its PDF, its recipients (as roles)
    /// and their fields make the template. The document is not changed.
    #[schema(value_type = uuid::Uuid)]
    pub document_id: DocumentId,
    /// Default: the document's title; at most 500 characters
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// Names the roles after the recipients, by their e-mail (`{"ann@example.com": "Tenant"}`);
    /// a recipient not named here gives the role their name. A role name has 1 to 100
    /// characters, is unique in the template and does not begin with `=`, `+`, `-`, `@` or `'`.
    #[serde(default)]
    pub roles: Option<BTreeMap<String, String>>,
    /// Labels and marks the fields, by the document field's `id`
    /// (`{"<field id>": {"label": "Rent", "readOnly": true}}`); a field not named here is
    /// labelled `<role>.<type>.<n>` and keeps its document field's `readOnly`.
    #[serde(default)]
    pub fields: Option<BTreeMap<String, FieldMarkInput>>,
    /// Default `message` of a send of a document made from it, by the send's rules
    #[serde(default)]
    #[schema(max_length = 5000)]
    pub message: Option<String>,
    /// Default `description` of a send of a document made from it, by the send's rules
    #[serde(default)]
    #[schema(max_length = 5000)]
    pub description: Option<String>,
    /// Default expiry of a send of a document made from it: this many days after the send
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 365)]
    pub expiry_days: Option<i64>,
    /// Default `reminders` of a send of a document made from it, by the send's rules
    #[serde(default)]
    pub reminders: Option<RemindersInput>,
    /// Default `language` of a send of a document made from it
    #[serde(default)]
    pub language: Option<Language>,
}

/// How a field of the document becomes a field of the template.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"label": "Rent", "readOnly": true}))]
pub struct FieldMarkInput {
    /// Unique in the template; 1 to 100 letters, digits, `_`, `-`, `.` and spaces, not
    /// beginning with `-` (the values of a document made from it name the field by it).
    /// Default: `<role>.<type>.<n>`
    #[serde(default)]
    #[schema(min_length = 1, max_length = 100)]
    pub label: Option<String>,
    /// `true` (a field that takes a value only: TEXT, NUMBER, EMAIL, NAME, COMPANY, CHECKBOX,
    /// RADIO, DROPDOWN): the field's value (the document field's, or the one a document made
    /// from the template gives) is stamped as given; its signer does not fill it. Default: the
    /// document field's own `readOnly`
    #[serde(default)]
    pub read_only: Option<bool>,
}

/// The body of `PATCH /templates/{id}`: what it names is replaced, what it leaves out is
/// kept; a default given as `null` is cleared.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"title": "Lease", "message": null, "expiryDays": 14, "roles": [{"name": "Tenant", "role": "SIGNER", "fields": [{"label": "Tenant.signature.1", "type": "SIGNATURE", "page": 1, "x": 72, "y": 640, "width": 200, "height": 50}, {"label": "Company", "type": "TEXT", "page": 1, "x": 72, "y": 560, "readOnly": true}]}]}))]
pub struct TemplateUpdateInput {
    /// At most 500 characters, as a document's title
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// Default `message` of a send, by the send's rules; `null` clears it
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub message: Option<Option<String>>,
    /// Default `description` of a send, by the send's rules; `null` clears it
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub description: Option<Option<String>>,
    /// Default expiry of a send: this many days after it; `null` clears it
    #[serde(default, deserialize_with = "nullable_whole_number")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 365)]
    pub expiry_days: Option<Option<i64>>,
    /// Default `reminders` of a send, by the send's rules; `null` clears it
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<RemindersInput>)]
    pub reminders: Option<Option<RemindersInput>>,
    /// Default `language` of a send; `null` clears it
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<Language>)]
    pub language: Option<Option<Language>>,
    /// Every role of the template, each with its fields, in order: the list replaces the
    /// template's roles and fields as a whole. Role names are unique in the template; field
    /// labels too.
    #[serde(default)]
    #[schema(max_items = 100)]
    pub roles: Option<Vec<TemplateRoleInput>>,
}

/// A role of a template as `PATCH /templates/{id}` sets it.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Tenant", "role": "SIGNER", "fields": [{"label": "Tenant.signature.1", "type": "SIGNATURE", "page": 1, "x": 72, "y": 640}]}))]
pub struct TemplateRoleInput {
    /// 1 to 100 characters, unique in the template (`Tenant`), without control characters and
    /// not beginning with `=`, `+`, `-`, `@` or `'` (it begins cells of the bulk-send CSV's
    /// header, which a spreadsheet would read as a formula)
    #[schema(min_length = 1, max_length = 100, pattern = r"^\s*[^\s=+@'-]")]
    pub name: String,
    pub role: RecipientRole,
    /// As a recipient's `signingOrder`
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 1000)]
    pub signing_order: Option<i64>,
    /// The default language of the e-mails to whoever takes the role
    #[serde(default)]
    pub language: Option<Language>,
    /// The role's fields; every role needs one before a document is made from the template
    #[serde(default)]
    #[schema(max_items = 1000)]
    pub fields: Vec<TemplateFieldInput>,
}

/// A field of a role as `PATCH /templates/{id}` places it: on a page of the template's PDF, as
/// `POST /documents/{id}/fields` places a field on a document's.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"label": "Company", "type": "TEXT", "page": 1, "x": 72, "y": 560, "readOnly": true}))]
pub struct TemplateFieldInput {
    /// Unique in the template: 1 to 100 letters, digits, `_`, `-`, `.` and spaces, not
    /// beginning with `-` (`Company`, `Tenant.signature.1`); what `values` and the bulk CSV's
    /// header name it by
    // No `pattern`: "letters" are Unicode's, which the regular expressions of JSON Schema
    // tools do not agree on.
    #[schema(min_length = 1, max_length = 100)]
    pub label: String,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    /// 1-indexed page, at most the template's page count. Required unless `anchor` is given
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, example = 1)]
    pub page: Option<i64>,
    /// Points from the left edge; the box must lie on the page. Required unless `anchor` is
    /// given
    #[serde(default)]
    #[schema(minimum = 0)]
    pub x: Option<f64>,
    /// Points from the top edge. Required unless `anchor` is given
    #[serde(default)]
    #[schema(minimum = 0)]
    pub y: Option<f64>,
    /// Additive (issue #33): instead of `page`, `x` and `y`, the field is placed at text of the
    /// template's PDF, as a document's field is (docs/api.md, "Tags and anchors"). With
    /// `"occurrence": "all"`, the fields after the first are labelled `<label> 2`, `<label> 3`…
    #[serde(default)]
    pub anchor: Option<crate::wire::inputs::AnchorInput>,
    /// Default 200
    #[serde(default)]
    #[schema(exclusive_minimum = 0)]
    pub width: Option<f64>,
    /// Default 50
    #[serde(default)]
    #[schema(exclusive_minimum = 0)]
    pub height: Option<f64>,
    /// A field that takes a value (TEXT, NUMBER, EMAIL, NAME, COMPANY, CHECKBOX, RADIO,
    /// DROPDOWN) only: its value (`value`, or the one the document is made with) is stamped as
    /// given and the signer does not fill the field. Default `false`
    #[serde(default)]
    pub read_only: Option<bool>,
    /// As a document field's `required`. Default `true`
    #[serde(default)]
    pub required: Option<bool>,
    /// As a document field's `value`: what its documents' field is prefilled with, unless
    /// they are made with another (`values`)
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
    )]
    pub value: Option<String>,
    /// As a document field's `options` (RADIO, DROPDOWN)
    #[serde(default)]
    #[schema(min_items = 1, max_items = 50, value_type = Option<Vec<FieldOption>>)]
    pub options: Option<Vec<String>>,
    /// As a document field's `min` (NUMBER)
    #[serde(default)]
    pub min: Option<f64>,
    /// As a document field's `max` (NUMBER)
    #[serde(default)]
    pub max: Option<f64>,
    /// As a document field's `decimals` (NUMBER), 0 to 10
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 0, maximum = 10)]
    pub decimals: Option<i64>,
    /// As a document field's `maxLength` (TEXT, COMPANY), 1 to 1000
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 1000)]
    pub max_length: Option<i64>,
    /// As a document field's `pattern` (TEXT, COMPANY)
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub pattern: Option<String>,
}

impl TemplateFieldInput {
    pub fn properties(&self) -> FieldPropertiesInput {
        FieldPropertiesInput {
            required: self.required,
            value: self.value.clone(),
            read_only: self.read_only,
            options: self.options.clone(),
            min: self.min,
            max: self.max,
            decimals: self.decimals,
            max_length: self.max_length,
            pattern: self.pattern.clone(),
        }
    }
}

/// A property that may be absent (kept), `null` (cleared) or a value.
fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

fn nullable_whole_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<i64>>, D::Error> {
    optional_whole_number(deserializer).map(Some)
}

/// Who takes a role of the template in the document made from it.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Zoë Ñúñez-O'Brien", "email": "zoe@example.com"}))]
pub struct RolePersonInput {
    /// As a recipient's `name`
    pub name: String,
    /// As a recipient's `email`; unique in the document
    pub email: String,
    /// As a recipient's `countryCode`
    #[serde(default)]
    pub country_code: Option<String>,
    /// As a recipient's `phoneNumber`
    #[serde(default)]
    pub phone_number: Option<String>,
    /// As a recipient's `language`; absent: the role's default language
    #[serde(default)]
    pub language: Option<Language>,
}

/// The body of `POST /templates/{id}/documents`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"roles": {"Tenant": {"name": "Zoë Ñúñez-O'Brien", "email": "zoe@example.com"}}, "send": true, "message": "Please sign the lease.", "expiryDate": "2030-01-31T17:00:00Z"}))]
pub struct InstantiateInput {
    /// Default: the template's title
    #[serde(default)]
    #[schema(max_length = 500)]
    pub title: Option<String>,
    /// Every role of the template, by its name, with the person who takes it
    pub roles: BTreeMap<String, RolePersonInput>,
    /// Prefilled values of fields that take one (TEXT, NUMBER, EMAIL, NAME, COMPANY,
    /// CHECKBOX, RADIO, DROPDOWN), by field label (`{"Company": "Acme"}`), each by the rule of
    /// a signer's value for its field (for TEXT: 1 to 1000 characters, trimmed, no control
    /// characters). They replace the template field's own `value`. Every read-only field needs
    /// one here or in the template: it is stamped as given. An editable field's value is shown
    /// to its signer, who may change it.
    #[serde(default)]
    pub values: Option<BTreeMap<String, String>>,
    /// `true`: send the document at once, as `POST /documents/{id}/send` does with `message`,
    /// `description`, `expiryDate`, `language` and `reminders`, each absent one taken from the
    /// template's defaults (`expiryDate`: `expiryDays` after now); `message` and `expiryDate`
    /// are required when the template has no default. Default `false`: the document stays a
    /// DRAFT.
    #[serde(default)]
    pub send: Option<bool>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub expiry_date: Option<String>,
    #[serde(default)]
    pub language: Option<Language>,
    #[serde(default)]
    pub reminders: Option<RemindersInput>,
}

/// A field of a role, as the template holds it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateFieldView {
    /// Unique in the template: as given when it was made, else `<role>.<type>.<n>`
    /// (`Tenant.signature.1`)
    pub label: String,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    pub page: i32,
    pub x: Pixels,
    pub y: Pixels,
    pub width: Pixels,
    pub height: Pixels,
    /// `true`: a value prefilled when a document is made is stamped as given and the signer
    /// does not fill the field; `false`: a prefilled value is shown and the signer may change it
    pub read_only: bool,
    /// `false` when its signer may leave the field empty
    pub required: bool,
    /// What its documents' field is prefilled with unless they are made with another; `null`:
    /// nothing
    pub value: Option<String>,
    /// RADIO, DROPDOWN: the choices
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<String>>,
    /// NUMBER: the least value, inclusive
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// NUMBER: the greatest value, inclusive
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// NUMBER: the most digits after the decimal point
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<i32>,
    /// TEXT, COMPANY: the most characters of the value
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i32>,
    /// TEXT, COMPANY: the regular expression the whole value matches
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRoleView {
    /// Unique in the template (`Tenant`)
    pub name: String,
    pub role: RecipientRole,
    pub signing_order: Option<i32>,
    /// The default language of the e-mails to whoever takes the role
    pub language: Option<Language>,
    pub fields: Vec<TemplateFieldView>,
}

/// A template with its roles and their fields.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateDetail {
    #[schema(value_type = uuid::Uuid)]
    pub id: TemplateId,
    pub title: String,
    pub pages: i32,
    pub archived: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub roles: Vec<TemplateRoleView>,
    /// Defaults of a send of a document made from it (`null`: none)
    pub message: Option<String>,
    pub description: Option<String>,
    pub expiry_days: Option<i32>,
    pub reminders: Option<RemindersInput>,
    pub language: Option<Language>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateListItem {
    #[schema(value_type = uuid::Uuid)]
    pub id: TemplateId,
    pub title: String,
    pub pages: i32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A page of the account's templates not archived, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateList {
    pub items: Vec<TemplateListItem>,
    pub total: i64,
    pub page: i64,
    pub limit: i64,
    pub total_pages: i64,
}

/// The id of the template made.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TemplateCreated {
    #[schema(value_type = uuid::Uuid)]
    pub id: TemplateId,
}

/// The id of the document made from a template.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DocumentCreated {
    #[schema(value_type = uuid::Uuid)]
    pub id: DocumentId,
}
