# Les SMS (common/src/delivery/sms_text.rs). Guillemets droits et lettres de l’alphabet GSM
# (é, è, à), pour que le texte reste en GSM-7 ; le lien termine le texte.

sms-invitation = { $sender } vous invite à signer "{ $title }" : { $link }
sms-invitation-untitled = { $sender } vous invite à signer un document : { $link }
sms-declined = "{ $title }" de { $sender } a été refusé et ne sera pas finalisé. Votre lien de signature ne fonctionne plus.
sms-declined-untitled = Un document de { $sender } a été refusé et ne sera pas finalisé. Votre lien de signature ne fonctionne plus.
sms-expired = "{ $title }" de { $sender } a expiré avant que tout le monde ait signé. Votre lien de signature ne fonctionne plus.
sms-expired-untitled = Un document de { $sender } a expiré avant que tout le monde ait signé. Votre lien de signature ne fonctionne plus.
sms-code = { $code } est votre code pour ouvrir le document que { $sender } vous a envoyé. Il est valable une fois, pendant { $minutes } minutes. Ne le communiquez à personne.
