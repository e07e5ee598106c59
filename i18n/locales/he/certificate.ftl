# אישור ההשלמה המצורף לכל קובץ PDF סופי (pdf/src/certificate.rs).

cert-heading = אישור השלמה
cert-heading-continued = אישור השלמה (המשך)
cert-footer = אישור Signet — עמוד { $page } מתוך { $pages }
cert-detail = { $label }: { $value }
cert-section-document = מסמך
cert-title = כותרת
cert-code = קוד
cert-document-id = מזהה מסמך
cert-completed-at = מועד ההשלמה
cert-original-sha256 = SHA-256 של המקור
cert-stamped-sha256 = SHA-256 לאחר מילוי השדות
cert-stamped-note = ערך ה-SHA-256 לאחר מילוי השדות הוא של המסמך החתום לפני שנוספו עמודי האישור האלה, כלומר של הגרסה הראשונה של קובץ זה.
cert-seal-note = חותמת PAdES של מפעיל שירות Signet זה חלה על הקובץ כולו: כל כלי לאימות PDF יראה אם הוא שונה. החותמת מוכיחה מי הנפיק את הקובץ, ולא את זהותו של כל חותם מעבר למה שנרשם כאן.
cert-section-recipients = נמענים ({ $count })
cert-email = דוא״ל
cert-role = תפקיד
cert-status = מצב
cert-viewed-at = מועד הצפייה
cert-signed-at = מועד החתימה
cert-ip-address = כתובת IP
cert-user-agent = סוכן משתמש
cert-consent = הסכמה לרשומות אלקטרוניות: ניתנה ב-{ $time } מכתובת { $ip } ({ $agent })
cert-consent-text = הנוסח שעליו ניתנה ההסכמה
# [many] (20, 30, 40…, in the CLDR rules Fluent applies) reads as [other] in Hebrew.
cert-section-audit = { $count ->
    [one] יומן ביקורת (אירוע אחד)
    [two] יומן ביקורת (שני אירועים)
    [many] יומן ביקורת ({ $count } אירועים)
   *[other] יומן ביקורת ({ $count } אירועים)
}
cert-role-signer = חותם
cert-role-viewer = צופה (מקבל עותק; אינו חותם על דבר)
cert-status-signer-pending = המסמך לא נפתח
cert-status-signer-viewed = המסמך נפתח; לא נחתם
cert-status-signer-signed = המסמך נחתם
cert-status-signer-declined = סירוב לחתום
cert-status-viewer-pending = המסמך לא נפתח
cert-status-viewer-viewed = המסמך נפתח
cert-event-created = נוצר
cert-event-sent = נשלח
cert-event-viewed = נצפה
cert-event-signed = נחתם
cert-event-declined = נדחה
cert-event-completed = הושלם
cert-event-expired = פג תוקף
cert-event-updated = עודכן
# כל שדה שנמען מילא: סוגו, התווית שלו אם יש, והערך כפי שהוטבע במסמך (תיבה מסומנת במילים).
cert-fields = שדות שמולאו
cert-field-labelled = { $kind } ({ $label }): { $value }
cert-field-unlabelled = { $kind }: { $value }
cert-field-checked = מסומן
cert-field-unchecked = לא מסומן
cert-kind-text = טקסט
cert-kind-checkbox = תיבת סימון
cert-kind-radio = בחירה
cert-kind-dropdown = רשימה נפתחת
cert-kind-number = מספר
cert-kind-email = דוא״ל
cert-kind-name = שם
cert-kind-company = חברה
cert-kind-attachment = קובץ מצורף
