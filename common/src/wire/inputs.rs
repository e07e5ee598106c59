//! Request bodies of the external API and their validation. Shape errors (missing, wrong type,
//! bad enum) are caught by deserialisation (`wire::body`, which names every one); these checks
//! cover what a type cannot say, and add their problems to the request's [`Problems`].

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use signet_i18n::Language;
use utoipa::ToSchema;

use super::spreadsheet;
use crate::{
    error::{Error, Problems, Rule},
    model::{
        AuthMethod, EmailAddress, FieldId, FieldRules, FieldType, MAX_REMINDER_DAYS, RecipientRole,
        ReminderDefaults, field_values,
    },
};

pub const MAX_RECIPIENTS_PER_REQUEST: usize = 100;
pub const MAX_FIELDS_PER_REQUEST: usize = 500;
pub const MAX_RECIPIENTS_PER_DOCUMENT: usize = 100;
pub const MAX_FIELDS_PER_DOCUMENT: usize = 1_000;
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_TITLE_CHARS: usize = 500;
pub const MAX_MESSAGE_CHARS: usize = 5_000;
pub const DEFAULT_FIELD_WIDTH: f64 = 200.0;
pub const DEFAULT_FIELD_HEIGHT: f64 = 50.0;
pub const MAX_SIGNING_ORDER: i64 = 1_000;
pub const MAX_CANCEL_REASON_CHARS: usize = 1_000;

// The OpenAPI document states these rules exactly, so that a client can check a body before
// sending it (schemathesis checks both ways: what the schema allows is accepted, what it
// forbids is refused). JSON Schema patterns cannot name constants: the unit test
// `the_schema_states_the_validators_bounds` keeps them equal to the ones below.
//
// Text: no control characters but tab and line breaks (Rust's `char::is_control`), and, where
// required, at least one character that is not white space.
// NC = [^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Zoë Ñúñez-O'Brien", "email": "zoe@example.com", "role": "SIGNER"}))]
pub struct RecipientInput {
    /// Full name, as it will be printed on the certificate; at most 200 characters
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$",
        example = "Zoë Ñúñez-O'Brien"
    )]
    pub name: String,
    /// An ASCII address the mail layer can deliver to (internationalised addresses are refused;
    /// a domain's `xn--` form works). Unique on the document, compared case-insensitively.
    #[schema(format = Email, max_length = 254, example = "zoe@example.com")]
    pub email: String,
    pub role: RecipientRole,
    /// Dialling prefix, `+<1-4 digits>` of a country that exists; give `phoneNumber` with it
    #[serde(default)]
    #[schema(pattern = r"^\s*\+[0-9]{1,4}\s*$", example = "+44")]
    pub country_code: Option<String>,
    /// 4 to 15 digits (spaces, dots, dashes and brackets allowed), valid in the plan of
    /// `countryCode`; give `countryCode` with it
    #[serde(default)]
    #[schema(
        pattern = r"^\s*[ .()\-]*(?:[0-9][ .()\-]*){4,15}\s*$",
        example = "7911 123456"
    )]
    pub phone_number: Option<String>,
    /// Additive: the language of this recipient's e-mails and texts, one of the tags `en`,
    /// `de`, `fr`, `es`, `pt`, `zh-Hans`, `ar`, `it`, `nl`, `pl`, `ru`, `tr`, `ja`, `ko`, `he`
    /// (exactly). Absent or `null`: the document's language, given on send, else the
    /// operator's default.
    #[serde(default)]
    pub language: Option<Language>,
    /// Additive: the recipient's group in the signing order, 1 to 1000. Groups are invited in
    /// ascending order, each when every signer of the groups before it has signed; recipients
    /// of one group sign in parallel, and viewers are invited with their group. Absent or
    /// `null` counts as 1: without any, everyone is invited at once.
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 1000, example = 1)]
    pub signing_order: Option<i64>,
    /// Additive: the recipient signs inside the integrator's product (embedded signing,
    /// `POST /documents/{id}/recipients/{recipientId}/signing-session`): they get no
    /// invitation e-mail or SMS and no reminder. Absent: `false`.
    #[serde(default)]
    pub embedded: bool,
    /// Additive (issue #34): a check the recipient must pass before their signing link shows
    /// anything of the document. Absent or `null`: none.
    #[serde(default)]
    pub authentication: Option<AuthenticationInput>,
}

/// The fewest and most characters of an access code.
pub const MIN_ACCESS_CODE_CHARS: usize = 4;
pub const MAX_ACCESS_CODE_CHARS: usize = 64;

/// How a recipient proves who they are on their signing link (docs/signing.md#signer-authentication).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"method": "ACCESS_CODE", "accessCode": "blue-harbour-42"}))]
pub struct AuthenticationInput {
    /// `ACCESS_CODE`: the code in `accessCode`, which the sender tells the recipient
    /// themselves; `EMAIL_OTP`: a six-digit code e-mailed to the recipient's address when
    /// they open the link; `SMS_OTP`: the same by SMS, to the recipient's `countryCode` and
    /// `phoneNumber` (required then)
    pub method: AuthMethod,
    /// Required with `ACCESS_CODE`, and only with it: 4 to 64 characters, no white space or
    /// control characters, compared exactly (case matters). Stored hashed (argon2id); never
    /// shown again
    #[serde(default)]
    #[schema(
        min_length = 4,
        max_length = 64,
        pattern = r"^[^\s\u0000-\u001F\u007F-\u009F]*$",
        example = "blue-harbour-42"
    )]
    pub access_code: Option<String>,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"recipientEmail": "zoe@example.com", "type": "SIGNATURE", "page": 1, "x": 72, "y": 640, "width": 200, "height": 50}))]
