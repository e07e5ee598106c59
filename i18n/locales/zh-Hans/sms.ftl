# 短信文本（common/src/delivery/sms_text.rs）。链接位于末尾，前面留一个空格。

sms-invitation = { $sender } 请您签署“{ $title }”： { $link }
sms-invitation-untitled = { $sender } 请您签署一份文件： { $link }
sms-declined = { $sender } 发送的“{ $title }”已被拒签，无法完成。您的签署链接已失效。
sms-declined-untitled = { $sender } 发送的一份文件已被拒签，无法完成。您的签署链接已失效。
sms-expired = { $sender } 发送的“{ $title }”在所有人签署之前已过期。您的签署链接已失效。
sms-expired-untitled = { $sender } 发送的一份文件在所有人签署之前已过期。您的签署链接已失效。
sms-code = { $code } 是您打开 { $sender } 发给您的文件的验证码，仅可使用一次，{ $minutes } 分钟内有效。请勿告诉他人。
