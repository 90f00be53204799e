import base64, hashlib, hmac, json, os, time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))

def verify(headers, body: bytes) -> dict:
    msg_id, timestamp, signatures = (headers.get(h, "") for h in ("webhook-id", "webhook-timestamp", "webhook-signature"))
    if not (msg_id and timestamp.isdigit()):
        raise ValueError("not a webhook request")
    if abs(time.time() - int(timestamp)) > 300:
        raise ValueError("timestamp too far from now")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest())
    if not any(hmac.compare_digest(sig[3:].encode(), expected) for sig in signatures.split(" ") if sig.startswith("v1,")):
        raise ValueError("no valid signature")
    return json.loads(body)

class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = verify(self.headers, body)
        except ValueError:
            self.send_response(400); self.end_headers(); return
        self.send_response(204); self.end_headers()
        print(event["type"], event["data"], flush=True)  # hand it to a queue; deduplicate on webhook-id

HTTPServer(("", int(os.environ.get("PORT", "3000"))), Receiver).serve_forever()
