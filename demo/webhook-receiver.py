#!/usr/bin/env python3
"""A minimal webhook receiver for trying Signet locally: verifies each request's Standard
Webhooks signature and prints the event. Standard library only.

    SIGNET_WEBHOOK_SECRET=whsec_... python3 demo/webhook-receiver.py [port]

The secret comes from the environment, not the command line, where any user of the machine
could read it (ps, /proc/<pid>/cmdline). The port defaults to 9000.
"""
import base64, hashlib, hmac, json, os, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer

try:
    SECRET = base64.b64decode(os.environ["SIGNET_WEBHOOK_SECRET"].removeprefix("whsec_"), validate=True)
except KeyError:
    sys.exit("set SIGNET_WEBHOOK_SECRET to the account's signing secret (whsec_...): "
             "signet-api webhook secret --account ID")
except ValueError:
    sys.exit("SIGNET_WEBHOOK_SECRET is not a whsec_... secret (base64 after the prefix)")
if len(sys.argv) > 2 or (len(sys.argv) == 2 and not sys.argv[1].isdigit()):
    sys.exit("usage: SIGNET_WEBHOOK_SECRET=whsec_... webhook-receiver.py [port]"
             " (the secret is read from the environment only)")
PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 9000


def verified(headers, body: bytes) -> bool:
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    signatures = headers["webhook-signature"]
    if not (msg_id and timestamp and signatures and timestamp.isdigit()):
        return False
    if abs(time.time() - int(timestamp)) > 300:  # refuse replays of old messages
        return False
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(f"v1,{expected}", s) for s in signatures.split())


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"] or 0))
        if not verified(self.headers, body):
            self.send_response(401)
            self.end_headers()
            print("rejected: bad signature", flush=True)
            return
        event = json.loads(body)
        # Every verified event is printed, whatever its data holds (a bulk send's has no
        # status; one of the event feed's kinds may add properties).
        data = event.get("data") or {}
        details = " ".join(f"{name}={data[name]}" for name in ("id", "status") if name in data)
        print(f"{event.get('type', '?')} {details} webhook-id={self.headers['webhook-id']}",
              flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


print(f"listening on http://127.0.0.1:{PORT}/ (any path)", flush=True)
HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