pub struct FieldInput {
    /// E-mail of a recipient already added to the document (compared case-insensitively)
    #[schema(min_length = 1, pattern = r"\S", example = "zoe@example.com")]
    pub recipient_email: String,
    #[serde(rename = "type")]
    pub field_type: FieldType,
    /// 1-indexed page, at most the document's page count. Required unless `anchor` is given
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, example = 1)]
    pub page: Option<i64>,
    /// Points from the left edge (1 px = 1 PDF point); the box must lie on the page. Required
    /// unless `anchor` is given
    #[serde(default)]
    #[schema(minimum = 0, example = 72)]
    pub x: Option<f64>,
    /// Points from the top edge. Required unless `anchor` is given
    #[serde(default)]
    #[schema(minimum = 0, example = 640)]
    pub y: Option<f64>,
    /// Additive: instead of `page`, `x` and `y`, the field is placed at text of the PDF (see
    /// docs/api.md, "Tags and anchors")
    #[serde(default)]
    pub anchor: Option<AnchorInput>,
    /// Default 200
    #[serde(default)]
    #[schema(exclusive_minimum = 0, example = 200)]
    pub width: Option<f64>,
    /// Default 50
    #[serde(default)]
    #[schema(exclusive_minimum = 0, example = 50)]
    pub height: Option<f64>,
    /// Additive: 1 to 100 letters, digits, `_`, `-`, `.` and spaces, not beginning with `-`,
    /// unique in the document
    #[serde(default)]
    #[schema(min_length = 1, max_length = 100)]
    pub label: Option<String>,
    /// Additive: `false` lets the signer leave the field empty (a CHECKBOX unticked). Default
    /// `true`
    #[serde(default)]
    pub required: Option<bool>,
    /// Additive (TEXT, NUMBER, EMAIL, NAME, COMPANY, CHECKBOX, RADIO, DROPDOWN): a prefilled
    /// value, checked by the kind's value rule; the signer may change it unless `readOnly`
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
    )]
    pub value: Option<String>,
    /// Additive: `true` stamps `value` as given (required with it); the signer does not fill
    /// the field. Default `false`
    #[serde(default)]
    pub read_only: Option<bool>,
    /// Additive (RADIO, DROPDOWN, required there): 1 to 50 distinct choices of 1 to 100
    /// characters
    #[serde(default)]
    #[schema(min_items = 1, max_items = 50, value_type = Option<Vec<FieldOption>>)]
    pub options: Option<Vec<String>>,
    /// Additive (NUMBER): the least value, inclusive
    #[serde(default)]
    pub min: Option<f64>,
    /// Additive (NUMBER): the greatest value, inclusive; at least `min`
    #[serde(default)]
    pub max: Option<f64>,
    /// Additive (NUMBER): the most digits after the decimal point, 0 to 10; absent: any
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 0, maximum = 10)]
    pub decimals: Option<i64>,
    /// Additive (TEXT, COMPANY): the most characters of the value, 1 to 1000
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 1000)]
    pub max_length: Option<i64>,
    /// Additive (TEXT, COMPANY): a regular expression (Rust `regex` syntax) the whole value
    /// must match; at most 200 characters
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200)]
    pub pattern: Option<String>,
}

