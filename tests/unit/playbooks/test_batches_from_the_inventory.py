"""The batches a rolling playbook runs are the plan it prints, sized by sglang_batch from the inventory
(Ansible templates a play's serial with play and extra variables only: a serial that read sglang_batch
itself would run one host at a time whatever group_vars say). plan_batches.yml plans as the rolling
playbooks do (gpufleet.sglang.lifecycle's entry point plan) on hosts of the controller itself, and its
batched play has their hosts and serial, which the last test reads from the playbooks themselves."""

import json
import os
import sys

import yaml

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook

PLAYBOOK = os.path.join(os.path.dirname(__file__), "plan_batches.yml")
ROLLING = ["sglang.yml", "upgrade_draft.yml"]


def inventory(tmp_path, group_vars, host_vars=None, groups=None):
    hosts = dict((name, dict((host_vars or {}).get(name, {}))) for name in ("h1", "h2", "h3", "h4"))
    children = dict((name, {"hosts": dict((member, {}) for member in members)})
                    for name, members in (groups or {}).items())
    data = {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                             "ansible_become": False},
                    "children": dict(children, sglang_servers={"hosts": hosts})}}
    (tmp_path / "hosts.yml").write_text(json.dumps(data))
    (tmp_path / "group_vars").mkdir()
    (tmp_path / "group_vars" / "sglang_servers.yml").write_text(json.dumps(group_vars))
    return str(tmp_path)


def batches(run):
    """The hosts of each batch the batched play ran (one play entry per batch in the JSON report)."""
    return [sorted(task["hosts"]) for play in run.report["plays"] if play["play"]["name"].startswith("Roll the")
            for task in play["tasks"][:1]]


def test_sglang_batch_in_group_vars_sizes_the_batches_and_the_plan_says_so(tmp_path):
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 2}))
    assert run.returncode == 0, str(run)
    assert run.says("Restarting 4 of 4 host(s), 2 at a time: h1 (draft /d/v1 -> /d/v2), h2 (draft /d/v1 -> /d/v2), "
                    "h3 (draft /d/v1 -> /d/v2), h4 (draft /d/v1 -> /d/v2). Batches: [h1, h2] -> [h3, h4]."), str(run)
    assert batches(run) == [["h1", "h2"], ["h3", "h4"]]


def test_a_multi_node_group_is_one_unit_of_a_batch(tmp_path):
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 1},
                                           host_vars={"h2": {"sglang_tp_group": "tp"}, "h3": {"sglang_tp_group": "tp"}},
                                           groups={"tp": ["h2", "h3"]}))
    assert run.returncode == 0, str(run)
    assert batches(run) == [["h1"], ["h2", "h3"], ["h4"]]


def test_hosts_that_disagree_on_sglang_batch_are_refused_with_where_to_set_it(tmp_path):
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 2}, host_vars={"h3": {"sglang_batch": 1}}))
    assert run.returncode != 0
    assert run.says("sglang_batch is 2 for this run, but 1 on h3: the batches of a play are one setting. Set it once, "
                    "for the group of the servers (group_vars/sglang_servers.yml or group_vars/all.yml)"), str(run)
    assert batches(run) == []


def test_the_rolling_playbooks_plan_and_batch_as_the_test_playbook_does():
    test_plays = yaml.safe_load(open(PLAYBOOK))
    for name in ROLLING:
        plays = yaml.safe_load(open(os.path.join(ROOT, "playbooks", name)))
        prepare, batched = plays[-2], plays[-1]
        last = (prepare.get("post_tasks") or prepare["tasks"])[-1]
        assert last["ansible.builtin.import_role"] == test_plays[0]["tasks"][-1]["ansible.builtin.import_role"], name
        for key in ("hosts", "serial", "max_fail_percentage"):
            assert batched[key] == test_plays[1][key], (name, key)
