"""The draft a rollout rolls out is the run's own input (-e, -e @file, an AWX survey, or the vars of an
import_playbook): playbooks/upgrade_draft.yml run bare, on an inventory that names a draft (the launch role's
default names one too), is refused before any task reaches a host, saying what to give."""

import json
import os
import sys

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook

UPGRADE = os.path.join(ROOT, "playbooks", "upgrade_draft.yml")
REQUIRE = "Require the draft to roll out"


def inventory(tmp_path):
    hosts = {"h1": {}, "h2": {}}
    data = {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                             "ansible_become": False, "sglang_draft_model_path": "/srv/models/inventory-draft"},
                    "children": {"sglang_servers": {"hosts": hosts}}}}
    path = tmp_path / "hosts.yml"
    path.write_text(json.dumps(data))
    return str(path)


def rollout(tmp_path, *extra_vars):
    return run_playbook(UPGRADE, inventory(tmp_path), extra_vars, args=["--check"],
                        env={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".collections")})


def test_a_bare_rollout_is_refused_though_the_inventory_names_a_draft(tmp_path):
    run = rollout(tmp_path)
    assert run.returncode != 0
    result = run.result(REQUIRE, "h1")
    assert result and result.get("failed"), run.stderr[-2000:]
    assert "-e sglang_draft_model_path=DRAFT" in result["msg"] and "Nothing was changed" in result["msg"]
    tasks = [task["task"]["name"] for play in run.report["plays"] for task in play["tasks"]]
    assert tasks[-1] == REQUIRE  # nothing after it ran


def test_the_draft_given_for_the_run_passes(tmp_path):
    run = rollout(tmp_path, "sglang_draft_model_path=/srv/models/new-draft")
    result = run.result(REQUIRE, "h1")
    assert result is not None and not result.get("failed"), result
