"""The README's "Using it on your fleet", followed as written, on the example inventory itself: the collection built
and installed from its tarball into an empty collections path, the example copied from the installed collection
unchanged, and only an overlay (tests/integration/example_overlay) that points its seven hosts at four new demo
containers (bare: the demo's are made anew, with a fourth), fills in the vault's placeholders and puts the demo's
stand-ins where a GPU, NVIDIA's repository, PyPI or the Hub would be. Then the guide's steps, by the playbooks'
collection names: the commit check, site, check mode, status, Prometheus scraping the example's fleet, a draft
rollout. Runs last of the integration tests (it replaces the demo fleet the others used).
"""

import json
import os
import shutil
import subprocess
import urllib.request

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import CACHE, ansible_playbook, generate, installed_collection, recap, script

OVERLAY = os.path.join(ROOT, "tests", "integration", "example_overlay")
SERVERS = ["gpu-rtx6000-0%d" % n for n in (1, 2, 3, 4)]
CONTAINERS = ["gpufleet-demo-%d" % n for n in (1, 2, 3, 4)]
ROUTERS = ["http://10.213.0.11:30080", "http://10.213.0.12:30080"]   # lb-01, lb-02 (overlay)
PROMETHEUS = "http://10.213.0.14:9090"                               # mon-01 (overlay)
KEY = "example-test-key"                                             # the overlay's vault_sglang_api_key


@pytest.fixture(scope="module")
def example(demo_fleet, tmp_path_factory):
    """(inventories, environment): the installed collection's example, unchanged, and the overlay."""
    for step in ("down", "up"):
        result = script("scripts/demo.sh", step, GPUFLEET_DEMO_SIZE="4")
        assert result.returncode == 0, result.stderr[-3000:]
    work = tmp_path_factory.mktemp("example")
    collection, alone = installed_collection(work)
    copied = os.path.join(str(work), "inventory")
    shutil.copytree(os.path.join(collection, "inventories", "example"), copied)
    unchanged = subprocess.run(["diff", "-r", os.path.join(ROOT, "inventories", "example"), copied],
                               capture_output=True, text=True, check=False)
    assert unchanged.returncode == 0, unchanged.stdout
    inventories = [copied, OVERLAY]
    # The stand-in SGLang process and model folders (test infrastructure, from the checkout).
    deploy = ansible_playbook(inventories, "tests/standin/deploy.yml",
                              env=dict(os.environ, GPUFLEET_CACHE=CACHE,
                                       ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections")))
    assert deploy.returncode == 0, deploy.stdout[-3000:]
    return inventories, alone


def playbook(example, name, *extra):
    inventories, alone = example
    return ansible_playbook(inventories, "gpufleet.sglang." + name, *extra, env=alone, cwd=os.path.dirname(inventories[0]))


def test_a_hub_model_without_a_pinned_commit_is_refused_before_any_change(example):
    """The example pins commits (sglang_weights_require_commit) and leaves them to be filled in, as the vault."""
    run = playbook(example, "sglang", "--check", "--limit", SERVERS[0], "-e", "sglang_model_path=moonshotai/Kimi-K2.5")
    assert run.returncode != 0
    assert "moonshotai/Kimi-K2.5 is not pinned to a commit: set sglang_model_revision (target)" in run.stdout, \
        run.stdout[-3000:]


def test_with_its_vault_left_empty_site_changes_nothing_on_the_fresh_hosts(example):
    """The example's promise: left empty, a run stops before any change - not after the driver's play (packages,
    DKMS, a reboot with cuda_driver_reboot: true), the 11 GB install and the patch, where launch once checked."""
    run = playbook(example, "site", "-e", "vault_sglang_api_key=", "-e", "vault_sglang_router_admin_key=")
    assert run.returncode != 0
    assert "Nothing was changed on any host. gpu-rtx6000-01: " in run.stdout, run.stdout[-5000:]
    assert "sglang_api_key is empty" in run.stdout
    counts = recap(run.stdout)
    assert sorted(counts) == sorted(SERVERS + ["lb-01", "lb-02"]), counts  # mon-01: no play reached it
    assert {host: host_counts["changed"] for host, host_counts in counts.items() if host_counts["changed"]} == {}
    for container in CONTAINERS:
        installed = subprocess.run(["docker", "exec", container, "dpkg-query", "-W", "nvidia-open", "dkms"],
                                   capture_output=True, text=True, check=False)
        assert installed.returncode != 0, installed.stdout  # no driver package (the venv is the fixture's stand-in's)


def test_site_converges_the_example_fleet(example):
    run = playbook(example, "site")
    assert run.returncode == 0, run.stdout[-5000:]
    counts = recap(run.stdout)
    assert sorted(counts) == sorted(SERVERS + ["lb-01", "lb-02", "mon-01"]), counts
    assert all(host["failed"] == 0 and host["unreachable"] == 0 for host in counts.values()), counts
    for router in ROUTERS:
        status, answer = generate(router, KEY)
        assert status == 200 and "text" in answer, router


def test_check_mode_on_the_converged_example_changes_nothing(example):
    run = playbook(example, "site", "--check", "--diff")
    assert run.returncode == 0, run.stdout[-5000:]
    assert {host: counts["changed"] for host, counts in recap(run.stdout).items() if counts["changed"]} == {}


def test_status_shows_every_server_of_the_example(example):
    run = playbook(example, "status")
    assert run.returncode == 0, run.stdout[-3000:]
    for server in SERVERS:
        assert server in run.stdout


def test_prometheus_on_mon_01_scrapes_the_example_fleet(example):
    with urllib.request.urlopen(PROMETHEUS + "/api/v1/targets", timeout=10) as response:
        targets = json.loads(response.read())["data"]["activeTargets"]
    jobs = sorted((target["labels"]["job"], target["labels"]["host"]) for target in targets
                  if target["labels"]["job"] != "prometheus")
    assert jobs == sorted([("sglang", host) for host in SERVERS] + [("node", host) for host in SERVERS]
                          + [("sglang-router", "lb-01"), ("sglang-router", "lb-02")])


def test_a_draft_rollout_on_the_example_moves_every_server_to_the_new_draft(example):
    run = playbook(example, "upgrade_draft", "-e", "sglang_draft_model_path=/srv/models/kimi-k25-eagle3-v2")
    assert run.returncode == 0, run.stdout[-5000:]
    for container in CONTAINERS:
        unit = subprocess.run(["docker", "exec", container, "systemctl", "cat", "sglang-kimi-k25"],
                              capture_output=True, text=True, check=True).stdout
        assert "/srv/models/kimi-k25-eagle3-v2" in unit, container
