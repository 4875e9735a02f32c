"""Every refusal that the inventory alone decides comes before any change, for every host: site.yml (and each
playbook that changes hosts) starts with playbooks/refusals.yml. An inventory like the example's with its vault
left empty and its commits not pinned is refused on every server and router at once, before the driver's play
(which would install packages and reboot) or any other task reaches a host. Run in check mode on hosts of the
controller itself, so that a regression could not change this machine."""

import json
import os
import sys

import pytest

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook

PLAYBOOKS = os.path.join(ROOT, "playbooks")
LAUNCH = "Check the settings against each other, the models' pins and the server's key before changing anything"
ROUTER = "Refuse a version that is not exact, a router on a non-loopback address without keys, a group without workers"
REFUSALS = ["Refuse what the settings of the servers alone show is wrong, before any host changes",
            "Refuse what the settings of the routers alone show is wrong, before any host changes",
            "Stop the run on every host when any host was refused"]


def inventory(tmp_path, **settings):
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable, "ansible_become": False}
    servers = {"gpu-01": {}, "gpu-02": {}}
    data = {"all": {"vars": dict(local, **settings), "children": {
        "sglang_servers": {"hosts": servers, "vars": {"sglang_host": "0.0.0.0"}},
        "sglang_routers": {"hosts": {"lb-01": {}}, "vars": {"sglang_router_host": "0.0.0.0"}}}}}
    path = tmp_path / "hosts.yml"
    path.write_text(json.dumps(data))
    return str(path)


def run(tmp_path, playbook, *extra_vars, **settings):
    return run_playbook(os.path.join(PLAYBOOKS, playbook), inventory(tmp_path, **settings), extra_vars,
                        args=["--check"], env={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections")})


def tasks_run(run):
    return [task["task"]["name"] for play in run.report["plays"] for task in play["tasks"]]


def plays_run(run):
    return [play["play"]["name"] for play in run.report["plays"]]


EXAMPLE_UNFILLED = {"sglang_api_key": "", "sglang_model_path": "moonshotai/Kimi-K2.5", "sglang_model_revision": "",
                    "sglang_weights_require_commit": True}


def test_site_refuses_every_host_before_the_drivers_play(tmp_path):
    result = run(tmp_path, "site.yml", **EXAMPLE_UNFILLED)
    assert result.returncode != 0
    for host in ("gpu-01", "gpu-02"):
        refused = result.result(LAUNCH, host)
        assert refused and refused.get("failed"), result.stderr[-3000:]
        assert "sglang_api_key is empty" in refused["msg"] and "is not pinned to a commit" in refused["msg"]
    assert "sglang_router_admin_key from a vault" in result.result(ROUTER, "lb-01")["msg"]
    stop = [message for message in result.messages if message.startswith("Nothing was changed on any host.")]
    assert stop and all("%s: " % host in stop[0] for host in ("gpu-01", "gpu-02", "lb-01")), result.messages
    assert plays_run(result) == REFUSALS


def test_a_wrong_type_is_refused_there_too_naming_the_option(tmp_path):
    result = run(tmp_path, "site.yml", "sglang_tp_size=eight", sglang_api_key="k", sglang_router_api_key="k")
    assert result.returncode != 0
    assert any("sglang_tp_size" in message for message in result.messages), result.messages
    assert plays_run(result) == REFUSALS


@pytest.mark.parametrize("playbook", ["sglang.yml", "upgrade_draft.yml"])
def test_each_playbook_that_changes_servers_starts_with_the_refusals(tmp_path, playbook):
    result = run(tmp_path, playbook, "sglang_draft_model_path=/srv/models/new", **EXAMPLE_UNFILLED)
    assert result.returncode != 0 and plays_run(result) == REFUSALS, tasks_run(result)
    assert result.result(LAUNCH, "gpu-01")["failed"]
    assert "lb-01" not in result.stats  # the servers' playbooks check the servers


def test_settings_that_pass_are_checked_once_per_run(tmp_path):
    """site.yml imports the refusals three times (its own, sglang.yml's, router.yml's): a host the first checked
    is not checked again, and a router does not run (nor skip) the servers' checks. Only the tasks tagged always
    run (the refusals, the facts), so that nothing else reaches this machine."""
    result = run_playbook(os.path.join(PLAYBOOKS, "site.yml"), inventory(
        tmp_path, sglang_api_key="k", sglang_router_api_key="k", sglang_router_admin_key="a"), (),
        args=["--check", "--tags", "gpufleet-no-such-tag"],
        env={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections")})
    assert result.returncode == 0, result.stderr[-3000:]
    checks = [(play["play"]["name"], task["task"]["name"].split(" : ")[-1], sorted(task["hosts"]))
              for play in result.report["plays"] for task in play["tasks"] if task["task"]["name"].endswith((LAUNCH, ROUTER))]
    assert checks == [(REFUSALS[0], LAUNCH, ["gpu-01", "gpu-02"]), (REFUSALS[1], ROUTER, ["lb-01"])], checks


def test_metrics_off_behind_routers_is_refused_before_a_server_leaves_them(tmp_path):
    """gpufleet.sglang.lifecycle's drain reads /metrics after the server left the routers: refused at the start."""
    result = run(tmp_path, "sglang.yml", "sglang_enable_metrics=false", sglang_api_key="k")
    assert result.returncode != 0
    assert "sglang_enable_metrics is false, but the fleet has routers" in result.result(LAUNCH, "gpu-01")["msg"]


def limited_site(tmp_path, limit):
    return run_playbook(os.path.join(PLAYBOOKS, "site.yml"), inventory(
        tmp_path, sglang_api_key="k", sglang_router_api_key="k", sglang_router_admin_key="a"), (),
        args=["--check", "--tags", "gpufleet-no-such-tag", "--limit", limit],
        env={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections")})


def test_site_limited_to_a_server_without_the_routers_is_refused_naming_the_limit_that_adds_it(tmp_path):
    """A new server added with site.yml --limit would be started and never registered nor scraped: the router
    and Prometheus plays run on no host."""
    result = limited_site(tmp_path, "gpu-02")
    assert result.returncode != 0
    assert any("--limit 'gpu-02:sglang_routers:prometheus_servers'" in message and "leaves out lb-01" in message
               for message in result.messages), result.messages
    assert plays_run(result) == REFUSALS


def test_site_limited_to_a_server_and_the_routers_passes(tmp_path):
    for name, limit in (("a", "gpu-02:sglang_routers"), ("b", "sglang_routers")):  # b: no server taken in
        (tmp_path / name).mkdir()
        result = limited_site(tmp_path / name, limit)
        assert result.returncode == 0, result.messages
