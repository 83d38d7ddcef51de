# pyservice.py - a small Python service for the screenshots: an HTTP
# server (http.server, a thread per connection) answers JSON orders that
# two client threads post over keep-alive connections; each order is
# parsed (json.loads, whose scanner is C), priced in Python, hashed
# (hashlib, C) and answered (json.dumps).  Runs argv[1] seconds (60 by
# default), then exits.
import hashlib
import http.server
import json
import sys
import threading
import time
import http.client

SECS = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
ITEMS = [{"sku": "A%04d" % i, "qty": i % 7 + 1, "price": 1.5 + i % 13}
         for i in range(400)]


def price(order):
    total = 0.0
    for item in order["items"]:
        total += item["qty"] * item["price"] * (0.9 if item["qty"] > 3 else 1.0)
    return round(total, 2)


def sign(body):
    h = hashlib.sha256()
    for _ in range(40):
        h.update(body)
    return h.hexdigest()


class Orders(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: one thread per client
    disable_nagle_algorithm = True  # no 40 ms wait for the ACK

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        order = json.loads(body)
        reply = json.dumps({"total": price(order), "sig": sign(body)}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def client(port):
    body = json.dumps({"items": ITEMS}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", port)
    end = time.monotonic() + SECS
    while time.monotonic() < end:
        conn.request("POST", "/orders", body)
        json.loads(conn.getresponse().read())


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Orders)
threading.Thread(target=server.serve_forever, name="server", daemon=True).start()
port = server.server_address[1]
threading.Thread(target=client, args=(port,), name="client", daemon=True).start()
client(port)
