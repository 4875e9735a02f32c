"""The demo fleet, made anew once for the integration tests and removed after them."""

import os
import subprocess

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import CACHE, script


@pytest.fixture(scope="session")
def demo_fleet():
    for step in (["scripts/ee.sh", "build"], ["scripts/demo.sh", "down"], ["scripts/demo.sh", "up"]):
        result = script(*step)
        assert result.returncode == 0, "%s failed:\n%s" % (" ".join(step), result.stderr[-3000:])
    deploy = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", "inventories/demo",
                             "tests/standin/deploy.yml"], cwd=ROOT, capture_output=True, text=True, check=False,
                            env=dict(os.environ, GPUFLEET_CACHE=CACHE,
                                     ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections")))
    assert deploy.returncode == 0, deploy.stdout[-3000:]
    yield
    script("scripts/demo.sh", "down")
