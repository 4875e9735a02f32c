# -*- coding: utf-8 -*-
# Copyright: gpufleet.sglang contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The peer server of a weights fan-out: while a run stages a revision, a host that has its files serves
them to the hosts below it, so that the Hub or the mirror serves each file once per fleet.

    python3 _weights_peer.py ROOT ADDRESS PORT TOKEN_FILE    (the token is kept out of argv)

Serves GET/HEAD /<path below ROOT> to a request that brings "Authorization: Bearer <token>", for complete
files only (a file still arriving is "<name>.part": 404 until it is verified and renamed), with Range;
nothing else (no listings, no paths out of ROOT). gpufleet.sglang.model_weights writes this file on the host (serve) and runs it as a
transient systemd unit for the length of the staging (stop). Standard library only.
"""

from __future__ import annotations

import grp
import hmac
import inspect
import os
import re
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")
UNIT = "gpufleet-weights-peer.service"
RUN_DIR = "/run/gpufleet-weights-peer"


class PeerError(Exception):
    """The peer server cannot serve."""


def resolve(root, token, url_path, authorization):
    """The file a request names, or None: asked with the token, below root, complete, a regular file."""
    if not hmac.compare_digest(authorization.encode(), ("Bearer " + token).encode()):
        return None
    relative = os.path.normpath(unquote(url_path.split("?", 1)[0]).lstrip("/"))
    if relative in (".", "") or relative.startswith("..") or os.path.isabs(relative) or relative.endswith(".part"):
        return None
    path = os.path.join(root, relative)
    return path if os.path.isfile(path) and not os.path.islink(path) else None


def handler(root, token):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

        def _send(self, body):
            path = resolve(root, token, self.path, self.headers.get("Authorization", ""))
            if path is None:
                self.send_error(404)
                return
            size = os.path.getsize(path)
            start, end = 0, size
            match = RANGE.match(self.headers.get("Range", ""))
            if match and int(match.group(1)) < size:
                start = int(match.group(1))
                end = min(int(match.group(2)) + 1, size) if match.group(2) else size
                if end <= start:
                    self.send_error(416)
                    return
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, size))
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(end - start))
            self.send_header("Content-Type", "application/octet-stream")
            self.end_headers()
            if body:
                with open(path, "rb") as handle:
                    handle.seek(start)
                    left = end - start
                    while left:
                        chunk = handle.read(min(left, 8 * 1024 * 1024))
                        if not chunk:
                            break
                        self.wfile.write(chunk)
                        left -= len(chunk)

        def do_GET(self):
            self._send(True)

        def do_HEAD(self):
            self._send(False)

    return Handler


def _active(run_command):
    return run_command(["systemctl", "is-active", "--quiet", UNIT])[0] == 0


def serve(root, address, port, token, user, group, run_command, python=sys.executable, wait=10):
    """Start this host's peer server as a transient unit (restarted with this run's token when it runs)."""
    os.makedirs(RUN_DIR, mode=0o755, exist_ok=True)
    script, token_file = os.path.join(RUN_DIR, "server.py"), os.path.join(RUN_DIR, "token")
    with open(script, "w") as handle:
        handle.write(inspect.getsource(sys.modules[__name__]))
    with open(token_file, "w") as handle:
        handle.write(token)
    os.chown(token_file, 0, grp.getgrnam(group).gr_gid)
    os.chmod(token_file, 0o640)
    if _active(run_command):
        run_command(["systemctl", "stop", UNIT])
    rc, _out, err = run_command(["systemd-run", "--unit", UNIT, "--collect", "--quiet", "--property", "User=" + user,
                                 "--property", "Group=" + group, "--", python, script, root, address, str(port),
                                 token_file])
    if rc != 0:
        raise PeerError("systemd-run could not start the weights peer server: %s" % err.strip())
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1" if address in ("0.0.0.0", "::") else address, port), 1).close()
            return True
        except OSError:
            time.sleep(0.2)
    log = run_command(["journalctl", "-u", UNIT, "-n", "20", "--no-pager"])[1]
    raise PeerError("the weights peer server did not listen on port %d within %d s: %s" % (port, wait, log.strip()))


def stop(run_command):
    """Stop this host's peer server; False when it did not run."""
    if not _active(run_command):
        return False
    run_command(["systemctl", "stop", UNIT], check_rc=True)
    return True


def main(root, address, port, token_file):
    with open(token_file) as handle:
        token = handle.read().strip()
    ThreadingHTTPServer((address, int(port)), handler(os.path.realpath(root), token)).serve_forever()


if __name__ == "__main__":
    main(*sys.argv[1:5])
