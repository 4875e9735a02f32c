"""The upgrade scenario's fleet as its tests see it from the controller: two stand-in servers
behind the real sglang-router (names, keys, addresses) and the playbooks they run."""

import json
import os
import time
import urllib.error
import urllib.request

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.playbook import run_in_scenario
from gpufleet_testlib.traffic import registered

SERVERS = ["gpufleet-upgrade-1", "gpufleet-upgrade-2"]
ROUTER = "gpufleet-upgrade-router"
# The routers register a server by its ansible_host: the fixed address molecule.yml gives it.
WORKERS = ["http://10.213.5.%d:30000" % number for number in (11, 12)]
API_KEY = "molecule-upgrade-key-7d21"
ADMIN_KEY = "molecule-router-admin-5e02"
UNIT = "sglang-kimi-k25.service"
MODELS = "/srv/models/"
PLAYBOOKS = os.path.join(ROOT, "playbooks")
_ADDRESSES = {}


def url(name, path="", port=30000):
    if name not in _ADDRESSES:
        _ADDRESSES[name] = containers.address(name)
    return "http://%s:%d%s" % (_ADDRESSES[name], port, path)


def router_url():
    return url(ROUTER, port=30080)


def server_info(name):
    request = urllib.request.Request(url(name, "/server_info"), headers={"Authorization": "Bearer " + API_KEY})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def main_pid(name, unit=UNIT):
    return containers.run(name, "systemctl", "show", "-p", "MainPID", "--value", unit).strip()


def main_pids():
    return dict((name, main_pid(name)) for name in SERVERS)


def recorded_draft(name):
    return json.loads(containers.run(name, "cat", "/etc/ansible/facts.d/gpufleet_sglang.fact"))["draft"]


def drafts():
    return dict((name, recorded_draft(name)["path"]) for name in SERVERS)


def playbook(name, extra_vars=(), args=()):
    """playbooks/NAME on the scenario's inventory."""
    return run_in_scenario(os.path.join(PLAYBOOKS, name), list(extra_vars), args)


def upgrade(draft, *extra, args=()):
    """upgrade_draft.yml to draft, with further -e values and ansible-playbook arguments."""
    return playbook("upgrade_draft.yml", ["sglang_draft_model_path=" + draft] + list(extra), args)


def wait_all_registered(seconds=60):
    """Until the router answers and lists every server healthy; returns its workers."""
    deadline = time.time() + seconds
    workers = None
    while time.time() < deadline:
        try:
            workers = registered(router_url(), ADMIN_KEY)
        except (urllib.error.URLError, OSError):
            workers = None  # starting
        if workers and sorted(w["url"] for w in workers if w["is_healthy"]) == WORKERS:
            return workers
        time.sleep(0.5)
    raise AssertionError("the router has %s" % workers)
