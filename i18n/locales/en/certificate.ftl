# The certificate of completion appended to every final PDF (pdf/src/certificate.rs), in the
# document's language. Roles, statuses and audit events are the API's words in English.

cert-heading = Certificate of completion
cert-heading-continued = Certificate of completion (continued)
cert-footer = Signet certificate — page { $page } of { $pages }
cert-detail = { $label }: { $value }
cert-section-document = Document
cert-title = Title
cert-code = Code
cert-document-id = Document ID
cert-completed-at = Completed at
cert-original-sha256 = Original SHA-256
cert-stamped-sha256 = Stamped SHA-256
cert-stamped-note = The stamped SHA-256 is that of the signed document before these certificate pages were added, which is this file's first revision.
cert-seal-note = A PAdES seal by the operator of this Signet service covers the whole file: a PDF validator shows if it changed. It proves who issued the file, not who each signer is beyond what is recorded here.
cert-section-recipients = Recipients ({ $count })
cert-email = Email
cert-role = Role
cert-status = Status
cert-viewed-at = Viewed at
cert-signed-at = Signed at
cert-ip-address = IP address
cert-user-agent = User agent
cert-consent = Consent to electronic records: agreed { $time } from { $ip } ({ $agent })
cert-consent-text = Text agreed to
cert-section-audit = Audit trail ({ $count } events)
cert-role-signer = Signer
cert-role-viewer = Viewer (receives a copy; signs nothing)
cert-status-signer-pending = Has not opened the document
cert-status-signer-viewed = Opened the document; has not signed
cert-status-signer-signed = Signed
cert-status-signer-declined = Declined to sign
cert-status-viewer-pending = Has not opened the document
cert-status-viewer-viewed = Opened the document
cert-event-created = CREATED
cert-event-sent = SENT
cert-event-viewed = VIEWED
cert-event-signed = SIGNED
cert-event-declined = DECLINED
cert-event-completed = COMPLETED
cert-event-expired = EXPIRED
cert-event-updated = UPDATED
# Each field a recipient filled in, with its kind, its label if it has one, and the value as
# stamped on the document (a ticked box in words).
cert-fields = Fields filled in
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = Checked
cert-field-unchecked = Not checked
cert-kind-text = Text
cert-kind-checkbox = Checkbox
cert-kind-radio = Choice
cert-kind-dropdown = Drop-down list
cert-kind-number = Number
cert-kind-email = Email
cert-kind-name = Name
cert-kind-company = Company
cert-kind-attachment = Attachment
# Signer authentication (issue #34): the check a recipient passed before the document opened,
# and when; never the code. $method is one of cert-auth-*.
cert-identity = Identity checked
cert-identity-checked = { $method }, at { $time }
cert-auth-access_code = access code
cert-auth-email_otp = one-time code by e-mail
cert-auth-sms_otp = one-time code by SMS
