# Certyfikat ukończenia dołączany do każdego końcowego pliku PDF (pdf/src/certificate.rs).

cert-heading = Certyfikat ukończenia
cert-heading-continued = Certyfikat ukończenia (ciąg dalszy)
cert-footer = Certyfikat Signet — strona { $page } z { $pages }
cert-detail = { $label }: { $value }
cert-section-document = Dokument
cert-title = Tytuł
cert-code = Kod
cert-document-id = Identyfikator dokumentu
cert-completed-at = Data ukończenia
cert-original-sha256 = SHA-256 oryginału
cert-stamped-sha256 = SHA-256 po wypełnieniu pól
cert-stamped-note = SHA-256 po wypełnieniu pól to skrót podpisanego dokumentu sprzed dołączenia tych stron certyfikatu, czyli pierwszej wersji tego pliku.
cert-seal-note = Pieczęć PAdES operatora tej usługi Signet obejmuje cały plik: każdy walidator PDF pokaże, czy plik został zmieniony. Pieczęć potwierdza, kto wystawił plik, a nie tożsamość poszczególnych sygnatariuszy ponad to, co zapisano tutaj.
cert-section-recipients = Odbiorcy ({ $count })
cert-email = E-mail
cert-role = Rola
cert-status = Status
cert-viewed-at = Data wyświetlenia
cert-signed-at = Data podpisania
cert-ip-address = Adres IP
cert-user-agent = Agent użytkownika
cert-consent = Zgoda na dokumenty elektroniczne: udzielona { $time } z adresu { $ip } ({ $agent })
cert-consent-text = Treść zaakceptowanej zgody
cert-section-audit = { $count ->
    [one] Dziennik audytu ({ $count } zdarzenie)
    [few] Dziennik audytu ({ $count } zdarzenia)
    [many] Dziennik audytu ({ $count } zdarzeń)
   *[other] Dziennik audytu ({ $count } zdarzenia)
}
cert-role-signer = Sygnatariusz
cert-role-viewer = Odbiorca kopii (otrzymuje kopię; niczego nie podpisuje)
cert-status-signer-pending = Nie otworzono dokumentu
cert-status-signer-viewed = Otworzono dokument; nie podpisano
cert-status-signer-signed = Podpisano
cert-status-signer-declined = Odmówiono podpisania
cert-status-viewer-pending = Nie otworzono dokumentu
cert-status-viewer-viewed = Otworzono dokument
cert-event-created = UTWORZONO
cert-event-sent = WYSŁANO
cert-event-viewed = WYŚWIETLONO
cert-event-signed = PODPISANO
cert-event-declined = ODMÓWIONO PODPISANIA
cert-event-completed = UKOŃCZONO
cert-event-expired = WYGASŁ
cert-event-updated = ZMIENIONO
# Każde pole wypełnione przez odbiorcę: rodzaj, etykieta (jeśli jest) i wartość naniesiona na
# dokument (zaznaczone pole opisane słowami).
cert-fields = Wypełnione pola
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = Zaznaczone
cert-field-unchecked = Niezaznaczone
cert-kind-text = Tekst
cert-kind-checkbox = Pole wyboru
cert-kind-radio = Wybór
cert-kind-dropdown = Lista rozwijana
cert-kind-number = Liczba
cert-kind-email = E-mail
cert-kind-name = Imię i nazwisko
cert-kind-company = Firma
cert-kind-attachment = Załącznik
