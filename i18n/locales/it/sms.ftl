# Gli SMS (common/src/delivery/sms_text.rs). Virgolette dritte e lettere dell’alfabeto GSM
# (à, è, é, ì, ò, ù), perché il testo resti GSM-7; il link chiude il testo.

sms-invitation = { $sender } le chiede di firmare "{ $title }": { $link }
sms-invitation-untitled = { $sender } le chiede di firmare un documento: { $link }
sms-declined = "{ $title }" di { $sender } è stato rifiutato e non verrà completato. Il suo link di firma non è più valido.
sms-declined-untitled = Un documento di { $sender } è stato rifiutato e non verrà completato. Il suo link di firma non è più valido.
sms-expired = "{ $title }" di { $sender } è scaduto prima che tutti firmassero. Il suo link di firma non è più valido.
sms-expired-untitled = Un documento di { $sender } è scaduto prima che tutti firmassero. Il suo link di firma non è più valido.
sms-code = { $code } è il codice per aprire il documento inviato da { $sender }. Vale una sola volta, per { $minutes } minuti. Non lo condivida con nessuno.
