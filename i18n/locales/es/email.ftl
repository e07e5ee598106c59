# Los correos que Signet envía a los destinatarios (worker/src/mail.rs).

email-greeting = Hola, { $name }:
email-invitation-subject-sign = { $sender } le ha enviado «{ $title }» para firmar
email-invitation-subject-view = { $sender } le ha enviado «{ $title }» para consultar
email-invitation-body-sign = { $sender } le ha enviado «{ $title }» para que lo firme.
email-invitation-body-view = { $sender } le ha enviado «{ $title }» para que lo consulte.
email-link-expires = El enlace es válido hasta el { $expiry } (UTC).
email-invitation-action-sign = Abrir el documento para firmarlo
email-invitation-action-view = Abrir el documento para consultarlo
email-completed-subject = «{ $title }» se ha completado
email-completed-body = Todos han firmado «{ $title }». El PDF firmado, con su certificado de finalización, ya está disponible.
email-completed-action = Descargar el PDF firmado
email-declined-subject = «{ $title }» ha sido rechazado
email-declined-body = { $who } se ha negado a firmar «{ $title }», por lo que no se completará.
email-declined-someone = Un firmante
email-declined-reason = Motivo: { $reason }
email-expired-subject = «{ $title }» ha caducado
email-expired-body = «{ $title }» caducó antes de que todos firmaran. Sus enlaces de firma ya no funcionan.
email-cancelled-subject = «{ $title }» ha sido cancelado
email-cancelled-body = { $sender } ha cancelado «{ $title }». Sus enlaces de firma ya no funcionan.
email-cancelled-reason = Motivo: { $reason }
email-reminder-subject = Recordatorio: { $sender } espera su firma en «{ $title }»
email-reminder-body = { $sender } le envió «{ $title }» para firmar y todavía espera su firma. El enlace de abajo lo abre; los enlaces de correos anteriores también funcionan.
email-paste-link = O pegue este enlace en su navegador: { $url }
email-document-code = Código del documento: { $code }
email-sent-by = Enviado por Signet en nombre de { $sender }
