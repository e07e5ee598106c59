//! The value rules of each kind of field (docs/fields.md): one rule for what a signer sends,
//! what a field is prefilled with, and what a template makes a document with.

use super::{EmailAddress, FieldRules, FieldType};

/// The most characters of a TEXT or COMPANY value without a `maxLength`.
pub const MAX_TEXT_CHARS: usize = 1_000;
/// The most characters of a NAME value (a recipient's name rule).
pub const MAX_NAME_VALUE_CHARS: usize = 200;
pub const MAX_TYPED_SIGNATURE_CHARS: usize = 200;
pub const MAX_SIGNATURE_IMAGE_BYTES: usize = 512 * 1024;
/// The most characters of a NUMBER value as typed.
pub const MAX_NUMBER_CHARS: usize = 40;
/// The most characters of a `pattern`, and the most bytes its compiled program may take.
pub const MAX_PATTERN_CHARS: usize = 200;
const PATTERN_SIZE_LIMIT: usize = 256 * 1024;
const PNG_DATA_URL: &str = "data:image/png;base64,";

/// The signer's value for a CHECKBOX that is ticked, and one that is not.
pub const TICKED: &str = "true";
pub const UNTICKED: &str = "false";

/// A value for a field of `field_type` with `rules`, trimmed, as it is stored and stamped; or
/// why it cannot be. Whether an empty value may stand is the caller's to decide (a field's
/// `required`): an empty value is refused here.
pub fn normalise_value(
    field_type: FieldType,
    rules: &FieldRules,
    raw: &str,
) -> Result<String, String> {
    let value = raw.trim();
    if value.is_empty() {
        return Err("must not be empty".into());
    }
    if super::has_control_chars(value) {
        return Err(super::CONTROL_CHARS.into());
    }
    match field_type {
        FieldType::Signature | FieldType::Initials => signature(value),
        FieldType::Date => Err("a date is set by the server when you sign".into()),
        FieldType::Text | FieldType::Company => text(value, rules),
        FieldType::Name => at_most(value, MAX_NAME_VALUE_CHARS),
        FieldType::Email => EmailAddress::parse(value)
            .map(|address| address.as_str().to_owned())
            .map_err(str::to_owned),
        FieldType::Checkbox => match value {
            TICKED | UNTICKED => Ok(value.to_owned()),
            _ => Err(format!("expected {TICKED} (ticked) or {UNTICKED}")),
        },
        FieldType::Radio | FieldType::Dropdown => {
            let options = rules.options.as_deref().unwrap_or_default();
            match options.iter().any(|o| o == value) {
                true => Ok(value.to_owned()),
                false => Err(format!(
                    "not one of the field's options ({})",
                    options.join(", ")
                )),
            }
        }
        FieldType::Number => number(value, rules),
        // Not a value typed or picked: the signing flow checks a signer's upload.
        FieldType::Attachment => Err("an attachment is a file the signer uploads".into()),
    }
}

fn at_most(value: &str, max: usize) -> Result<String, String> {
    match value.chars().count() > max {
        true => Err(format!("at most {max} characters")),
        false => Ok(value.to_owned()),
    }
}

fn text(value: &str, rules: &FieldRules) -> Result<String, String> {
    let max = rules
        .max_length
        .map_or(MAX_TEXT_CHARS, |m| m.max(0) as usize);
    let value = at_most(value, max)?;
    if let Some(pattern) = &rules.pattern {
        // Checked when the field was made; a pattern that no longer compiles matches nothing.
        let matches = compile_pattern(pattern).is_ok_and(|p| p.is_match(&value));
        if !matches {
            return Err(format!("does not match the field's pattern {pattern}"));
        }
    }
    Ok(value)
}

/// `pattern` compiled to match a whole value, within the size limit; or why it cannot be.
pub fn compile_pattern(pattern: &str) -> Result<regex::Regex, String> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(format!("at most {MAX_PATTERN_CHARS} characters"));
    }
    regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|error| match error {
            regex::Error::CompiledTooBig(_) => "the pattern is too large".to_owned(),
            _ => "not a regular expression (Rust regex syntax)".to_owned(),
        })
}

