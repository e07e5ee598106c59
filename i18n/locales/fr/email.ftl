# Les e-mails que Signet envoie aux destinataires (worker/src/mail.rs).

email-greeting = Bonjour { $name },
email-invitation-subject-sign = { $sender } vous a envoyé « { $title } » à signer
email-invitation-subject-view = { $sender } vous a envoyé « { $title } » à consulter
email-invitation-body-sign = { $sender } vous a envoyé « { $title } » à signer.
email-invitation-body-view = { $sender } vous a envoyé « { $title } » à consulter.
email-link-expires = Ce lien est valable jusqu’au { $expiry } (UTC).
email-invitation-action-sign = Ouvrir le document pour le signer
email-invitation-action-view = Ouvrir le document pour le consulter
email-completed-subject = « { $title } » est finalisé
email-completed-body = Tout le monde a signé « { $title } ». Le PDF signé, accompagné de son certificat d’achèvement, est prêt.
email-completed-action = Télécharger le PDF signé
email-declined-subject = « { $title } » a été refusé
email-declined-body = { $who } a refusé de signer « { $title } » ; le document ne sera donc pas finalisé.
email-declined-someone = Un signataire
email-declined-reason = Motif : { $reason }
email-expired-subject = « { $title } » a expiré
email-expired-body = « { $title } » a expiré avant que tout le monde ait signé. Ses liens de signature ne fonctionnent plus.
email-cancelled-subject = « { $title } » a été annulé
email-cancelled-body = { $sender } a annulé « { $title } ». Ses liens de signature ne fonctionnent plus.
email-cancelled-reason = Motif : { $reason }
email-reminder-subject = Rappel : { $sender } attend votre signature sur « { $title } »
email-reminder-body = { $sender } vous a envoyé « { $title } » à signer, et votre signature est toujours attendue. Le lien ci-dessous l’ouvre ; les liens des e-mails précédents fonctionnent aussi.
email-paste-link = Ou collez ce lien dans votre navigateur : { $url }
email-document-code = Code du document : { $code }
email-sent-by = Envoyé par Signet pour le compte de { $sender }
