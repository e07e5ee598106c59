# صفحة التوقيع (api/src/routes/signing.rs، api/static/sign-page.mjs).

sign-for = الموقِّع: { $name }
sign-from = المرسِل: { $sender }
sign-languages = اللغة
sign-consent-heading = قبل التوقيع
sign-consent-text = يُطلب منك توقيع هذا المستند إلكترونيًا. وبموافقتك، فإنك تقبل استلامه وتوقيعه بوصفه سجلًا إلكترونيًا، وتُقرّ بأن لتوقيعك الإلكتروني الأثر نفسه الذي للتوقيع بخط اليد. ويمكنك أن تطلب من المرسِل نسخة ورقية دون أي مقابل، كما يمكنك سحب موافقتك قبل التوقيع برفض التوقيع أو بإغلاق هذه الصفحة. يلزمك متصفح ويب لعرض المستند وتوقيعه؛ وللاحتفاظ بنسخة منه، يُرجى تنزيل ملف PDF.
sign-consent-agree = أوافق على استخدام السجلات والتوقيعات الإلكترونية
sign-consent-continue = متابعة
sign-consent-missing = يُرجى تحديد المربع للموافقة قبل المتابعة.
sign-progress = الحقول المكتملة: { $done } من { $total }
sign-next-field = الحقل التالي
sign-submit = توقيع
sign-field-signature = التوقيع
sign-field-initials = الأحرف الأولى من الاسم
sign-field-text = النص
sign-field-date = التاريخ
sign-kind-checkbox = مربع اختيار
sign-kind-radio = خيار
sign-kind-dropdown = قائمة منسدلة
sign-kind-number = رقم
sign-kind-email = البريد الإلكتروني
sign-kind-name = الاسم
sign-kind-company = الشركة
sign-kind-attachment = مرفق
sign-field-name = { $kind }، الصفحة { $page }
sign-field-to-fill = مطلوب، لم يُملأ بعد
sign-field-filled = مكتمل
sign-field-date-auto = يُضاف تلقائيًا عند التوقيع
sign-field-read-only = ملأه المرسل، ولا يمكن تغييره
sign-dialog-type = الكتابة بلوحة المفاتيح
sign-dialog-draw = أو الرسم بالإصبع أو القلم أو الماوس
sign-dialog-pad = منطقة الرسم: { $kind }
sign-dialog-clear = مسح الرسم
sign-dialog-text = النص الخاص بك
sign-dialog-apply = تطبيق
sign-dialog-cancel = إلغاء
sign-field-optional = { $field } (اختياري)
sign-field-optional-empty = اختياري، لم يُملأ
sign-dialog-choose = اختر خيارًا واحدًا
sign-dialog-file = اختر ملفًا: PDF أو PNG أو JPEG، بحد أقصى { $size } ميغابايت
sign-dialog-uploading = جارٍ رفع الملف…
sign-error-dialog-choose = اختر خيارًا أولًا.
sign-error-dialog-file = اختر ملفًا أولًا.
sign-error-heading = يُرجى التحقق مما يلي:
sign-error-empty = { $field }: لم يُملأ بعد. يُرجى النقر على الحقل في الصفحة لملئه.
sign-error-dialog-empty = يُرجى الكتابة أو الرسم في المربع أولًا.
sign-error-network = تعذّر الاتصال. يُرجى التحقق من اتصالك بالشبكة ثم المحاولة مرة أخرى.
sign-decline-heading = رفض التوقيع
sign-decline-reason = السبب (اختياري)
sign-decline-submit = رفض التوقيع
sign-decline-confirm = هل تريد رفض توقيع هذا المستند؟ لن تتمكن من توقيعه بعد ذلك.
sign-download = فتح ملف PDF أو تنزيله
sign-valid-until = الرابط صالح حتى { $time } (UTC)
sign-state-completed = اكتمل هذا المستند. الملف المتاح للتنزيل أدناه هو ملف PDF الموقَّع مع شهادته.
sign-state-all-signed = شكرًا لك: لقد وقّع الجميع الآن. يجري إعداد ملف PDF الموقَّع مع شهادته، وسيُرسَل إليك بالبريد الإلكتروني.
sign-state-waiting = { $count ->
    [zero] اكتمل توقيعك. لا يوجد موقّعون آخرون بانتظار التوقيع؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
    [one] اكتمل توقيعك. لا يزال هناك موقّع آخر لم يوقّع بعد؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
    [two] اكتمل توقيعك. لا يزال هناك موقّعان آخران لم يوقّعا بعد؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
    [few] اكتمل توقيعك. لا يزال هناك { $count } موقّعين آخرين لم يوقّعوا بعد؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
    [many] اكتمل توقيعك. لا يزال هناك { $count } موقّعًا آخر لم يوقّعوا بعد؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
   *[other] اكتمل توقيعك. لا يزال هناك { $count } موقّع آخر لم يوقّعوا بعد؛ ستصلك رسالة بالبريد الإلكتروني عندما يوقّع الجميع.
}
sign-state-you-declined = لقد رفضت توقيع هذا المستند. وقد أُبلغ المرسِل بذلك.
sign-state-declined = رُفض توقيع هذا المستند، ولم يعد من الممكن توقيعه.
sign-state-expired = انتهت صلاحية هذا المستند قبل أن يوقّعه الجميع. لم يعد من الممكن توقيعه.
sign-state-cancelled = ألغى المرسِل هذا المستند. لم يعد من الممكن توقيعه.
sign-state-cancelled-reason = ألغى المرسِل هذا المستند للسبب التالي: { $reason }. لم يعد من الممكن توقيعه.
sign-state-viewer = أُرسل إليك هذا المستند للاطلاع عليه فقط؛ لا يوجد ما يلزم توقيعه.
sign-state-closed = لم يعد من الممكن توقيع هذا المستند.
sign-not-found-title = الرابط غير موجود
sign-not-found-heading = رابط التوقيع هذا غير صالح
sign-not-found-text = يُرجى التأكد من أنك فتحت الرابط كاملًا من رسالة البريد الإلكتروني.
sign-pages-failed = لا يمكن عرض صفحات هذا المستند هنا. اطلب نسخة جديدة من المرسل قبل التوقيع.
sign-embed-used-heading = لا يمكن استخدام رابط التوقيع هذا مرة أخرى
sign-embed-used-text = يمكن فتحه مرة واحدة فقط، ولبضع دقائق فقط. ارجع إلى الصفحة التي أتيت منها لفتح المستند مرة أخرى.
sign-embed-ended-heading = انتهت جلسة التوقيع هذه
sign-embed-ended-text = انتهت صلاحيتها، أو لم يحتفظ بها هذا المتصفح. ارجع إلى الصفحة التي أتيت منها لفتح المستند مرة أخرى.

