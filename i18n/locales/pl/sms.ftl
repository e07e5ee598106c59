# Wiadomości SMS (common/src/delivery/sms_text.rs). Proste cudzysłowy; link kończy tekst.

sms-invitation = { $sender } prosi o podpisanie dokumentu "{ $title }": { $link }
sms-invitation-untitled = { $sender } prosi o podpisanie dokumentu: { $link }
sms-declined = Dokument "{ $title }" od { $sender } został odrzucony i nie zostanie ukończony. Link do podpisu już nie działa.
sms-declined-untitled = Dokument od { $sender } został odrzucony i nie zostanie ukończony. Link do podpisu już nie działa.
sms-expired = Dokument "{ $title }" od { $sender } wygasł, zanim wszyscy go podpisali. Link do podpisu już nie działa.
sms-expired-untitled = Dokument od { $sender } wygasł, zanim wszyscy go podpisali. Link do podpisu już nie działa.
sms-code = { $code } - kod do otwarcia dokumentu od { $sender }. Działa jednorazowo przez { $minutes } minut. Prosimy nikomu go nie udostępniać.
