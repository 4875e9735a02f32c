"""Debian's Prometheus tooling for tests: promtool (prometheus) and amtool (prometheus-alertmanager) from the
Debian packages of this machine's release, unpacked into the cache (apt-get download + dpkg -x: nothing is
installed or started).
The metric names the pinned SGLang and sglang-router releases export, read from their wheels."""

import glob
import os
import re
import subprocess
import tempfile
import zipfile

from gpufleet_testlib import router, sglang_wheels


def debian_tool(package, binary):
    """/usr/bin/BINARY of Debian's PACKAGE, unpacked once into the cache."""
    directory = os.path.join(router.BASE, package + "-deb")
    path = os.path.join(directory, "usr", "bin", binary)
    if not os.path.exists(path):
        with tempfile.TemporaryDirectory() as work:
            download = ["apt-get", "download", "-q", package]
            if subprocess.run(download, cwd=work, check=False, capture_output=True).returncode != 0:
                subprocess.run(["apt-get", "update", "-q"], check=True, capture_output=True)  # a machine's first use
                subprocess.run(download, cwd=work, check=True, capture_output=True)
            deb = glob.glob(os.path.join(work, package + "_*.deb"))[0]
            subprocess.run(["dpkg", "-x", deb, directory + ".tmp"], check=True)
            os.rename(directory + ".tmp", directory)
    return path


def promtool():
    return debian_tool("prometheus", "promtool")


def amtool():
    return debian_tool("prometheus-alertmanager", "amtool")


def sglang_metric_names(version):
    """Every series name SGLang `version` exports: the names its srt/metrics code gives its gauges, counters
    and histograms (with _bucket, _sum and _count)."""
    names = set()
    with zipfile.ZipFile(sglang_wheels.wheel_path(version)) as wheel:
        for member in wheel.namelist():
            if member.startswith("sglang/srt/metrics/") and member.endswith(".py"):
                names.update(re.findall(r'name="(sglang:[a-z0-9_]+)"', wheel.read(member).decode()))
    return names | {name + suffix for name in names for suffix in ("_bucket", "_sum", "_count")}


def router_binary_text(python_version="3.11"):
    """The sglang-router wheel's compiled library (where its metric names are), as bytes."""
    wheel = glob.glob(os.path.join(router.wheelhouse(python_version), "sglang_router-%s-*.whl" % router.VERSION))[0]
    with zipfile.ZipFile(wheel) as archive:
        return b"".join(archive.read(name) for name in archive.namelist() if name.endswith(".so"))
