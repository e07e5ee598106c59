# A página de assinatura (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Para { $name }
sign-from = De { $sender }
sign-languages = Idioma
sign-consent-heading = Antes de assinar
sign-consent-text = Foi solicitado que assine este documento eletronicamente. Ao concordar, consente em recebê-lo e assiná-lo como documento eletrônico e aceita que a sua assinatura eletrônica tem o mesmo efeito que uma assinatura manuscrita. Pode pedir ao remetente uma cópia em papel, sem qualquer custo, e pode retirar o seu consentimento antes de assinar, recusando a assinatura ou fechando esta página. Para visualizar e assinar, é necessário um navegador de internet; para guardar uma cópia, faça o download do PDF.
sign-consent-agree = Concordo com o uso de documentos e assinaturas eletrônicos
sign-consent-continue = Continuar
sign-consent-missing = Marque a caixa para concordar antes de continuar.
sign-progress = { $total ->
    [one] { $done } de { $total } campo preenchido
   *[other] { $done } de { $total } campos preenchidos
}
sign-next-field = Campo seguinte
sign-submit = Assinar
sign-field-signature = Assinatura
sign-field-initials = Rubrica
sign-field-text = Texto
sign-field-date = Data
sign-kind-checkbox = Caixa de seleção
sign-kind-radio = Opção
sign-kind-dropdown = Lista suspensa
sign-kind-number = Número
sign-kind-email = E-mail
sign-kind-name = Nome
sign-kind-company = Empresa
sign-kind-attachment = Anexo
sign-field-name = { $kind }, página { $page }
sign-field-to-fill = obrigatório, ainda não preenchido
sign-field-filled = preenchido
sign-field-date-auto = preenchida automaticamente ao assinar
sign-field-read-only = preenchido pelo remetente, não pode ser alterado
sign-dialog-type = Escrever com o teclado
sign-dialog-draw = Ou desenhe com o dedo, uma caneta ou o mouse
sign-dialog-pad = Área de desenho: { $kind }
sign-dialog-clear = Apagar o desenho
sign-dialog-text = O seu texto
sign-dialog-apply = Aplicar
sign-dialog-cancel = Cancelar
sign-field-optional = { $field } (opcional)
sign-field-optional-empty = opcional, não preenchido
sign-dialog-choose = Escolha uma opção
sign-dialog-file = Escolha um arquivo: PDF, PNG ou JPEG, de até { $size } MiB
sign-dialog-uploading = A enviar o arquivo…
sign-error-dialog-choose = Escolha primeiro uma opção.
sign-error-dialog-file = Escolha primeiro um arquivo.
sign-error-heading = Verifique o seguinte:
sign-error-empty = { $field }: ainda não preenchido. Toque no campo na página para preenchê-lo.
sign-error-dialog-empty = Primeiro, escreva algo ou desenhe no quadro.
sign-error-network = Falha na conexão. Verifique a sua ligação à internet e tente novamente.
sign-decline-heading = Recusar a assinatura
sign-decline-reason = Motivo (opcional)
sign-decline-submit = Recusar a assinatura
sign-decline-confirm = Recusar a assinatura deste documento? Depois disso, não poderá assiná-lo.
sign-download = Abrir ou fazer o download do PDF
sign-valid-until = Link válido até { $time } (UTC)
sign-state-completed = Este documento está concluído. O download abaixo é o PDF assinado, com o seu certificado.
sign-state-all-signed = Obrigado: todos já assinaram. O PDF assinado, com o seu certificado, será preparado e enviado para o seu e-mail.
sign-state-waiting = { $count ->
    [one] Já assinou. Ainda falta a assinatura de { $count } outro signatário; receberá um e-mail quando todos tiverem assinado.
   *[other] Já assinou. Ainda faltam as assinaturas de { $count } outros signatários; receberá um e-mail quando todos tiverem assinado.
}
sign-state-you-declined = Recusou a assinatura deste documento. O remetente foi informado.
sign-state-declined = A assinatura deste documento foi recusada e ele já não pode ser assinado.
sign-state-expired = Este documento expirou antes de todos assinarem. Já não pode ser assinado.
sign-state-cancelled = O remetente cancelou este documento. Já não pode ser assinado.
sign-state-cancelled-reason = O remetente cancelou este documento por este motivo: { $reason }. Já não pode ser assinado.
sign-state-viewer = Recebeu este documento apenas para visualização; não há nada para assinar.
sign-state-closed = Este documento já não pode ser assinado.
sign-not-found-title = Link não encontrado
sign-not-found-heading = Este link de assinatura não é válido
sign-not-found-text = Verifique se abriu o link completo que está no seu e-mail.
sign-pages-failed = As páginas deste documento não podem ser mostradas aqui. Peça uma nova cópia ao remetente antes de assinar.
sign-embed-used-heading = Este link de assinatura não pode ser usado novamente
sign-embed-used-text = Ele só pode ser aberto uma vez, e apenas por alguns minutos. Volte à página de onde veio para abrir o documento novamente.
sign-embed-ended-heading = Esta sessão de assinatura terminou
sign-embed-ended-text = Ela expirou, ou este navegador não a manteve. Volte à página de onde veio para abrir o documento novamente.

sign-auth-heading = Confirme sua identidade
sign-auth-access-code = Este documento é protegido. Digite o código de acesso que o remetente passou para você.
sign-auth-email = Este documento é protegido. Enviamos um código de seis dígitos para o seu e-mail; digite-o aqui.
sign-auth-sms = Este documento é protegido. Enviamos um código de seis dígitos por SMS para o seu telefone; digite-o aqui.
sign-auth-code-label = Código
sign-auth-submit = Continuar
sign-auth-resend = Enviar um novo código
sign-auth-sent-email = Um código está a caminho do seu e-mail. Ele vale por 10 minutos.
sign-auth-sent-sms = Um código está a caminho do seu telefone. Ele vale por 10 minutos.
sign-auth-too-soon = Um código acabou de ser enviado. Aguarde um minuto antes de pedir outro.
sign-auth-wrong = Esse código não está correto. Confira e tente de novo; cinco códigos errados bloqueiam este link.
sign-auth-expired = Este código não vale mais. Peça um novo código.
sign-auth-empty = Digite o código.
sign-auth-locked = Este link foi bloqueado depois de muitos códigos errados. Fale com o remetente: ele pode desbloqueá-lo.
