//! The whole end-to-end suite again, with the file store an S3 bucket: the same test files as
//! `suite` (included below), run by a binary whose name tells the support code
//! (`signet_tests::s3_under_test`) to give every test a bucket of its own on an S3-compatible
//! server (moto's, started by `scripts/test.sh`) instead of a directory. Every API and worker
//! process of a test then shares nothing but PostgreSQL and that bucket.
//!
//! Left out: `bring_up`, which runs `scripts/up.sh` and its local directory by design;
//! `object_storage`, whose tests bring buckets of their own; and `database_restart`, whose
//! PostgreSQL outages do not touch the file store and whose clusters run one at a time, so a
//! second run would add four minutes to the suite's longest chain for nothing new; and
//! `idempotency`, whose keys live in PostgreSQL alone and whose requests store no file; and
//! `schemathesis`, which checks the OpenAPI document against the server, whatever its store.

#[path = "../suite/attachments.rs"]
mod attachments;
#[path = "../suite/audit_chain.rs"]
mod audit_chain;
#[path = "../suite/browser.rs"]
mod browser;
#[path = "../suite/concurrency.rs"]
mod concurrency;
#[path = "../suite/console.rs"]
mod console;
#[path = "../suite/delivery_failures.rs"]
mod delivery_failures;
#[path = "../suite/draft_editing.rs"]
mod draft_editing;
#[path = "../suite/errors.rs"]
mod errors;
#[path = "../suite/files.rs"]
mod files;
#[path = "../suite/hardening.rs"]
mod hardening;
#[path = "../suite/isolation.rs"]
mod isolation;
#[path = "../suite/job_kinds.rs"]
mod job_kinds;
#[path = "../suite/keys.rs"]
mod keys;
#[path = "../suite/languages.rs"]
mod languages;
#[path = "../suite/lists.rs"]
mod lists;
#[path = "../suite/observability.rs"]
mod observability;
#[path = "../suite/openapi.rs"]
mod openapi;
#[path = "../suite/phone_numbers.rs"]
mod phone_numbers;
#[path = "../suite/real_names.rs"]
mod real_names;
#[path = "../suite/retention.rs"]
mod retention;
#[path = "../suite/scale_out.rs"]
mod scale_out;
#[path = "../suite/seal.rs"]
mod seal;
#[path = "../suite/security.rs"]
mod security;
#[path = "../suite/signing_flow.rs"]
mod signing_flow;
#[path = "../suite/sms.rs"]
mod sms;
// A template uploaded as a PDF is stored under its own key: through the bucket too.
#[path = "../suite/template_editing.rs"]
mod template_editing;
#[path = "../suite/text_fields.rs"]
mod text_fields;
#[path = "../suite/upgrades.rs"]
mod upgrades;
#[path = "../suite/uploads.rs"]
mod uploads;
#[path = "../suite/webhooks.rs"]
mod webhooks;
#[path = "../suite/workers.rs"]
mod workers;

/// Modules of `suite` that this binary leaves out, on purpose.
const LEFT_OUT: &[&str] = &[
    // The console's bulk send: its CSV and rows are in the database; nothing of the store.
    "bulk_console",
    "bring_up",
    // What the final PDF and the e-mails draw of a value; the PDF is stored and read back
    // through the paths real_names checks here.
    "bidi_isolation",
    "database_restart",
    // Attacks on the PDF parser, which runs in the sandbox before anything is stored; the
    // hostile original of the completion test is read through the store as signing_flow's is.
    "hostile_pdfs",
    // Request bodies refused before anything is stored (issue #48): the store is never reached.
    "hostile_input",
    "idempotency",
    "object_storage",
    // The console's layout at phone size: what a page draws does not depend on the store
    // (browser's journey, here, uploads and downloads through it).
    "phone_layout",
    // Where fields are stamped and drawn: geometry, not storage; the final PDF is read back
    // through the paths signing_flow checks here.
    "placement",
    // A form imported and flattened: the template's original is stored and read back through
    // the paths templates and signing_flow check here.
    "form_import",
    "schemathesis",
    // Signing order, reminders and cancellation are rows in PostgreSQL and e-mails; the final
    // PDF of a completed document is stored through the paths signing_flow checks here.
    "sender_workflow",
    // The reminder throttle too: rows, e-mails and links.
    "reminder_throttle",
    // Templates share the original of the document they were made from: rows and e-mails, and
    // the file the sweep keeps is checked against the local store (uses sender_workflow's draft).
    "templates",
    // Prefilled values are rows; the final PDFs are stored and read back through the paths
    // signing_flow checks here.
    "template_prefill",
    // Kinds of field are rows and what the stamping draws; the final PDF is stored and read
    // back through the paths signing_flow checks here.
    "field_kinds",
    // The signing page's new kinds of field: what the browser draws and sends; the attachment's
    // store paths are checked here by attachments.
    "signing_page_kinds",
    // The page's PDF comes through the same download link the browser journey, which runs
    // here, already checks against a bucket.
    "signing_page",
    // Bulk sends are rows, jobs and e-mails; their documents share the template's original,
    // stored through the paths templates checks (and a thousand documents is not cheap).
    "bulk_sends",
    // The event feed is rows in PostgreSQL and webhook bodies; nothing of the store.
    "events",
    // Erasure rewrites rows in PostgreSQL; it removes no file (retention, here, does).
    "erasure",
    // The names of JSON properties: nothing of the store.
    "wire_naming",
    // Expiry at volume is rows in PostgreSQL: the audit trail, the outboxes and the events.
    "expiry",
    // The code gate is rows, cookies and e-mails or SMS; the certificate it adds a line to is
    // stored and read back through the paths signing_flow checks here.
    "signer_auth",
    // Embedded sessions reach the same signing flows through another key and path; an
    // attachment's and the final PDF's store paths are checked here by attachments and
    // signing_flow.
    "embedded_signing",
    // The operator's kit: rules, a dashboard and a collector config checked against what the
    // processes export, whatever their store.
    "operator_kit",
    // Read replicas and PgBouncer are about PostgreSQL connections; each test brings clusters
    // of its own, and what they serve is rows.
    "replicas",
    "pooler",
    // The docs' walkthroughs run in the world scripts/up.sh makes, whose files are in a
    // directory (`data/files`, as the README's operator commands expect); what they store is
    // read back through the paths files, templates and signing_flow check here.
    "walkthroughs",
    // The soak chooses its store itself: its own bucket behind a proxy its faults cut (in
    // `suite` too), or a directory with `scripts/soak.sh --store local`.
    "soak",
];

/// Every module of `suite` runs here too, unless it is left out on purpose above.
#[test]
fn every_module_of_the_suite_runs_against_a_bucket() {
    let root = env!("CARGO_MANIFEST_DIR");
    let suite = std::fs::read_to_string(format!("{root}/tests/suite/main.rs")).unwrap();
    let this = std::fs::read_to_string(format!("{root}/tests/suite_s3/main.rs")).unwrap();
    for module in suite
        .lines()
        .filter_map(|line| line.strip_prefix("mod "))
        .map(|rest| rest.trim_end_matches(';'))
    {
        assert!(
            LEFT_OUT.contains(&module) || this.contains(&format!("mod {module};")),
            "tests/suite/{module}.rs is not run against a bucket: add it to suite_s3/main.rs"
        );
    }
    assert!(signet_tests::s3_under_test());
}
