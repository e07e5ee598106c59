# Wiadomości e-mail, które Signet wysyła do odbiorców (worker/src/mail.rs).

email-greeting = Dzień dobry, { $name },
email-invitation-subject-sign = { $sender } przesyła dokument „{ $title }” do podpisu
email-invitation-subject-view = { $sender } przesyła dokument „{ $title }” do wglądu
email-invitation-body-sign = { $sender } przesyła Państwu dokument „{ $title }” do podpisu.
email-invitation-body-view = { $sender } przesyła Państwu dokument „{ $title }” do wglądu.
email-link-expires = Link jest ważny do { $expiry } (UTC).
email-invitation-action-sign = Otwórz dokument, aby go podpisać
email-invitation-action-view = Otwórz dokument, aby go wyświetlić
email-completed-subject = Dokument „{ $title }” został ukończony
email-completed-body = Wszyscy podpisali dokument „{ $title }”. Podpisany plik PDF wraz z certyfikatem ukończenia jest gotowy.
email-completed-action = Pobierz podpisany plik PDF
email-declined-subject = Odmówiono podpisania dokumentu „{ $title }”
email-declined-body = { $who } odmówił(a) podpisania dokumentu „{ $title }”, dlatego nie zostanie on ukończony.
email-declined-someone = Jeden z sygnatariuszy
email-declined-reason = Powód: { $reason }
email-expired-subject = Dokument „{ $title }” wygasł
email-expired-body = Dokument „{ $title }” wygasł, zanim wszyscy go podpisali. Linki do podpisu już nie działają.
email-cancelled-subject = Dokument „{ $title }” został anulowany
email-cancelled-body = Nadawca { $sender } anulował dokument „{ $title }”. Linki do podpisu już nie działają.
email-cancelled-reason = Powód: { $reason }
email-reminder-subject = Przypomnienie: { $sender } czeka na podpis dokumentu „{ $title }”
email-reminder-body = Nadawca { $sender } przesłał Państwu dokument „{ $title }” do podpisu i wciąż czeka na Państwa podpis. Link poniżej otwiera dokument; linki z wcześniejszych wiadomości również działają.
email-paste-link = Można też wkleić ten link do przeglądarki: { $url }
email-document-code = Kod dokumentu: { $code }
email-sent-by = Wysłane przez Signet w imieniu: { $sender }
