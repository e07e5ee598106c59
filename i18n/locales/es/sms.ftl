# Los SMS (common/src/delivery/sms_text.rs). Comillas rectas; el enlace cierra el texto.

sms-invitation = { $sender } le pide que firme "{ $title }": { $link }
sms-invitation-untitled = { $sender } le pide que firme un documento: { $link }
sms-declined = "{ $title }" de { $sender } fue rechazado, por lo que no se completará. Su enlace de firma ya no funciona.
sms-declined-untitled = Un documento de { $sender } fue rechazado, por lo que no se completará. Su enlace de firma ya no funciona.
sms-expired = "{ $title }" de { $sender } caducó antes de que todos firmaran. Su enlace de firma ya no funciona.
sms-expired-untitled = Un documento de { $sender } caducó antes de que todos firmaran. Su enlace de firma ya no funciona.
sms-code = { $code } es su código para abrir el documento que { $sender } le ha enviado. Sirve una sola vez durante { $minutes } minutos. No lo comparta.
