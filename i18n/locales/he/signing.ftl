# דף החתימה (api/src/routes/signing.rs, api/static/sign-page.mjs).

sign-for = עבור { $name }
sign-from = מאת { $sender }
sign-languages = שפה
sign-consent-heading = לפני החתימה
sign-consent-text = התבקשת לחתום על מסמך זה באופן אלקטרוני. מתן הסכמה פירושו הסכמה לקבל את המסמך ולחתום עליו כרשומה אלקטרונית, והכרה בכך שלחתימה האלקטרונית יש אותו תוקף כמו לחתימה בכתב יד. אפשר לבקש מהשולח עותק מודפס ללא תשלום, ואפשר לחזור בך מההסכמה לפני החתימה באמצעות סירוב לחתום או סגירת דף זה. לצפייה ולחתימה נדרש דפדפן אינטרנט; כדי לשמור עותק, יש להוריד את קובץ ה-PDF.
sign-consent-agree = אני מסכים/ה לשימוש ברשומות ובחתימות אלקטרוניות
sign-consent-continue = המשך
sign-consent-missing = יש לסמן את התיבה כדי להסכים לפני שממשיכים.
sign-progress = מולאו { $done } מתוך { $total } שדות
sign-next-field = השדה הבא
sign-submit = חתימה
sign-field-signature = חתימה
sign-field-initials = ראשי תיבות
sign-field-text = טקסט
sign-field-date = תאריך
sign-kind-checkbox = תיבת סימון
sign-kind-radio = בחירה
sign-kind-dropdown = רשימה נפתחת
sign-kind-number = מספר
sign-kind-email = דוא״ל
sign-kind-name = שם
sign-kind-company = חברה
sign-kind-attachment = קובץ מצורף
sign-field-name = { $kind }, עמוד { $page }
sign-field-to-fill = חובה, טרם מולא
sign-field-filled = מולא
sign-field-date-auto = יתמלא בעת החתימה
sign-field-read-only = מולא על ידי השולח; אי אפשר לשנות אותו
sign-dialog-type = הקלדה
sign-dialog-draw = או ציור באצבע, בעט או בעכבר
sign-dialog-pad = אזור ציור: { $kind }
sign-dialog-clear = ניקוי הציור
sign-dialog-text = הטקסט שלך
sign-dialog-apply = החלה
sign-dialog-cancel = ביטול
sign-field-optional = { $field } (רשות)
sign-field-optional-empty = רשות, לא מולא
sign-dialog-choose = יש לבחור אפשרות אחת
sign-dialog-file = יש לבחור קובץ: PDF, PNG או JPEG, עד { $size } MiB
sign-dialog-uploading = הקובץ בהעלאה…
sign-error-dialog-choose = יש לבחור אפשרות קודם.
sign-error-dialog-file = יש לבחור קובץ קודם.
sign-error-heading = יש לבדוק את הפרטים הבאים:
sign-error-empty = { $field }: טרם מולא. יש להקיש על השדה בדף כדי למלא אותו.
sign-error-dialog-empty = יש להקליד משהו או לצייר בתיבה קודם.
sign-error-network = החיבור נכשל. יש לבדוק את החיבור לרשת ולנסות שוב.
sign-decline-heading = סירוב לחתום
sign-decline-reason = סיבה (רשות)
sign-decline-submit = סירוב לחתום
sign-decline-confirm = לסרב לחתום על מסמך זה? לאחר מכן לא תהיה אפשרות לחתום עליו.
sign-download = פתיחה או הורדה של קובץ ה-PDF
sign-valid-until = הקישור תקף עד { $time } (UTC)
sign-state-completed = מסמך זה הושלם. הקובץ להורדה שלהלן הוא קובץ ה-PDF החתום עם אישור ההשלמה שלו.
sign-state-all-signed = תודה: כל החותמים חתמו. קובץ ה-PDF החתום עם אישור ההשלמה נמצא בהכנה ויישלח אליך בדוא״ל.
# [many] (20, 30, 40…, in the CLDR rules Fluent applies) reads as [other] in Hebrew.
sign-state-waiting = { $count ->
    [one] חתימתך התקבלה. חותם נוסף אחד טרם חתם; הודעת דוא״ל תישלח אליך כשכולם יחתמו.
    [two] חתימתך התקבלה. שני חותמים נוספים טרם חתמו; הודעת דוא״ל תישלח אליך כשכולם יחתמו.
    [many] חתימתך התקבלה. { $count } חותמים נוספים טרם חתמו; הודעת דוא״ל תישלח אליך כשכולם יחתמו.
   *[other] חתימתך התקבלה. { $count } חותמים נוספים טרם חתמו; הודעת דוא״ל תישלח אליך כשכולם יחתמו.
}
sign-state-you-declined = סירבת לחתום על מסמך זה. השולח קיבל הודעה על כך.
sign-state-declined = החתימה על מסמך זה נדחתה, ולא ניתן עוד לחתום עליו.
sign-state-expired = תוקפו של מסמך זה פג לפני שכל החותמים חתמו. לא ניתן עוד לחתום עליו.
sign-state-cancelled = השולח ביטל את המסמך. לא ניתן עוד לחתום עליו.
sign-state-cancelled-reason = השולח ביטל את המסמך מהסיבה הבאה: { $reason }. לא ניתן עוד לחתום עליו.
sign-state-viewer = מסמך זה נשלח אליך לעיון בלבד; אין צורך לחתום על דבר.
sign-state-closed = לא ניתן עוד לחתום על מסמך זה.
sign-not-found-title = הקישור לא נמצא
sign-not-found-heading = קישור החתימה הזה אינו תקף
sign-not-found-text = יש לוודא שהקישור מהודעת הדוא״ל נפתח במלואו.
sign-pages-failed = לא ניתן להציג כאן את עמודי המסמך. לפני החתימה, יש לבקש מהשולח עותק חדש.

