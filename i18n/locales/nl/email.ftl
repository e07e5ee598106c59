# De e-mails die Signet aan ontvangers stuurt (worker/src/mail.rs).

email-greeting = Beste { $name },
email-invitation-subject-sign = { $sender } heeft u ‘{ $title }’ gestuurd om te ondertekenen
email-invitation-subject-view = { $sender } heeft u ‘{ $title }’ gestuurd om in te zien
email-invitation-body-sign = { $sender } heeft u ‘{ $title }’ gestuurd om te ondertekenen.
email-invitation-body-view = { $sender } heeft u ‘{ $title }’ gestuurd om in te zien.
email-link-expires = De link werkt tot { $expiry } (UTC).
email-invitation-action-sign = Open het document om te ondertekenen
email-invitation-action-view = Open het document om het in te zien
email-completed-subject = ‘{ $title }’ is voltooid
email-completed-body = Iedereen heeft ‘{ $title }’ ondertekend. De ondertekende pdf, met het voltooiingscertificaat, staat klaar.
email-completed-action = Download de ondertekende pdf
email-declined-subject = ‘{ $title }’ is geweigerd
email-declined-body = { $who } heeft geweigerd ‘{ $title }’ te ondertekenen; het document wordt daarom niet voltooid.
email-declined-someone = Een ondertekenaar
email-declined-reason = Reden: { $reason }
email-expired-subject = ‘{ $title }’ is verlopen
email-expired-body = ‘{ $title }’ is verlopen voordat iedereen had ondertekend. De ondertekeningslinks werken niet meer.
email-cancelled-subject = ‘{ $title }’ is ingetrokken
email-cancelled-body = { $sender } heeft ‘{ $title }’ ingetrokken. De ondertekeningslinks werken niet meer.
email-cancelled-reason = Reden: { $reason }
email-reminder-subject = Herinnering: { $sender } wacht op uw handtekening onder ‘{ $title }’
email-reminder-body = { $sender } heeft u ‘{ $title }’ gestuurd om te ondertekenen, en uw handtekening ontbreekt nog. Met de link hieronder opent u het document; de links in eerdere e-mails werken ook.
email-paste-link = Of plak deze link in uw browser: { $url }
email-document-code = Documentcode: { $code }
email-sent-by = Verzonden door Signet namens { $sender }
