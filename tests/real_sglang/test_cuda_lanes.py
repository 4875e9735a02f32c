"""Each SGLang release's CUDA lane, read from its real wheel: the torch it pins (its Requires-Dist), and the
CUDA that torch's wheel on the package index is built for (its nvidia-*-cu12 / -cu13 requirements, read by
pip from the index without installing). The install role's last CUDA 12 release
(roles/install/vars/main.yml) must be the last release whose torch is a CUDA 12 build, and the next one
must be CUDA 13."""

import json
import os
import re
import subprocess
import sys
import zipfile

import yaml

from ansible_collections.gpufleet.sglang.plugins.filter.sglang_cuda_major import sglang_cuda_major
from gpufleet_testlib import ROOT, real_sglang
from gpufleet_testlib.sglang_wheels import RELEASES as UNIT_RELEASES, wheel_path

LAST_CUDA12 = yaml.safe_load(open(os.path.join(ROOT, "roles", "install", "vars", "main.yml")))[
    "_sglang_last_cuda12_release"]


def torch_pin(version):
    with zipfile.ZipFile(wheel_path(version)) as wheel:
        name = next(member for member in wheel.namelist() if member.endswith(".dist-info/METADATA"))
        metadata = wheel.read(name).decode()
    return re.search(r"^Requires-Dist: torch==([^\s;]+)", metadata, re.M).group(1)


def cuda_major(requirement, tmp_path):
    """The CUDA major version of the wheel pip would install for REQUIREMENT on Linux x86_64, CPython 3.11."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed", "--no-deps",
               "--disable-pip-version-check", "--only-binary=:all:", "--python-version", "3.11",
               "--platform", "manylinux_2_28_x86_64", "--target", str(tmp_path / "t"), "--report", str(report),
               requirement]
    found = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    assert found.returncode == 0, found.stderr[-2000:]
    metadata = json.loads(report.read_text())["install"][0]["metadata"]
    majors = set(re.findall(r"^nvidia-[\w-]+-cu(1[0-9])\b", "\n".join(metadata.get("requires_dist", [])), re.M))
    assert len(majors) == 1, (requirement, metadata.get("requires_dist"))
    return majors.pop()


def next_release(version):
    major, minor, patch = (int(part) for part in version.split("."))
    return "%d.%d.%d" % (major, minor, patch + 1)


def test_the_last_cuda12_release_is_where_the_wheels_say(tmp_path):
    last, first13 = torch_pin(LAST_CUDA12), torch_pin(next_release(LAST_CUDA12))
    print("SGLang %s pins torch %s, %s pins torch %s" % (LAST_CUDA12, last, next_release(LAST_CUDA12), first13))
    assert cuda_major("torch==" + last, tmp_path / "a") == "12"
    assert cuda_major("torch==" + first13, tmp_path / "b") == "13"


# Every release the tests know (tests/unit/conftest.py, the real venvs), the last CUDA 12 release's post
# release and the first CUDA 13 release.
MATRIX = sorted(set(UNIT_RELEASES + real_sglang.RELEASES + (LAST_CUDA12 + ".post1", next_release(LAST_CUDA12))))


def test_the_install_roles_lane_of_every_release_is_its_torchs(tmp_path):
    """The lane the install role checks the PyTorch index against (gpufleet.sglang.sglang_cuda_major) is the CUDA
    of the torch each release pins."""
    lanes = {}
    for version in MATRIX:
        torch = torch_pin(version)
        if torch not in lanes:
            lanes[torch] = int(cuda_major("torch==" + torch, tmp_path / torch))
        print("SGLang %s pins torch %s (CUDA %d)" % (version, torch, lanes[torch]))
        assert sglang_cuda_major(version, LAST_CUDA12) == lanes[torch], version