sign-auth-heading = אימות זהות
sign-auth-access-code = מסמך זה מוגן. יש להזין את קוד הגישה שהתקבל מהשולח.
sign-auth-email = מסמך זה מוגן. אנו שולחים קוד בן שש ספרות לכתובת הדוא״ל שלך; יש להזין אותו כאן.
sign-auth-sms = מסמך זה מוגן. אנו שולחים קוד בן שש ספרות ב-SMS לטלפון שלך; יש להזין אותו כאן.
sign-auth-code-label = קוד
sign-auth-submit = המשך
sign-auth-resend = שליחת קוד חדש
sign-auth-sent-email = קוד נשלח לכתובת הדוא״ל שלך. הוא תקף למשך 10 דקות.
sign-auth-sent-sms = קוד נשלח לטלפון שלך. הוא תקף למשך 10 דקות.
sign-auth-too-soon = קוד נשלח לפני רגע. יש להמתין דקה לפני בקשת קוד נוסף.
sign-auth-wrong = הקוד שגוי. יש לבדוק אותו ולנסות שוב; חמישה קודים שגויים נועלים את הקישור הזה.
sign-auth-expired = קוד זה אינו תקף עוד. יש לבקש קוד חדש.
sign-auth-empty = יש להזין את הקוד.
sign-auth-locked = קישור זה ננעל לאחר יותר מדי קודים שגויים. יש לפנות לשולח, שיכול לבטל את הנעילה.
sign-embed-used-heading = לא ניתן להשתמש שוב בקישור החתימה הזה
sign-embed-used-text = אפשר לפתוח אותו פעם אחת בלבד, ורק למשך כמה דקות. חזרו לדף שממנו הגעתם כדי לפתוח את המסמך שוב.
sign-embed-ended-heading = הפעלת החתימה הזו הסתיימה
sign-embed-ended-text = תוקפה פג, או שהדפדפן הזה לא שמר אותה. חזרו לדף שממנו הגעתם כדי לפתוח את המסמך שוב.
