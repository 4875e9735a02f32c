"""Rolling draft upgrades on three live servers, watched from the controller."""

import json
import os
import subprocess
import sys
import urllib.request

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests"))
from health_probe import HealthProbe  # noqa: E402  (the probe lives with the project's test tools)

testinfra_hosts = ["gpufleet-upgrade-1"]  # the tests drive the whole fleet from the controller
HOSTS = ["gpufleet-upgrade-1", "gpufleet-upgrade-2", "gpufleet-upgrade-3"]
API_KEY = "molecule-upgrade-key-7d21"
UNIT = "sglang-kimi-k25.service"
PLAYBOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "playbooks",
                        "upgrade_draft.yml")
MODELS = "/srv/models/"


def address(name):
    return subprocess.check_output(
        ["docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name],
        text=True).strip()


ADDRESSES = {}


def url(name, path):
    if name not in ADDRESSES:
        ADDRESSES[name] = address(name)
    return "http://%s:30000%s" % (ADDRESSES[name], path)


def server_info(name):
    request = urllib.request.Request(url(name, "/server_info"), headers={"Authorization": "Bearer " + API_KEY})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def main_pid(name):
    return subprocess.check_output(["docker", "exec", name, "systemctl", "show", "-p", "MainPID", "--value", UNIT],
                                   text=True).strip()


def upgrade(draft, *extra):
    command = ["ansible-playbook", "-i", os.environ["MOLECULE_INVENTORY_FILE"], PLAYBOOK,
               "-e", "sglang_draft_model_path=" + draft] + list(extra)
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900, env=env)
    return result.returncode, result.stdout + result.stderr


def test_converge_moved_every_host_to_the_new_draft(host):
    for name in HOSTS:
        info = server_info(name)
        assert info["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"
        assert info["internal_states"][0]["avg_spec_accept_length"] == 3.3
        facts = json.loads(subprocess.check_output(
            ["docker", "exec", name, "cat", "/etc/ansible/facts.d/gpufleet_sglang.fact"], text=True))
        assert facts["draft"]["path"] == MODELS + "kimi-k25-eagle3-v2"
        assert facts["draft"]["accept_length"] == 3.3
        assert facts["draft"]["previous"] == MODELS + "kimi-k25-eagle3"


def test_check_mode_prints_the_plan_and_changes_nothing(host):
    pids = [main_pid(name) for name in HOSTS]
    rc, out = upgrade(MODELS + "kimi-k25-eagle3-v3", "--check")
    assert rc == 0, out[-3000:]
    assert "Would roll /srv/models/kimi-k25-eagle3-v3 in 3 batch(es) of at most 1" in out
    assert "gpufleet-upgrade-1 (from /srv/models/kimi-k25-eagle3-v2)" in out
    assert [main_pid(name) for name in HOSTS] == pids


def test_missing_draft_fails_in_staging_before_anything_stops(host):
    pids = [main_pid(name) for name in HOSTS]
    rc, out = upgrade(MODELS + "no-such-draft")
    assert rc != 0
    assert "/srv/models/no-such-draft/config.json does not exist on gpufleet-upgrade-1" in out
    assert "Nothing was stopped" in out
    assert [main_pid(name) for name in HOSTS] == pids


def test_bad_draft_is_rolled_back_on_the_first_host_and_stops_the_rollout(host):
    others = {name: main_pid(name) for name in HOSTS[1:]}
    rc, out = upgrade(MODELS + "kimi-k25-eagle3-bad")
    assert rc != 0
    assert "acceptance gate: the new draft's average acceptance length is 1.1 after 4 requests; " \
           "required at least 2.0 and at least 2.97 (0.90 x the previous draft's 3.3)" in out
    assert "was rolled back to /srv/models/kimi-k25-eagle3-v2, which is healthy again" in out
    first = server_info(HOSTS[0])
    assert first["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"
    for name, pid in others.items():  # never touched
        assert main_pid(name) == pid
        assert server_info(name)["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v2"


def test_rollout_never_takes_more_than_one_host_down(host):
    probe = HealthProbe(dict((name, url(name, "")) for name in HOSTS), limit=900)
    probe.start()
    try:
        rc, out = upgrade(MODELS + "kimi-k25-eagle3-v3")
    finally:
        probe.stop()
    assert rc == 0, out[-3000:]
    downtime = dict((name, round(probe.downtime(name), 1)) for name in HOSTS)
    print("probe: %d samples over %.0f s, per-host downtime %s, most hosts down at once: %d"
          % (len(probe.samples), probe.samples[-1][0], downtime, probe.most_down_at_once()))
    assert probe.most_down_at_once() <= 1
    assert all(seconds > 0 for seconds in downtime.values())  # each host really restarted
    for name in HOSTS:
        assert server_info(name)["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v3"


@pytest.fixture(scope="module", autouse=True)
def addresses_known():
    for name in HOSTS:
        url(name, "/")
