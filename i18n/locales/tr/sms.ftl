# SMS metinleri (common/src/delivery/sms_text.rs). Bağlantı metnin sonundadır.

sms-invitation = { $sender }, "{ $title }" için imzanızı bekliyor: { $link }
sms-invitation-untitled = { $sender }, bir belge için imzanızı bekliyor: { $link }
sms-declined = { $sender } tarafından gönderilen "{ $title }" reddedildi ve tamamlanmayacak. İmza bağlantınız artık çalışmıyor.
sms-declined-untitled = { $sender } tarafından gönderilen bir belge reddedildi ve tamamlanmayacak. İmza bağlantınız artık çalışmıyor.
sms-expired = { $sender } tarafından gönderilen "{ $title }" belgesinin süresi herkes imzalamadan doldu. İmza bağlantınız artık çalışmıyor.
sms-expired-untitled = { $sender } tarafından gönderilen bir belgenin süresi herkes imzalamadan doldu. İmza bağlantınız artık çalışmıyor.
sms-code = { $code }, { $sender } tarafından gönderilen belgeyi açmanız için kodunuzdur. { $minutes } dakika boyunca bir kez geçerlidir. Kimseyle paylaşmayın.
