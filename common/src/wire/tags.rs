//! Text tags (`{{signature:Tenant}}`, `{{text:2;label=Company;required=false}}`): the grammar of
//! docs/fields.md, read into the JSON of a field so that a tag's field goes through the very
//! checks a field given as JSON does.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};
use signet_pdf::{FoundTag, PageSize};

use crate::{error::Problems, model::RecipientRole};

use super::inputs::{
    DEFAULT_FIELD_HEIGHT, DEFAULT_FIELD_WIDTH, MAX_RECIPIENTS_PER_DOCUMENT as MAX_ROLES,
};
use super::templates::{TemplateFieldInput, TemplateRoleInput};

pub const MAX_ROLE_CHARS: usize = 100;

/// A tag read: its role as written (a name, or the n-th role) and its field's JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedTag {
    pub role: TagRole,
    pub field: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TagRole {
    Named(String),
    Nth(usize),
}

/// Properties whose values are numbers, flags, or `|`-separated lists; any other is a string.
const NUMBERS: &[&str] = &["width", "height", "min", "max", "decimals", "maxLength"];
const FLAGS: &[&str] = &["required", "readOnly"];
const LISTS: &[&str] = &["options"];
/// What a tag may not set: the tag itself says where the field is and whose it is.
const PLACED: &[&str] = &["type", "page", "x", "y", "anchor", "recipientEmail"];

/// Reads one tag (`{{kind:role;key=value;flag}}`, braces included) into its role and the JSON
/// of its field, with `page`, `x` and `y` from where the tag is shown. Without `width` or
/// `height`, the field takes the default size shrunk to fit between the tag and the right and
/// bottom edges of `page` (its size as displayed), never smaller than the tag's own text: a tag
/// near the margin is a field at the margin, not one refused for leaving the page.
pub fn parse_tag(tag: &FoundTag, page: Option<PageSize>) -> Result<ParsedTag, String> {
    let inner = tag
        .text
        .strip_prefix("{{")
        .and_then(|rest| rest.strip_suffix("}}"))
        .ok_or("a tag is {{kind:role}}, closed by }} on its line")?;
    let mut parts = inner.split(';');
    let head = parts.next().unwrap_or_default();
    let (kind, role) = head
        .split_once(':')
        .ok_or("a tag starts with kind:role, such as signature:Tenant")?;
    let kind = kind.trim().to_uppercase();
    if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!("{:?} is not a field kind", kind.to_lowercase()));
    }
    let role = role.trim();
    let role = if !role.is_empty() && role.chars().all(|c| c.is_ascii_digit()) {
        match role.parse::<usize>() {
            Ok(n) if (1..=super::inputs::MAX_RECIPIENTS_PER_DOCUMENT).contains(&n) => {
                TagRole::Nth(n)
            }
            _ => return Err(format!("role {role}: a numbered role is from 1 to 100")),
        }
    } else if role.is_empty()
        || role.chars().count() > MAX_ROLE_CHARS
        || role.contains(['}', ':', ';', '{'])
        || super::inputs::has_control_chars(role)
    {
        return Err(format!(
            "a role is a name of 1 to {MAX_ROLE_CHARS} characters without ; }} or :, or a number"
        ));
    } else if super::inputs::begins_like_formula_or_mark(role) {
        return Err(super::inputs::ROLE_NAME_FORMULA_START.into());
    } else {
        TagRole::Named(role.to_owned())
    };
    let mut field = Map::new();
    field.insert("type".into(), json!(kind));
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (key, value) = match part.split_once('=') {
            Some((key, value)) => (key.trim(), Some(value.trim())),
            None => (part, None),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("{part:?} is not key=value"));
        }
        if PLACED.contains(&key) {
            return Err(format!("{key} cannot be set in a tag"));
        }
        if field.contains_key(key) {
            return Err(format!("{key} is given twice"));
        }
        let value = match value {
            None => Value::Bool(true),
            Some(value) if NUMBERS.contains(&key) => value
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite())
                .map(|n| json!(n))
                .ok_or_else(|| format!("{key} must be a number"))?,
            Some(value) if FLAGS.contains(&key) => match value {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(format!("{key} must be true or false")),
            },
            Some(value) if LISTS.contains(&key) => {
                Value::Array(value.split('|').map(|o| json!(o.trim())).collect())
            }
            Some(value) => json!(value),
        };
        field.insert(key.to_owned(), value);
    }
    let at = tag.at;
    if let Some(page) = page {
        let fitted = |default: f64, room: f64, own: f64| round(default.min(room).max(own));
        field
            .entry("width")
            .or_insert_with(|| json!(fitted(DEFAULT_FIELD_WIDTH, page.width - at.x, at.width)));
        field
            .entry("height")
            .or_insert_with(|| json!(fitted(DEFAULT_FIELD_HEIGHT, page.height - at.y, at.height)));
    }
    field.insert("page".into(), json!(at.page));
    field.insert("x".into(), json!(round(at.x)));
    field.insert("y".into(), json!(round(at.y)));
    Ok(ParsedTag { role, field })
}

