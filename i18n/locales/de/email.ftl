# Die E-Mails, die Signet an Empfänger sendet (worker/src/mail.rs).

email-greeting = Guten Tag { $name },
email-invitation-subject-sign = { $sender } hat Ihnen „{ $title }“ zum Unterschreiben gesendet
email-invitation-subject-view = { $sender } hat Ihnen „{ $title }“ zur Ansicht gesendet
email-invitation-body-sign = { $sender } hat Ihnen „{ $title }“ zum Unterschreiben gesendet.
email-invitation-body-view = { $sender } hat Ihnen „{ $title }“ zur Ansicht gesendet.
email-link-expires = Der Link ist bis { $expiry } (UTC) gültig.
email-invitation-action-sign = Dokument öffnen und unterschreiben
email-invitation-action-view = Dokument öffnen und ansehen
email-completed-subject = „{ $title }“ ist abgeschlossen
email-completed-body = Alle haben „{ $title }“ unterschrieben. Das unterschriebene PDF mit dem Abschlusszertifikat steht bereit.
email-completed-action = Unterschriebenes PDF herunterladen
email-declined-subject = „{ $title }“ wurde abgelehnt
email-declined-body = { $who } hat es abgelehnt, „{ $title }“ zu unterschreiben. Das Dokument wird daher nicht abgeschlossen.
email-declined-someone = Eine unterzeichnende Person
email-declined-reason = Grund: { $reason }
email-expired-subject = „{ $title }“ ist abgelaufen
email-expired-body = „{ $title }“ ist abgelaufen, bevor alle unterschrieben haben. Die Links zum Unterschreiben funktionieren nicht mehr.
email-cancelled-subject = „{ $title }“ wurde zurückgezogen
email-cancelled-body = { $sender } hat „{ $title }“ zurückgezogen. Die Links zum Unterschreiben funktionieren nicht mehr.
email-cancelled-reason = Grund: { $reason }
email-reminder-subject = Erinnerung: { $sender } wartet auf Ihre Unterschrift unter „{ $title }“
email-reminder-body = { $sender } hat Ihnen „{ $title }“ zum Unterschreiben gesendet, und Ihre Unterschrift fehlt noch. Der Link unten öffnet das Dokument; die Links aus früheren E-Mails funktionieren ebenfalls.
email-paste-link = Oder kopieren Sie diesen Link in Ihren Browser: { $url }
email-document-code = Dokumentcode: { $code }
email-sent-by = Gesendet von Signet im Auftrag von { $sender }
