# Die SMS-Texte (common/src/delivery/sms_text.rs). Gerade Anführungszeichen, damit der Text
# GSM-7 bleibt; der Link steht am Ende.

sms-invitation = { $sender } bittet Sie, "{ $title }" zu unterschreiben: { $link }
sms-invitation-untitled = { $sender } bittet Sie, ein Dokument zu unterschreiben: { $link }
sms-declined = "{ $title }" von { $sender } wurde abgelehnt und wird nicht abgeschlossen. Ihr Link zum Unterschreiben funktioniert nicht mehr.
sms-declined-untitled = Ein Dokument von { $sender } wurde abgelehnt und wird nicht abgeschlossen. Ihr Link zum Unterschreiben funktioniert nicht mehr.
sms-expired = "{ $title }" von { $sender } ist abgelaufen, bevor alle unterschrieben haben. Ihr Link zum Unterschreiben funktioniert nicht mehr.
sms-expired-untitled = Ein Dokument von { $sender } ist abgelaufen, bevor alle unterschrieben haben. Ihr Link zum Unterschreiben funktioniert nicht mehr.
sms-code = { $code } ist Ihr Code, um das Dokument von { $sender } zu öffnen. Er gilt einmal, { $minutes } Minuten lang. Geben Sie ihn nicht weiter.
