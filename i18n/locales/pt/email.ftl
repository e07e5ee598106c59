# Os e-mails que o Signet envia aos destinatários (worker/src/mail.rs).

email-greeting = Olá, { $name },
email-invitation-subject-sign = { $sender } enviou “{ $title }” para você assinar
email-invitation-subject-view = { $sender } enviou “{ $title }” para você visualizar
email-invitation-body-sign = { $sender } enviou “{ $title }” para você assinar.
email-invitation-body-view = { $sender } enviou “{ $title }” para você visualizar.
email-link-expires = O link é válido até { $expiry } (UTC).
email-invitation-action-sign = Abrir o documento para assinar
email-invitation-action-view = Abrir o documento para visualizar
email-completed-subject = “{ $title }” foi concluído
email-completed-body = Todos assinaram “{ $title }”. O PDF assinado, com o certificado de conclusão, está pronto.
email-completed-action = Baixar o PDF assinado
email-declined-subject = “{ $title }” foi recusado
email-declined-body = { $who } recusou-se a assinar “{ $title }”; por isso, o documento não será concluído.
email-declined-someone = Um signatário
email-declined-reason = Motivo: { $reason }
email-expired-subject = “{ $title }” expirou
email-expired-body = “{ $title }” expirou antes que todos assinassem. Os links de assinatura não funcionam mais.
email-cancelled-subject = “{ $title }” foi cancelado
email-cancelled-body = { $sender } cancelou “{ $title }”. Os links de assinatura não funcionam mais.
email-cancelled-reason = Motivo: { $reason }
email-reminder-subject = Lembrete: { $sender } aguarda a sua assinatura em “{ $title }”
email-reminder-body = { $sender } enviou “{ $title }” para você assinar, e a sua assinatura ainda está pendente. O link abaixo abre o documento; os links de e-mails anteriores também funcionam.
email-paste-link = Ou cole este link no seu navegador: { $url }
email-document-code = Código do documento: { $code }
email-sent-by = Enviado pelo Signet em nome de { $sender }
