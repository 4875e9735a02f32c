"""The real sglang-router from PyPI, for tests: a venv on the controller, its wheels for the test
containers, and a router started on loopback."""

import glob
import os
import subprocess
import sys

from gpufleet_testlib.sglang_wheels import CACHE
from gpufleet_testlib.standin import wait_for

VERSION = "0.3.2"
BASE = os.path.dirname(CACHE)


def pip(*args):
    """Run pip quietly; its output is shown only when it fails."""
    result = subprocess.run(list(args), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError("%s failed:\n%s" % (" ".join(args), result.stderr[-3000:]))


def venv_python():
    """The Python of a venv with sglang-router==VERSION and its dependencies (made once, cached)."""
    venv = os.path.join(BASE, "router-venv-%s" % VERSION)
    python = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".complete")
    if not os.path.exists(stamp):
        subprocess.run([sys.executable, "-m", "venv", "--clear", venv], check=True)
        pip(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "sglang-router==%s" % VERSION)
        open(stamp, "w").close()
    return python


def wheelhouse(python_version="3.11"):
    """A directory with sglang-router==VERSION and its dependencies as wheels for CPython
    python_version on x86_64 Linux (the test containers), for the router role's sglang_router_wheelhouse."""
    directory = os.path.join(BASE, "router-wheelhouse-%s-py%s" % (VERSION, python_version))
    stamp = os.path.join(directory, ".complete")
    if not os.path.exists(stamp):
        os.makedirs(directory, exist_ok=True)
        pip(sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
            "--python-version", python_version, "--platform", "manylinux2014_x86_64",
            "--platform", "manylinux_2_17_x86_64", "--platform", "manylinux_2_28_x86_64",
            "--platform", "linux_x86_64", "--only-binary=:all:", "-d", directory, "sglang-router==%s" % VERSION)
        open(stamp, "w").close()
    if not glob.glob(os.path.join(directory, "sglang_router-%s-*.whl" % VERSION)):
        raise RuntimeError("no sglang-router wheel in %s" % directory)
    return directory


def start(port, worker_urls=(), api_key=None, control_keys=(), extra=()):
    """sglang-router on 127.0.0.1:port (metrics on port + 1); returns the process once it answers."""
    args = [venv_python(), "-m", "sglang_router.launch_router", "--host", "127.0.0.1", "--port", str(port),
            "--prometheus-host", "127.0.0.1", "--prometheus-port", str(port + 1), "--log-level", "warn"]
    if worker_urls:
        args += ["--worker-urls"] + list(worker_urls)
    if api_key:
        args += ["--api-key", api_key]
    if control_keys:
        args += ["--control-plane-api-keys"] + list(control_keys)
    proc = subprocess.Popen(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for("http://127.0.0.1:%d/health" % port, proc, seconds=60)
    return proc


if __name__ == "__main__":
    print(wheelhouse(*sys.argv[1:]))
