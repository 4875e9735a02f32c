"""The real SGLang on this machine's CPU, timed (not part of make test):

    PYTHONPATH=tests:.collections python bench/real_sglang.py [--runs 3] [--install]

- cold start: python -m sglang.launch_server (0.5.9, SGLang's CPU engine, the tiny Llama with random weights,
  the sgl_kernel test double) from its start to the first 200 of /health_generate, a new process each run;
- tier 1: the tests of tests/real_sglang (every wrapper built by 0.5.9 and 0.5.23 and called), a pytest run;
- with --install: the install of each release with every dependency into a new venv from an empty pip
  cache (downloads included; about 11 GB each).
Each as the median of --runs runs, with the spread (min-max).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from gpufleet_testlib import ROOT, real_sglang
from gpufleet_testlib.standin import free_port


def spread(values):
    return "%.1f s (%.1f-%.1f)" % (statistics.median(values), min(values), max(values))


def cold_start(models):
    port = free_port()
    command = [real_sglang.python("0.5.9"), "-m", "sglang.launch_server", "--model-path", os.path.join(models, "llama"),
               "--load-format", "dummy", "--device", "cpu", "--max-total-tokens", "4096", "--host", "127.0.0.1",
               "--port", str(port)]
    started = time.monotonic()
    server = subprocess.Popen(command, env=real_sglang.environment(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        while time.monotonic() - started < 600:
            if server.poll() is not None:
                sys.exit("the server exited (rc %d) before it was healthy" % server.returncode)
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/health_generate" % port, timeout=30) as answer:
                    if answer.status == 200:
                        return time.monotonic() - started
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        sys.exit("no healthy answer within 600 s")
    finally:
        server.terminate()
        server.wait()


def tier1():
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/real_sglang"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def install(version):
    with tempfile.TemporaryDirectory(prefix="gpufleet-install-") as work:
        venv = os.path.join(work, "venv")
        started = time.monotonic()
        subprocess.run([real_sglang.PYTHON, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "--cache-dir", os.path.join(work, "pip-cache"), "sglang==%s" % version],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--install", action="store_true")
    args = parser.parse_args()
    models = tempfile.mkdtemp(prefix="gpufleet-models-")
    try:
        subprocess.run([real_sglang.python("0.5.9"), os.path.join(ROOT, "tests", "real_sglang", "tiny_models.py"),
                        models, "llama"], check=True)
        starts = [cold_start(models) for _run in range(args.runs)]
        print("cold start to /health_generate (0.5.9, tiny Llama, CPU): %s" % spread(starts), flush=True)
        tests = [tier1() for _run in range(args.runs)]
        print("tier 1 (tests/real_sglang): %s" % spread(tests), flush=True)
        for version in real_sglang.RELEASES if args.install else ():
            times = [install(version) for _run in range(args.runs)]
            print("install of sglang==%s with its dependencies, empty pip cache: %s" % (version, spread(times)),
                  flush=True)
    finally:
        shutil.rmtree(models)


if __name__ == "__main__":
    main()
