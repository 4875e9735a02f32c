"""A draft rollout on real SGLang servers, gated on the acceptance length SGLang itself reports: an agreeing
draft passes the gate one server at a time; a disagreeing one is refused on the first server, which is rolled
back, and the rollout stops there. Never more than one server out of the router at once, as the router itself
lists its workers (a /health probe with a short timeout misreads servers that decode at the Triton
interpreter's speed)."""

import json
import os
import urllib.request

import pytest

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.playbook import run_in_scenario
from gpufleet_testlib.traffic import WorkerWatch

testinfra_hosts = ["gpufleet-rollout-1"]
SERVERS = ["gpufleet-rollout-1", "gpufleet-rollout-2"]
ADDRESSES = {"gpufleet-rollout-1": "10.213.9.11", "gpufleet-rollout-2": "10.213.9.12"}
ROUTER = "http://10.213.9.10:30080"
KEY = "molecule-rollout-key-4c8e"
ADMIN_KEY = "molecule-rollout-admin-91d3"
WORKERS = ["http://%s:30000" % address for address in ADDRESSES.values()]
UNIT = "sglang-kimi-k25.service"
MODELS = "/srv/models/"
UPGRADE = os.path.join(ROOT, "playbooks", "upgrade_draft.yml")
GATE = "Keep the measured acceptance length"


def server_url(name, path=""):
    return "http://%s:30000%s" % (ADDRESSES[name], path)


def post(url, body, timeout=600):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Authorization": "Bearer " + KEY})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


def server_info(name):
    request = urllib.request.Request(server_url(name, "/server_info"), headers={"Authorization": "Bearer " + KEY})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def main_pid(name):
    return containers.run(name, "systemctl", "show", "-p", "MainPID", "--value", UNIT).strip()


def drafts():
    return dict((name, server_info(name)["speculative_draft_model_path"]) for name in SERVERS)


def rollout(draft):
    """upgrade_draft.yml to the draft, with a watch on the router's workers."""
    watch = WorkerWatch(ROUTER, ADMIN_KEY, interval=1.0, limit=1800)
    watch.start()
    try:
        run = run_in_scenario(UPGRADE, ["sglang_draft_model_path=" + MODELS + draft], timeout=1800)
    finally:
        watch.stop()
    print("rollout to %s: rc %d, fewest workers in the router %d, seconds out of it %s" % (
        draft, run.returncode, watch.fewest_registered(), dict((url, round(watch.out_time(url), 1)) for url in WORKERS)))
    return run, watch


def test_the_fleet_serves_speculative_tokens_through_the_router_and_sglang_reports_their_acceptance():
    answer = post(ROUTER + "/generate", {"text": "t5 t6 t7", "sampling_params": {
        "max_new_tokens": 12, "temperature": 0, "ignore_eos": True}})
    assert answer["output_ids"] == [7] * 12
    assert answer["meta_info"]["spec_accept_length"] == 4.0, answer["meta_info"]
    assert drafts() == dict((name, MODELS + "eagle3-agree") for name in SERVERS)


def test_an_agreeing_draft_passes_the_gate_one_server_at_a_time():
    run, watch = rollout("eagle3-agree-v2")
    assert run.returncode == 0, str(run)
    for name in SERVERS:
        measured = float(run.result(GATE, name)["ansible_facts"]["sglang_lifecycle_accept_length"])
        assert measured >= 3.0, measured  # what SGLang reported through /server_info, not the stand-in
    assert drafts() == dict((name, MODELS + "eagle3-agree-v2") for name in SERVERS)
    assert watch.fewest_registered() >= 1  # never both out of the router
    assert all(watch.out_time(url) > 0 for url in WORKERS)  # each server really left, restarted and came back


def test_a_disagreeing_draft_is_refused_by_the_gate_rolled_back_and_stops_the_rollout():
    second = main_pid(SERVERS[1])
    run, watch = rollout("eagle3-disagree")
    assert run.returncode != 0 and run.says("acceptance gate: the new draft's average acceptance length is"), str(run)
    measured = float(run.result(GATE, SERVERS[0])["ansible_facts"]["sglang_lifecycle_accept_length"])
    assert measured < 1.5, measured  # none of its draft tokens is accepted: the target's own token only
    assert run.says("was rolled back to %seagle3-agree-v2" % MODELS), str(run)
    assert drafts() == dict((name, MODELS + "eagle3-agree-v2") for name in SERVERS)  # the fleet on the good draft
    assert main_pid(SERVERS[1]) == second  # never touched
    assert watch.fewest_registered() >= 1


@pytest.fixture(scope="module", autouse=True)
def fleet_is_up():
    for name in SERVERS:
        assert containers.run(name, "systemctl", "is-active", UNIT).strip() == "active"
