# La pagina di firma (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Per { $name }
sign-from = Da { $sender }
sign-languages = Lingua
sign-consent-heading = Prima di firmare
sign-consent-text = Le viene chiesto di firmare questo documento in forma elettronica. Accettando, acconsente a riceverlo e a firmarlo come documento informatico e riconosce che la sua firma elettronica ha lo stesso effetto di una firma autografa. Può chiedere al mittente una copia cartacea senza alcun costo e può revocare il consenso prima di firmare, rifiutando la firma o chiudendo questa pagina. Per visualizzare e firmare è necessario un browser web; per conservarne una copia, scarichi il PDF.
sign-consent-agree = Accetto l’uso di documenti e firme elettronici
sign-consent-continue = Continua
sign-consent-missing = Per continuare, selezioni la casella per accettare.
sign-progress = { $total ->
    [one] { $done } di { $total } campo compilato
   *[other] { $done } di { $total } campi compilati
}
sign-next-field = Campo successivo
sign-submit = Firma
sign-field-signature = Firma
sign-field-initials = Iniziali
sign-field-text = Testo
sign-field-date = Data
sign-kind-checkbox = Casella di controllo
sign-kind-radio = Scelta
sign-kind-dropdown = Elenco a discesa
sign-kind-number = Numero
sign-kind-email = E-mail
sign-kind-name = Nome
sign-kind-company = Società
sign-kind-attachment = Allegato
sign-field-name = { $kind }, pagina { $page }
sign-field-to-fill = obbligatorio, non ancora compilato
sign-field-filled = compilato
sign-field-date-auto = inserita automaticamente al momento della firma
sign-field-read-only = compilato dal mittente; non può essere modificato
sign-dialog-type = Scriva con la tastiera
sign-dialog-draw = Oppure disegni con il dito, una penna o il mouse
sign-dialog-pad = Area di disegno: { $kind }
sign-dialog-clear = Cancella il disegno
sign-dialog-text = Il suo testo
sign-dialog-apply = Applica
sign-dialog-cancel = Annulla
sign-field-optional = { $field } (facoltativo)
sign-field-optional-empty = facoltativo, non compilato
sign-dialog-choose = Scelga un’opzione
sign-dialog-file = Scelga un file: PDF, PNG o JPEG, al massimo { $size } MiB
sign-dialog-uploading = Caricamento del file in corso…
sign-error-dialog-choose = Scelga prima un’opzione.
sign-error-dialog-file = Scelga prima un file.
sign-error-heading = Verifichi quanto segue:
sign-error-empty = { $field }: non ancora compilato. Tocchi il campo nella pagina per compilarlo.
sign-error-dialog-empty = Scriva qualcosa o disegni nel riquadro.
sign-error-network = Connessione non riuscita. Controlli la rete e riprovi.
sign-decline-heading = Rifiuta la firma
sign-decline-reason = Motivo (facoltativo)
sign-decline-submit = Rifiuta la firma
sign-decline-confirm = Rifiutare la firma di questo documento? Dopo non potrà più firmarlo.
sign-download = Apri o scarica il PDF
sign-valid-until = Link valido fino al { $time } (UTC)
sign-state-completed = Questo documento è completato. Il file scaricabile qui sotto è il PDF firmato con il relativo certificato.
sign-state-all-signed = Grazie: ora tutti hanno firmato. Il PDF firmato con il relativo certificato è in preparazione e le verrà inviato per e-mail.
sign-state-waiting = { $count ->
    [one] Ha firmato. Un altro firmatario non ha ancora firmato; riceverà un’e-mail quando tutti avranno firmato.
   *[other] Ha firmato. Altri { $count } firmatari non hanno ancora firmato; riceverà un’e-mail quando tutti avranno firmato.
}
sign-state-you-declined = Ha rifiutato di firmare questo documento. Il mittente è stato informato.
sign-state-declined = La firma di questo documento è stata rifiutata; non può più essere firmato.
sign-state-expired = Questo documento è scaduto prima che tutti firmassero. Non può più essere firmato.
sign-state-cancelled = Il mittente ha annullato questo documento. Non può più essere firmato.
sign-state-cancelled-reason = Il mittente ha annullato questo documento con questa motivazione: { $reason }. Non può più essere firmato.
sign-state-viewer = Questo documento le è stato inviato in visione; non c’è nulla da firmare.
sign-state-closed = Questo documento non può più essere firmato.
sign-not-found-title = Link non trovato
sign-not-found-heading = Questo link di firma non è valido
sign-not-found-text = Verifichi di aver aperto il link completo contenuto nell’e-mail.
sign-pages-failed = Non è possibile mostrare qui le pagine di questo documento. Prima di firmare, chieda al mittente una nuova copia.

sign-auth-heading = Verifichi la sua identità
sign-auth-access-code = Questo documento è protetto. Inserisca il codice di accesso che le ha fornito il mittente.
sign-auth-email = Questo documento è protetto. Le inviamo un codice di sei cifre al suo indirizzo e-mail; lo inserisca qui.
sign-auth-sms = Questo documento è protetto. Le inviamo un codice di sei cifre via SMS al suo telefono; lo inserisca qui.
sign-auth-code-label = Codice
sign-auth-submit = Continua
sign-auth-resend = Invia un nuovo codice
sign-auth-sent-email = Un codice è in arrivo al suo indirizzo e-mail. È valido per 10 minuti.
sign-auth-sent-sms = Un codice è in arrivo sul suo telefono. È valido per 10 minuti.
sign-auth-too-soon = Un codice è appena stato inviato. Attenda un minuto prima di richiederne un altro.
sign-auth-wrong = Il codice non è corretto. Lo controlli e riprovi; cinque codici errati bloccano questo link.
sign-auth-expired = Questo codice non è più valido. Ne richieda uno nuovo.
sign-auth-empty = Inserisca il codice.
sign-auth-locked = Questo link è stato bloccato dopo troppi codici errati. Contatti il mittente: può sbloccarlo.
sign-embed-used-heading = Questo link di firma non può essere usato di nuovo
sign-embed-used-text = Si può aprire una sola volta e solo per pochi minuti. Torna alla pagina da cui sei arrivato per aprire di nuovo il documento.
sign-embed-ended-heading = Questa sessione di firma è terminata
sign-embed-ended-text = È scaduta, oppure questo browser non l’ha conservata. Torna alla pagina da cui sei arrivato per aprire di nuovo il documento.