/// A choice of a RADIO or DROPDOWN field: 1 to 100 characters, not only white space, no control
/// characters; the choices of a field are distinct (compared trimmed).
#[derive(ToSchema)]
#[schema(
    min_length = 1,
    max_length = 100,
    pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
)]
pub struct FieldOption(#[allow(dead_code)] String);

impl FieldInput {
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

/// The properties of a field beyond its place, kind and label, as a request gives them (a
/// document's field or a template's).
#[derive(Debug, Clone, Default)]
pub struct FieldPropertiesInput {
    pub required: Option<bool>,
    pub value: Option<String>,
    pub read_only: Option<bool>,
    pub options: Option<Vec<String>>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub decimals: Option<i64>,
    pub max_length: Option<i64>,
    pub pattern: Option<String>,
}

/// A field's properties, checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldProperties {
    pub required: bool,
    pub value: Option<String>,
    pub read_only: bool,
    pub rules: FieldRules,
}

pub const MAX_OPTIONS: usize = 50;
pub const MAX_OPTION_CHARS: usize = 100;
pub const MAX_DECIMALS: i64 = 10;
pub const MAX_MAX_LENGTH: i64 = 1_000;

/// Checks the properties of a field of `field_type` (docs/fields.md), each problem named
/// under `at` (`[0].options`). Each property only on the kinds it is for; `options` required
/// on RADIO and DROPDOWN; `value` by the kind's value rule with the field's own rules;
/// `readOnly` with a `value` unless `value_later` (a template's field, whose documents may be
/// made with one).
pub fn check_field_properties(
    at: &str,
    field_type: FieldType,
    input: FieldPropertiesInput,
    value_later: bool,
    problems: &mut Problems,
) -> FieldProperties {
    let kind = field_type.as_str();
    let mut not_for = |name: &str, kinds: &str| {
        problems.invalid(
            format!("{at}.{name}"),
            format!("only a {kinds} field takes {name}, not a {kind} field"),
        )
    };
    if !field_type.has_options() && input.options.is_some() {
        not_for("options", "RADIO or DROPDOWN");
    }
    if field_type != FieldType::Number {
        for (name, given) in [
            ("min", input.min.is_some()),
            ("max", input.max.is_some()),
            ("decimals", input.decimals.is_some()),
        ] {
            if given {
                not_for(name, "NUMBER");
            }
        }
    }
    if !field_type.has_text_rules() {
        for (name, given) in [
            ("maxLength", input.max_length.is_some()),
            ("pattern", input.pattern.is_some()),
        ] {
            if given {
                not_for(name, "TEXT or COMPANY");
            }
        }
    }
    if !field_type.takes_prefill() {
        if input.value.is_some() {
            not_for(
                "value",
                "TEXT, NUMBER, EMAIL, NAME, COMPANY, CHECKBOX, RADIO or DROPDOWN",
            );
        }
        if input.read_only == Some(true) {
            not_for(
                "readOnly",
                "TEXT, NUMBER, EMAIL, NAME, COMPANY, CHECKBOX, RADIO or DROPDOWN",
            );
        }
    }
    let mut rules = FieldRules::default();
    if field_type.has_options() {
        match &input.options {
            None => problems.invalid(
                format!("{at}.options"),
                format!("required: a {kind} field's signer picks one of its options"),
            ),
            Some(options) => rules.options = check_options(at, options, problems),
        }
    }
    if field_type == FieldType::Number {
        for (name, bound) in [("min", input.min), ("max", input.max)] {
            if bound.is_some_and(|b| !b.is_finite()) {
                problems.invalid(format!("{at}.{name}"), "must be a number");
            }
        }
        if let (Some(min), Some(max)) = (input.min, input.max)
            && min > max
        {
            problems.invalid(format!("{at}.max"), "must be at least min");
        }
        if let Some(decimals) = input.decimals
            && !(0..=MAX_DECIMALS).contains(&decimals)
        {
            problems.invalid(
                format!("{at}.decimals"),
                format!("must be a whole number from 0 to {MAX_DECIMALS}"),
            );
        }
        rules.min = input.min;
        rules.max = input.max;
        rules.decimals = input.decimals.map(|d| d.clamp(0, MAX_DECIMALS) as i32);
    }
    if field_type.has_text_rules() {
        if let Some(max_length) = input.max_length
            && !(1..=MAX_MAX_LENGTH).contains(&max_length)
        {
            problems.invalid(
                format!("{at}.maxLength"),
                format!("must be a whole number from 1 to {MAX_MAX_LENGTH}"),
            );
        }
        if let Some(pattern) = &input.pattern
            && let Err(reason) = field_values::compile_pattern(pattern)
        {
            problems.invalid(format!("{at}.pattern"), reason);
        }
        rules.max_length = input.max_length.map(|m| m.clamp(1, MAX_MAX_LENGTH) as i32);
        rules.pattern = input.pattern.clone();
    }
    let read_only = input.read_only.unwrap_or(false) && field_type.takes_prefill();
    let mut value = None;
    if field_type.takes_prefill() {
        let rules_ok = !["options", "min", "max", "decimals", "maxLength", "pattern"]
            .iter()
            .any(|name| problems.touch(&format!("{at}.{name}")));
        match &input.value {
            Some(given) if rules_ok => {
                match field_values::normalise_value(field_type, &rules, given) {
                    Ok(checked) => value = Some(checked),
                    Err(reason) => problems.invalid(format!("{at}.value"), reason),
                }
            }
            Some(_) => {}
            None if read_only && !value_later => problems.invalid(
                format!("{at}.readOnly"),
                "a read-only field needs a value: it is stamped as given",
            ),
            None => {}
        }
    }
    FieldProperties {
        required: input.required.unwrap_or(true),
        value,
        read_only,
        rules,
    }
}

/// The options of a RADIO or DROPDOWN field, trimmed: 1 to 50, distinct, 1 to 100 characters.
fn check_options(at: &str, options: &[String], problems: &mut Problems) -> Option<Vec<String>> {
    if options.is_empty() || options.len() > MAX_OPTIONS {
        problems.invalid(
            format!("{at}.options"),
            format!("1 to {MAX_OPTIONS} options"),
        );
        // Each option is compared with those before it: too many are not read.
        return None;
    }
    let mut kept: Vec<String> = Vec::with_capacity(options.len());
    for (j, option) in options.iter().enumerate() {
        let path = format!("{at}.options[{j}]");
        let option = option.trim();
        if option.is_empty() || option.chars().count() > MAX_OPTION_CHARS {
            problems.invalid(
                path,
                format!("an option has 1 to {MAX_OPTION_CHARS} characters"),
            );
        } else if has_control_chars(option) {
            problems.invalid(path, CONTROL_CHARS);
        } else if kept.iter().any(|k| k == option) {
            problems.invalid(
                path,
                format!("{option} is given twice: options are distinct"),
            );
        } else {
            kept.push(option.to_owned());
        }
    }
    Some(kept)
}

/// The most characters of a field's label.
pub const MAX_LABEL_CHARS: usize = 100;

/// Why a label may not begin with `-`, the one formula start its characters allow.
pub const LABEL_FORMULA_START: &str =
    "a label may not begin with - (a spreadsheet would take the CSV header's cell for a formula)";

/// A field's label as given, trimmed, or why it cannot be one: 1 to 100 letters, digits, `_`,
/// `-`, `.` and spaces, not beginning with `-` (a CSV header and a JSON key name the field by
/// it; [`spreadsheet`]). Uniqueness in the template or document is the caller's to check.
pub fn check_label(given: &str) -> std::result::Result<String, String> {
    let label = given.trim();
    let allowed = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ');
    if label.is_empty() || label.chars().count() > MAX_LABEL_CHARS || !label.chars().all(allowed) {
        return Err(format!(
            "a label has 1 to {MAX_LABEL_CHARS} characters: letters, digits, _, -, . and spaces"
        ));
    }
    if spreadsheet::begins_like_formula(label) {
        return Err(LABEL_FORMULA_START.into());
    }
    Ok(label.to_owned())
}

/// The most characters of a template role's name.
pub const MAX_ROLE_NAME_CHARS: usize = 100;

/// Why a role's name may not begin with a formula start or the text mark: it begins the
/// bulk-send CSV's header cells (`<role>.name`), which a spreadsheet reads ([`spreadsheet`]).
pub const ROLE_NAME_FORMULA_START: &str = "a role's name may not begin with =, +, -, @ or ' \
     (a spreadsheet would take the CSV header's cell for a formula or a text mark)";

/// A template role's name as given, trimmed, or why it cannot be one: 1 to 100 characters
/// without control characters, not beginning with `=`, `+`, `-`, `@` or `'`. Uniqueness in the
/// template is the caller's to check.
pub fn check_role_name(given: &str) -> std::result::Result<String, String> {
    let name = given.trim();
    if name.is_empty() || has_control_chars(name) || name.chars().count() > MAX_ROLE_NAME_CHARS {
        return Err(format!(
            "a role's name has 1 to {MAX_ROLE_NAME_CHARS} characters, without control characters"
        ));
    }
    if begins_like_formula_or_mark(name) {
        return Err(ROLE_NAME_FORMULA_START.into());
    }
    Ok(name.to_owned())
}

/// Whether `name` begins with a formula start or the text mark that [`spreadsheet::unmarked`]
/// would take away.
pub fn begins_like_formula_or_mark(name: &str) -> bool {
    spreadsheet::begins_like_formula(name) || name.starts_with(spreadsheet::TEXT_MARK)
}

/// Where a field goes by the text of the PDF: `occurrence` of `text` (white space runs match
/// one space; case counts), the field's top-left corner `xOffset`, `yOffset` points from the
/// found text's top-left corner.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
// No examples: the example of a field places it by page, x and y, and a field takes one or
// the other.
pub struct AnchorInput {
    /// The text to find, 1 to 200 characters
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
    )]
    pub text: String,
    /// Which occurrence, counted from 1 in page and reading order, or `"all"` (a field at each);
    /// default 1
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub occurrence: Option<Occurrence>,
    /// Points right of the found text's left edge; default 0
    #[serde(default)]
    pub x_offset: Option<f64>,
    /// Points below the found text's top edge; default 0
    #[serde(default)]
    pub y_offset: Option<f64>,
}

