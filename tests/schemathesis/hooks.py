"""Schemathesis extensions for the contract test (tests/tests/suite/schemathesis.rs).

Nothing here changes a request or forgives an answer: schemathesis sends what it generates,
Idempotency-Keys included. One check is added, and it is stricter than the built-in
`positive_data_acceptance` it works with: a schema-valid request may be refused with 400 only for a rule no JSON Schema can state
(the document's state, what is already on it, a phone number's numbering plan). The built-in
check is told to accept 400 (schemathesis.toml); this one then fails every other 400 of valid
data, so a bound the server enforces and the document does not state is still found.
"""

import re

import schemathesis

# The contract's refusals of a well-formed request, decided by the document it names.
STATE_RULES = re.compile(
    r"^(Document is not in DRAFT status"
    r"|Recipient with this email already exists"
    r"|Recipient not found for email: .*"
    r"|Page \d+ is out of range \(document has \d+ pages\)"
    r"|Field is outside the bounds of page \d+"
    r"|Document has no recipients"
    r"|Every recipient must have at least one field"
    r"|expiryDate must be in the future"
    r"|Document is [A-Z]+; only DRAFT or SENT documents can be cancelled"
    r"|Document is [A-Z]+; only SENT documents have signers to remind"
    # Signer authentication (issue #34): unlocking a recipient whose link asks for no code.
    r"|This signing link asks for no code)$",
    re.S,
)

# Reasons, in a validation 400's `errors`, that depend on more than the value's shape: those of
# the values, and (listed with them, as every problem is answered at once) those of the rules
# of the document.
BEYOND_SCHEMA = re.compile(
    r"^(not a known dialling prefix"
    r"|not a valid phone number for \+\d+"
    r"|a document has at most \d+ (recipients|fields)"
    r"|required: this server sends no reminders unless a document asks for them"
    r"|.+ is already a recipient of this document"
    r"|.+ is given more than once in this request \(also \[\d+\]\.email\)"
    r"|Recipient not found for email: .*"
    r"|Page -?\d+ is out of range \(document has \d+ pages\)"
    r"|Field is outside the bounds of page -?\d+"
    r"|the document has none: add at least one"
    r"|.+ has no field"
    r"|must be in the future"
    # Templates (issue #32): a PDF body's contents, and what a template holds.
    r"|the file .+"
    r"|the PDF .+"
    r"|the template has no roles: .+"
    r"|the template's role .+ has no field"
    r"|.+ is the name of an earlier role: role names are unique"
    r"|.+ is also the label of .+: labels are unique in the template"
    r"|a label has only letters, digits, _, -, \. and spaces"
    r"|a template has at most \d+ fields"
    # Kinds of field (issue #33, docs/fields.md): which properties a kind takes, how they
    # agree with each other, and a value by its kind's rule (all depend on `type`); a label's
    # letters are Unicode's, which JSON Schema tools' patterns do not agree on.
    r"|only a [A-Za-z, ]+ field takes \w+, not a [A-Z]+ field"
    r"|required: a [A-Z]+ field's signer picks one of its options"
    r"|.+ is given twice: options are distinct"
    # Signer authentication (issue #34): which properties a method takes, and SMS_OTP's number.
    r"|required: an ACCESS_CODE recipient is given the code to type"
    r"|only an ACCESS_CODE recipient takes an access code, not [A-Z_]+"
    r"|SMS_OTP needs the recipient's countryCode and phoneNumber"
    r"|must be at least min"
    r"|not a regular expression \(Rust regex syntax\)"
    r"|the pattern is too large"
    r"|a read-only field needs a value: it is stamped as given"
    r"|a label has 1 to \d+ characters: letters, digits, _, -, \. and spaces"
    r"|a label may not begin with - \(a spreadsheet would take the CSV header's cell for a formula\)"
    r"|.+ is also the label of .+: labels are unique in the (document|template)"
    r"|.+ is the label of another field of the document: labels are unique in the document"
    r"|at most \d+ characters"
    r"|does not match the field's pattern .+"
    r"|not a valid e-mail address"
    r"|internationalised \(non-ASCII\) e-mail addresses are not supported: .+"
    r"|must not contain invisible or direction-changing characters .+"
    r"|expected true \(ticked\) or false"
    r"|not one of the field's options \(.*\)"
    r"|not a number.*"
    r"|must be a whole number"
    r"|at most \d+ digits after the decimal point"
    r"|must be (from|at least|at most) .+"
    # Anchors and text tags (issue #33): what the PDF's text holds.
    r"|\".*\" is not in the PDF's text"
    r"|\".*\" is in the PDF's text \d+ times, not \d+"
    r"|.+ on page \d+: .+"
    # Embedded signing (issue #34): the account's allowed origins, whether an http origin's host
    # is a loopback one, and whether a host is valid (IDNA, IPv4 ranges) or a URL parses.
    r"|must use https \(http only for a loopback host\)"
    r"|given more than once"
    r"|not a valid host name, IP address or port"
    r"|not a valid URL"
    r"|(its origin .+ is )?not one of the account's allowed origins \(PUT /account/embedding\)"
    r"|must be on parentOrigin .+)$",
    re.S,
)

# The event feed's `after`: its pattern is a cursor's shape only; a string of it that the feed
# did not sign for the account (a MAC no pattern can state, docs/api.md "Event feed") is refused
# with the route's documented 400.
NOT_A_CURSOR = [{"field": "after", "reason": "must be a cursor this feed returned"}]


@schemathesis.check
def valid_data_is_refused_only_for_rules_beyond_the_schema(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code == 422:
        message = response.json().get("message")
        if message != "This Idempotency-Key was used for a different request":
            raise AssertionError(f"A schema-valid request was refused with 422: {message}")
        return None
    if response.status_code != 400:
        return None
    body = response.json()
    message = body.get("message", "")
    if STATE_RULES.match(message):
        return None
    if message == "Invalid query parameter: after" and body.get("errors") == NOT_A_CURSOR:
        return None
    reasons = [problem.get("reason", "") for problem in body.get("errors") or []]
    if (
        message == "Invalid request body or validation error"
        and reasons
        and all(BEYOND_SCHEMA.match(reason) for reason in reasons)
    ):
        return None
    raise AssertionError(
        f"A schema-valid request was refused for a rule the OpenAPI document does not state: "
        f"{message} {body.get('errors')}"
    )

