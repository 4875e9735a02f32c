"""The batches a rolling playbook runs are the plan it prints, sized by sglang_batch from the inventory
(Ansible templates a play's serial with play and extra variables only: a serial that read sglang_batch
itself would run one host at a time whatever group_vars say). upgrade_draft.yml in check mode on
hosts of the controller itself: it plans and prints, and its batched play runs, changing nothing."""

import json
import os
import sys

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook

PLAYBOOK = os.path.join(ROOT, "playbooks", "upgrade_draft.yml")


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
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 2}), ["sglang_draft_model_path=/d/v2"],
                       ["--check"])
    assert run.returncode == 0, str(run)
    assert run.says("Would roll /d/v2 in 2 batch(es) of at most 2: [h1 (from the draft in its unit), h2 (from")
    assert batches(run) == [["h1", "h2"], ["h3", "h4"]]


def test_a_multi_node_group_is_one_unit_of_a_batch(tmp_path):
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 1},
                                           host_vars={"h2": {"sglang_tp_group": "tp"}, "h3": {"sglang_tp_group": "tp"}},
                                           groups={"tp": ["h2", "h3"]}),
                       ["sglang_draft_model_path=/d/v2"], ["--check"])
    assert run.returncode == 0, str(run)
    assert batches(run) == [["h1"], ["h2", "h3"], ["h4"]]


def test_hosts_that_disagree_on_sglang_batch_are_refused_with_where_to_set_it(tmp_path):
    run = run_playbook(PLAYBOOK, inventory(tmp_path, {"sglang_batch": 2}, host_vars={"h3": {"sglang_batch": 1}}),
                       ["sglang_draft_model_path=/d/v2"], ["--check"])
    assert run.returncode != 0
    assert run.says("sglang_batch is 2 for this run, but 1 on h3: the batches of a play are one setting. Set it once, "
                    "for the group of the servers (group_vars/sglang_servers.yml or group_vars/all.yml)"), str(run)
    assert batches(run) == []
