# De ondertekenpagina (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Voor { $name }
sign-from = Van { $sender }
sign-languages = Taal
sign-consent-heading = Voordat u ondertekent
sign-consent-text = U wordt gevraagd dit document elektronisch te ondertekenen. Door akkoord te gaan, stemt u ermee in het als elektronisch document te ontvangen en te ondertekenen, en erkent u dat uw elektronische handtekening hetzelfde rechtsgevolg heeft als een handgeschreven handtekening. U kunt de afzender kosteloos om een papieren exemplaar vragen, en u kunt uw toestemming vóór het ondertekenen intrekken door de ondertekening te weigeren of deze pagina te sluiten. Om het document te bekijken en te ondertekenen hebt u een webbrowser nodig; download de pdf om een exemplaar te bewaren.
sign-consent-agree = Ik ga akkoord met het gebruik van elektronische documenten en handtekeningen
sign-consent-continue = Doorgaan
sign-consent-missing = Vink het vakje aan om akkoord te gaan voordat u doorgaat.
sign-progress = { $total ->
    [one] { $done } van { $total } veld ingevuld
   *[other] { $done } van { $total } velden ingevuld
}
sign-next-field = Volgend veld
sign-submit = Ondertekenen
sign-field-signature = Handtekening
sign-field-initials = Paraaf
sign-field-text = Tekst
sign-field-date = Datum
sign-kind-checkbox = Selectievakje
sign-kind-radio = Keuze
sign-kind-dropdown = Keuzelijst
sign-kind-number = Getal
sign-kind-email = E-mail
sign-kind-name = Naam
sign-kind-company = Bedrijf
sign-kind-attachment = Bijlage
sign-field-name = { $kind }, pagina { $page }
sign-field-to-fill = verplicht, nog niet ingevuld
sign-field-filled = ingevuld
sign-field-date-auto = wordt ingevuld wanneer u ondertekent
sign-field-read-only = ingevuld door de afzender; u kunt dit niet wijzigen
sign-dialog-type = Typen
sign-dialog-draw = Of teken met uw vinger, een pen of de muis
sign-dialog-pad = Tekenvlak: { $kind }
sign-dialog-clear = Tekening wissen
sign-dialog-text = Uw tekst
sign-dialog-apply = Toepassen
sign-dialog-cancel = Annuleren
sign-field-optional = { $field } (optioneel)
sign-field-optional-empty = optioneel, niet ingevuld
sign-dialog-choose = Kies een optie
sign-dialog-file = Kies een bestand: pdf, PNG of JPEG, maximaal { $size } MiB
sign-dialog-uploading = Het bestand wordt geüpload…
sign-error-dialog-choose = Kies eerst een optie.
sign-error-dialog-file = Kies eerst een bestand.
sign-error-heading = Controleer het volgende:
sign-error-empty = { $field }: nog niet ingevuld. Tik op het veld op de pagina om het in te vullen.
sign-error-dialog-empty = Typ eerst iets of teken in het vak.
sign-error-network = De verbinding is mislukt. Controleer uw netwerk en probeer het opnieuw.
sign-decline-heading = Ondertekening weigeren
sign-decline-reason = Reden (optioneel)
sign-decline-submit = Ondertekening weigeren
sign-decline-confirm = Wilt u de ondertekening van dit document weigeren? U kunt het daarna niet meer ondertekenen.
sign-download = De pdf openen of downloaden
sign-valid-until = Link geldig tot { $time } (UTC)
sign-state-completed = Dit document is voltooid. Hieronder kunt u de ondertekende pdf met het certificaat downloaden.
sign-state-all-signed = Dank u: iedereen heeft nu ondertekend. De ondertekende pdf met het certificaat wordt klaargemaakt en naar u gemaild.
sign-state-waiting = { $count ->
    [one] U hebt ondertekend. Eén andere ondertekenaar heeft nog niet ondertekend; u ontvangt een e-mail zodra iedereen heeft ondertekend.
   *[other] U hebt ondertekend. { $count } andere ondertekenaars hebben nog niet ondertekend; u ontvangt een e-mail zodra iedereen heeft ondertekend.
}
sign-state-you-declined = U hebt geweigerd dit document te ondertekenen. De afzender is op de hoogte gebracht.
sign-state-declined = De ondertekening van dit document is geweigerd; het kan niet meer worden ondertekend.
sign-state-expired = Dit document is verlopen voordat iedereen had ondertekend. Het kan niet meer worden ondertekend.
sign-state-cancelled = De afzender heeft dit document ingetrokken. Het kan niet meer worden ondertekend.
sign-state-cancelled-reason = De afzender heeft dit document ingetrokken, met deze reden: { $reason }. Het kan niet meer worden ondertekend.
sign-state-viewer = Dit document is u ter inzage gestuurd; u hoeft niets te ondertekenen.
sign-state-closed = Dit document kan niet meer worden ondertekend.
sign-not-found-title = Link niet gevonden
sign-not-found-heading = Deze ondertekeningslink is niet geldig
sign-not-found-text = Controleer of u de volledige link uit uw e-mail hebt geopend.
sign-pages-failed = De pagina’s van dit document kunnen hier niet worden weergegeven. Vraag de afzender om een nieuw exemplaar voordat u ondertekent.

sign-auth-heading = Uw identiteit bevestigen
sign-auth-access-code = Dit document is beveiligd. Voer de toegangscode in die u van de afzender hebt gekregen.
sign-auth-email = Dit document is beveiligd. We sturen een code van zes cijfers naar uw e-mailadres; voer die hier in.
sign-auth-sms = Dit document is beveiligd. We sturen een code van zes cijfers per sms naar uw telefoon; voer die hier in.
sign-auth-code-label = Code
sign-auth-submit = Doorgaan
sign-auth-resend = Nieuwe code sturen
sign-auth-sent-email = Er is een code onderweg naar uw e-mailadres. Die werkt 10 minuten.
sign-auth-sent-sms = Er is een code onderweg naar uw telefoon. Die werkt 10 minuten.
sign-auth-too-soon = Er is zojuist een code verstuurd. Wacht een minuut voordat u een nieuwe aanvraagt.
sign-auth-wrong = Deze code klopt niet. Controleer hem en probeer het opnieuw; na vijf verkeerde codes wordt deze link geblokkeerd.
sign-auth-expired = Deze code werkt niet meer. Vraag een nieuwe code aan.
sign-auth-empty = Voer de code in.
sign-auth-locked = Deze link is geblokkeerd na te veel verkeerde codes. Neem contact op met de afzender: die kan de link weer vrijgeven.
sign-embed-used-heading = Deze ondertekeningslink kan niet opnieuw worden gebruikt
sign-embed-used-text = Hij kan maar één keer worden geopend, en maar een paar minuten. Ga terug naar de pagina waar u vandaan kwam om het document opnieuw te openen.
sign-embed-ended-heading = Deze ondertekeningssessie is beëindigd
sign-embed-ended-text = Ze is verlopen, of deze browser heeft ze niet bewaard. Ga terug naar de pagina waar u vandaan kwam om het document opnieuw te openen.
