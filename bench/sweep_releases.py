"""Audit every wrapper of every SGLang release on PyPI from 0.5.8 on (post releases included).

    make sweep    (or: PYTHONPATH=tests:.collections python bench/sweep_releases.py [--from 0.5.8] [--to X])

Not part of `make test`: the list of releases grows, and the wheels of 0.5.2x are ~40 MB each. The
test suite pins 0.5.8, 0.5.9 and 0.5.23 (tests/unit/fixtures/). For each release this prints the
wrappers found, how many lack required names (and how many of those a delegation fixes), how many
the source leaves undetermined, wrappers whose audit failed (none is the goal), whether the
launch role's flags are all known, and the Kimi-K2.5 wrapper's gaps.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import time

from ansible_collections.gpufleet.sglang.plugins.module_utils._eagle3_audit import Auditor
from ansible_collections.gpufleet.sglang.plugins.module_utils._sglang_cli import read_flags, unknown
from gpufleet_testlib import sglang_wheels

LAUNCH_FLAGS = ["--model-path", "--served-model-name", "--tp-size", "--trust-remote-code", "--context-length",
                "--mem-fraction-static", "--host", "--port", "--speculative-algorithm",
                "--speculative-draft-model-path", "--speculative-draft-model-revision", "--speculative-num-steps",
                "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--enable-metrics", "--config",
                "--api-key", "--admin-api-key"]


def release_key(version):
    return [int(part) for part in re.findall(r"\d+", version)]


def releases(first, last):
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "sglang"], capture_output=True,
                         text=True, check=True).stdout
    listed = re.search(r"Available versions: (.*)", out).group(1).split(", ")
    return sorted((v for v in listed if release_key(first) <= release_key(v) and
                   (not last or release_key(v) <= release_key(last))), key=release_key)


def sweep(version):
    with tempfile.TemporaryDirectory() as site:
        root = sglang_wheels.extract(version, site)
        start = time.perf_counter()
        auditor = Auditor(root)
        results, failed = [], []
        for model_file, class_name, inner_attr in auditor.wrappers():
            try:
                results.append(auditor.audit(model_file, class_name, inner_attr))
            except Exception as exc:  # a wrapper the audit cannot read is what the sweep is for
                failed.append("%s %s: %s" % (model_file, class_name, exc))
        seconds = time.perf_counter() - start
        kimi = next((r for r in results if r["model_file"] == "srt/models/kimi_k25.py"), None)
        flags_unknown = unknown(read_flags(root), LAUNCH_FLAGS)
    return {
        "wrappers": len(results) + len(failed),
        "missing": sum(1 for r in results if r["missing"]),
        "delegatable": sum(1 for r in results if r["missing"] and r["missing"] == r["delegatable"]),
        "undetermined": sum(1 for r in results if r["undetermined"]),
        "failed": failed,
        "flags": "all known" if not flags_unknown else "unknown " + ", ".join(flags_unknown),
        "kimi": "absent" if kimi is None else ("missing " + ",".join(kimi["missing"]) if kimi["missing"] else "complete"),
        "seconds": seconds,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", default="0.5.8")
    parser.add_argument("--to", dest="last", default="")
    args = parser.parse_args()
    failures = 0
    print("%-12s %8s %8s %12s %13s %7s %6s  %-10s %s" % ("release", "wrappers", "missing", "delegatable",
                                                         "undetermined", "failed", "s", "flags", "kimi_k25"))
    for version in releases(args.first, args.last):
        row = sweep(version)
        failures += len(row["failed"])
        print("%-12s %8d %8d %12d %13d %7d %6.2f  %-10s %s" % (
            version, row["wrappers"], row["missing"], row["delegatable"], row["undetermined"], len(row["failed"]),
            row["seconds"], row["flags"], row["kimi"]))
        for line in row["failed"]:
            print("    FAILED " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
