//! Recipients' phone numbers (issue #16, item 1): `countryCode` and `phoneNumber` together or
//! not at all, a number that exists in that country's plan, stored in E.164 beside the values as
//! given. Nothing sends SMS yet.

use serde_json::json;
use signet_tests::{LETTER, TestApp, assert_error};
use uuid::Uuid;

use crate::errors::INVALID;

/// (email, countryCode, phoneNumber, phone_e164) of the document's recipients, in order.
type Stored = (String, Option<String>, Option<String>, Option<String>);

async fn stored(app: &TestApp, doc: Uuid) -> Vec<Stored> {
    sqlx::query_as(
        "SELECT email, country_code, phone_number, phone_e164 FROM recipients
         WHERE document_id = $1 ORDER BY position",
    )
    .bind(doc)
    .fetch_all(&app.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn phone_numbers_are_checked_and_stored_in_e164() {
    let app = TestApp::spawn().await;
    let (account, key) = app.account(1000).await;
    let doc = app.document(account, "Phone numbers", &[LETTER]).await;
    let path = format!("/documents/{doc}/recipients");

    let (status, body) = app
        .post(
            &path,
            &key,
            &json!([
                {"name": "Ann", "email": "ann@signet.test", "role": "SIGNER",
                 "countryCode": " +44 ", "phoneNumber": "020 7946 0958"},
                {"name": "Bo", "email": "bo@signet.test", "role": "SIGNER",
                 "countryCode": "+1", "phoneNumber": "(201) 555-0123"},
                {"name": "Cy", "email": "cy@signet.test", "role": "VIEWER"},
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let ok = |email: &str, code: Option<&str>, phone: Option<&str>, e164: Option<&str>| {
        (
            email.to_owned(),
            code.map(str::to_owned),
            phone.map(str::to_owned),
            e164.map(str::to_owned),
        )
    };
    let expected = vec![
        ok(
            "ann@signet.test",
            Some("+44"),
            Some("020 7946 0958"),
            Some("+442079460958"),
        ),
        ok(
            "bo@signet.test",
            Some("+1"),
            Some("(201) 555-0123"),
            Some("+12015550123"),
        ),
        ok("cy@signet.test", None, None, None),
    ];
    assert_eq!(stored(&app, doc).await, expected);

    // An impossible number, and a number without its prefix: 400 naming the element, and
    // nothing of the request is stored (the valid first element included).
    for (body, field, reason) in [
        (
            json!([
                {"name": "Di", "email": "di@signet.test", "role": "SIGNER",
                 "countryCode": "+49", "phoneNumber": "030 123456"},
                {"name": "Ed", "email": "ed@signet.test", "role": "SIGNER",
                 "countryCode": "+1", "phoneNumber": "555-0123"},
            ]),
            "[1].phoneNumber",
            "not a valid phone number for +1",
        ),
        (
            json!([
                {"name": "Di", "email": "di@signet.test", "role": "SIGNER"},
                {"name": "Ed", "email": "ed@signet.test", "role": "SIGNER"},
                {"name": "Fay", "email": "fay@signet.test", "role": "SIGNER",
                 "phoneNumber": "090-1234-5678"},
            ]),
            "[2].countryCode",
            "required when phoneNumber is given",
        ),
        (
            json!([
                {"name": "Fay", "email": "fay@signet.test", "role": "SIGNER",
                 "countryCode": "+81"},
            ]),
            "[0].phoneNumber",
            "required when countryCode is given",
        ),
    ] {
        let response = app.post(&path, &key, &body).await;
        assert_error(&response, 400, "ERROR", INVALID);
        assert_eq!(
            response.1["errors"],
            json!([{"field": field, "reason": reason}]),
            "{}",
            response.1
        );
        assert_eq!(
            stored(&app, doc).await,
            expected,
            "a refused body stores nothing"
        );
    }
}
