# The signing page (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = For { $name }
sign-from = From { $sender }
sign-languages = Language
sign-consent-heading = Before you sign
sign-consent-text = You are asked to sign this document electronically. By agreeing, you consent to receive it and sign it as an electronic record, and you accept that your electronic signature has the same effect as a handwritten one. You can ask the sender for a paper copy at no charge, and you can withdraw your consent before you sign by declining or closing this page. To view and sign you need a web browser; to keep a copy, download the PDF.
sign-consent-agree = I agree to use electronic records and signatures
sign-consent-continue = Continue
sign-consent-missing = Tick the box to agree before you continue.
sign-progress = { $total ->
    [one] { $done } of { $total } field completed
   *[other] { $done } of { $total } fields completed
}
sign-next-field = Next field
sign-submit = Sign
sign-field-signature = Signature
sign-field-initials = Initials
sign-field-text = Text
sign-field-date = Date
sign-kind-checkbox = Checkbox
sign-kind-radio = Choice
sign-kind-dropdown = Drop-down list
sign-kind-number = Number
sign-kind-email = Email
sign-kind-name = Name
sign-kind-company = Company
sign-kind-attachment = Attachment
sign-field-name = { $kind }, page { $page }
sign-field-to-fill = required, not filled in yet
sign-field-filled = filled in
sign-field-date-auto = set when you sign
sign-field-read-only = filled in by the sender; you cannot change it
sign-dialog-type = Type it
sign-dialog-draw = Or draw it with a finger, pen or mouse
sign-dialog-pad = Drawing area for your { $kind }
sign-dialog-clear = Clear the drawing
sign-dialog-text = Your text
sign-dialog-apply = Apply
sign-dialog-cancel = Cancel
sign-field-optional = { $field } (optional)
sign-field-optional-empty = optional, not filled in
sign-dialog-choose = Choose one
sign-dialog-file = Choose a file: PDF, PNG or JPEG, at most { $size } MiB
sign-dialog-uploading = Uploading the file…
sign-error-dialog-choose = Choose one first.
sign-error-dialog-file = Choose a file first.
sign-error-heading = Please check the following:
sign-error-empty = { $field }: not filled in yet. Tap the field on the page to fill it in.
sign-error-dialog-empty = Type something or draw in the box first.
sign-error-network = The connection failed. Check your network and try again.
sign-decline-heading = Decline to sign
sign-decline-reason = Reason (optional)
sign-decline-submit = Decline to sign
sign-decline-confirm = Decline to sign this document? You will not be able to sign it afterwards.
sign-download = Open or download the PDF
sign-valid-until = Link valid until { $time } (UTC)
sign-state-completed = This document is complete. The download below is the signed PDF with its certificate.
sign-state-all-signed = Thank you: everyone has now signed. The signed PDF with its certificate is being prepared and will be e-mailed to you.
sign-state-waiting = { $count ->
    [one] You have signed. One other signer has not signed yet; you will get an e-mail when everyone has signed.
   *[other] You have signed. { $count } other signers have not signed yet; you will get an e-mail when everyone has signed.
}
sign-state-you-declined = You declined to sign this document. The sender has been told.
sign-state-declined = This document was declined and can no longer be signed.
sign-state-expired = This document expired before everyone signed. It can no longer be signed.
sign-state-cancelled = The sender cancelled this document. It can no longer be signed.
sign-state-cancelled-reason = The sender cancelled this document, giving this reason: { $reason }. It can no longer be signed.
sign-state-viewer = You have been sent this document to view; there is nothing to sign.
sign-state-closed = This document can no longer be signed.
sign-not-found-title = Link not found
sign-not-found-heading = This signing link is not valid
sign-not-found-text = Check that you opened the whole link from your e-mail.
sign-pages-failed = This document's pages cannot be shown here. Ask the sender for a new copy before you sign.
# Embedded signing (issue #34): a session's page that cannot be used here.
sign-embed-used-heading = This signing link cannot be used again
sign-embed-used-text = It can be opened only once, and only for a few minutes. Go back to the page you came from to open the document again.
sign-embed-ended-heading = This signing session has ended
sign-embed-ended-text = It has expired, or this browser did not keep it. Go back to the page you came from to open the document again.

# Signer authentication (issue #34): the code form shown before anything of the document.
sign-auth-heading = Check your identity
sign-auth-access-code = This document is protected. Enter the access code the sender gave you.
sign-auth-email = This document is protected. We send a six-digit code to your e-mail address; enter it here.
sign-auth-sms = This document is protected. We send a six-digit code to your phone by SMS; enter it here.
sign-auth-code-label = Code
sign-auth-submit = Continue
sign-auth-resend = Send a new code
sign-auth-sent-email = A code is on its way to your e-mail address. It works for 10 minutes.
sign-auth-sent-sms = A code is on its way to your phone. It works for 10 minutes.
sign-auth-too-soon = A code was sent a moment ago. Wait a minute before asking for another.
sign-auth-wrong = That code is not right. Check it and try again; five wrong codes lock this link.
sign-auth-expired = This code no longer works. Ask for a new code.
sign-auth-empty = Enter the code.
sign-auth-locked = This link is locked after too many wrong codes. Contact the sender: they can unlock it.
