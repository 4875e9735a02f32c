"""Real SGLang release wheels from PyPI for tests: downloaded once, cached outside the checkout.

Usage from the shell:
    python tests/gpufleet_testlib/sglang_wheels.py 0.5.9                 prints the wheel's path
    python tests/gpufleet_testlib/sglang_wheels.py --wheelhouse 0.5.9    prints a directory holding only that wheel
"""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

CACHE = os.path.join(os.environ.get("GPUFLEET_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpufleet-sglang"), "wheels")

# The fixtures and the Debian 12 test hosts use CPython 3.11 on x86_64 Linux; the Debian 13 hosts
# CPython 3.13. Releases from 0.5.2x ship platform wheels, one per interpreter.
PIP_TARGET = ["--only-binary=:all:", "--no-deps"]
# The releases whose sources the unit tests read (tests/unit/conftest.py).
RELEASES = ("0.5.8", "0.5.9", "0.5.10", "0.5.23")


def wheel_path(version, python="3.11"):
    """Path of the sglang==version wheel for CPython ``python``, downloading it into the cache when missing."""
    tags = ("-py3-none-any.whl", "-cp%s-" % python.replace(".", ""))
    found = [p for p in glob.glob(os.path.join(CACHE, "sglang-%s-*.whl" % version)) if any(t in p for t in tags)]
    if not found:
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                        "--python-version", python] + PIP_TARGET + ["-d", CACHE, "sglang==%s" % version], check=True)
        found = [p for p in glob.glob(os.path.join(CACHE, "sglang-%s-*.whl" % version)) if any(t in p for t in tags)]
    if not found:
        raise RuntimeError("pip download did not produce a wheel of sglang %s for CPython %s" % (version, python))
    return found[0]


def extract(version, dest):
    """Unpack the wheel into dest (a site-packages-like folder); returns dest/sglang."""
    with zipfile.ZipFile(wheel_path(version)) as wheel:
        members = [m for m in wheel.namelist() if m.endswith(".py") or ".dist-info/" in m]
        wheel.extractall(dest, members)
    return os.path.join(dest, "sglang")


def wheelhouse(version, pythons=("3.11", "3.13")):
    """A directory holding only the sglang==version wheels for the test hosts' interpreters, for
    gpufleet.sglang.install's sglang_wheelhouse."""
    directory = os.path.join(os.path.dirname(CACHE), "wheelhouse-" + version)
    os.makedirs(directory, exist_ok=True)
    for python in pythons:
        wheel = wheel_path(version, python)
        target = os.path.join(directory, os.path.basename(wheel))
        if not os.path.exists(target):
            shutil.copy2(wheel, target)
    return directory


if __name__ == "__main__":
    if sys.argv[1:2] == ["--wheelhouse"]:
        print(wheelhouse(sys.argv[2]))
    else:
        for requested in sys.argv[1:]:
            print(wheel_path(requested))