fn round(value: f64) -> f64 {
    ((value * 100.0).round() / 100.0).max(0.0)
}

/// The role a numbered tag means: the n-th named role in order of first appearance, else
/// "Role n".
fn role_name(role: &TagRole, named: &[String]) -> String {
    match role {
        TagRole::Named(name) => name.clone(),
        TagRole::Nth(n) => named
            .get(n - 1)
            .cloned()
            .unwrap_or_else(|| format!("Role {n}")),
    }
}

/// A template's roles (signers, in order of first appearance) and their fields from `tags`,
/// each field read from its tag's JSON as a template field is from a request. A tag that does
/// not parse is a problem named `tags[<n>]`, with its text and page.
pub fn template_roles(
    tags: &[FoundTag],
    page_sizes: &[PageSize],
    problems: &mut Problems,
) -> Vec<TemplateRoleInput> {
    let mut parsed = Vec::with_capacity(tags.len());
    for (n, tag) in tags.iter().enumerate() {
        let refused = |reason: String| format!("{} on page {}: {reason}", tag.text, tag.at.page);
        let page = (tag.at.page as usize)
            .checked_sub(1)
            .and_then(|i| page_sizes.get(i))
            .copied();
        match parse_tag(tag, page) {
            Ok(found) => {
                let field = Value::Object(found.field.clone());
                match serde_json::from_value::<TemplateFieldInput>(with_blank_label(field)) {
                    Ok(field) => parsed.push((found.role, field)),
                    Err(e) => problems.invalid(format!("tags[{n}]"), refused(e.to_string())),
                }
            }
            Err(reason) => problems.invalid(format!("tags[{n}]"), refused(reason)),
        }
    }
    // The named roles in order of first appearance, then each tag's role found by name at once.
    let mut named: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (role, _) in &parsed {
        if let TagRole::Named(name) = role
            && seen.insert(name.as_str())
        {
            named.push(name.clone());
        }
    }
    let mut roles: Vec<TemplateRoleInput> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (role, field) in parsed {
        let name = role_name(&role, &named);
        if let Some(&at) = index.get(&name) {
            roles[at].fields.push(field);
            continue;
        }
        if roles.len() == MAX_ROLES {
            problems.invalid(
                "tags",
                format!(
                    "the tags name more than {MAX_ROLES} roles: a template has at most {MAX_ROLES}"
                ),
            );
            return Vec::new();
        }
        index.insert(name.clone(), roles.len());
        roles.push(TemplateRoleInput {
            name,
            role: RecipientRole::Signer,
            signing_order: None,
            language: None,
            fields: vec![field],
        });
    }
    roles
}

/// A template field needs a label: a tag without one gets a blank one, which is then given
/// the generated `<role>.<type>.<n>` as any blank label is.
fn with_blank_label(mut field: Value) -> Value {
    if let Value::Object(map) = &mut field {
        map.entry("label").or_insert(json!(""));
    }
    field
}

#[cfg(test)]
mod tests {
    use super::*;
    use signet_pdf::TextBox;

