"""Adding a server to a serving fleet, as operators do it: the host goes into sglang_servers and site.yml runs for
it alone. On the demo fleet (converged by test_execution_environment.py): gpufleet-demo-3 is first taken out of the
fleet (an inventory without it: the router's workers and Prometheus' targets lose it), then added back with
--limit. Limited to the new server alone, site.yml would start it and run the router and Prometheus plays on no
host: it is refused before any change, naming the limit that adds it; with that limit, the router takes it through
its API (no restart) and Prometheus scrapes it."""

import json
import os
import shutil
import subprocess
import time

import yaml

from gpufleet_testlib import ROOT
from gpufleet_testlib.demo_fleet import CACHE, INVENTORY, ROUTER, recap
from gpufleet_testlib.traffic import registered

NEW = "gpufleet-demo-3"
NEW_WORKER = "http://10.213.0.13:30000"
ADMIN_KEY = "gpufleet-demo-admin"  # inventories/demo/group_vars/sglang_routers.yml
TARGETS = "/etc/prometheus/file_sd/gpufleet-sglang-servers.json"  # on gpufleet-demo-1


def playbook(inventory, name, *extra):
    return subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", str(inventory),
                           "gpufleet.sglang." + name] + list(extra), cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=1800,
                          env=dict(os.environ, GPUFLEET_CACHE=CACHE,
                                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections")))


def workers():
    return sorted(worker["url"] for worker in registered(ROUTER, ADMIN_KEY))


def scraped_hosts():
    found = subprocess.run(["docker", "exec", "gpufleet-demo-1", "cat", TARGETS], capture_output=True, text=True,
                           check=True).stdout
    return sorted(entry["labels"]["host"] for entry in json.loads(found))


def main_pids():
    """The main PIDs of the router and of the SGLang server on gpufleet-demo-1 (a router and a server)."""
    return [subprocess.run(["docker", "exec", "gpufleet-demo-1", "systemctl", "show", "-p", "MainPID", "--value", unit],
                           capture_output=True, text=True, check=True).stdout.strip()
            for unit in ("sglang-router.service", "sglang-kimi-k25.service")]


def without_new_server(tmp_path):
    inventory = tmp_path / "demo"
    shutil.copytree(INVENTORY, inventory)
    hosts = yaml.safe_load((inventory / "hosts.yml").read_text())
    del hosts["sglang_servers"]["hosts"][NEW]
    (inventory / "hosts.yml").write_text(yaml.safe_dump(hosts))
    return inventory


def test_a_new_server_is_added_with_the_limit_the_refusal_names(demo_fleet, tmp_path):
    smaller = without_new_server(tmp_path)
    for name in ("router", "monitoring"):
        run = playbook(smaller, name)
        assert run.returncode == 0, run.stdout[-3000:]
    assert NEW_WORKER not in workers() and NEW not in scraped_hosts()

    alone = playbook(INVENTORY, "site", "--limit", NEW)
    assert alone.returncode != 0
    assert "--limit '%s:sglang_routers:prometheus_servers'" % NEW in alone.stdout, alone.stdout[-3000:]
    assert {host: counts["changed"] for host, counts in recap(alone.stdout).items() if counts["changed"]} == {}

    before = main_pids()
    added = playbook(INVENTORY, "site", "--limit", NEW + ":sglang_routers:prometheus_servers")
    assert added.returncode == 0, added.stdout[-5000:]
    deadline = time.monotonic() + 60
    while NEW_WORKER not in workers() and time.monotonic() < deadline:
        time.sleep(1)
    assert NEW_WORKER in workers() and NEW in scraped_hosts()
    assert main_pids() == before  # the router took it through its API; no serving server restarted
