"""A multi-node server (--nnodes N --node-rank R --dist-init-addr HOST:PORT) as far as its hosts
depend on each other: rank 0 waits until every other rank has joined before it loads and serves
HTTP; the other ranks join rank 0 (retrying while it is not up) and serve no HTTP; when any rank
goes away, the others exit, as SGLang's ranks do when their NCCL group breaks. What travels between
them is only the stand-in's own rendezvous on the --dist-init-addr port, not torch.distributed."""

import os
import socket
import sys
import threading
import time


def log(message):
    sys.stderr.write("[sglang-standin] %s\n" % message)
    sys.stderr.flush()


def _address(dist_init_addr):
    host, port = dist_init_addr.rsplit(":", 1)
    return host.strip("[]"), int(port)


def _exit_when_closed(conn, who):
    def watch():
        try:
            while conn.recv(64):
                pass
        except OSError:
            pass
        log("%s left the group: exiting, as a rank whose NCCL group broke does" % who)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def join(args, timeout=None):
    """Block until the group is whole (rank 0) or joined (other ranks). Returns whether this rank serves HTTP."""
    nnodes = int(args.get("nnodes") or 1)
    if nnodes <= 1:
        return True
    rank = int(args.get("node_rank") or 0)
    host, port = _address(args["dist_init_addr"])
    timeout = float(os.environ.get("SGLANG_STANDIN_GROUP_TIMEOUT", "300")) if timeout is None else timeout
    if rank == 0:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("0.0.0.0", port))
        listener.listen(nnodes)
        listener.settimeout(timeout)
        log("rank 0 of %d: waiting for the other ranks on port %d" % (nnodes, port))
        joined = {}
        while len(joined) < nnodes - 1:
            try:
                conn, _peer = listener.accept()
            except socket.timeout:
                raise SystemExit("RuntimeError: timed out waiting for %d rank(s) to join %s:%d"
                                 % (nnodes - 1 - len(joined), host, port))
            peer_rank = conn.recv(64).decode().strip()
            joined[peer_rank] = conn
            log("rank %s joined" % peer_rank)
        for peer_rank, conn in joined.items():
            conn.sendall(b"ready\n")
            _exit_when_closed(conn, "rank %s" % peer_rank)
        return True
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("RuntimeError: rank %d could not reach rank 0 at %s:%d" % (rank, host, port))
            time.sleep(0.5)
    conn.sendall(("%d\n" % rank).encode())
    conn.settimeout(None)
    log("rank %d of %d joined rank 0 at %s:%d" % (rank, nnodes, host, port))
    _exit_when_closed(conn, "rank 0")
    return False