/// `occurrence`: a number from 1, or `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occurrence {
    Nth(i64),
    All,
}

impl<'de> Deserialize<'de> for Occurrence {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let refused = || serde::de::Error::custom("must be a whole number from 1 or \"all\"");
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(word) if word == "all" => Ok(Occurrence::All),
            serde_json::Value::Number(n) => {
                // Any whole number, however large: past the last occurrence it is not found.
                let whole = n.as_i64().or_else(|| {
                    n.as_u64().map(|_| i64::MAX).or_else(|| {
                        n.as_f64()
                            .filter(|f| f.fract() == 0.0)
                            .map(|f| f.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
                    })
                });
                whole.map(Occurrence::Nth).ok_or_else(refused)
            }
            _ => Err(refused()),
        }
    }
}

impl Serialize for Occurrence {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Occurrence::Nth(n) => serializer.serialize_i64(*n),
            Occurrence::All => serializer.serialize_str("all"),
        }
    }
}

pub const MAX_ANCHOR_CHARS: usize = 200;

#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"message": "Please sign the lease.", "description": "Flat 2, from 1 March", "expiryDate": "2030-01-31T17:00:00Z"}))]
pub struct SendInput {
    /// Text included in the signing e-mail; at most 5000 characters
    #[schema(
        min_length = 1,
        max_length = 5000,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*[^\s\u0000-\u001F\u007F-\u009F][^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$",
        example = "Please sign the lease."
    )]
    pub message: String,
    /// Extra description or instructions for recipients (may be empty); at most 5000 characters
    #[schema(
        max_length = 5000,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$",
        example = "Flat 2, from 1 March"
    )]
    pub description: String,
    /// RFC 3339 timestamp, in the future
    #[schema(format = DateTime, example = "2030-01-31T17:00:00Z")]
    pub expiry_date: String,
    /// Additive: the document's language (its certificate of completion, and the e-mails of
    /// recipients without a language of their own), one of the tags `en`, `de`, `fr`, `es`,
    /// `pt`, `zh-Hans`, `ar`, `it`, `nl`, `pl`, `ru`, `tr`, `ja`, `ko`, `he` (exactly). Absent or
    /// `null`: the operator's default.
    #[serde(default)]
    pub language: Option<Language>,
    /// Additive: automatic reminders to the signers who have not signed. Absent or `null`:
    /// the operator's default (`REMINDER_FIRST_AFTER_DAYS`, `REMINDER_EVERY_DAYS`).
    #[serde(default)]
    pub reminders: Option<RemindersInput>,
}

/// When the signers who have not signed are reminded by e-mail, counted from each one's
/// invitation; reminders stop at the expiry date, and when the document leaves SENT.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"firstAfterDays": 2, "everyDays": 3}))]
pub struct RemindersInput {
    /// `false`: no automatic reminders for this document. Default `true`.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Days from the invitation to the first reminder, 1 to 365. Absent: the operator's
    /// default (required when the operator has reminders off).
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 1, maximum = 365)]
    pub first_after_days: Option<i64>,
    /// Days between further reminders, 0 (none) to 365. Absent: the operator's default.
    #[serde(default, deserialize_with = "optional_whole_number")]
    #[schema(minimum = 0, maximum = 365)]
    pub every_days: Option<i64>,
}

/// The body of `POST /documents/{id}/cancel`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"reason": "The terms changed; a new version follows."}))]
pub struct CancelInput {
    /// Why the document is cancelled, told to its recipients; at most 1000 characters.
    #[serde(default)]
    #[schema(
        max_length = 1000,
        pattern = r"^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$"
    )]
    pub reason: Option<String>,
}

/// An integer as JSON Schema counts them: `3` or `3.0` (a number whose fraction is zero), which
/// some JSON encoders write for whole floats.
pub(crate) fn whole_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<i64, D::Error> {
    deserializer.deserialize_i64(WholeNumber)
}

struct WholeNumber;

impl serde::de::Visitor<'_> for WholeNumber {
    type Value = i64;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a whole number")
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<i64, E> {
        Ok(n)
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<i64, E> {
        i64::try_from(n).map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(n), &self))
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<i64, E> {
        if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
            Ok(f as i64)
        } else {
            Err(E::invalid_type(serde::de::Unexpected::Float(f), &self))
        }
    }
}

