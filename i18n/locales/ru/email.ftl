# Письма, которые Signet отправляет получателям (worker/src/mail.rs).

email-greeting = Здравствуйте, { $name }!
email-invitation-subject-sign = { $sender } приглашает вас подписать «{ $title }»
email-invitation-subject-view = { $sender } отправляет вам «{ $title }» для ознакомления
email-invitation-body-sign = { $sender } приглашает вас подписать «{ $title }».
email-invitation-body-view = { $sender } отправляет вам «{ $title }» для ознакомления.
email-link-expires = Ссылка действует до { $expiry } (UTC).
email-invitation-action-sign = Открыть документ для подписания
email-invitation-action-view = Открыть документ для просмотра
email-completed-subject = «{ $title }»: документ подписан всеми сторонами
email-completed-body = Все подписали «{ $title }». Подписанный PDF с сертификатом о завершении готов.
email-completed-action = Скачать подписанный PDF
email-declined-subject = «{ $title }»: в подписании отказано
email-declined-body = { $who } отказался (отказалась) подписать «{ $title }», поэтому документ не будет завершён.
email-declined-someone = Один из подписантов
email-declined-reason = Причина: { $reason }
email-expired-subject = Срок действия «{ $title }» истёк
email-expired-body = Срок действия «{ $title }» истёк до того, как все его подписали. Ссылки для подписания больше не действуют.
email-cancelled-subject = «{ $title }» отменён
email-cancelled-body = Отправитель { $sender } отменил «{ $title }». Ссылки для подписания больше не действуют.
email-cancelled-reason = Причина: { $reason }
email-reminder-subject = Напоминание: { $sender } ждёт вашей подписи на «{ $title }»
email-reminder-body = Отправитель { $sender } направил вам «{ $title }» на подпись, и документ всё ещё ждёт вашей подписи. Ссылка ниже открывает его; ссылки из предыдущих писем тоже действуют.
email-paste-link = Или вставьте эту ссылку в браузер: { $url }
email-document-code = Код документа: { $code }
email-sent-by = Отправлено сервисом Signet от имени: { $sender }
