# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The peer server of a weights fan-out: while a run stages a revision, a host that has its files serves
them to the hosts below it, so that the Hub or the mirror serves each file once per fleet.

    python3 _weights_server.py ROOT TOKEN ADDRESS PORT

Serves GET/HEAD /<TOKEN>/<path below ROOT> for complete files only (a file still arriving is
"<name>.part": 404 until it is verified and renamed), with Range; nothing else (no listings, no paths
out of ROOT). gpufleet.sglang.model_weights writes this file on the host and runs it as a transient
systemd unit for the length of the staging. Standard library only.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RANGE = re.compile(r"^bytes=(\d+)-$")


def resolve(root, token, url_path):
    """The file a request names, or None: below root, complete, a regular file."""
    parts = url_path.split("?", 1)[0].lstrip("/").split("/", 1)
    if len(parts) != 2 or parts[0] != token or not parts[1]:
        return None
    relative = os.path.normpath(parts[1])
    if relative.startswith("..") or os.path.isabs(relative) or relative.endswith(".part"):
        return None
    path = os.path.join(root, relative)
    return path if os.path.isfile(path) and not os.path.islink(path) else None


def handler(root, token):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

        def _send(self, body):
            path = resolve(root, token, self.path)
            if path is None:
                self.send_error(404)
                return
            size = os.path.getsize(path)
            start = 0
            match = RANGE.match(self.headers.get("Range", ""))
            if match and int(match.group(1)) <= size:
                start = int(match.group(1))
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, max(size - 1, start), size))
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(size - start))
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            if body:
                with open(path, "rb") as handle:
                    handle.seek(start)
                    shutil.copyfileobj(handle, self.wfile, 8 * 1024 * 1024)

        def do_GET(self):
            self._send(True)

        def do_HEAD(self):
            self._send(False)

    return Handler


def main(root, token, address, port):
    ThreadingHTTPServer((address, int(port)), handler(os.path.realpath(root), token)).serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:5])
