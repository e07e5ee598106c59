# הודעות ה-SMS (common/src/delivery/sms_text.rs). הקישור בסוף הטקסט.

sms-invitation = בקשה לחתימה על „{ $title }” מאת { $sender }: { $link }
sms-invitation-untitled = בקשה לחתימה על מסמך מאת { $sender }: { $link }
sms-declined = המסמך „{ $title }” מאת { $sender } נדחה ולא יושלם. קישור החתימה שלך אינו פועל עוד.
sms-declined-untitled = מסמך מאת { $sender } נדחה ולא יושלם. קישור החתימה שלך אינו פועל עוד.
sms-expired = תוקפו של „{ $title }” מאת { $sender } פג לפני שכולם חתמו. קישור החתימה שלך אינו פועל עוד.
sms-expired-untitled = תוקפו של מסמך מאת { $sender } פג לפני שכולם חתמו. קישור החתימה שלך אינו פועל עוד.
sms-code = הקוד שלך לפתיחת המסמך מאת { $sender } הוא { $code }. הקוד תקף לשימוש אחד במשך { $minutes } דקות. אין למסור אותו לאף אחד.
