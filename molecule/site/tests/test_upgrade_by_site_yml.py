"""The site flow on the newest pinned release: site.yml takes the serving fleet from SGLang 0.5.9 to 0.5.23.

0.5.23 builds its command line from the fields of srt/arg_groups/ (the stand-in reads them with the
collection's own reader) and renames flags of 0.5.9: a setting the new release does not know stops the
run in preflight, with the flag and the release named, before anything is written or restarted.
Runs after test_site.py and before test_upgrade_driver.py (file names sort in that order); the hosts
stay on 0.5.23. The install lane of 0.5.2x (CUDA 13, PyTorch's cu130 index) is checked as far as the
pip command line: PyTorch's index is not reachable here, and the wheels come from a wheelhouse.
"""

import json
import os

import pytest

from gpufleet_testlib import containers, sglang_wheels
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.playbook import run_playbook, run_in_scenario

testinfra_hosts = ["gpufleet-site-1"]
SERVERS = ["gpufleet-site-1", "gpufleet-site-2"]
UNIT = "sglang-kimi-k25.service"
API_KEY = "molecule-test-key-3f9c"
PROJECT = os.environ.get("MOLECULE_PROJECT_DIRECTORY", "")
SITE = os.path.join(PROJECT, "playbooks", "site.yml")
DEPLOY = os.path.join(PROJECT, "tests", "standin", "deploy.yml")
TORCH_CU130 = "https://download.pytorch.org/whl/cu130"


@pytest.fixture(scope="module")
def newest():
    """Extra vars for 0.5.23: its wheels (one per host interpreter), and the CUDA 13 PyTorch lane."""
    return {"sglang_version": "0.5.23", "sglang_wheelhouse": sglang_wheels.wheelhouse("0.5.23"),
            "sglang_torch_index_url": TORCH_CU130}


def exec_start(name):
    return containers.run(name, "systemctl", "show", "-p", "ExecStart", "--value", UNIT)


def started_at(name):
    return containers.run(name, "systemctl", "show", "-p", "ExecMainStartTimestampMonotonic", "--value", UNIT)


def server_version(name):
    out = containers.run(name, "curl", "-s", "-H", "Authorization: Bearer " + API_KEY,
                         "http://127.0.0.1:30000/server_info")
    return json.loads(out)["version"]


def test_the_newest_release_installs_beside_the_live_one_with_the_cuda13_lane(newest):
    """The stand-in goes into the new venv too (tests/standin/deploy.yml runs the install role)."""
    run = run_playbook(DEPLOY, os.environ["MOLECULE_INVENTORY_FILE"], [newest])
    assert run.returncode == 0, str(run)
    for name in SERVERS:
        pip = " ".join(run.result("Install SGLang", name)["cmd"])
        assert "--extra-index-url %s" % TORCH_CU130 in pip and "sglang==0.5.23" in pip
        assert "/opt/sglang/venvs/sglang-0.5.9/" in exec_start(name)  # the live server is untouched


def test_a_flag_the_newest_release_renamed_stops_the_run_before_anything_restarts(newest):
    """--cuda-graph-max-bs (0.5.9) is --cuda-graph-max-bs-decode in 0.5.23."""
    before = dict((name, started_at(name)) for name in SERVERS)
    run = run_in_scenario(SITE, [dict(newest, sglang_extra_args={"cuda-graph-max-bs": 64})])
    assert run.returncode != 0
    assert run.says("SGLang 0.5.23 does not know --cuda-graph-max-bs on the command line"), str(run)
    for name in SERVERS:
        assert started_at(name) == before[name]
        assert "/opt/sglang/venvs/sglang-0.5.9/" in exec_start(name)
        staged = containers.run(name, "cat", "/etc/sglang/staged/%s" % UNIT)
        assert "cuda-graph-max-bs" not in staged  # nothing was staged either


def test_site_yml_rolls_the_fleet_to_the_newest_release_one_server_at_a_time(newest):
    probe = HealthProbe(dict((name, "http://%s:30000" % containers.address(name)) for name in SERVERS), limit=900)
    probe.start()
    try:
        run = run_in_scenario(SITE, [newest])
    finally:
        probe.stop()
    assert run.returncode == 0, str(run)
    print("0.5.9 -> 0.5.23 by site.yml: most down at once %d, capacity per 5 s %s"
          % (probe.most_down_at_once(), probe.capacity()))
    assert probe.most_down_at_once() == 1
    for name in SERVERS:
        assert "/opt/sglang/venvs/sglang-0.5.23/bin/python -m sglang_standin" in exec_start(name)
        assert server_version(name) == "0.5.23"
        assert run.ran("Check the command line and the config file's keys", name)
        flags = run.result("Check the command line and the config file's keys", name)
        assert flags["sglang_version"] == "0.5.23" and flags["unknown"] == []
    # 0.5.23's Kimi-K2.5 wrapper has the EAGLE-3 methods: nothing to patch.
    patches = [result for task, _host, result in run.results()
               if "delegate every missing EAGLE-3 method" in task and "audit" in result]
    assert len(patches) == len(SERVERS) and not any(result["changed"] for result in patches)
    # The run before (stopped in preflight) audited this tree: the patch role's audit is a cache hit, and
    # the launch preflight trusts it (the file was verified in this play) instead of auditing again.
    assert all(result["audit"]["cached"] for result in patches)
    assert not run.ran("Audit the installed SGLang for the methods EAGLE-3 calls")