/// [`whole_number`] for an optional property (absent or `null`: `None`).
pub(crate) fn optional_whole_number<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<i64>, D::Error> {
    #[derive(Deserialize)]
    struct Whole(#[serde(deserialize_with = "whole_number")] i64);
    Ok(Option::<Whole>::deserialize(deserializer)?.map(|Whole(n)| n))
}

/// A recipient that passed validation: trimmed, and with its phone number in E.164 when it has
/// one (`countryCode` and `phoneNumber` are kept as given, trimmed, for the detail).
#[derive(Debug, Clone)]
pub struct ValidRecipient {
    pub name: String,
    pub email: EmailAddress,
    pub role: RecipientRole,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    /// `+<country code><national number>`, e.g. `+442079460958`.
    pub phone_e164: Option<String>,
    pub language: Option<Language>,
    pub signing_order: Option<i32>,
    pub embedded: bool,
    pub authentication: Option<ValidAuthentication>,
}

/// A recipient's authentication that passed validation; the access code still in clear, to
/// be hashed before it is stored (`flows::signer_auth::stored_authentication`).
#[derive(Debug, Clone)]
pub struct ValidAuthentication {
    pub method: AuthMethod,
    pub access_code: Option<String>,
    /// The access code's argon2id PHC string, once hashed (the clear code is dropped then).
    pub access_code_hash: Option<String>,
}

/// Checks an access code's form ([`AuthenticationInput::access_code`]); the reason when it
/// is refused.
pub fn access_code_problem(code: &str) -> Option<String> {
    let count = code.chars().count();
    if !(MIN_ACCESS_CODE_CHARS..=MAX_ACCESS_CODE_CHARS).contains(&count) {
        Some(format!(
            "must have {MIN_ACCESS_CODE_CHARS} to {MAX_ACCESS_CODE_CHARS} characters"
        ))
    } else if code.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("must not contain white space or control characters".to_owned())
    } else {
        None
    }
}

/// Checks a recipient's authentication, its problems named under `at` (`[0].authentication`).
fn validate_authentication(
    at: &str,
    input: AuthenticationInput,
    has_phone: bool,
    problems: &mut Problems,
) -> Option<ValidAuthentication> {
    // A property that could not be read is said already; its stand-in is not checked.
    if problems.touch(at) {
        return None;
    }
    match (input.method, &input.access_code) {
        (AuthMethod::AccessCode, None) => problems.invalid(
            format!("{at}.accessCode"),
            "required: an ACCESS_CODE recipient is given the code to type",
        ),
        (AuthMethod::AccessCode, Some(code)) => {
            if let Some(reason) = access_code_problem(code) {
                problems.invalid(format!("{at}.accessCode"), reason);
            }
        }
        (method, Some(_)) => problems.invalid(
            format!("{at}.accessCode"),
            format!("only an ACCESS_CODE recipient takes an access code, not {method}"),
        ),
        (AuthMethod::SmsOtp, None) if !has_phone => problems.invalid(
            format!("{at}.method"),
            "SMS_OTP needs the recipient's countryCode and phoneNumber",
        ),
        (_, None) => {}
    }
    (!problems.touch(at)).then_some(ValidAuthentication {
        method: input.method,
        access_code: input.access_code,
        access_code_hash: None,
    })
}

/// A send request that passed validation.
#[derive(Debug, Clone)]
pub struct SendRequest {
    pub message: String,
    pub description: String,
    pub expiry_date: DateTime<Utc>,
    pub language: Option<Language>,
    /// Days to the first reminder and between reminders; `None`: none.
    pub reminders: Option<(i32, i32)>,
}

/// A field with its defaults applied.
#[derive(Debug, Clone)]
pub struct PlacedField {
    pub recipient_email: String,
    pub field_type: FieldType,
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub label: Option<String>,
    pub properties: FieldProperties,
}

/// Whether a list of `len` elements may be read: 1 to `max` (else a problem). Nothing is built
/// from a list that is too long.
#[must_use]
pub(crate) fn check_list_size(len: usize, max: usize, problems: &mut Problems) -> bool {
    if len == 0 {
        problems.invalid("", "at least one element is required");
    } else if len > max {
        problems.invalid("", format!("at most {max} elements per request"));
        return false;
    }
    true
}

pub use crate::model::{CONTROL_CHARS, has_control_chars};

fn check_text(
    problems: &mut Problems,
    field: String,
    value: &str,
    max_chars: usize,
    required: bool,
) {
    if required && value.trim().is_empty() {
        problems.invalid(field, "must not be empty");
    } else if has_control_chars(value) {
        problems.invalid(field, CONTROL_CHARS);
    } else if value.chars().count() > max_chars {
        problems.invalid(field, format!("at most {max_chars} characters"));
    }
}

/// Trims and checks recipients. A phone number is `countryCode` and `phoneNumber` together:
/// both or neither, and together they must be a number that exists in that country's numbering
/// plan (libphonenumber's metadata); it is returned in E.164 as well. Returns the recipients
/// without a problem, with their index in the request; an e-mail given twice breaks
/// [`Rule::DuplicateRecipient`] at its second element.
pub fn validate_recipients(
    inputs: Vec<RecipientInput>,
    problems: &mut Problems,
) -> Vec<(usize, ValidRecipient)> {
    if !check_list_size(inputs.len(), MAX_RECIPIENTS_PER_REQUEST, problems) {
        return Vec::new();
    }
    let mut valid: Vec<(usize, ValidRecipient)> = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        if let Some(recipient) = validate_recipient(&format!("[{i}]"), input, problems) {
            valid.push((i, recipient));
        }
    }
    // After the values, as the contract checks: an e-mail given twice is a rule of the document.
    let mut unique: Vec<(usize, ValidRecipient)> = Vec::with_capacity(valid.len());
    for (i, recipient) in valid {
        match unique
            .iter()
            .find(|(_, r)| r.email.matches(recipient.email.as_str()))
        {
            Some((earlier, _)) => problems.broken(
                Rule::DuplicateRecipient,
                format!("[{i}].email"),
                format!(
                    "{} is given more than once in this request (also [{earlier}].email)",
                    recipient.email
                ),
            ),
            None => unique.push((i, recipient)),
        }
    }
    unique
}

