"""Staging weights: what the mirror serves with the fan-out and without, and what a no-op's verification costs a
host. The hashing of a full check is measured by bench/hashing.py.

    make bench-weights    (or: PYTHONPATH=tests:.collections python bench/weights.py [--runs 3] [--hosts 3]
                                                                                      [--files 100] [--mb 400])

A real olah mirror (tests/gpufleet_testlib/hf_mirror.py) serves a model of --files files (--mb MB in all,
LFS shards and small files) on loopback. --hosts hosts are directories on this machine, each staged by
its own thread with gpufleet.sglang's module_utils, as the module does on a host; with the fan-out each
also runs the collection's peer server and fetches from its parent in the binary tree that
roles/launch/tasks/weights_stage.yml builds. Per mode: the bytes the mirror served (its access log, each
file's size), and the wall time until every host had every file verified. Then a no-op's verification
(gpufleet.sglang.model_weights state=inspected on a staged revision: the manifest's size and mtime, no
request and no hash). The median of --runs with the spread (min-max).
"""

import argparse
import statistics
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights
from ansible_collections.gpufleet.sglang.plugins.module_utils import _weights_peer as peers
from ansible_collections.gpufleet.sglang.plugins.module_utils._weights_http import Hub
from gpufleet_testlib import hf_mirror

REPO = "bench-org/bench-model"
TOKEN = "bench-token"


def spread(values, unit, scale=1.0, digits=2):
    values = [value * scale for value in values]
    form = "%%.%df %s (%%.%df-%%.%df)" % (digits, unit, digits, digits)
    return form % (statistics.median(values), min(values), max(values))


def model_files(count, megabytes):
    """count files: a config, an index, and LFS shards that share megabytes."""
    shards = count - 2
    size = megabytes * 1024 * 1024 // shards
    files = {"config.json": b'{"architectures": ["DeepseekV3ForCausalLM"]}\n'}
    names = ["model-%05d-of-%05d.safetensors" % (number, shards) for number in range(1, shards + 1)]
    files["model.safetensors.index.json"] = ('{"weight_map": {%s}}' % ", ".join(
        '"w%d": "%s"' % (number, name) for number, name in enumerate(names))).encode()
    for name in names:
        files[name] = hf_mirror.shard(name, size)
    return files, names


def served_bytes(mirror, sizes):
    with open(mirror.log, errors="replace") as handle:
        paths = [line.split('"GET ')[1].split(" ")[0] for line in handle if '"GET ' in line and "/resolve/" in line]
    return sum(sizes[path.split("/resolve/", 1)[1].split("/", 1)[1]] for path in paths)


def stage_fleet(mirror, commit, hosts, fanout):
    """Stage the revision on every host at once; returns the wall time."""
    roots = [tempfile.mkdtemp(prefix="host-%d-" % number, dir=mirror.directory) for number in range(hosts)]
    servers = []
    if fanout:
        for root in roots:
            quiet = type("Quiet", (peers.handler(root, TOKEN),), {"log_message": lambda *args: None})
            server = ThreadingHTTPServer(("127.0.0.1", 0), quiet)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            servers.append(server)
    errors = []

    def host(index):
        try:
            source = Hub(mirror.url)
            state = weights.inspect({"name": "target", "repo": REPO, "commit": commit}, roots[index], source)
            parent = (Hub("http://127.0.0.1:%d" % servers[(index - 1) // 2].server_address[1], TOKEN)
                      if fanout and index else None)
            for item in weights.plan_fetches([state]):
                weights.stage_file(item, source, roots[index], peer=parent, peer_wait=600)
            if weights.inspect({"name": "target", "repo": REPO, "commit": commit}, roots[index], source)["lacks"]:
                errors.append("host %d is not verified" % index)
        except Exception as exc:  # pylint: disable=broad-except
            errors.append("host %d: %s" % (index, exc))

    start = time.monotonic()
    threads = [threading.Thread(target=host, args=(index,)) for index in range(hosts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    for server in servers:
        server.shutdown()
    if errors:
        sys.exit("; ".join(errors))
    return elapsed, roots[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--mb", type=int, default=400)
    args = parser.parse_args()
    files, _names = model_files(args.files, args.mb)
    sizes = dict((path, len(data)) for path, data in files.items())
    total = sum(sizes.values())
    with tempfile.TemporaryDirectory(prefix="bench-weights-") as work, hf_mirror.Mirror(work) as mirror:
        commit, _expected = hf_mirror.commit_files(mirror.mirrors, REPO, files,
                                                   [path for path in files if path.endswith(".safetensors")])
        print("a revision of %d files, %.0f MB, staged on %d hosts; olah %s on loopback" % (
            len(files), total / 1e6, args.hosts, hf_mirror.VERSION))
        results = {False: ([], []), True: ([], [])}
        staged_root = None
        for _run in range(args.runs):
            for fanout in (False, True):  # side by side in each round
                before = served_bytes(mirror, sizes)
                elapsed, staged_root = stage_fleet(mirror, commit, args.hosts, fanout)
                results[fanout][0].append(served_bytes(mirror, sizes) - before)
                results[fanout][1].append(elapsed)
        for fanout in (False, True):
            served, wall = results[fanout]
            print("%-12s mirror served %s = %.2fx the revision; wall %s" % (
                "fan-out:" if fanout else "no fan-out:", spread(served, "MB", 1e-6, 1),
                statistics.median(served) / total, spread(wall, "s")))
        print("fan-out/no fan-out: mirror bytes %.2fx, wall %.2fx" % (
            statistics.median(results[True][0]) / statistics.median(results[False][0]),
            statistics.median(results[True][1]) / statistics.median(results[False][1])))

        noop = []
        for _run in range(max(args.runs, 5)):
            start = time.monotonic()
            state = weights.inspect({"name": "target", "repo": REPO, "commit": commit}, staged_root,
                                    Hub("http://127.0.0.1:9"))
            noop.append(time.monotonic() - start)
            assert state["lacks"] == {}
        print("no-op verification of the %d-file revision on one host (manifest, no request, no hash): %s" % (
            len(files), spread(noop, "ms", 1e3, 1)))

        print("the rate of a full check (hashing): make bench-hashing")


if __name__ == "__main__":
    main()
