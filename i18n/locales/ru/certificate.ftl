# Сертификат о завершении, добавляемый к каждому итоговому PDF (pdf/src/certificate.rs).

cert-heading = Сертификат о завершении
cert-heading-continued = Сертификат о завершении (продолжение)
cert-footer = Сертификат Signet — страница { $page } из { $pages }
cert-detail = { $label }: { $value }
cert-section-document = Документ
cert-title = Название
cert-code = Код
cert-document-id = Идентификатор документа
cert-completed-at = Дата завершения
cert-original-sha256 = SHA-256 оригинала
cert-stamped-sha256 = SHA-256 после заполнения
cert-stamped-note = SHA-256 после заполнения — это хеш подписанного документа до добавления этих страниц сертификата, то есть первой редакции этого файла.
cert-seal-note = Печать PAdES оператора этого сервиса Signet охватывает весь файл: любая программа проверки PDF покажет, был ли он изменён. Печать подтверждает, кто выпустил файл, но не личность каждого подписанта сверх того, что записано здесь.
cert-section-recipients = Получатели ({ $count })
cert-email = Электронная почта
cert-role = Роль
cert-status = Статус
cert-viewed-at = Дата просмотра
cert-signed-at = Дата подписания
cert-ip-address = IP-адрес
cert-user-agent = Браузер (User-Agent)
cert-consent = Согласие на электронные документы: дано { $time } с адреса { $ip } ({ $agent })
cert-consent-text = Текст, с которым выражено согласие
cert-section-audit = { $count ->
    [one] Журнал аудита ({ $count } событие)
    [few] Журнал аудита ({ $count } события)
    [many] Журнал аудита ({ $count } событий)
   *[other] Журнал аудита ({ $count } события)
}
cert-role-signer = Подписант
cert-role-viewer = Наблюдатель (получает копию; ничего не подписывает)
cert-status-signer-pending = Документ не открыт
cert-status-signer-viewed = Документ открыт; не подписан
cert-status-signer-signed = Документ подписан
cert-status-signer-declined = Отказ от подписания
cert-status-viewer-pending = Документ не открыт
cert-status-viewer-viewed = Документ открыт
cert-event-created = СОЗДАН
cert-event-sent = ОТПРАВЛЕН
cert-event-viewed = ПРОСМОТРЕН
cert-event-signed = ПОДПИСАН
cert-event-declined = ОТКЛОНЁН
cert-event-completed = ЗАВЕРШЁН
cert-event-expired = СРОК ИСТЁК
cert-event-updated = ИЗМЕНЁН
# Каждое поле, заполненное получателем: тип, подпись поля (если есть) и значение в том виде, в
# каком оно нанесено на документ (отмеченный флажок — словами).
cert-fields = Заполненные поля
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = Отмечено
cert-field-unchecked = Не отмечено
cert-kind-text = Текст
cert-kind-checkbox = Флажок
cert-kind-radio = Выбор
cert-kind-dropdown = Раскрывающийся список
cert-kind-number = Число
cert-kind-email = Электронная почта
cert-kind-name = Имя
cert-kind-company = Компания
cert-kind-attachment = Вложение