/// Trims and checks one recipient, its problems named under `at` (`[0]`, `roles.Tenant`).
pub fn validate_recipient(
    at: &str,
    input: RecipientInput,
    problems: &mut Problems,
) -> Option<ValidRecipient> {
    let name = input.name.trim().to_owned();
    check_text(
        problems,
        format!("{at}.name"),
        &input.name,
        MAX_NAME_CHARS,
        true,
    );
    let email = EmailAddress::parse(input.email.trim())
        .inspect_err(|reason| problems.invalid(format!("{at}.email"), *reason));
    let country_code = input.country_code.map(|c| c.trim().to_owned());
    let code_ok = country_code.as_deref().is_none_or(is_country_code);
    if !code_ok {
        problems.invalid(format!("{at}.countryCode"), "expected +<1-4 digits>");
    }
    let phone_number = input.phone_number.map(|p| p.trim().to_owned());
    let phone_ok = phone_number.as_deref().is_none_or(is_phone_number);
    if !phone_ok {
        problems.invalid(
            format!("{at}.phoneNumber"),
            "expected 4 to 15 digits (spaces, dots, dashes and brackets allowed)",
        );
    }
    let phone_e164 = match (&country_code, &phone_number) {
        (None, None) => None,
        (Some(_), None) => {
            problems.invalid(
                format!("{at}.phoneNumber"),
                "required when countryCode is given",
            );
            None
        }
        (None, Some(_)) => {
            problems.invalid(
                format!("{at}.countryCode"),
                "required when phoneNumber is given",
            );
            None
        }
        (Some(code), Some(phone)) if code_ok && phone_ok => match e164(code, phone) {
            Ok(number) => Some(number),
            Err((field, reason)) => {
                problems.invalid(format!("{at}.{field}"), reason);
                None
            }
        },
        (Some(_), Some(_)) => None,
    };
    let signing_order = match input.signing_order {
        Some(order) if !(1..=MAX_SIGNING_ORDER).contains(&order) => {
            problems.invalid(
                format!("{at}.signingOrder"),
                format!("must be a whole number from 1 to {MAX_SIGNING_ORDER}"),
            );
            None
        }
        order => order.map(|o| o as i32),
    };
    let has_phone = country_code.is_some() && phone_number.is_some();
    let authentication = input.authentication.and_then(|auth| {
        validate_authentication(&format!("{at}.authentication"), auth, has_phone, problems)
    });
    let Ok(email) = email else { return None };
    if problems.touch(at) {
        return None;
    }
    Some(ValidRecipient {
        name,
        email,
        role: input.role,
        country_code,
        phone_number,
        phone_e164,
        language: input.language,
        signing_order,
        embedded: input.embedded,
        authentication,
    })
}

/// Applies the fields' default sizes and checks them, with their properties; a label given
/// twice in the request is refused at its second element. Returns the fields without a
/// problem, with their index in the request. Anchors must have been resolved
/// ([`resolve_anchors`]).
pub fn validate_fields(
    inputs: Vec<FieldInput>,
    problems: &mut Problems,
) -> Vec<(usize, PlacedField)> {
    if !check_list_size(inputs.len(), MAX_FIELDS_PER_REQUEST, problems) {
        return Vec::new();
    }
    validate_placed(inputs.into_iter().enumerate().collect(), problems)
}

/// [`validate_fields`] for fields already numbered by their place in the request (an anchor
/// with `"occurrence": "all"` makes several of one element).
pub fn validate_placed(
    inputs: Vec<(usize, FieldInput)>,
    problems: &mut Problems,
) -> Vec<(usize, PlacedField)> {
    let mut placed = Vec::with_capacity(inputs.len());
    let mut labels: Vec<(String, usize)> = Vec::new();
    for (i, input) in inputs {
        let width = input.width.unwrap_or(DEFAULT_FIELD_WIDTH);
        let height = input.height.unwrap_or(DEFAULT_FIELD_HEIGHT);
        if input.recipient_email.trim().is_empty() {
            problems.invalid(format!("[{i}].recipientEmail"), "must not be empty");
        }
        for (name, value) in [("width", width), ("height", height)] {
            if !(value.is_finite() && value > 0.0) {
                problems.invalid(format!("[{i}].{name}"), "must be greater than 0");
            }
        }
        if input.anchor.is_some() {
            problems.invalid(
                format!("[{i}].anchor"),
                "not taken here: give page, x and y",
            );
        } else {
            for (name, given) in [
                ("page", input.page.is_some()),
                ("x", input.x.is_some()),
                ("y", input.y.is_some()),
            ] {
                if !given {
                    problems.invalid(format!("[{i}].{name}"), "is required");
                }
            }
        }
        let label = input.label.as_deref().and_then(|given| match check_label(given) {
            Ok(label) => match labels.iter().find(|(l, _)| *l == label) {
                Some((_, earlier)) => {
                    problems.invalid(
                        format!("[{i}].label"),
                        format!("{label} is also the label of [{earlier}]: labels are unique in the document"),
                    );
                    None
                }
                None => {
                    labels.push((label.clone(), i));
                    Some(label)
                }
            },
            Err(reason) => {
                problems.invalid(format!("[{i}].label"), reason);
                None
            }
        });
        let properties = check_field_properties(
            &format!("[{i}]"),
            input.field_type,
            input.properties(),
            false,
            problems,
        );
        if problems.touch(&format!("[{i}]")) {
            continue;
        }
        let (Some(page), Some(x), Some(y)) = (input.page, input.x, input.y) else {
            continue;
        };
        placed.push((
            i,
            PlacedField {
                recipient_email: input.recipient_email.trim().to_owned(),
                field_type: input.field_type,
                page,
                x,
                y,
                width,
                height,
                label,
                properties,
            },
        ));
    }
    placed
}

