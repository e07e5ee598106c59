# SMS の文面（common/src/delivery/sms_text.rs）。リンクは末尾に、前に空白を 1 つ置きます。

sms-invitation = { $sender } から「{ $title }」への署名依頼が届いています。 { $link }
sms-invitation-untitled = { $sender } から文書への署名依頼が届いています。 { $link }
sms-declined = { $sender } からの「{ $title }」は署名が辞退されたため、完了しません。署名用リンクは使用できなくなりました。
sms-declined-untitled = { $sender } からの文書は署名が辞退されたため、完了しません。署名用リンクは使用できなくなりました。
sms-expired = { $sender } からの「{ $title }」は、全員の署名がそろう前に有効期限が切れました。署名用リンクは使用できなくなりました。
sms-expired-untitled = { $sender } からの文書は、全員の署名がそろう前に有効期限が切れました。署名用リンクは使用できなくなりました。
sms-code = { $code } は、{ $sender } から届いた文書を開くためのコードです。{ $minutes } 分間、1回のみ有効です。他の人に教えないでください。
