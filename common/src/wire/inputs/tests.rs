use super::*;

/// The checks' verdict, as a flow sees it once the document has nothing to add.
fn verdict<T>(check: impl FnOnce(&mut Problems) -> T) -> Result<T, Error> {
    let mut problems = Problems::default();
    let checked = check(&mut problems);
    problems.into_result().map(|()| checked)
}

fn validate_recipients(inputs: Vec<RecipientInput>) -> Result<Vec<ValidRecipient>, Error> {
    verdict(|problems| super::validate_recipients(inputs, problems))
        .map(|valid| valid.into_iter().map(|(_, r)| r).collect())
}

fn problem_list(problems: Problems) -> Vec<crate::error::Problem> {
    match problems.into_result() {
        Ok(()) => Vec::new(),
        Err(Error::Invalid(list) | Error::Refused { problems: list, .. }) => list,
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn upload_titles_default_to_the_file_name() {
    assert_eq!(upload_title(Some(" Lease "), "a.pdf"), "Lease");
    assert_eq!(
        upload_title(Some("  "), "Quarterly report.pdf"),
        "Quarterly report"
    );
    assert_eq!(upload_title(None, "/tmp/scans/Q3.review.PDF"), "Q3.review");
    assert_eq!(upload_title(None, "notes"), "notes");
    assert_eq!(upload_title(None, ""), "");
}

fn recipient(email: &str) -> RecipientInput {
    RecipientInput {
        name: " Ann ".into(),
        email: email.into(),
        role: RecipientRole::Signer,
        country_code: None,
        phone_number: None,
        language: None,
        signing_order: None,
        embedded: false,
        authentication: None,
    }
}

#[test]
fn recipients_are_trimmed_and_checked() {
    let ok = validate_recipients(vec![recipient(" a@b.co ")]).unwrap();
    assert_eq!(
        (ok[0].name.as_str(), ok[0].email.as_str()),
        ("Ann", "a@b.co")
    );

    let Err(Error::Invalid(problems)) = validate_recipients(vec![
        recipient("a@b.co"),
        RecipientInput {
            name: " ".into(),
            country_code: Some("44".into()),
            phone_number: Some("12".into()),
            ..recipient("nope")
        },
    ]) else {
        panic!("expected problems");
    };
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "[1].name",
            "[1].email",
            "[1].countryCode",
            "[1].phoneNumber"
        ]
    );

    assert!(matches!(
        validate_recipients(vec![]),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        validate_recipients(vec![recipient("a@b.co"), recipient("A@B.CO")]),
        Err(Error::Refused {
            rule: Rule::DuplicateRecipient,
            ..
        })
    ));
}

fn with_phone(code: Option<&str>, phone: Option<&str>) -> RecipientInput {
    RecipientInput {
        country_code: code.map(Into::into),
        phone_number: phone.map(Into::into),
        ..recipient("a@b.co")
    }
}

