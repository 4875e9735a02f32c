"""The hashing of a full check (gpufleet.sglang.model_weights full=true): MB/s over a revision's files with the
collection's pool at 1, 2 and all cores, beside the code before (sha256 and git's blob id of every file, one
at a time) and coreutils' sha256sum over the same files, one process and one per core.

    make bench-hashing    (or: PYTHONPATH=tests:.collections python bench/hashing.py [--runs 3] [--files 8]
                                                                                      [--mb 2048])

The files are LFS shards (sha256, as a model's weights are) written once and read from the page cache: this
measures what the CPU can hash, the ceiling on a host whose NVMe is faster than that. The median of --runs
with the spread (min-max); every variant runs once per round, side by side.
"""

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time

from ansible_collections.gpufleet.sglang.plugins.module_utils import _model_weights as weights


def spread(values):
    return "%.0f MB/s (%.0f-%.0f)" % (statistics.median(values), min(values), max(values))


def before(directory, files):
    """The code before this change: both digests of every file, one file at a time."""
    for wanted in files:
        path = os.path.join(directory, wanted["path"])
        sha256, blob = hashlib.sha256(), hashlib.sha1(b"blob %d\0" % wanted["size"])
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(weights.CHUNK), b""):
                sha256.update(chunk)
                blob.update(chunk)
        assert sha256.hexdigest() == wanted["sha256"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--mb", type=int, default=2048, help="MB in all")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="bench-hashing-") as directory:
        files, size = [], args.mb * 1024 * 1024 // args.files
        for number in range(args.files):
            name = "model-%05d.safetensors" % number
            data = os.urandom(size)
            with open(os.path.join(directory, name), "wb") as handle:
                handle.write(data)
            files.append({"path": name, "size": size, "sha256": hashlib.sha256(data).hexdigest(), "oid": None})
        total = size * args.files
        paths = [os.path.join(directory, wanted["path"]) for wanted in files]
        variants = [("before (sha256 + blob id, 1 file at a time)", lambda: before(directory, files))]
        for workers in sorted({1, 2, cores}):
            variants.append(("collection, %d worker%s" % (workers, "s" if workers > 1 else ""),
                             lambda workers=workers: assert_clean(weights.lacking(
                                 directory, files, full=True, record=False, workers=workers))))
        variants.append(("sha256sum, 1 process", lambda: subprocess.run(
            ["sha256sum"] + paths, check=True, stdout=subprocess.DEVNULL)))
        variants.append(("sha256sum, %d processes" % cores, lambda: subprocess.run(
            "printf '%%s\\0' %s | xargs -0 -n 1 -P %d sha256sum >/dev/null" % (" ".join(paths), cores),
            shell=True, check=True)))
        rates = {name: [] for name, _run in variants}
        for _round in range(args.runs):
            for name, run in variants:
                start = time.monotonic()
                run()
                rates[name].append(total / 1e6 / (time.monotonic() - start))
        print("%d files, %d MB in all, page cache warm, %d cores; median of %d (min-max)" % (
            args.files, total // 10 ** 6, cores, args.runs))
        base = statistics.median(rates[variants[0][0]])
        one = statistics.median(rates["collection, 1 worker"])
        for name, _run in variants:
            median = statistics.median(rates[name])
            print("  %-46s %-24s %.2fx before, %.2fx one worker; 600 GB in %.1f min" % (
                name, spread(rates[name]), median / base, median / one, 600e3 / median / 60))


def assert_clean(found):
    assert found == {}, found


if __name__ == "__main__":
    main()
