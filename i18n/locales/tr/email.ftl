# Signet'in alıcılara gönderdiği e-postalar (worker/src/mail.rs).

email-greeting = Merhaba { $name },
email-invitation-subject-sign = { $sender } size imzalamanız için “{ $title }” belgesini gönderdi
email-invitation-subject-view = { $sender } size görüntülemeniz için “{ $title }” belgesini gönderdi
email-invitation-body-sign = { $sender } size imzalamanız için “{ $title }” belgesini gönderdi.
email-invitation-body-view = { $sender } size görüntülemeniz için “{ $title }” belgesini gönderdi.
email-link-expires = Bağlantı { $expiry } (UTC) tarihine kadar geçerlidir.
email-invitation-action-sign = İmzalamak için belgeyi açın
email-invitation-action-view = Görüntülemek için belgeyi açın
email-completed-subject = “{ $title }” tamamlandı
email-completed-body = Herkes “{ $title }” belgesini imzaladı. İmzalı PDF, tamamlanma sertifikasıyla birlikte hazır.
email-completed-action = İmzalı PDF'i indirin
email-declined-subject = “{ $title }” reddedildi
email-declined-body = { $who } “{ $title }” belgesini imzalamayı reddetti; bu nedenle belge tamamlanmayacak.
email-declined-someone = Bir imzacı
email-declined-reason = Gerekçe: { $reason }
email-expired-subject = “{ $title }” belgesinin süresi doldu
email-expired-body = “{ $title }” belgesinin süresi herkes imzalamadan doldu. İmza bağlantıları artık çalışmıyor.
email-cancelled-subject = “{ $title }” iptal edildi
email-cancelled-body = { $sender }, “{ $title }” belgesini iptal etti. İmza bağlantıları artık çalışmıyor.
email-cancelled-reason = Gerekçe: { $reason }
email-reminder-subject = Hatırlatma: { $sender }, “{ $title }” için imzanızı bekliyor
email-reminder-body = { $sender } size imzalamanız için “{ $title }” belgesini gönderdi ve belge hâlâ imzanızı bekliyor. Aşağıdaki bağlantı belgeyi açar; önceki e-postalardaki bağlantılar da çalışır.
email-paste-link = Ya da bu bağlantıyı tarayıcınıza yapıştırın: { $url }
email-document-code = Belge kodu: { $code }
email-sent-by = { $sender } adına Signet tarafından gönderildi