/// The anchors' texts to look for, one per field with an anchor, with the field's index; an
/// anchor that is not well formed is a problem named `[i].anchor…` instead.
pub fn anchor_texts(inputs: &[FieldInput], problems: &mut Problems) -> Vec<(usize, String)> {
    let mut texts = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let Some(anchor) = &input.anchor else {
            continue;
        };
        let at = format!("[{i}].anchor");
        if input.page.is_some() || input.x.is_some() || input.y.is_some() {
            problems.invalid(at.clone(), "give either anchor or page, x and y");
        }
        check_text(
            problems,
            format!("{at}.text"),
            anchor.text.trim(),
            MAX_ANCHOR_CHARS,
            true,
        );
        if let Some(Occurrence::Nth(n)) = anchor.occurrence
            && n < 1
        {
            problems.invalid(
                format!("{at}.occurrence"),
                "must be a whole number from 1 or \"all\"",
            );
        }
        for (name, offset) in [("xOffset", anchor.x_offset), ("yOffset", anchor.y_offset)] {
            if offset.is_some_and(|o| !o.is_finite()) {
                problems.invalid(format!("{at}.{name}"), "must be a number");
            }
        }
        if !problems.touch(&at) {
            texts.push((i, anchor.text.trim().to_owned()));
        }
    }
    texts
}

/// The fields with their anchors replaced by the places found: `found[k]` holds the boxes of
/// `texts[k]` (from [`anchor_texts`]), in page and reading order. An anchor not found (or
/// found fewer times than its occurrence) is a problem named `[i].anchor`; an anchor with
/// `"occurrence": "all"` becomes a field at each place.
pub fn resolve_anchors(
    inputs: Vec<FieldInput>,
    texts: &[(usize, String)],
    found: &[Vec<signet_pdf::TextBox>],
    problems: &mut Problems,
) -> Vec<(usize, FieldInput)> {
    let mut resolved = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        let Some(anchor) = input.anchor.clone() else {
            resolved.push((i, input));
            continue;
        };
        let Some(k) = texts.iter().position(|(at, _)| *at == i) else {
            // Its problem is already noted.
            continue;
        };
        let boxes = found.get(k).map(Vec::as_slice).unwrap_or_default();
        let chosen: Vec<&signet_pdf::TextBox> =
            match anchor.occurrence.unwrap_or(Occurrence::Nth(1)) {
                Occurrence::All => boxes.iter().collect(),
                Occurrence::Nth(n) => boxes.get(n as usize - 1).into_iter().collect(),
            };
        if chosen.is_empty() {
            let reason = match (anchor.occurrence, boxes.len()) {
                (_, 0) => format!("{:?} is not in the PDF's text", texts[k].1),
                (Some(Occurrence::Nth(n)), count) => format!(
                    "{:?} is in the PDF's text {count} times, not {n}",
                    texts[k].1
                ),
                _ => format!("{:?} is not in the PDF's text", texts[k].1),
            };
            problems.invalid(format!("[{i}].anchor"), reason);
            continue;
        }
        if resolved.len() + chosen.len() > MAX_FIELDS_PER_DOCUMENT {
            problems.invalid(
                format!("[{i}].anchor"),
                format!(
                    "{:?} is in the PDF's text {} times: a document has at most {MAX_FIELDS_PER_DOCUMENT} fields",
                    texts[k].1,
                    boxes.len()
                ),
            );
            return resolved;
        }
        for (n, place) in chosen.into_iter().enumerate() {
            let mut field = input.clone();
            field.anchor = None;
            // Labels are unique: each further occurrence's copy is numbered, `Initials 2`.
            if n > 0 {
                field.label = input
                    .label
                    .as_deref()
                    .map(|label| format!("{} {}", label.trim(), n + 1));
            }
            field.page = Some(i64::from(place.page));
            field.x = Some(round_point(place.x + anchor.x_offset.unwrap_or(0.0)));
            field.y = Some(round_point(place.y + anchor.y_offset.unwrap_or(0.0)));
            resolved.push((i, field));
        }
    }
    resolved
}

