"""A loopback SMTP server for the benchmark (aiosmtpd): accepts every message, keeps none, and
writes one line per accepted message: `<unix time of acceptance> <Message-ID> <signing token or ->`.

    python3 scripts/bench/smtp_sink.py PORT LOGFILE
"""

import re
import sys
import time

from aiosmtpd.controller import Controller

MESSAGE_ID = re.compile(rb"^Message-ID:\s*<?([^>\r\n]+)>?", re.IGNORECASE | re.MULTILINE)
SIGNING_LINK = re.compile(rb"/sign/([A-Za-z0-9_-]+)")


class Recorder:
    def __init__(self, log):
        self.log = log

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content or envelope.content
        found = MESSAGE_ID.search(content)
        message_id = found.group(1).decode() if found else "-"
        link = SIGNING_LINK.search(content)
        token = link.group(1).decode() if link else "-"
        self.log.write(f"{time.time():.6f} {message_id} {token}\n")
        self.log.flush()
        return "250 Message accepted for delivery"


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    with open(path, "a", buffering=1) as log:
        controller = Controller(Recorder(log), hostname="127.0.0.1", port=port)
        controller.start()
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
        finally:
            controller.stop()


if __name__ == "__main__":
    main()