/// A number as typed: an optional minus, digits, an optional point and digits.
fn number(value: &str, rules: &FieldRules) -> Result<String, String> {
    let digits = value.strip_prefix('-').unwrap_or(value);
    let (whole, fraction) = match digits.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if value.len() > MAX_NUMBER_CHARS
        || !all_digits(whole)
        || fraction.is_some_and(|f| !all_digits(f))
    {
        return Err(format!(
            "not a number: expected digits, an optional minus and decimal point (-12.50), at most {MAX_NUMBER_CHARS} characters"
        ));
    }
    let decimals = fraction.map_or(0, str::len);
    if let Some(most) = rules.decimals
        && decimals > most.max(0) as usize
    {
        return Err(match most {
            0 => "must be a whole number".to_owned(),
            _ => format!("at most {most} digits after the decimal point"),
        });
    }
    let n: f64 = value.parse().map_err(|_| "not a number".to_owned())?;
    match (rules.min, rules.max) {
        (Some(min), Some(max)) if !(min..=max).contains(&n) => {
            Err(format!("must be from {min} to {max}"))
        }
        (Some(min), None) if n < min => Err(format!("must be at least {min}")),
        (None, Some(max)) if n > max => Err(format!("must be at most {max}")),
        _ => Ok(value.to_owned()),
    }
}

fn signature(value: &str) -> Result<String, String> {
    if let Some(data) = value.strip_prefix(PNG_DATA_URL) {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|_| "not valid base64 in the PNG data URL".to_owned())?;
        if bytes.len() > MAX_SIGNATURE_IMAGE_BYTES {
            return Err(format!(
                "the image is over {MAX_SIGNATURE_IMAGE_BYTES} bytes"
            ));
        }
        if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            return Err("the data URL does not hold a PNG image".into());
        }
        // Decoded whole, and no larger than the engine's bounds on a drawn signature.
        signet_pdf::check_signature_png(&bytes).map_err(|error| error.to_string())?;
        Ok(value.to_owned())
    } else if value.starts_with("data:") {
        Err("only PNG data URLs (data:image/png;base64,...) are accepted".into())
    } else if value.chars().count() > MAX_TYPED_SIGNATURE_CHARS {
        Err(format!(
            "a typed signature has at most {MAX_TYPED_SIGNATURE_CHARS} characters"
        ))
    } else {
        Ok(value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(field_type: FieldType, rules: &FieldRules, raw: &str) -> Result<String, String> {
        normalise_value(field_type, rules, raw)
    }

    #[test]
    fn a_number_is_checked_as_typed() {
        let rules = FieldRules {
            min: Some(-10.0),
            max: Some(100.0),
            decimals: Some(2),
            ..FieldRules::default()
        };
        assert_eq!(
            check(FieldType::Number, &rules, " -2.50 "),
            Ok("-2.50".into())
        );
        assert_eq!(check(FieldType::Number, &rules, "100"), Ok("100".into()));
        for refused in [
            "100.01", "-10.5", "1.234", "1e3", "1.", ".5", "--1", "1,5", "0x10", "+1",
        ] {
            assert!(
                check(FieldType::Number, &rules, refused).is_err(),
                "{refused}"
            );
        }
        let whole = FieldRules {
            decimals: Some(0),
            ..FieldRules::default()
        };
        assert!(check(FieldType::Number, &whole, "1.0").is_err());
        let any = FieldRules::default();
        assert_eq!(
            check(FieldType::Number, &any, "3.14159"),
            Ok("3.14159".into())
        );
    }

    #[test]
    fn choices_texts_and_addresses_follow_their_rules() {
        let options = FieldRules {
            options: Some(vec!["Monthly".into(), "Yearly".into()]),
            ..FieldRules::default()
        };
        assert_eq!(
            check(FieldType::Radio, &options, "Yearly"),
            Ok("Yearly".into())
        );
        assert!(check(FieldType::Dropdown, &options, "yearly").is_err());
        assert_eq!(
            check(FieldType::Checkbox, &options, "true"),
            Ok("true".into())
        );
        assert!(check(FieldType::Checkbox, &options, "yes").is_err());
        let text = FieldRules {
            max_length: Some(5),
            pattern: Some("[A-Z]{2}[0-9]+".into()),
            ..FieldRules::default()
        };
        assert_eq!(check(FieldType::Text, &text, "AB12"), Ok("AB12".into()));
        assert!(check(FieldType::Text, &text, "AB1234").is_err(), "too long");
        assert!(
            check(FieldType::Company, &text, "xAB12").is_err(),
            "whole value"
        );
        assert!(check(FieldType::Email, &text, "ann@example.com").is_ok());
        assert!(check(FieldType::Email, &text, "ann@").is_err());
        assert!(check(FieldType::Attachment, &text, "x").is_err());
    }

    #[test]
    fn a_pattern_is_bounded() {
        assert!(compile_pattern("[a-z]+").is_ok());
        assert!(compile_pattern("(").is_err());
        assert!(compile_pattern(&"a".repeat(MAX_PATTERN_CHARS + 1)).is_err());
        assert!(compile_pattern(r"\w{100}{100}").is_err(), "too large");
    }
}