sign-auth-heading = تحقّق من هويتك
sign-auth-access-code = هذا المستند محمي. أدخل رمز الوصول الذي أعطاك إياه المرسِل.
sign-auth-email = هذا المستند محمي. نرسل رمزًا من ستة أرقام إلى بريدك الإلكتروني؛ أدخله هنا.
sign-auth-sms = هذا المستند محمي. نرسل رمزًا من ستة أرقام إلى هاتفك برسالة نصية؛ أدخله هنا.
sign-auth-code-label = الرمز
sign-auth-submit = متابعة
sign-auth-resend = إرسال رمز جديد
sign-auth-sent-email = الرمز في طريقه إلى بريدك الإلكتروني. يعمل لمدة 10 دقائق.
sign-auth-sent-sms = الرمز في طريقه إلى هاتفك. يعمل لمدة 10 دقائق.
sign-auth-too-soon = أُرسل رمز قبل لحظات. انتظر دقيقة قبل طلب رمز آخر.
sign-auth-wrong = هذا الرمز غير صحيح. تحقّق منه وحاول مجددًا؛ خمسة رموز خاطئة تقفل هذا الرابط.
sign-auth-expired = لم يعد هذا الرمز صالحًا. اطلب رمزًا جديدًا.
sign-auth-empty = أدخل الرمز.
sign-auth-locked = هذا الرابط مقفل بعد رموز خاطئة كثيرة. تواصل مع المرسِل: يمكنه فتحه.