/// A coordinate found in a PDF to a hundredth of a point, as a person would give it.
fn round_point(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// Checks a send request; its problems go to `problems`, and it is sent only without any.
/// `None` when its expiry date cannot be read (the rules of the document check the rest).
pub fn validate_send(
    input: SendInput,
    defaults: ReminderDefaults,
    problems: &mut Problems,
) -> Option<SendRequest> {
    check_text(
        problems,
        "message".into(),
        &input.message,
        MAX_MESSAGE_CHARS,
        true,
    );
    check_text(
        problems,
        "description".into(),
        &input.description,
        MAX_MESSAGE_CHARS,
        false,
    );
    let expiry_date = match DateTime::parse_from_rfc3339(input.expiry_date.trim()) {
        Ok(date) => Some(date.with_timezone(&Utc)),
        Err(_) => {
            problems.invalid(
                "expiryDate",
                "expected an RFC 3339 timestamp such as 2030-01-31T17:00:00Z",
            );
            None
        }
    };
    let reminders = reminder_schedule(input.reminders.as_ref(), defaults, problems);
    expiry_date.map(|expiry_date| SendRequest {
        message: input.message,
        description: input.description,
        expiry_date,
        language: input.language,
        reminders,
    })
}

/// The most days a template's default expiry may be ahead.
pub const MAX_EXPIRY_DAYS: i64 = 365;

/// Checks a template's defaults for a send by the send's own rules, naming each element.
pub fn validate_send_defaults(
    message: Option<&str>,
    description: Option<&str>,
    expiry_days: Option<i64>,
    reminders: Option<&RemindersInput>,
    defaults: ReminderDefaults,
    problems: &mut Problems,
) {
    if let Some(message) = message {
        check_text(problems, "message".into(), message, MAX_MESSAGE_CHARS, true);
    }
    if let Some(description) = description {
        check_text(
            problems,
            "description".into(),
            description,
            MAX_MESSAGE_CHARS,
            false,
        );
    }
    if let Some(days) = expiry_days
        && !(1..=MAX_EXPIRY_DAYS).contains(&days)
    {
        problems.invalid(
            "expiryDays",
            format!("must be a whole number from 1 to {MAX_EXPIRY_DAYS}"),
        );
    }
    if reminders.is_some() {
        reminder_schedule(reminders, defaults, problems);
    }
}

/// The document's reminder schedule: the request's, its missing parts from the operator's.
fn reminder_schedule(
    input: Option<&RemindersInput>,
    defaults: ReminderDefaults,
    problems: &mut Problems,
) -> Option<(i32, i32)> {
    let operator = (defaults.first_after_days > 0)
        .then_some((defaults.first_after_days as i32, defaults.every_days as i32));
    let Some(input) = input else {
        return operator;
    };
    if input.enabled == Some(false) {
        return None;
    }
    let mut days = |name: &str, value: Option<i64>, min: i64| match value {
        Some(days) if !(min..=MAX_REMINDER_DAYS).contains(&days) => {
            problems.invalid(
                format!("reminders.{name}"),
                format!("must be a whole number from {min} to {MAX_REMINDER_DAYS}"),
            );
            None
        }
        days => days.map(|d| d as i32),
    };
    let first = days("firstAfterDays", input.first_after_days, 1);
    let every = days("everyDays", input.every_days, 0);
    let first = match (first, input.first_after_days, operator) {
        (Some(first), _, _) => first,
        (None, Some(_), _) => return None,
        (None, None, Some((first, _))) => first,
        (None, None, None) => {
            problems.invalid(
                "reminders.firstAfterDays",
                "required: this server sends no reminders unless a document asks for them",
            );
            return None;
        }
    };
    Some((first, every.unwrap_or(defaults.every_days as i32)))
}

/// A cancellation's reason: trimmed, `None` when blank.
pub fn validate_cancel(input: CancelInput) -> Result<Option<String>, Error> {
    let mut problems = Problems::default();
    if let Some(reason) = &input.reason {
        check_text(
            &mut problems,
            "reason".into(),
            reason,
            MAX_CANCEL_REASON_CHARS,
            false,
        );
    }
    problems.into_result()?;
    Ok(input
        .reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty()))
}

pub fn validate_title(title: &str) -> Result<String, Error> {
    let mut problems = Problems::default();
    let title = title.trim();
    check_text(&mut problems, "title".into(), title, MAX_TITLE_CHARS, true);
    problems.into_result()?;
    Ok(title.to_owned())
}

/// The title of an upload: the given one, or where none is given (or it is blank), the file's
/// name without its directory and extension (`reports/Q3 review.pdf` → `Q3 review`). The
/// console's upload form and `signet-api document upload` both name documents by this rule;
/// [`validate_title`] then checks the result.
pub fn upload_title(given: Option<&str>, file_name: &str) -> String {
    match given.map(str::trim).filter(|title| !title.is_empty()) {
        Some(title) => title.to_owned(),
        None => std::path::Path::new(file_name)
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

fn is_country_code(code: &str) -> bool {
    code.strip_prefix('+').is_some_and(|digits| {
        (1..=4).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit())
    })
}

/// The number `code` + `phone` in E.164, if it is one that can be dialled: a known country code
/// and a national number valid in its plan (a trunk prefix such as the UK's leading 0 is
/// dropped). Otherwise the field at fault (`countryCode` or `phoneNumber`) and why.
fn e164(code: &str, phone: &str) -> Result<String, (&'static str, String)> {
    let digits = &code[1..];
    let known = !digits.starts_with('0')
        && digits
            .parse::<u16>()
            .is_ok_and(|c| phonenumber::metadata::DATABASE.by_code(&c).is_some());
    if !known {
        return Err(("countryCode", "not a known dialling prefix".to_owned()));
    }
    // The parser reads the country code from the digits after the `+`; it must be the one given.
    match phonenumber::parse(None, format!("{code} {phone}")) {
        Ok(number)
            if format!("+{}", number.code().value()) == code && phonenumber::is_valid(&number) =>
        {
            Ok(number.format().mode(phonenumber::Mode::E164).to_string())
        }
        _ => Err((
            "phoneNumber",
            format!("not a valid phone number for {code}"),
        )),
    }
}

fn is_phone_number(phone: &str) -> bool {
    let digits = phone.chars().filter(char::is_ascii_digit).count();
    (4..=15).contains(&digits)
        && phone
            .chars()
            .all(|c| c.is_ascii_digit() || " .-()".contains(c))
}

// What a recipient sends through their signing link.

#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct SubmitInput {
    /// A value for every required field of the recipient.
    pub fields: Vec<FieldValueInput>,
}

#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct FieldValueInput {
    #[schema(value_type = uuid::Uuid)]
    pub id: FieldId,
    /// SIGNATURE/INITIALS: a typed name or a PNG data URL; TEXT, NAME, COMPANY: text; EMAIL:
    /// an e-mail address; NUMBER: as typed (`-12.50`); CHECKBOX: `true` or `false`; RADIO,
    /// DROPDOWN: one of the field's options, exactly. A DATE field needs no value, and one
    /// sent is ignored: it is the signing date, set by the server. An optional field may be
    /// sent `""` (left empty) or left out.
    #[serde(default)]
    pub value: String,
}

/// The signer agrees to use electronic records and signatures, in the words the signing page
/// showed them in `language`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct ConsentInput {
    #[serde(default)]
    pub language: signet_i18n::Language,
}

#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct DeclineInput {
    #[serde(default)]
    pub reason: Option<String>,
}

// What the console's field placement page sends.

/// Where a field already on the document should now be: position and size on its page.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub struct FieldPlacement {
    #[schema(value_type = uuid::Uuid)]
    pub id: FieldId,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[cfg(test)]
mod tests;
