# הודעות הדוא״ל ש-Signet שולח לנמענים (worker/src/mail.rs).

email-greeting = שלום { $name },
email-invitation-subject-sign = בקשה לחתימה על „{ $title }” מאת { $sender }
email-invitation-subject-view = מסמך לעיון מאת { $sender }: „{ $title }”
email-invitation-body-sign = נשלחה אליך בקשה לחתום על „{ $title }” מאת { $sender }.
email-invitation-body-view = המסמך „{ $title }” נשלח אליך לעיון מאת { $sender }.
email-link-expires = הקישור תקף עד { $expiry } (UTC).
email-invitation-action-sign = פתיחת המסמך לחתימה
email-invitation-action-view = פתיחת המסמך לעיון
email-completed-subject = המסמך „{ $title }” הושלם
email-completed-body = כל החותמים חתמו על „{ $title }”. קובץ ה-PDF החתום, עם אישור ההשלמה שלו, מוכן.
email-completed-action = הורדת קובץ ה-PDF החתום
email-declined-subject = המסמך „{ $title }” נדחה
email-declined-body = התקבל סירוב לחתום על „{ $title }” מאת { $who }, ולכן המסמך לא יושלם.
email-declined-someone = אחד החותמים
email-declined-reason = סיבה: { $reason }
email-expired-subject = תוקפו של „{ $title }” פג
email-expired-body = תוקפו של „{ $title }” פג לפני שכל החותמים חתמו. קישורי החתימה שלו אינם פועלים עוד.
email-cancelled-subject = המסמך „{ $title }” בוטל
email-cancelled-body = המסמך „{ $title }” בוטל על ידי { $sender }. קישורי החתימה שלו אינם פועלים עוד.
email-cancelled-reason = סיבה: { $reason }
email-reminder-subject = תזכורת: המסמך „{ $title }” מאת { $sender } ממתין לחתימתך
email-reminder-body = המסמך „{ $title }” שנשלח אליך לחתימה מאת { $sender } עדיין ממתין לחתימתך. הקישור שלהלן פותח אותו; גם הקישורים שבהודעות קודמות פועלים.
email-paste-link = אפשר גם להדביק את הקישור הזה בדפדפן: { $url }
email-document-code = קוד המסמך: { $code }
email-sent-by = נשלח על ידי Signet בשם { $sender }
