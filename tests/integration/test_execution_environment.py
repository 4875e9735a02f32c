"""playbooks/site.yml through the execution environment (execution-environment.yml), as AWX/AAP runs a
job: ansible-runner starts the image that ansible-builder built here, with the playbooks as the project,
the demo inventory, and the SSH key as the machine credential; the hosts are the demo fleet, reached
over SSH as the deploy user with sudo. The demo fleet is made anew for these tests (conftest.py).
"""

import json
import os

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import HOSTS, KEY, ROUTER, ansible_playbook, generate, installed_collection, recap, script


def ee_run(playbook):
    """The play recap of PLAYBOOK run in the execution environment: {changed, failures, dark, ok} per host."""
    result = script("scripts/ee.sh", "run", playbook, GPUFLEET_EE_JSON="1")
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    stats = [event["event_data"] for event in events if event.get("event") == "playbook_on_stats"]
    assert stats, "no play recap from ansible-runner (rc %d):\n%s" % (result.returncode, result.stderr[-3000:])
    return result.returncode, stats[-1]


def test_site_yml_converges_the_demo_fleet_from_the_execution_environment(demo_fleet):
    returncode, stats = ee_run("site.yml")
    assert returncode == 0 and not stats["failures"] and not stats["dark"], stats
    assert sorted(stats["ok"]) == HOSTS
    assert all(stats["changed"].get(host) for host in HOSTS), stats["changed"]
    status, answer = generate(ROUTER, KEY)
    assert status == 200 and "text" in answer


def test_a_second_run_from_the_execution_environment_changes_nothing(demo_fleet):
    returncode, stats = ee_run("site.yml")
    assert returncode == 0 and not stats["failures"] and not stats["dark"], stats
    assert not stats["changed"], stats["changed"]


def test_the_built_tarball_installed_alone_runs_site_by_its_collection_name(demo_fleet, tmp_path):
    """What a user does: build (or download) the tarball, install it into an empty collections path, run
    the playbook by its FQCN. The fleet is converged already: the run must pass and change nothing."""
    collection, alone = installed_collection(tmp_path)
    assert os.path.isfile(os.path.join(collection, "playbooks", "site.yml"))
    run = ansible_playbook([os.path.join(ROOT, "inventories", "demo")], "gpufleet.sglang.site", env=alone,
                           cwd=str(tmp_path))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert all(counts["changed"] == 0 for counts in recap(run.stdout).values()), run.stdout[-3000:]
