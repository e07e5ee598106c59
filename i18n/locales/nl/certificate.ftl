# Het voltooiingscertificaat dat aan elke definitieve pdf wordt toegevoegd (pdf/src/certificate.rs).

cert-heading = Voltooiingscertificaat
cert-heading-continued = Voltooiingscertificaat (vervolg)
cert-footer = Signet-certificaat — pagina { $page } van { $pages }
cert-detail = { $label }: { $value }
cert-section-document = Document
cert-title = Titel
cert-code = Code
cert-document-id = Document-ID
cert-completed-at = Voltooid op
cert-original-sha256 = SHA-256 van het origineel
cert-stamped-sha256 = SHA-256 na invullen
cert-stamped-note = De SHA-256 na invullen is die van het ondertekende document voordat deze certificaatpagina’s werden toegevoegd, dus van de eerste revisie van dit bestand.
cert-seal-note = Een PAdES-zegel van de beheerder van deze Signet-dienst dekt het hele bestand: elke pdf-validator laat zien of het is gewijzigd. Het zegel bewijst wie het bestand heeft uitgegeven, niet wie elke ondertekenaar is, afgezien van wat hier is vastgelegd.
cert-section-recipients = Ontvangers ({ $count })
cert-email = E-mail
cert-role = Rol
cert-status = Status
cert-viewed-at = Bekeken op
cert-signed-at = Ondertekend op
cert-ip-address = IP-adres
cert-user-agent = User-agent
cert-consent = Toestemming voor elektronische documenten: gegeven op { $time } vanaf { $ip } ({ $agent })
cert-consent-text = Tekst waarmee is ingestemd
cert-section-audit = { $count ->
    [one] Audittrail ({ $count } gebeurtenis)
   *[other] Audittrail ({ $count } gebeurtenissen)
}
cert-role-signer = Ondertekenaar
cert-role-viewer = Lezer (ontvangt een kopie; ondertekent niets)
cert-status-signer-pending = Heeft het document niet geopend
cert-status-signer-viewed = Heeft het document geopend; heeft niet ondertekend
cert-status-signer-signed = Heeft ondertekend
cert-status-signer-declined = Heeft ondertekening geweigerd
cert-status-viewer-pending = Heeft het document niet geopend
cert-status-viewer-viewed = Heeft het document geopend
cert-event-created = AANGEMAAKT
cert-event-sent = VERZONDEN
cert-event-viewed = BEKEKEN
cert-event-signed = ONDERTEKEND
cert-event-declined = GEWEIGERD
cert-event-completed = VOLTOOID
cert-event-expired = VERLOPEN
cert-event-updated = GEWIJZIGD
# Elk veld dat een ontvanger heeft ingevuld, met het soort veld, het label als het er een heeft
# en de waarde zoals die op het document staat (een aangevinkt vakje in woorden).
cert-fields = Ingevulde velden
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = Aangevinkt
cert-field-unchecked = Niet aangevinkt
cert-kind-text = Tekst
cert-kind-checkbox = Selectievakje
cert-kind-radio = Keuze
cert-kind-dropdown = Keuzelijst
cert-kind-number = Getal
cert-kind-email = E-mail
cert-kind-name = Naam
cert-kind-company = Bedrijf
cert-kind-attachment = Bijlage
