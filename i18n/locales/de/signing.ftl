# Die Seite zum Unterschreiben (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Für { $name }
sign-from = Von { $sender }
sign-languages = Sprache
sign-consent-heading = Bevor Sie unterschreiben
sign-consent-text = Sie werden gebeten, dieses Dokument elektronisch zu unterschreiben. Mit Ihrer Zustimmung willigen Sie ein, das Dokument als elektronisches Dokument zu erhalten und zu unterschreiben, und Sie erkennen an, dass Ihre elektronische Unterschrift dieselbe Wirkung hat wie eine handschriftliche Unterschrift. Sie können beim Absender kostenlos eine Papierkopie anfordern, und Sie können Ihre Zustimmung vor dem Unterschreiben widerrufen, indem Sie die Unterschrift ablehnen oder diese Seite schließen. Zum Ansehen und Unterschreiben benötigen Sie einen Webbrowser; um eine Kopie aufzubewahren, laden Sie das PDF herunter.
sign-consent-agree = Ich bin mit der Verwendung elektronischer Dokumente und Unterschriften einverstanden
sign-consent-continue = Weiter
sign-consent-missing = Bitte setzen Sie zuerst das Häkchen, um zuzustimmen.
sign-progress = { $total ->
    [one] { $done } von { $total } Feld ausgefüllt
   *[other] { $done } von { $total } Feldern ausgefüllt
}
sign-next-field = Nächstes Feld
sign-submit = Unterschreiben
sign-field-signature = Unterschrift
sign-field-initials = Initialen
sign-field-text = Text
sign-field-date = Datum
sign-kind-checkbox = Kontrollkästchen
sign-kind-radio = Auswahl
sign-kind-dropdown = Auswahlliste
sign-kind-number = Zahl
sign-kind-email = E-Mail
sign-kind-name = Name
sign-kind-company = Firma
sign-kind-attachment = Anhang
sign-field-name = { $kind }, Seite { $page }
sign-field-to-fill = Pflichtfeld, noch nicht ausgefüllt
sign-field-filled = ausgefüllt
sign-field-date-auto = wird beim Unterschreiben automatisch eingetragen
sign-field-read-only = vom Absender ausgefüllt, nicht änderbar
sign-dialog-type = Eintippen
sign-dialog-draw = Oder mit dem Finger, einem Stift oder der Maus zeichnen
sign-dialog-pad = Zeichenfläche: { $kind }
sign-dialog-clear = Zeichnung löschen
sign-dialog-text = Ihr Text
sign-dialog-apply = Übernehmen
sign-dialog-cancel = Abbrechen
sign-field-optional = { $field } (optional)
sign-field-optional-empty = optional, nicht ausgefüllt
sign-dialog-choose = Wählen Sie eine Option
sign-dialog-file = Wählen Sie eine Datei: PDF, PNG oder JPEG, höchstens { $size } MiB
sign-dialog-uploading = Die Datei wird hochgeladen …
sign-error-dialog-choose = Wählen Sie zuerst eine Option.
sign-error-dialog-file = Wählen Sie zuerst eine Datei.
sign-error-heading = Bitte prüfen Sie Folgendes:
sign-error-empty = { $field }: noch nicht ausgefüllt. Tippen Sie auf das Feld im Dokument, um es auszufüllen.
sign-error-dialog-empty = Bitte tippen Sie zuerst etwas ein oder zeichnen Sie in das Feld.
sign-error-network = Die Verbindung ist fehlgeschlagen. Bitte prüfen Sie Ihre Internetverbindung und versuchen Sie es erneut.
sign-decline-heading = Unterschrift ablehnen
sign-decline-reason = Grund (optional)
sign-decline-submit = Unterschrift ablehnen
sign-decline-confirm = Möchten Sie die Unterschrift für dieses Dokument wirklich ablehnen? Sie können es danach nicht mehr unterschreiben.
sign-download = PDF öffnen oder herunterladen
sign-valid-until = Link gültig bis { $time } (UTC)
sign-state-completed = Dieses Dokument ist abgeschlossen. Unten können Sie das unterschriebene PDF mit seinem Zertifikat herunterladen.
sign-state-all-signed = Vielen Dank: Jetzt haben alle unterschrieben. Das unterschriebene PDF mit Zertifikat wird gerade erstellt und Ihnen per E-Mail zugeschickt.
sign-state-waiting = { $count ->
    [one] Sie haben unterschrieben. Eine weitere Person hat noch nicht unterschrieben; Sie erhalten eine E-Mail, sobald alle unterschrieben haben.
   *[other] Sie haben unterschrieben. { $count } weitere Personen haben noch nicht unterschrieben; Sie erhalten eine E-Mail, sobald alle unterschrieben haben.
}
sign-state-you-declined = Sie haben die Unterschrift für dieses Dokument abgelehnt. Der Absender wurde benachrichtigt.
sign-state-declined = Die Unterschrift für dieses Dokument wurde abgelehnt. Es kann nicht mehr unterschrieben werden.
sign-state-expired = Dieses Dokument ist abgelaufen, bevor alle unterschrieben haben. Es kann nicht mehr unterschrieben werden.
sign-state-cancelled = Der Absender hat dieses Dokument zurückgezogen. Es kann nicht mehr unterschrieben werden.
sign-state-cancelled-reason = Der Absender hat dieses Dokument mit dieser Begründung zurückgezogen: { $reason }. Es kann nicht mehr unterschrieben werden.
sign-state-viewer = Dieses Dokument wurde Ihnen nur zur Ansicht geschickt; Sie müssen nichts unterschreiben.
sign-state-closed = Dieses Dokument kann nicht mehr unterschrieben werden.
sign-not-found-title = Link nicht gefunden
sign-not-found-heading = Dieser Link zum Unterschreiben ist ungültig
sign-not-found-text = Bitte prüfen Sie, ob Sie den vollständigen Link aus Ihrer E-Mail geöffnet haben.
sign-pages-failed = Die Seiten dieses Dokuments können hier nicht angezeigt werden. Bitten Sie den Absender um eine neue Kopie, bevor Sie unterschreiben.
sign-embed-used-heading = Dieser Link zum Unterschreiben kann nicht erneut verwendet werden
sign-embed-used-text = Er kann nur einmal und nur wenige Minuten lang geöffnet werden. Kehren Sie zur vorherigen Seite zurück, um das Dokument erneut zu öffnen.
sign-embed-ended-heading = Diese Sitzung zum Unterschreiben ist beendet
sign-embed-ended-text = Sie ist abgelaufen, oder dieser Browser hat sie nicht behalten. Kehren Sie zur vorherigen Seite zurück, um das Dokument erneut zu öffnen.

