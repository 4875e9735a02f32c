"""Rolling draft upgrades on two live servers, watched from the controller."""

import json

import pytest

from gpufleet_testlib import containers
from upgrade_fleet import MODELS, SERVERS as HOSTS, main_pid, server_info, upgrade, url

testinfra_hosts = ["gpufleet-upgrade-1"]  # the tests drive the whole fleet from the controller


def test_converge_moved_every_host_to_the_new_draft(host):
    for name in HOSTS:
        info = server_info(name)
        assert info["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"
        assert info["internal_states"][0]["avg_spec_accept_length"] == 3.3
        facts = json.loads(containers.run(name, "cat", "/etc/ansible/facts.d/gpufleet_sglang.fact"))
        assert facts["draft"]["path"] == MODELS + "kimi-k25-eagle3-v2"
        assert facts["draft"]["accept_length"] == 3.3
        assert facts["draft"]["previous"] == MODELS + "kimi-k25-eagle3"
        assert facts["draft"]["commit"] == ""  # a directory on the host, not staged from a repository


def test_check_mode_prints_the_plan_and_changes_nothing(host):
    pids = [main_pid(name) for name in HOSTS]
    run = upgrade(MODELS + "kimi-k25-eagle3-v3", args=["--check"])
    assert run.returncode == 0, str(run)
    assert run.says("Would restart 2 of 2 host(s), 1 at a time: gpufleet-upgrade-1 (draft /srv/models/kimi-k25-eagle3-v2 "
                    "-> /srv/models/kimi-k25-eagle3-v3), gpufleet-upgrade-2 (draft"), str(run)
    assert run.says("Batches: [gpufleet-upgrade-1] -> [gpufleet-upgrade-2].")
    assert [main_pid(name) for name in HOSTS] == pids


def test_missing_draft_fails_in_staging_before_anything_stops(host):
    pids = [main_pid(name) for name in HOSTS]
    run = upgrade(MODELS + "no-such-draft")
    assert run.returncode != 0, str(run)
    assert run.says("draft /srv/models/no-such-draft: is not a directory on this host. Nothing was changed and the "
                    "server was not touched"), str(run)
    assert not run.ran("Take this server out of every router")
    assert [main_pid(name) for name in HOSTS] == pids


def test_bad_draft_is_rolled_back_on_the_first_host_and_stops_the_rollout(host):
    others = {name: main_pid(name) for name in HOSTS[1:]}
    run = upgrade(MODELS + "kimi-k25-eagle3-bad")
    assert run.returncode != 0, str(run)
    assert run.says("acceptance gate: the new draft's average acceptance length is 1.1 after 4 requests; "
                    "required at least 2.0 and at least 2.97 (0.90 x the previous draft's 3.3)")
    assert run.says("was rolled back to /srv/models/kimi-k25-eagle3-v2, which is healthy again")
    first = server_info(HOSTS[0])
    assert first["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"
    for name, pid in others.items():  # never touched
        assert main_pid(name) == pid
        assert server_info(name)["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"


@pytest.fixture(scope="module", autouse=True)
def addresses_known():
    for name in HOSTS:
        url(name, "/")
