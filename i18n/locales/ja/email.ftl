# Signet が受信者に送るメール（worker/src/mail.rs）。

email-greeting = { $name } 様
email-invitation-subject-sign = { $sender } から「{ $title }」への署名依頼が届いています
email-invitation-subject-view = { $sender } から「{ $title }」が閲覧用に送信されました
email-invitation-body-sign = { $sender } から「{ $title }」への署名依頼が届いています。
email-invitation-body-view = { $sender } から「{ $title }」が閲覧用に送信されました。
email-link-expires = このリンクの有効期限は { $expiry }（UTC）です。
email-invitation-action-sign = 文書を開いて署名する
email-invitation-action-view = 文書を開いて閲覧する
email-completed-subject = 「{ $title }」の署名が完了しました
email-completed-body = 「{ $title }」に全員が署名しました。完了証明書付きの署名済み PDF をご利用いただけます。
email-completed-action = 署名済み PDF をダウンロード
email-declined-subject = 「{ $title }」の署名が辞退されました
email-declined-body = { $who } が「{ $title }」への署名を辞退したため、この文書は完了しません。
email-declined-someone = 署名者の 1 人
email-declined-reason = 理由：{ $reason }
email-expired-subject = 「{ $title }」の有効期限が切れました
email-expired-body = 全員の署名がそろう前に「{ $title }」の有効期限が切れました。署名用リンクは使用できなくなりました。
email-cancelled-subject = 「{ $title }」は取り消されました
email-cancelled-body = { $sender } が「{ $title }」を取り消しました。署名用リンクは使用できなくなりました。
email-cancelled-reason = 理由：{ $reason }
email-reminder-subject = リマインダー：{ $sender } が「{ $title }」へのご署名をお待ちしています
email-reminder-body = { $sender } から送信された「{ $title }」は、まだご署名をお待ちしています。下のリンクから文書を開けます。以前のメールのリンクも引き続きご利用いただけます。
email-paste-link = または、このリンクをブラウザーに貼り付けてください：{ $url }
email-document-code = 文書コード：{ $code }
email-sent-by = このメールは { $sender } に代わって Signet が送信しました