sign-auth-heading = Identität bestätigen
sign-auth-access-code = Dieses Dokument ist geschützt. Geben Sie den Zugangscode ein, den Ihnen der Absender gegeben hat.
sign-auth-email = Dieses Dokument ist geschützt. Wir senden einen sechsstelligen Code an Ihre E-Mail-Adresse; geben Sie ihn hier ein.
sign-auth-sms = Dieses Dokument ist geschützt. Wir senden einen sechsstelligen Code per SMS an Ihr Telefon; geben Sie ihn hier ein.
sign-auth-code-label = Code
sign-auth-submit = Weiter
sign-auth-resend = Neuen Code senden
sign-auth-sent-email = Ein Code ist an Ihre E-Mail-Adresse unterwegs. Er gilt 10 Minuten.
sign-auth-sent-sms = Ein Code ist an Ihr Telefon unterwegs. Er gilt 10 Minuten.
sign-auth-too-soon = Gerade wurde ein Code gesendet. Warten Sie eine Minute, bevor Sie einen weiteren anfordern.
sign-auth-wrong = Dieser Code stimmt nicht. Prüfen Sie ihn und versuchen Sie es erneut; fünf falsche Codes sperren diesen Link.
sign-auth-expired = Dieser Code gilt nicht mehr. Fordern Sie einen neuen Code an.
sign-auth-empty = Geben Sie den Code ein.
sign-auth-locked = Dieser Link ist nach zu vielen falschen Codes gesperrt. Wenden Sie sich an den Absender: Er kann ihn entsperren.
