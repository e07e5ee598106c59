# Strona podpisywania (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Dla: { $name }
sign-languages = Język
sign-consent-heading = Przed podpisaniem
sign-consent-text = Prosimy o elektroniczne podpisanie tego dokumentu. Wyrażając zgodę, zgadzają się Państwo otrzymać go i podpisać jako dokument elektroniczny oraz przyjmują do wiadomości, że podpis elektroniczny ma taki sam skutek jak podpis własnoręczny. Mogą Państwo bezpłatnie poprosić nadawcę o kopię papierową, a przed podpisaniem wycofać zgodę, odmawiając podpisania lub zamykając tę stronę. Do wyświetlenia i podpisania dokumentu potrzebna jest przeglądarka internetowa; aby zachować kopię, należy pobrać plik PDF.
sign-consent-agree = Wyrażam zgodę na stosowanie dokumentów i podpisów elektronicznych
sign-consent-continue = Dalej
sign-consent-missing = Aby kontynuować, zaznacz pole wyrażenia zgody.
sign-progress = Wypełnione pola: { $done } z { $total }
sign-next-field = Następne pole
sign-submit = Podpisz
sign-field-signature = Podpis
sign-field-initials = Parafa
sign-field-text = Tekst
sign-field-date = Data
sign-kind-checkbox = Pole wyboru
sign-kind-radio = Wybór
sign-kind-dropdown = Lista rozwijana
sign-kind-number = Liczba
sign-kind-email = E-mail
sign-kind-name = Imię i nazwisko
sign-kind-company = Firma
sign-kind-attachment = Załącznik
sign-field-name = { $kind }, strona { $page }
sign-field-to-fill = wymagane, jeszcze niewypełnione
sign-field-filled = wypełnione
sign-field-date-auto = zostanie uzupełniona w chwili podpisania
sign-field-read-only = wypełnione przez nadawcę; nie można tego zmienić
sign-dialog-type = Wpisz
sign-dialog-draw = Albo narysuj palcem, rysikiem lub myszą
sign-dialog-pad = Pole do rysowania: { $kind }
sign-dialog-clear = Wyczyść rysunek
sign-dialog-text = Twój tekst
sign-dialog-apply = Zastosuj
sign-dialog-cancel = Anuluj
sign-field-optional = { $field } (opcjonalne)
sign-field-optional-empty = opcjonalne, niewypełnione
sign-dialog-choose = Wybierz jedną opcję
sign-dialog-file = Wybierz plik: PDF, PNG lub JPEG, maksymalnie { $size } MiB
sign-dialog-uploading = Przesyłanie pliku…
sign-error-dialog-choose = Najpierw wybierz opcję.
sign-error-dialog-file = Najpierw wybierz plik.
sign-error-heading = Prosimy sprawdzić:
sign-error-empty = { $field }: jeszcze niewypełnione. Stuknij pole na stronie, aby je wypełnić.
sign-error-dialog-empty = Najpierw wpisz tekst lub narysuj coś w polu.
sign-error-network = Nie udało się połączyć. Sprawdź połączenie z siecią i spróbuj ponownie.
sign-decline-heading = Odmowa podpisania
sign-decline-reason = Powód (opcjonalnie)
sign-decline-submit = Odmów podpisania
sign-decline-confirm = Odmówić podpisania tego dokumentu? Później nie będzie można go już podpisać.
sign-download = Otwórz lub pobierz plik PDF
sign-valid-until = Link ważny do { $time } (UTC)
sign-state-completed = Ten dokument został ukończony. Poniżej można pobrać podpisany plik PDF z certyfikatem.
sign-state-all-signed = Dziękujemy: wszyscy już podpisali. Podpisany plik PDF z certyfikatem jest przygotowywany i zostanie przesłany e-mailem.
sign-state-waiting = { $count ->
    [one] Podpis został złożony. Jeszcze jedna osoba nie podpisała dokumentu; gdy podpiszą wszyscy, wyślemy wiadomość e-mail.
    [few] Podpis został złożony. Jeszcze { $count } osoby nie podpisały dokumentu; gdy podpiszą wszyscy, wyślemy wiadomość e-mail.
    [many] Podpis został złożony. Jeszcze { $count } osób nie podpisało dokumentu; gdy podpiszą wszyscy, wyślemy wiadomość e-mail.
   *[other] Podpis został złożony. Jeszcze { $count } osoby nie podpisały dokumentu; gdy podpiszą wszyscy, wyślemy wiadomość e-mail.
}
sign-state-you-declined = Odmówili Państwo podpisania tego dokumentu. Nadawca został o tym powiadomiony.
sign-state-declined = Odmówiono podpisania tego dokumentu; nie można go już podpisać.
sign-state-expired = Ten dokument wygasł, zanim wszyscy go podpisali. Nie można go już podpisać.
sign-state-cancelled = Nadawca anulował ten dokument. Nie można go już podpisać.
sign-state-cancelled-reason = Nadawca anulował ten dokument, podając powód: { $reason }. Nie można go już podpisać.
sign-state-viewer = Ten dokument przesłano do wglądu; nie trzeba niczego podpisywać.
sign-state-closed = Tego dokumentu nie można już podpisać.
sign-not-found-title = Nie znaleziono linku
sign-not-found-heading = Ten link do podpisu jest nieprawidłowy
sign-not-found-text = Sprawdź, czy otwarto cały link z wiadomości e-mail.
sign-pages-failed = Nie można tu wyświetlić stron tego dokumentu. Przed podpisaniem poproś nadawcę o nową kopię.
sign-embed-used-heading = Tego linku do podpisu nie można użyć ponownie
sign-embed-used-text = Można go otworzyć tylko raz i tylko przez kilka minut. Wróć na stronę, z której przyszedłeś, aby ponownie otworzyć dokument.
sign-embed-ended-heading = Ta sesja podpisywania została zakończona
sign-embed-ended-text = Wygasła albo ta przeglądarka jej nie zachowała. Wróć na stronę, z której przyszedłeś, aby ponownie otworzyć dokument.