    fn tag(text: &str) -> FoundTag {
        FoundTag {
            text: text.into(),
            at: TextBox {
                page: 2,
                x: 72.004,
                y: 100.0,
                width: 80.0,
                height: 12.0,
            },
        }
    }

    /// A tag read without its page's size: no size is fitted.
    fn parse_tag_alone(tag: &FoundTag) -> Result<ParsedTag, String> {
        parse_tag(tag, None)
    }

    #[test]
    fn a_tag_without_a_size_fits_between_it_and_the_page_edges() {
        let a4 = PageSize {
            width: 595.0,
            height: 842.0,
        };
        let near_the_margin = FoundTag {
            text: "{{text:A}}".into(),
            at: TextBox {
                page: 1,
                x: 500.0,
                y: 820.0,
                width: 60.0,
                height: 12.0,
            },
        };
        let field = parse_tag(&near_the_margin, Some(a4)).unwrap().field;
        assert_eq!(
            (&field["width"], &field["height"]),
            (&json!(95.0), &json!(22.0))
        );
        let roomy = parse_tag(&tag("{{text:A;height=30}}"), Some(a4))
            .unwrap()
            .field;
        assert_eq!(
            (&roomy["width"], &roomy["height"]),
            (&json!(200.0), &json!(30.0))
        );
        let wider_than_its_room = FoundTag {
            text: "{{signature:A}}".into(),
            at: TextBox {
                page: 1,
                x: 560.0,
                y: 100.0,
                width: 90.0,
                height: 12.0,
            },
        };
        let own = parse_tag(&wider_than_its_room, Some(a4)).unwrap().field;
        assert_eq!(own["width"], json!(90.0));
    }

    #[test]
    fn a_tag_is_the_json_of_its_field() {
        let parsed = parse_tag_alone(&tag(
            "{{Text:Landlord;label=Company name;required=false;maxLength=40;readOnly;options=a|b}}",
        ))
        .unwrap();
        assert_eq!(parsed.role, TagRole::Named("Landlord".into()));
        assert_eq!(
            Value::Object(parsed.field),
            json!({"type": "TEXT", "label": "Company name", "required": false, "maxLength": 40.0,
                   "readOnly": true, "options": ["a", "b"], "page": 2, "x": 72.0, "y": 100.0})
        );
        assert_eq!(
            parse_tag_alone(&tag("{{date:2}}")).unwrap().role,
            TagRole::Nth(2)
        );
    }

    #[test]
    fn a_tag_that_does_not_parse_says_why() {
        for (text, why) in [
            ("{{signature}}", "kind:role"),
            ("{{signature:Tenant", "closed"),
            ("{{sig-nature:Tenant}}", "not a field kind"),
            ("{{signature:}}", "a role is"),
            ("{{text:A;width=wide}}", "width must be a number"),
            ("{{text:A;page=2}}", "cannot be set"),
            ("{{text:A;label=a;label=b}}", "twice"),
            ("{{text:@SUM(1+1)*cmd|' /C calc'!A0}}", "may not begin with"),
            ("{{text:-Tenant}}", "may not begin with"),
        ] {
            let reason = parse_tag_alone(&tag(text)).unwrap_err();
            assert!(reason.contains(why), "{text}: {reason}");
        }
    }

    #[test]
    fn tags_make_roles_in_order_and_numbers_name_them() {
        let mut problems = Problems::default();
        let roles = template_roles(
            &[
                tag("{{signature:Tenant}}"),
                tag("{{initials:2}}"),
                tag("{{date:Landlord;label=Signed on}}"),
                tag("{{text:3}}"),
                tag("{{stamp:Tenant}}"),
            ],
            &[],
            &mut problems,
        );
        let names: Vec<&str> = roles.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["Tenant", "Landlord", "Role 3"]);
        assert_eq!(roles[1].fields.len(), 2);
        assert_eq!(roles[1].fields[1].label, "Signed on");
        let problems = format!("{:?}", problems.into_result().unwrap_err());
        assert!(problems.contains("tags[4]"), "{problems}");
    }
}
