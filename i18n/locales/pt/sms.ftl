# Os SMS (common/src/delivery/sms_text.rs). Aspas retas; a ligação termina o texto.

sms-invitation = { $sender } pede-lhe que assine "{ $title }": { $link }
sms-invitation-untitled = { $sender } pede-lhe que assine um documento: { $link }
sms-declined = "{ $title }" de { $sender } foi recusado e não será concluído. O seu link de assinatura já não funciona.
sms-declined-untitled = Um documento de { $sender } foi recusado e não será concluído. O seu link de assinatura já não funciona.
sms-expired = "{ $title }" de { $sender } expirou antes de todos assinarem. O seu link de assinatura já não funciona.
sms-expired-untitled = Um documento de { $sender } expirou antes de todos assinarem. O seu link de assinatura já não funciona.
sms-code = { $code } é o seu código para abrir o documento que { $sender } lhe enviou. Vale uma única vez, durante { $minutes } minutos. Não o partilhe.
