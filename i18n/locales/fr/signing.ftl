# La page de signature (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Pour { $name }
sign-languages = Langue
sign-consent-heading = Avant de signer
sign-consent-text = Il vous est demandé de signer ce document par voie électronique. En donnant votre accord, vous acceptez de le recevoir et de le signer sous forme électronique, et vous reconnaissez que votre signature électronique produit les mêmes effets qu’une signature manuscrite. Vous pouvez demander gratuitement une copie papier à l’expéditeur, et vous pouvez retirer votre consentement avant de signer en refusant de signer ou en fermant cette page. Pour consulter et signer le document, il vous faut un navigateur web ; pour en conserver une copie, téléchargez le PDF.
sign-consent-agree = J’accepte l’utilisation de documents et de signatures électroniques
sign-consent-continue = Continuer
sign-consent-missing = Cochez la case pour donner votre accord avant de continuer.
sign-progress = Champs remplis : { $done } sur { $total }
sign-next-field = Champ suivant
sign-submit = Signer
sign-field-signature = Signature
sign-field-initials = Initiales
sign-field-text = Texte
sign-field-date = Date
sign-field-name = { $kind }, page { $page }
sign-field-to-fill = obligatoire, pas encore rempli
sign-field-filled = rempli
sign-field-date-auto = ajoutée automatiquement au moment de la signature
sign-field-read-only = rempli par l’expéditeur, non modifiable
sign-dialog-type = Saisir au clavier
sign-dialog-draw = Ou dessinez avec le doigt, un stylet ou la souris
sign-dialog-pad = Zone de dessin : { $kind }
sign-dialog-clear = Effacer le dessin
sign-dialog-text = Votre texte
sign-dialog-apply = Valider
sign-dialog-cancel = Annuler
sign-error-heading = Veuillez vérifier les points suivants :
sign-error-empty = { $field } : pas encore rempli. Touchez le champ sur la page pour le remplir.
sign-error-dialog-empty = Saisissez d’abord du texte ou dessinez dans le cadre.
sign-error-network = La connexion a échoué. Vérifiez votre connexion internet et réessayez.
sign-decline-heading = Refuser de signer
sign-decline-reason = Motif (facultatif)
sign-decline-submit = Refuser de signer
sign-decline-confirm = Refuser de signer ce document ? Vous ne pourrez plus le signer ensuite.
sign-download = Ouvrir ou télécharger le PDF
sign-valid-until = Date limite de validité du lien : { $time } (UTC)
sign-state-completed = Ce document est finalisé. Le fichier à télécharger ci-dessous est le PDF signé, accompagné de son certificat.
sign-state-all-signed = Merci : tout le monde a maintenant signé. Le PDF signé et son certificat sont en cours de préparation et vous seront envoyés par e-mail.
sign-state-waiting = { $count ->
    [one] Vous avez signé. { $count } autre signataire n’a pas encore signé ; vous recevrez un e-mail lorsque tout le monde aura signé.
   *[other] Vous avez signé. { $count } autres signataires n’ont pas encore signé ; vous recevrez un e-mail lorsque tout le monde aura signé.
}
sign-state-you-declined = Vous avez refusé de signer ce document. L’expéditeur en a été informé.
sign-state-declined = La signature de ce document a été refusée ; il ne peut plus être signé.
sign-state-expired = Ce document a expiré avant que tout le monde ait signé. Il ne peut plus être signé.
sign-state-cancelled = L’expéditeur a annulé ce document. Il ne peut plus être signé.
sign-state-cancelled-reason = L’expéditeur a annulé ce document, pour cette raison : { $reason }. Il ne peut plus être signé.
sign-state-viewer = Ce document vous a été envoyé pour consultation ; vous n’avez rien à signer.
sign-state-closed = Ce document ne peut plus être signé.
sign-not-found-title = Lien introuvable
sign-not-found-heading = Ce lien de signature n’est pas valide
sign-not-found-text = Vérifiez que vous avez bien ouvert le lien complet figurant dans votre e-mail.
sign-pages-failed = Les pages de ce document ne peuvent pas être affichées ici. Demandez une nouvelle copie à l'expéditeur avant de signer.
