"""An HTTP server whose answers each test writes, on loopback: a router, a server or a peer that an attacker
controls. No real program can be made to answer this way; every well-behaved answer is tested against the real
one (sglang-router, SGLang, olah).

    with Server(reply(b"[1]")) as router:          # every request gets this answer
        ... router.url, router.requests (each {path, headers, body}); an answer reads handler.body
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Server:
    """answer(handler) writes each response; every request's path and headers are kept."""

    def __init__(self, answer):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if 0 < length <= 1024 * 1024 else b""
                self.body = body
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                try:
                    answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_DELETE = _any

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.http.server_address[1]

    def __enter__(self):
        threading.Thread(target=self.http.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.http.shutdown()
        self.http.server_close()


def reply(body, status=200, content_type="application/json", length=None):
    def answer(handler):
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body) if length is None else length))
        handler.end_headers()
        handler.wfile.write(body)
    return answer


def redirect(location, status=307):
    """An answer that sends the client to ``location``."""
    def answer(handler):
        handler.send_response(status)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    return answer


def flood(mib, status=200, byte=b" "):
    """An answer that announces and sends ``mib`` MiB (a body too large to read whole)."""
    def answer(handler):
        handler.send_response(status)
        handler.send_header("Content-Length", str(mib * 1024 * 1024))
        handler.end_headers()
        for _mib in range(mib):
            handler.wfile.write(byte * 1024 * 1024)
    return answer
