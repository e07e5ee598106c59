# La página de firma (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = Para { $name }
sign-languages = Idioma
sign-consent-heading = Antes de firmar
sign-consent-text = Se le solicita que firme este documento electrónicamente. Al aceptar, usted consiente en recibirlo y firmarlo como documento electrónico, y acepta que su firma electrónica tiene el mismo efecto que una firma manuscrita. Puede solicitar al remitente una copia en papel de forma gratuita, y puede retirar su consentimiento antes de firmar rechazando la firma o cerrando esta página. Para ver y firmar el documento necesita un navegador web; para conservar una copia, descargue el PDF.
sign-consent-agree = Acepto el uso de documentos y firmas electrónicos
sign-consent-continue = Continuar
sign-consent-missing = Marque la casilla para aceptar antes de continuar.
sign-progress = { $done } de { $total } campos completados
sign-next-field = Siguiente campo
sign-submit = Firmar
sign-field-signature = Firma
sign-field-initials = Iniciales
sign-field-text = Texto
sign-field-date = Fecha
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
