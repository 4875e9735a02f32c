"""A Hugging Face Hub that lies: the Hub's HTTP API (revision, tree, resolve) served by a small server whose
answers each test writes, to stand in for a mirror that an attacker controls, or the network path to one.
No real mirror can be made to answer this way (olah serves what its git repositories hold), and the real Hub
is unreachable here; every well-behaved answer is tested against the real olah mirror (hf_mirror).

    with HostileHub() as hub:
        hub.listing = [{"type": "file", "path": "../x", "size": 1, "oid": "0" * 40}]
        hub.files["config.json"] = b"{}"
        hub.behaviour["config.json"] = ("cut", 10)       # close cleanly after 10 bytes
        ...

Behaviours of a file's body: ("cut", n) a clean close after n bytes; ("reset", n) a TCP reset after n bytes;
("endless",) bytes without end; ("drip", seconds) one byte each interval; ("redirect", url) a 302;
("length", n) a Content-Length of n; ("range",) honour Range (the default ignores it, as olah does).
Each is used once when it is a list of them (the first request gets the first). behaviour["tree"] =
("endless",) makes the listing a body without end."""

import json
import socket
import ssl
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

COMMIT = "c" * 40


def file_entries(files, lfs=()):
    """Tree API entries for {path: bytes}, with the right digests (sha256 for the paths in lfs)."""
    import hashlib
    entries = []
    for path, data in files.items():
        entry = {"type": "file", "path": path, "size": len(data),
                 "oid": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}
        if path in lfs:
            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data)}
        entries.append(entry)
    return entries


class HostileHub:
    def __init__(self, tls=None, host="127.0.0.1"):
        """tls: an ssl.SSLContext for the server side (https), or None (http)."""
        self.commit, self.listing, self.pages = COMMIT, [], None
        self.files, self.behaviour, self.requests = {}, {}, []
        self.server = ThreadingHTTPServer((host, 0), _handler(self))
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.url = "%s://%s:%d" % ("https" if tls else "http", host, self.server.server_address[1])

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def next_behaviour(self, path):
        found = self.behaviour.get(path)
        if isinstance(found, list):
            return found.pop(0) if found else None
        return found


def _handler(hub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            parts = urlsplit(self.path)
            hub.requests.append({"path": parts.path, "query": parts.query, "headers": dict(self.headers)})
            path = unquote(parts.path)
            try:
                if "/revision/" in path:
                    self._json({"sha": hub.commit})
                elif "/tree/" in path:
                    self._tree(parts.query)
                elif "/resolve/" in path:
                    self._file(path.split("/resolve/", 1)[1].split("/", 1)[1])
                else:
                    self._status(404)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                pass

        def _status(self, code, headers=None):
            self.send_response(code)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _json(self, value, headers=None):
            body = json.dumps(value).encode()
            self.send_response(200)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _tree(self, query):
            if hub.next_behaviour("tree") == ("endless",):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"[")
                while True:
                    self.wfile.write(b'{"type": "file", "path": "x", "size": 1},' * 1000)
            if hub.pages is None:
                self._json(hub.listing)
                return
            page = int(dict(item.split("=", 1) for item in query.split("&") if "=" in item).get("page", "0"))
            entries, link = hub.pages(page)
            self._json(entries, {"Link": '<%s>; rel="next"' % link} if link else None)

        def _file(self, name):
            how = hub.next_behaviour(name) or ()
            if how and how[0] == "redirect":
                self._status(302, {"Location": how[1]})
                return
            if how and how[0] == "endless":
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                while True:
                    self.wfile.write(b"\0" * 65536)
            data = hub.files.get(name)
            if data is None:
                self._status(404)
                return
            start = 0
            wanted = self.headers.get("Range", "")
            if how and how[0] == "range" and wanted.startswith("bytes="):
                first, _dash, last = wanted[6:].partition("-")
                start, end = int(first), (int(last) + 1 if last else len(data))
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, len(data)))
                data = data[start:end]
            else:
                self.send_response(200)
            length = how[1] if how and how[0] == "length" else len(data)
            self.send_header("Content-Length", str(length))
            self.end_headers()
            if how and how[0] in ("cut", "reset"):
                self.wfile.write(data[:how[1]])
                self.wfile.flush()
                if how[0] == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if how and how[0] == "drip":
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(how[1])
                return
            self.wfile.write(data)

    return Handler
