"""Time the EAGLE-3 audit of a full installed SGLang tree: cold, cached, and `grep -rn` beside them.

    make bench    (or: PYTHONPATH=tests:.collections python bench/audit.py [VERSION] [--runs N])

The tree is the release wheel from PyPI (cached by tests/gpufleet_testlib/sglang_wheels.py), unpacked
into a temporary site-packages. Every run is a fresh Python process:
  cold   - an empty cache directory: the audit parses the trees (what the first audit on a host costs);
  cached - the cache written by a cold run: the lookup that a repeated audit of an unchanged tree costs
           (the second and third audit of a no-op site.yml).
Each figure is the median of N runs with the spread (min-max); the audit's own time is measured
inside the process, the whole process (interpreter start and imports included) beside it.
Goals: cold < 1 s, cached < 50 ms.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from gpufleet_testlib import sglang_wheels

ONE_RUN = r"""
import json, sys, time
start = time.perf_counter()
from ansible_collections.gpufleet.sglang.plugins.module_utils._audit_cache import cached_audit
imported = time.perf_counter()
result, cached = cached_audit(sys.argv[1], "srt/models/kimi_k25.py", None, "language_model", sys.argv[2])
done = time.perf_counter()
print(json.dumps({"audit": done - imported, "cached": cached, "files": result["files_scanned"],
                  "missing": result["missing"], "version": result["sglang_version"]}))
"""


def one_run(sglang_root, cache_dir):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", ONE_RUN, sglang_root, cache_dir], capture_output=True,
                         text=True, check=True, env=dict(os.environ)).stdout
    figures = json.loads(out)
    figures["process"] = time.perf_counter() - start
    return figures


def spread(values, unit=1.0, fmt="%.3f"):
    values = [v * unit for v in values]
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(values), min(values), max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", default="0.5.23")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as work:
        sglang_root = sglang_wheels.extract(args.version, os.path.join(work, "site"))
        cache_dir = os.path.join(work, "cache")
        cold, cached, grep = [], [], []
        for dummy in range(args.runs):  # side by side in each round: the machine's load hits all three alike
            shutil.rmtree(cache_dir, ignore_errors=True)
            cold.append(one_run(sglang_root, cache_dir))
            cached.append(one_run(sglang_root, cache_dir))
            start = time.perf_counter()
            out = subprocess.run(["grep", "-rnE", "set_eagle3_layers_to_capture|get_embed_and_head|set_embed_and_head",
                                  "--include=*.py", os.path.join(sglang_root, "srt")],
                                 capture_output=True, text=True, check=True).stdout
            grep.append(time.perf_counter() - start)
    assert all(not run["cached"] for run in cold) and all(run["cached"] for run in cached)

    first = cold[0]
    cold_audit = [run["audit"] for run in cold]
    cached_audit = [run["audit"] for run in cached]
    print("sglang %s, kimi_k25: %s; %d files scanned; median of %d fresh processes (min-max)" % (
        first["version"], "missing " + ", ".join(first["missing"]) if first["missing"] else "complete",
        first["files"], args.runs))
    print("cold audit             : %s s   (whole process %s s)" % (
        spread(cold_audit), spread([run["process"] for run in cold])))
    print("cached audit           : %s ms  (whole process %s s)" % (
        spread(cached_audit, 1000, "%.2f"), spread([run["process"] for run in cached])))
    print("grep -rn over srt/     : %s s   (%d matching lines)" % (spread(grep), len(out.splitlines())))
    print("ratios (medians)       : cold/grep %.1fx, cached/grep %.2fx, cold/cached %.0fx" % (
        statistics.median(cold_audit) / statistics.median(grep),
        statistics.median(cached_audit) / statistics.median(grep),
        statistics.median(cold_audit) / statistics.median(cached_audit)))
    print("goals                  : cold < 1 s %s, cached < 50 ms %s" % (
        "met" if statistics.median(cold_audit) < 1 else "NOT met",
        "met" if statistics.median(cached_audit) < 0.05 else "NOT met"))


if __name__ == "__main__":
    main()
