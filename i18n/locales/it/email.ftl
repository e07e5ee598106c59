# Le e-mail che Signet invia ai destinatari (worker/src/mail.rs).

email-greeting = Gentile { $name },
email-invitation-subject-sign = { $sender } le ha inviato «{ $title }» da firmare
email-invitation-subject-view = { $sender } le ha inviato «{ $title }» in visione
email-invitation-body-sign = { $sender } le ha inviato «{ $title }» da firmare.
email-invitation-body-view = { $sender } le ha inviato «{ $title }» in visione.
email-link-expires = Il link è valido fino al { $expiry } (UTC).
email-invitation-action-sign = Apri il documento per firmarlo
email-invitation-action-view = Apri il documento per visualizzarlo
email-completed-subject = «{ $title }» è completato
email-completed-body = Tutti hanno firmato «{ $title }». Il PDF firmato, con il relativo certificato di completamento, è pronto.
email-completed-action = Scarica il PDF firmato
email-declined-subject = «{ $title }» è stato rifiutato
email-declined-body = { $who } ha rifiutato di firmare «{ $title }», che quindi non verrà completato.
email-declined-someone = Un firmatario
email-declined-reason = Motivo: { $reason }
email-expired-subject = «{ $title }» è scaduto
email-expired-body = «{ $title }» è scaduto prima che tutti firmassero. I link per la firma non sono più validi.
email-cancelled-subject = «{ $title }» è stato annullato
email-cancelled-body = { $sender } ha annullato «{ $title }». I link per la firma non sono più validi.
email-cancelled-reason = Motivo: { $reason }
email-reminder-subject = Promemoria: { $sender } attende la sua firma su «{ $title }»
email-reminder-body = { $sender } le ha inviato «{ $title }» da firmare, e il documento è ancora in attesa della sua firma. Il link qui sotto lo apre; funzionano anche i link delle e-mail precedenti.
email-paste-link = Oppure incolli questo link nel browser: { $url }
email-document-code = Codice del documento: { $code }
email-sent-by = Inviato da Signet per conto di { $sender }
