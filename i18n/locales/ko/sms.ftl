# SMS 문구(common/src/delivery/sms_text.rs). 링크는 맨 끝에 둡니다.

sms-invitation = { $sender }에서 “{ $title }” 문서에 서명을 요청했습니다. { $link }
sms-invitation-untitled = { $sender }에서 문서 서명을 요청했습니다. { $link }
sms-declined = { $sender }에서 보낸 “{ $title }” 문서의 서명이 거절되어 완료되지 않습니다. 서명 링크는 더 이상 사용할 수 없습니다.
sms-declined-untitled = { $sender }에서 보낸 문서의 서명이 거절되어 완료되지 않습니다. 서명 링크는 더 이상 사용할 수 없습니다.
sms-expired = { $sender }에서 보낸 “{ $title }” 문서가 모두 서명하기 전에 만료되었습니다. 서명 링크는 더 이상 사용할 수 없습니다.
sms-expired-untitled = { $sender }에서 보낸 문서가 모두 서명하기 전에 만료되었습니다. 서명 링크는 더 이상 사용할 수 없습니다.
sms-code = { $code }은(는) { $sender }에서 보낸 문서를 여는 코드입니다. { $minutes }분 동안 한 번만 사용할 수 있습니다. 다른 사람과 공유하지 마세요.
