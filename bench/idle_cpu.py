"""What an idle SGLang server costs the CPU, with and without --sleep-on-idle (not part of make test):

    PYTHONPATH=tests:.collections python bench/idle_cpu.py [--runs 3] [--seconds 10]

SGLang 0.5.9's engine on the CPU, patched, the tiny Kimi-K2.5 target of tests/real_sglang/tiny_weights.py and the
tests' flags (gpufleet_testlib.cpu_speculation) less --sleep-on-idle; one server started healthy and left idle,
then --runs windows of --seconds each: the CPU seconds its processes (the server, its scheduler and its
detokenizer) used in the window, from /proc. Then the same with --sleep-on-idle, and the time
one request takes on each (the idle scheduler must still answer at once). Medians with the spread (min-max).
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request

from gpufleet_testlib import cpu_speculation

TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid):
    """user + system seconds of pid and every descendant alive now."""
    children, ticks = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        ticks[int(entry)] = int(fields[11]) + int(fields[12])
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += ticks.get(current, 0)
        stack.extend(children.get(current, []))
    return total / TICKS


def one_request(url):
    body = json.dumps({"text": "a", "sampling_params": {"max_new_tokens": 1}}).encode()
    request = urllib.request.Request(url + "/generate", data=body, headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=60) as answer:
        answer.read()
    return time.monotonic() - started


def spread(values, unit):
    return "%.2f %s (%.2f-%.2f)" % (statistics.median(values), unit, min(values), max(values))


def measure(venv, models, flags, runs, seconds):
    process, url, started = cpu_speculation.start(venv, models, flags=flags)
    try:
        cpu_speculation.wait_healthy(process, url, started)
        time.sleep(5)  # past the start's own work
        used, latency = [], []
        for dummy in range(runs):
            before = tree_cpu_seconds(process.pid)
            time.sleep(seconds)
            used.append(tree_cpu_seconds(process.pid) - before)
            latency.append(one_request(url))
        return used, latency
    finally:
        cpu_speculation.stop(process)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="gpufleet-bench-idle-")
    try:
        venv = cpu_speculation.patched_venv(work)
        models = cpu_speculation.tiny_models(work)
        # The tests' flags less the one measured; each case adds its own.
        cpu_speculation.FLAGS = [flag for flag in cpu_speculation.FLAGS if flag != "--sleep-on-idle"]
        results = {}
        for name, flags in (("SGLang's default (polling)", []), ("--sleep-on-idle", ["--sleep-on-idle"])):
            results[name] = measure(venv, models, flags, args.runs, args.seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("idle CPU of one SGLang 0.5.9 server on the CPU engine, %d windows of %.0f s each:" % (args.runs, args.seconds))
    for name, (used, latency) in results.items():
        print("  %-28s CPU %s per window (%.0f%% of a core); one request after the window: %s"
              % (name, spread(used, "s"), 100 * statistics.median(used) / args.seconds, spread(latency, "s")))
    polling, sleeping = (statistics.median(results[name][0]) for name in results)
    print("  ratio: --sleep-on-idle uses %.3fx the CPU of the default when idle" % (sleeping / polling))
    return 0


if __name__ == "__main__":
    sys.exit(main())
