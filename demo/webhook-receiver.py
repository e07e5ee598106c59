#!/usr/bin/env python3
"""A minimal webhook receiver for trying Signet locally: verifies each request's Standard
Webhooks signature and prints the event. Standard library only.

    python3 demo/webhook-receiver.py whsec_... [port]
"""
import base64, hashlib, hmac, json, sys, time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = base64.b64decode(sys.argv[1].removeprefix("whsec_"))
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 9000


def verified(headers, body: bytes) -> bool:
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > 300:  # refuse replays of old messages
        return False
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(f"v1,{expected}", s) for s in headers["webhook-signature"].split())


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        if not verified(self.headers, body):
            self.send_response(401)
            self.end_headers()
            print("rejected: bad signature", flush=True)
            return
        event = json.loads(body)
        print(f"{event['type']} {event['data']['id']} status={event['data']['status']} "
              f"webhook-id={self.headers['webhook-id']}", flush=True)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
