"""A stand-in for Pyroscope's /ingest endpoint, for tests/fleet: it checks
nothing itself, it writes down what it got. Each POST is saved in DIR as
N.query (the decoded query string), N.type (Content-Type) and N.part (the
bytes of the multipart field named "profile"). A host label "refuse" gets
HTTP 422 with a message, as a server over its limits would answer.
Writes its port to DIR/port once listening.
    python3 ingest_receiver.py DIR
"""
import http.server
import os
import sys
import urllib.parse

OUT = sys.argv[1]


def profile_part(ctype, body):
    boundary = None
    for piece in ctype.split(";"):
        piece = piece.strip()
        if piece.startswith("boundary="):
            boundary = piece[len("boundary="):].strip('"')
    if not boundary:
        return b""
    for part in body.split(b"--" + boundary.encode()):
        head, _, data = part.partition(b"\r\n\r\n")
        if b'name="profile"' in head:
            return data[:-2] if data.endswith(b"\r\n") else data
    return b""


class Handler(http.server.BaseHTTPRequestHandler):
    count = 0

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Handler.count += 1
        base = os.path.join(OUT, str(Handler.count))
        query = urllib.parse.unquote(url.query)
        with open(base + ".query", "w") as f:
            f.write(url.path + "?" + query + "\n")
        with open(base + ".type", "w") as f:
            f.write(self.headers.get("Content-Type", "") + "\n")
        with open(base + ".part", "wb") as f:
            f.write(profile_part(self.headers.get("Content-Type", ""), body))
        if "host=refuse" in query:
            self.send_response(422)
            self.end_headers()
            self.wfile.write(b"profile too large\n")
            return
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(OUT, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.rename(os.path.join(OUT, "port.tmp"), os.path.join(OUT, "port"))
server.serve_forever()
