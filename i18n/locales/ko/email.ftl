# Signet이 수신자에게 보내는 이메일(worker/src/mail.rs).

email-greeting = { $name } 님, 안녕하세요.
email-invitation-subject-sign = { $sender }에서 서명을 요청한 문서: “{ $title }”
email-invitation-subject-view = { $sender }에서 열람용으로 보낸 문서: “{ $title }”
email-invitation-body-sign = { $sender }에서 “{ $title }” 문서에 서명을 요청했습니다.
email-invitation-body-view = { $sender }에서 “{ $title }” 문서를 열람용으로 보냈습니다.
email-link-expires = 이 링크는 { $expiry }(UTC)까지 유효합니다.
email-invitation-action-sign = 문서를 열어 서명하기
email-invitation-action-view = 문서를 열어 열람하기
email-completed-subject = “{ $title }” 서명이 완료되었습니다
email-completed-body = 모든 서명자가 “{ $title }”에 서명했습니다. 완료 증명서가 포함된 서명된 PDF가 준비되었습니다.
email-completed-action = 서명된 PDF 다운로드
email-declined-subject = “{ $title }” 서명이 거절되었습니다
email-declined-body = { $who }이(가) “{ $title }” 서명을 거절하여 이 문서는 완료되지 않습니다.
email-declined-someone = 서명자 한 명
email-declined-reason = 사유: { $reason }
email-expired-subject = “{ $title }”의 유효 기간이 만료되었습니다
email-expired-body = 모든 서명자가 서명하기 전에 “{ $title }”의 유효 기간이 만료되었습니다. 서명 링크는 더 이상 사용할 수 없습니다.
email-cancelled-subject = “{ $title }”이(가) 취소되었습니다
email-cancelled-body = { $sender }에서 “{ $title }”을(를) 취소했습니다. 서명 링크는 더 이상 사용할 수 없습니다.
email-cancelled-reason = 사유: { $reason }
email-reminder-subject = 알림: { $sender }에서 “{ $title }”에 대한 서명을 기다리고 있습니다
email-reminder-body = { $sender }에서 서명을 요청한 “{ $title }”이(가) 아직 서명을 기다리고 있습니다. 아래 링크로 문서를 열 수 있으며, 이전 이메일의 링크도 사용할 수 있습니다.
email-paste-link = 또는 이 링크를 브라우저에 붙여 넣으세요: { $url }
email-document-code = 문서 코드: { $code }
email-sent-by = { $sender }을(를) 대신하여 Signet에서 보냈습니다
