"""playbooks/site.yml through the execution environment (execution-environment.yml), as AWX/AAP runs a
job: ansible-runner starts the image that ansible-builder built here, with the playbooks as the project,
the demo inventory, and the SSH key as the machine credential; the hosts are the demo fleet, reached
over SSH as the deploy user with sudo. The demo fleet is made anew for these tests (conftest.py).
"""

import json
import os
import subprocess
import urllib.request

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import CACHE, HOSTS, KEY, ROUTER, script


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
    request = urllib.request.Request(ROUTER + "/generate", method="POST", headers={
        "Authorization": "Bearer " + KEY, "Content-Type": "application/json"},
        data=json.dumps({"text": "Hello", "sampling_params": {"max_new_tokens": 4}}).encode())
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200 and "text" in json.loads(response.read())


def test_a_second_run_from_the_execution_environment_changes_nothing(demo_fleet):
    returncode, stats = ee_run("site.yml")
    assert returncode == 0 and not stats["failures"] and not stats["dark"], stats
    assert not stats["changed"], stats["changed"]


def test_the_built_tarball_installed_alone_runs_site_by_its_collection_name(demo_fleet, tmp_path):
    """What a user does: build (or download) the tarball, install it into an empty collections path, run
    the playbook by its FQCN. The fleet is converged already: the run must pass and change nothing."""
    build = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-galaxy"), "collection", "build", "--output-path",
                            str(tmp_path)], cwd=ROOT, capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    tarball = next(tmp_path.glob("gpufleet-sglang-*.tar.gz"))
    installed = tmp_path / "collections"
    alone = dict(os.environ, GPUFLEET_CACHE=CACHE, ANSIBLE_COLLECTIONS_PATH=str(installed))  # not the checkout's
    install = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-galaxy"), "collection", "install", "-p",
                              str(installed), str(tarball)], cwd=str(tmp_path), capture_output=True, text=True,
                             check=False, env=alone)
    assert install.returncode == 0, install.stdout + install.stderr
    assert (installed / "ansible_collections" / "gpufleet" / "sglang" / "playbooks" / "site.yml").is_file()
    run = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i",
                          os.path.join(ROOT, "inventories", "demo"), "gpufleet.sglang.site"], cwd=str(tmp_path),
                         capture_output=True, text=True, check=False, timeout=1800, env=alone)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    recap = run.stdout[run.stdout.rindex("PLAY RECAP"):]
    assert all("changed=0" in line for line in recap.splitlines() if "ok=" in line), recap
