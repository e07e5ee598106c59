# De sms-teksten (common/src/delivery/sms_text.rs). Rechte aanhalingstekens, zodat de tekst
# GSM-7 blijft; de link staat aan het eind.

sms-invitation = { $sender } vraagt u "{ $title }" te ondertekenen: { $link }
sms-invitation-untitled = { $sender } vraagt u een document te ondertekenen: { $link }
sms-declined = "{ $title }" van { $sender } is geweigerd en wordt niet voltooid. Uw ondertekeningslink werkt niet meer.
sms-declined-untitled = Een document van { $sender } is geweigerd en wordt niet voltooid. Uw ondertekeningslink werkt niet meer.
sms-expired = "{ $title }" van { $sender } is verlopen voordat iedereen had ondertekend. Uw ondertekeningslink werkt niet meer.
sms-expired-untitled = Een document van { $sender } is verlopen voordat iedereen had ondertekend. Uw ondertekeningslink werkt niet meer.
sms-code = { $code } is uw code om het document van { $sender } te openen. De code werkt één keer, { $minutes } minuten lang. Deel hem met niemand.
