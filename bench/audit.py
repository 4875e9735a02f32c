"""Time the EAGLE-3 audit of a full installed SGLang tree against a plain `grep -rn`.

    make bench    (or: PYTHONPATH=tests:.collections python bench/audit.py [VERSION] [--repeat N])

The tree is the release wheel from PyPI (cached by tests/gpufleet_testlib/sglang_wheels.py), unpacked
into a temporary site-packages. Prints files parsed, seconds (best of N), and the
ratio to `grep -rn` for the three EAGLE-3 names over the same trees. Goal: < 2 s.
"""

import argparse
import os
import subprocess
import tempfile
import time

from ansible_collections.gpufleet.sglang.plugins.module_utils import _eagle3_audit as eagle3_audit
from gpufleet_testlib import sglang_wheels


def best_of(repeat, func):
    best = None
    for dummy in range(repeat):
        start = time.perf_counter()
        value = func()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", default="0.5.23")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as site:
        sglang_root = sglang_wheels.extract(args.version, site)
        audit_seconds, result = best_of(args.repeat, lambda: eagle3_audit.audit(sglang_root))
        trees = [os.path.join(sglang_root, sub) for sub in eagle3_audit.SCANNED_TREES]
        pattern = "|".join(eagle3_audit.EAGLE3_METHODS)
        grep_seconds, grep_out = best_of(args.repeat, lambda: subprocess.run(
            ["grep", "-rnE", pattern, "--include=*.py"] + trees, capture_output=True, text=True, check=True).stdout)

    print("sglang %s: %s %s" % (result["sglang_version"], result["class_name"],
                                "missing " + ", ".join(result["missing"]) if result["missing"] else "complete"))
    print("files scanned for call sites : %d" % result["files_scanned"])
    print("audit (AST, best of %d)       : %.3f s" % (args.repeat, audit_seconds))
    print("grep -rn (best of %d)         : %.3f s, %d matching lines" % (
        args.repeat, grep_seconds, len(grep_out.splitlines())))
    print("ratio audit / grep           : %.1fx" % (audit_seconds / grep_seconds))
    print("goal < 2 s                   : %s" % ("met" if audit_seconds < 2 else "NOT met"))


if __name__ == "__main__":
    main()
