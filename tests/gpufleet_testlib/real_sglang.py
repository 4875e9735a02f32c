"""Real SGLang releases with every dependency they pin (torch and all), for the tests that run SGLang's
own code on this machine's CPU: one venv per release, made once with Debian's Python 3.11 and cached
outside the checkout. The Debian 12 test containers have the same interpreter at the same path, so a
container that mounts a venv runs it too.

    python -m gpufleet_testlib.real_sglang 0.5.9 0.5.23      (make real-sglang) makes the venvs

A first install takes about 3.5 minutes and 11 GB per release (torch's CUDA build and its libraries).
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

from gpufleet_testlib import ROOT
from gpufleet_testlib.sglang_wheels import CACHE

RELEASES = ("0.5.9", "0.5.23")
BASE = os.path.join(os.path.dirname(CACHE), "real-sglang")
# Debian's interpreter (bookworm), the one the Debian 12 test containers have at the same path.
PYTHON = "/usr/bin/python3.11"
# The test double that stands in for sgl_kernel (SGLang's CUDA kernel library) where no GPU exists.
DOUBLES = os.path.join(ROOT, "tests", "real_sglang", "doubles")


def venv(version):
    """The venv of sglang==version with its dependencies (made when missing)."""
    path = os.path.join(BASE, version)
    stamp = os.path.join(path, ".complete")
    if not os.path.exists(stamp):
        started = time.monotonic()
        subprocess.run([PYTHON, "-m", "venv", "--clear", path], check=True)
        result = subprocess.run([os.path.join(path, "bin", "python"), "-m", "pip", "install", "-q",
                                 "--disable-pip-version-check", "sglang==%s" % version],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError("pip install sglang==%s failed:\n%s" % (version, result.stderr[-3000:]))
        with open(stamp, "w") as handle:
            handle.write("%.0f\n" % (time.monotonic() - started))
    return path


def python(version):
    return os.path.join(venv(version), "bin", "python")


def site_packages(version):
    return os.path.join(venv(version), "lib", "python3.11", "site-packages")


def linked_copy(source, dest):
    """A copy of a tree whose files are hard links to the source's: made in seconds, and a file that
    the patch (or the tests) replace by renaming a new one over it leaves the source untouched."""
    shutil.copytree(source, dest, copy_function=os.link, symlinks=True)
    return dest


def environment(*paths):
    """The environment a process of the real venv runs with here: SGLang's CPU engine, the sgl_kernel
    double first on the path (the CUDA wheel cannot load without libcuda.so.1), then paths."""
    return dict(os.environ, SGLANG_USE_CPU_ENGINE="1", PYTHONPATH=os.pathsep.join(list(paths) + [DOUBLES]),
                HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")


if __name__ == "__main__":
    # One pip per release at once: a first install is mostly downloading, which one pip does a file at a time.
    with concurrent.futures.ThreadPoolExecutor() as pool:
        for made in pool.map(venv, sys.argv[1:] or RELEASES):
            print(made)
