# Signet 发给收件人的电子邮件（worker/src/mail.rs）。

email-greeting = { $name }，您好：
email-invitation-subject-sign = { $sender } 向您发送了“{ $title }”，请签署
email-invitation-subject-view = { $sender } 向您发送了“{ $title }”，请查阅
email-invitation-body-sign = { $sender } 向您发送了“{ $title }”，请您签署。
email-invitation-body-view = { $sender } 向您发送了“{ $title }”，请您查阅。
email-link-expires = 此链接的有效期至 { $expiry }（UTC）。
email-invitation-action-sign = 打开文件并签署
email-invitation-action-view = 打开文件查阅
email-completed-subject = “{ $title }”已完成签署
email-completed-body = 所有人均已签署“{ $title }”。已签署的 PDF 及其完成证书现已就绪。
email-completed-action = 下载已签署的 PDF
email-declined-subject = “{ $title }”已被拒签
email-declined-body = { $who } 拒绝签署“{ $title }”，因此该文件将无法完成。
email-declined-someone = 一位签署人
email-declined-reason = 原因：{ $reason }
email-expired-subject = “{ $title }”已过期
email-expired-body = “{ $title }”在所有人签署之前已过期，其签署链接已失效。
email-cancelled-subject = “{ $title }”已被取消
email-cancelled-body = { $sender } 已取消“{ $title }”，其签署链接已失效。
email-cancelled-reason = 原因：{ $reason }
email-reminder-subject = 提醒：{ $sender } 正在等待您签署“{ $title }”
email-reminder-body = { $sender } 已向您发送“{ $title }”以供签署，目前仍在等待您的签名。下方链接可打开该文件；之前邮件中的链接同样有效。
email-paste-link = 或将此链接粘贴到浏览器中：{ $url }
email-document-code = 文件编号：{ $code }
email-sent-by = 由 Signet 代表 { $sender } 发送
