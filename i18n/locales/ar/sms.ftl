# الرسائل النصية القصيرة (common/src/delivery/sms_text.rs). الرابط في آخر النص.

sms-invitation = يطلب منك { $sender } توقيع «{ $title }»: { $link }
sms-invitation-untitled = يطلب منك { $sender } توقيع مستند: { $link }
sms-declined = رُفض «{ $title }» المرسل من { $sender }، لذا لن يكتمل. لم يعد رابط التوقيع الخاص بك يعمل.
sms-declined-untitled = رُفض مستند مرسل من { $sender }، لذا لن يكتمل. لم يعد رابط التوقيع الخاص بك يعمل.
sms-expired = انتهت صلاحية «{ $title }» المرسل من { $sender } قبل أن يوقّع الجميع. لم يعد رابط التوقيع الخاص بك يعمل.
sms-expired-untitled = انتهت صلاحية مستند مرسل من { $sender } قبل أن يوقّع الجميع. لم يعد رابط التوقيع الخاص بك يعمل.
sms-code = رمزك لفتح المستند المرسل من { $sender } هو { $code }. صالح لمرة واحدة لمدة { $minutes } دقائق. لا تشاركه مع أحد.
