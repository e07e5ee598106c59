# Il certificato di completamento aggiunto a ogni PDF finale (pdf/src/certificate.rs).

cert-heading = Certificato di completamento
cert-heading-continued = Certificato di completamento (segue)
cert-footer = Certificato Signet — pagina { $page } di { $pages }
cert-detail = { $label }: { $value }
cert-section-document = Documento
cert-title = Titolo
cert-code = Codice
cert-document-id = ID del documento
cert-completed-at = Completato il
cert-original-sha256 = SHA-256 dell’originale
cert-stamped-sha256 = SHA-256 dopo l’apposizione dei valori
cert-stamped-note = Lo SHA-256 dopo l’apposizione dei valori è quello del documento firmato prima dell’aggiunta di queste pagine del certificato, cioè della prima revisione di questo file.
cert-seal-note = Un sigillo PAdES del gestore di questo servizio Signet copre l’intero file: qualsiasi validatore PDF mostra se è stato modificato. Il sigillo attesta chi ha emesso il file, non l’identità di ciascun firmatario oltre a quanto registrato qui.
cert-section-recipients = Destinatari ({ $count })
cert-email = E-mail
cert-role = Ruolo
cert-status = Stato
cert-viewed-at = Visualizzato il
cert-signed-at = Firmato il
cert-ip-address = Indirizzo IP
cert-user-agent = User agent
cert-consent = Consenso ai documenti elettronici: prestato il { $time } da { $ip } ({ $agent })
cert-consent-text = Testo accettato
cert-section-audit = { $count ->
    [one] Registro di controllo ({ $count } evento)
   *[other] Registro di controllo ({ $count } eventi)
}
cert-role-signer = Firmatario
cert-role-viewer = Destinatario in copia (riceve una copia; non firma)
cert-status-signer-pending = Non ha aperto il documento
cert-status-signer-viewed = Ha aperto il documento; non ha firmato
cert-status-signer-signed = Ha firmato
cert-status-signer-declined = Ha rifiutato di firmare
cert-status-viewer-pending = Non ha aperto il documento
cert-status-viewer-viewed = Ha aperto il documento
cert-event-created = CREATO
cert-event-sent = INVIATO
cert-event-viewed = VISUALIZZATO
cert-event-signed = FIRMATO
cert-event-declined = RIFIUTATO
cert-event-completed = COMPLETATO
cert-event-expired = SCADUTO
cert-event-updated = MODIFICATO
# Ogni campo compilato da un destinatario, con il tipo, l’etichetta se presente e il valore
# come apposto sul documento (una casella spuntata in parole).
cert-fields = Campi compilati
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = Selezionata
cert-field-unchecked = Non selezionata
cert-kind-text = Testo
cert-kind-checkbox = Casella di controllo
cert-kind-radio = Scelta
cert-kind-dropdown = Elenco a discesa
cert-kind-number = Numero
cert-kind-email = E-mail
cert-kind-name = Nome
cert-kind-company = Società
cert-kind-attachment = Allegato
