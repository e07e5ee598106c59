# The SMS texts (common/src/delivery/sms_text.rs), in the recipient's language. Arguments are
# placed as they are: no isolation marks, no bidi marks. $sender and $title are sanitised and
# may be cut to fit fewer segments; $link is never cut and ends the invitation. Latin-script
# texts use straight quotes, so that a text whose words are all in the GSM 03.38 alphabet is
# sent as GSM-7 (160 chars a segment) rather than UCS-2 (70). Each text, with a title and
# sender cut to their minimums (12 and 8 chars) and a 73-char link, must fit two segments
# (a unit test checks it).

sms-invitation = { $sender } asks you to sign "{ $title }": { $link }
sms-invitation-untitled = { $sender } asks you to sign a document: { $link }
sms-declined = "{ $title }" from { $sender } was declined, so it will not be completed. Your signing link no longer works.
sms-declined-untitled = A document from { $sender } was declined, so it will not be completed. Your signing link no longer works.
sms-expired = "{ $title }" from { $sender } expired before everyone signed. Your signing link no longer works.
sms-expired-untitled = A document from { $sender } expired before everyone signed. Your signing link no longer works.
# The one-time code of a signing link that asks for one (SMS_OTP): nothing of the document.
# $minutes is how long the code works (10).
sms-code = { $code } is your code to open the document { $sender } sent you. It works once, for { $minutes } minutes. Do not share it.
