# رسائل البريد الإلكتروني التي يرسلها Signet إلى المستلمين (worker/src/mail.rs).

email-greeting = مرحبًا { $name }،
email-invitation-subject-sign = أرسل إليك { $sender } «{ $title }» لتوقيعه
email-invitation-subject-view = أرسل إليك { $sender } «{ $title }» للاطلاع عليه
email-invitation-body-sign = أرسل إليك { $sender } «{ $title }» لتوقيعه.
email-invitation-body-view = أرسل إليك { $sender } «{ $title }» للاطلاع عليه.
email-link-expires = يظل الرابط صالحًا حتى { $expiry } (بالتوقيت العالمي المنسق).
email-invitation-action-sign = افتح المستند لتوقيعه
email-invitation-action-view = افتح المستند للاطلاع عليه
email-completed-subject = اكتمل «{ $title }»
email-completed-body = وقّع الجميع على «{ $title }». ملف PDF الموقَّع جاهز مع شهادة الإتمام الخاصة به.
email-completed-action = تنزيل ملف PDF الموقَّع
email-declined-subject = رُفض «{ $title }»
email-declined-body = رفض { $who } توقيع «{ $title }»، لذا لن يكتمل.
email-declined-someone = أحد الموقّعين
email-declined-reason = السبب: { $reason }
email-expired-subject = انتهت صلاحية «{ $title }»
email-expired-body = انتهت صلاحية «{ $title }» قبل أن يوقّع الجميع. لم تعد روابط التوقيع الخاصة به تعمل.
email-cancelled-subject = أُلغي «{ $title }»
email-cancelled-body = ألغى { $sender } «{ $title }». لم تعد روابط التوقيع الخاصة به تعمل.
email-cancelled-reason = السبب: { $reason }
email-reminder-subject = تذكير: ينتظر { $sender } توقيعك على «{ $title }»
email-reminder-body = أرسل إليك { $sender } «{ $title }» لتوقيعه، وما زال بانتظار توقيعك. يفتحه الرابط أدناه، وتعمل أيضًا الروابط الواردة في الرسائل السابقة.
email-paste-link = أو الصق هذا الرابط في متصفحك: { $url }
email-document-code = رمز المستند: { $code }
email-sent-by = أرسلته خدمة Signet نيابةً عن { $sender }
