# The e-mails Signet sends to recipients (worker/src/mail.rs). Arguments are plain text, placed
# by the worker: isolated (Unicode FSI … PDI) in the text part and subject wherever they could
# reorder the sentence, escaped inside a <bdi> in the HTML part (signet_i18n::bidi). Do not add
# isolation marks here. Times are RFC 3339 in UTC.

email-greeting = Hello { $name },
email-invitation-subject-sign = { $sender } sent you "{ $title }" to sign
email-invitation-subject-view = { $sender } sent you "{ $title }" to view
email-invitation-body-sign = { $sender } has sent you "{ $title }" to sign.
email-invitation-body-view = { $sender } has sent you "{ $title }" to view.
email-link-expires = The link works until { $expiry } (UTC).
email-invitation-action-sign = Open the document to sign
email-invitation-action-view = Open the document to view
email-completed-subject = "{ $title }" is complete
email-completed-body = Everyone has signed "{ $title }". The signed PDF, with its certificate of completion, is ready.
email-completed-action = Download the signed PDF
email-declined-subject = "{ $title }" was declined
# $who is the e-mail address of the signer who declined, or email-declined-someone.
email-declined-body = { $who } declined to sign "{ $title }", so it will not be completed.
email-declined-someone = A signer
email-declined-reason = Reason: { $reason }
email-expired-subject = "{ $title }" has expired
email-expired-body = "{ $title }" expired before everyone signed. Its signing links no longer work.
email-cancelled-subject = "{ $title }" was cancelled
email-cancelled-body = { $sender } cancelled "{ $title }". Its signing links no longer work.
email-cancelled-reason = Reason: { $reason }
email-reminder-subject = Reminder: { $sender } is waiting for you to sign "{ $title }"
email-reminder-body = { $sender } sent you "{ $title }" to sign, and it is still waiting for your signature. The link below opens it; links in earlier e-mails work too.
email-paste-link = Or paste this link into your browser: { $url }
email-document-code = Document code: { $code }
email-sent-by = Sent by Signet on behalf of { $sender }

# A one-time code (signer authentication, EMAIL_OTP): nothing of the document but who sent it.
email-code-subject = Your Signet code: { $code }
email-code-body = { $sender } sent you a document that asks for a code before it opens. Type this code on the page you opened:
email-code-line = { $code }
email-code-expires = The code works once, for { $minutes } minutes.
email-code-ignore = If you did not ask for it, ignore this e-mail: nobody can open the document without the code.
