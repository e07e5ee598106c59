# La página de firma (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Para { $name }
sign-from = De { $sender }
sign-languages = Idioma
sign-consent-heading = Antes de firmar
sign-consent-text = Se le solicita que firme este documento electrónicamente. Al aceptar, usted consiente en recibirlo y firmarlo como documento electrónico, y acepta que su firma electrónica tiene el mismo efecto que una firma manuscrita. Puede solicitar al remitente una copia en papel de forma gratuita, y puede retirar su consentimiento antes de firmar rechazando la firma o cerrando esta página. Para ver y firmar el documento necesita un navegador web; para conservar una copia, descargue el PDF.
sign-consent-agree = Acepto el uso de documentos y firmas electrónicos
sign-consent-continue = Continuar
sign-consent-missing = Marque la casilla para aceptar antes de continuar.
sign-progress = { $total ->
    [one] { $done } de { $total } campo completado
   *[other] { $done } de { $total } campos completados
}
sign-next-field = Siguiente campo
sign-submit = Firmar
sign-field-signature = Firma
sign-field-initials = Iniciales
sign-field-text = Texto
sign-field-date = Fecha
sign-kind-checkbox = Casilla de verificación
sign-kind-radio = Opción
sign-kind-dropdown = Lista desplegable
sign-kind-number = Número
sign-kind-email = Correo electrónico
sign-kind-name = Nombre
sign-kind-company = Empresa
sign-kind-attachment = Archivo adjunto
sign-field-name = { $kind }, página { $page }
sign-field-to-fill = obligatorio, aún sin completar
sign-field-filled = completado
sign-field-date-auto = se completa automáticamente al firmar
sign-field-read-only = completado por el remitente, no se puede cambiar
sign-dialog-type = Escribir con el teclado
sign-dialog-draw = O dibuje con el dedo, un lápiz o el ratón
sign-dialog-pad = Área de dibujo: { $kind }
sign-dialog-clear = Borrar el dibujo
sign-dialog-text = Su texto
sign-dialog-apply = Aplicar
sign-dialog-cancel = Cancelar
sign-field-optional = { $field } (opcional)
sign-field-optional-empty = opcional, sin completar
sign-dialog-choose = Elija una opción
sign-dialog-file = Elija un archivo: PDF, PNG o JPEG, de { $size } MiB como máximo
sign-dialog-uploading = Subiendo el archivo…
sign-error-dialog-choose = Elija primero una opción.
sign-error-dialog-file = Elija primero un archivo.
sign-error-heading = Revise lo siguiente:
sign-error-empty = { $field }: aún sin completar. Toque el campo en la página para completarlo.
sign-error-dialog-empty = Primero escriba algo o dibuje en el recuadro.
sign-error-network = No se pudo establecer la conexión. Compruebe su conexión a internet e inténtelo de nuevo.
sign-decline-heading = Rechazar la firma
sign-decline-reason = Motivo (opcional)
sign-decline-submit = Rechazar la firma
sign-decline-confirm = ¿Desea rechazar la firma de este documento? Después ya no podrá firmarlo.
sign-download = Abrir o descargar el PDF
sign-valid-until = Enlace válido hasta { $time } (UTC)
sign-state-completed = Este documento está completo. La descarga que aparece a continuación es el PDF firmado con su certificado.
sign-state-all-signed = Gracias: ya han firmado todas las personas. Se está preparando el PDF firmado con su certificado y se le enviará por correo electrónico.
sign-state-waiting = { $count ->
    [one] Ya ha firmado. Otro firmante aún no ha firmado; recibirá un correo electrónico cuando todos hayan firmado.
   *[other] Ya ha firmado. Otros { $count } firmantes aún no han firmado; recibirá un correo electrónico cuando todos hayan firmado.
}
sign-state-you-declined = Ha rechazado firmar este documento. Se ha informado al remitente.
sign-state-declined = Se rechazó la firma de este documento y ya no se puede firmar.
sign-state-expired = Este documento caducó antes de que todos firmaran. Ya no se puede firmar.
sign-state-cancelled = El remitente canceló este documento. Ya no se puede firmar.
sign-state-cancelled-reason = El remitente canceló este documento por este motivo: { $reason }. Ya no se puede firmar.
sign-state-viewer = Se le ha enviado este documento solo para consulta; no tiene nada que firmar.
sign-state-closed = Este documento ya no se puede firmar.
sign-not-found-title = Enlace no encontrado
sign-not-found-heading = Este enlace de firma no es válido
sign-not-found-text = Compruebe que ha abierto el enlace completo de su correo electrónico.
sign-pages-failed = Las páginas de este documento no se pueden mostrar aquí. Pida una copia nueva al remitente antes de firmar.
sign-embed-used-heading = Este enlace de firma ya no se puede usar
sign-embed-used-text = Solo se puede abrir una vez y solo durante unos minutos. Vuelva a la página de la que viene para abrir de nuevo el documento.
sign-embed-ended-heading = Esta sesión de firma ha terminado
sign-embed-ended-text = Ha caducado, o este navegador no la ha conservado. Vuelva a la página de la que viene para abrir de nuevo el documento.

sign-auth-heading = Verifique su identidad
sign-auth-access-code = Este documento está protegido. Escriba el código de acceso que le dio el remitente.
sign-auth-email = Este documento está protegido. Enviamos un código de seis dígitos a su correo electrónico; escríbalo aquí.
sign-auth-sms = Este documento está protegido. Enviamos un código de seis dígitos a su teléfono por SMS; escríbalo aquí.
sign-auth-code-label = Código
sign-auth-submit = Continuar
sign-auth-resend = Enviar un código nuevo
sign-auth-sent-email = Un código va de camino a su correo electrónico. Vale durante 10 minutos.
sign-auth-sent-sms = Un código va de camino a su teléfono. Vale durante 10 minutos.
sign-auth-too-soon = Se acaba de enviar un código. Espere un minuto antes de pedir otro.
sign-auth-wrong = Ese código no es correcto. Compruébelo e inténtelo de nuevo; cinco códigos erróneos bloquean este enlace.
sign-auth-expired = Este código ya no vale. Pida un código nuevo.
sign-auth-empty = Escriba el código.
sign-auth-locked = Este enlace está bloqueado tras demasiados códigos erróneos. Póngase en contacto con el remitente: puede desbloquearlo.