/// The problems of one recipient with this number, as `(field, message)`.
fn phone_problems(code: Option<&str>, phone: Option<&str>) -> Vec<(String, String)> {
    match validate_recipients(vec![recipient("x@b.co"), with_phone(code, phone)]) {
        Ok(_) => vec![],
        Err(Error::Invalid(problems)) => {
            problems.into_iter().map(|p| (p.field, p.reason)).collect()
        }
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn phone_numbers_are_stored_in_e164_as_given() {
    for (code, phone, e164) in [
        ("+1", "(201) 555-0123", "+12015550123"),
        ("+1", "415.555.2671", "+14155552671"),
        ("+44", "020 7946 0958", "+442079460958"),
        ("+44", "07400 123456", "+447400123456"),
        ("+49", "030 123456", "+4930123456"),
        ("+49", "01512-3456789", "+4915123456789"),
        ("+91", "81234 56789", "+918123456789"),
        ("+91", "(022) 2345-6789", "+912223456789"),
        ("+55", "(11) 96123-4567", "+5511961234567"),
        ("+81", "090-1234-5678", "+819012345678"),
        ("+81", "03-1234-5678", "+81312345678"),
        (" +39 ", " 06 1234 5678 ", "+390612345678"),
    ] {
        let ok = validate_recipients(vec![with_phone(Some(code), Some(phone))])
            .unwrap_or_else(|e| panic!("{code} {phone}: {e:?}"));
        assert_eq!(ok[0].phone_e164.as_deref(), Some(e164), "{code} {phone}");
        // The detail returns what was given, trimmed.
        assert_eq!(ok[0].country_code.as_deref(), Some(code.trim()));
        assert_eq!(ok[0].phone_number.as_deref(), Some(phone.trim()));
    }
    let none = validate_recipients(vec![with_phone(None, None)]).unwrap();
    assert_eq!(none[0].phone_e164, None);
}

#[test]
fn impossible_phone_numbers_name_the_element() {
    for (code, phone) in [
        ("+1", "555-0123"),
        ("+1", "(123) 456-7890"),
        ("+44", "020 7946 095"),
        ("+44", "1234 5"),
        ("+49", "0000 000000"),
        ("+91", "98765 4321"),
        ("+55", "(11) 1234"),
        ("+81", "0-0000-0000"),
        // A number from another country under this prefix.
        ("+1", "020 7946 0958"),
    ] {
        assert_eq!(
            phone_problems(Some(code), Some(phone)),
            [(
                "[1].phoneNumber".to_owned(),
                format!("not a valid phone number for {code}")
            )],
            "{code} {phone}"
        );
    }
    for code in ["+999", "+0044", "+4"] {
        assert_eq!(
            phone_problems(Some(code), Some("20 7946 0958")),
            [(
                "[1].countryCode".to_owned(),
                "not a known dialling prefix".to_owned()
            )],
            "{code}"
        );
    }
    // Too short to be any number: the shape rule says so before the numbering plan.
    assert_eq!(
        phone_problems(Some("+44"), Some("12")),
        [(
            "[1].phoneNumber".to_owned(),
            "expected 4 to 15 digits (spaces, dots, dashes and brackets allowed)".to_owned()
        )]
    );
}

#[test]
fn a_phone_number_needs_both_parts() {
    assert_eq!(
        phone_problems(Some("+44"), None),
        [(
            "[1].phoneNumber".to_owned(),
            "required when countryCode is given".to_owned()
        )]
    );
    assert_eq!(
        phone_problems(None, Some("020 7946 0958")),
        [(
            "[1].countryCode".to_owned(),
            "required when phoneNumber is given".to_owned()
        )]
    );
}

#[test]
fn fields_get_default_sizes() {
    let placed = verdict(|problems| {
        validate_fields(
            vec![
                serde_json::from_value(serde_json::json!({
                    "recipientEmail": "a@b.co", "type": "DATE", "page": 1, "x": 0, "y": 0,
                    "height": 20
                }))
                .unwrap(),
            ],
            problems,
        )
    })
    .unwrap();
    assert_eq!((placed[0].1.width, placed[0].1.height), (200.0, 20.0));
}

#[test]
fn a_whole_page_number_written_with_a_fraction_is_read_exactly() {
    // Found by schemathesis: without serde_json's float_roundtrip this was read as
    // 3663651484241734.5 and refused as not a whole number.
    let field: FieldInput = serde_json::from_str(
        r#"{"recipientEmail": "a@b.co", "type": "DATE", "page": 3663651484241734.0, "x": 0, "y": 0}"#,
    )
    .unwrap();
    assert_eq!(field.page, Some(3_663_651_484_241_734));
}

#[test]
fn send_needs_message_and_rfc3339_expiry() {
    let input = |message: &str, expiry: &str| SendInput {
        message: message.into(),
        description: String::new(),
        expiry_date: expiry.into(),
        language: None,
        reminders: None,
    };
    let validate_send = |input| verdict(|problems| validate_send(input, OPERATOR, problems));
    let ok = validate_send(input("hi", "2030-01-31T17:00:00+01:00"))
        .unwrap()
        .unwrap();
    assert_eq!(ok.expiry_date.to_rfc3339(), "2030-01-31T16:00:00+00:00");
    assert!(
        matches!(validate_send(input("", "2030-01-31T17:00:00Z")), Err(Error::Invalid(p)) if p[0].field == "message")
    );
    assert!(
        matches!(validate_send(input("hi", "tomorrow")), Err(Error::Invalid(p)) if p[0].field == "expiryDate")
    );
}

const OPERATOR: ReminderDefaults = ReminderDefaults {
    first_after_days: 3,
    every_days: 7,
};

#[test]
fn a_documents_reminders_are_its_own_with_the_operators_for_what_it_leaves_out() {
    let schedule = |input: Option<RemindersInput>, defaults| {
        let mut problems = Problems::default();
        let schedule = reminder_schedule(input.as_ref(), defaults, &mut problems);
        (schedule, problem_list(problems))
    };
    let asked = |enabled, first, every| {
        Some(RemindersInput {
            enabled,
            first_after_days: first,
            every_days: every,
        })
    };
    assert_eq!(schedule(None, OPERATOR), (Some((3, 7)), vec![]));
    assert_eq!(
        schedule(asked(None, Some(1), None), OPERATOR),
        (Some((1, 7)), vec![])
    );
    assert_eq!(
        schedule(asked(None, None, Some(0)), OPERATOR),
        (Some((3, 0)), vec![])
    );
    assert_eq!(
        schedule(asked(Some(false), Some(1), None), OPERATOR),
        (None, vec![])
    );
    let off = ReminderDefaults {
        first_after_days: 0,
        every_days: 2,
    };
    assert_eq!(schedule(None, off), (None, vec![]));
    assert_eq!(
        schedule(asked(Some(true), Some(5), None), off),
        (Some((5, 2)), vec![])
    );
    let (none, problems) = schedule(asked(None, None, Some(4)), off);
    assert_eq!(none, None);
    assert_eq!(problems[0].field, "reminders.firstAfterDays");
    let (_, problems) = schedule(asked(None, Some(0), Some(366)), OPERATOR);
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["reminders.firstAfterDays", "reminders.everyDays"]);
}

/// Each problem's element and reason.
type Named = Vec<(String, String)>;

fn fields(json: serde_json::Value) -> Result<Vec<(usize, PlacedField)>, Named> {
    let mut problems = Problems::default();
    let placed = validate_fields(serde_json::from_value(json).unwrap(), &mut problems);
    match problem_list(problems) {
        list if list.is_empty() => Ok(placed),
        list => Err(list.into_iter().map(|p| (p.field, p.reason)).collect()),
    }
}

#[test]
fn every_kind_takes_its_own_properties_and_each_problem_is_named() {
    let base = |extra: serde_json::Value| {
        let mut field = serde_json::json!({"recipientEmail": "a@b.co", "page": 1, "x": 0, "y": 0});
        field
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        field
    };
    let placed = fields(serde_json::json!([
        base(serde_json::json!({"type": "RADIO", "label": "Plan", "options": [" Monthly ", "Yearly"], "value": "Yearly"})),
        base(serde_json::json!({"type": "NUMBER", "min": 0, "max": 10, "decimals": 1, "value": "2.5", "readOnly": true})),
        base(serde_json::json!({"type": "TEXT", "maxLength": 5, "pattern": "[A-Z]+", "required": false})),
        base(serde_json::json!({"type": "CHECKBOX", "value": "true"})),
        base(serde_json::json!({"type": "ATTACHMENT", "required": false})),
    ]))
    .unwrap();
    let radio = &placed[0].1;
    assert_eq!(radio.label.as_deref(), Some("Plan"));
    assert_eq!(
        radio.properties.rules.options,
        Some(vec!["Monthly".into(), "Yearly".into()])
    );
    assert_eq!(radio.properties.value.as_deref(), Some("Yearly"));
    assert!(placed[1].1.properties.read_only);
    assert!(!placed[2].1.properties.required);

    let refused = fields(serde_json::json!([
        base(serde_json::json!({"type": "DROPDOWN", "options": ["A", "A", ""], "label": "x/y"})),
        base(serde_json::json!({"type": "NUMBER", "min": 5, "max": 1, "decimals": 11})),
        base(serde_json::json!({"type": "SIGNATURE", "options": ["A"], "maxLength": 3, "value": "Ann"})),
        base(serde_json::json!({"type": "TEXT", "pattern": "(", "readOnly": true})),
        base(serde_json::json!({"type": "RADIO", "label": "Same"})),
        base(serde_json::json!({"type": "EMAIL", "label": "Same", "value": "not an address"})),
        base(serde_json::json!({"type": "NUMBER", "max": 3, "value": "4"})),
    ]))
    .unwrap_err();
    let named: Vec<&str> = refused.iter().map(|(field, _)| field.as_str()).collect();
    for expected in [
        "[0].options[1]",
        "[0].options[2]",
        "[0].label",
        "[1].max",
        "[1].decimals",
        "[2].options",
        "[2].maxLength",
        "[2].value",
        "[3].pattern",
        "[3].readOnly",
        "[4].options",
        "[5].label",
        "[5].value",
        "[6].value",
    ] {
        assert!(named.contains(&expected), "{expected} in {refused:?}");
    }
}
