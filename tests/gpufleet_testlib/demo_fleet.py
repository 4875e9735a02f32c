"""The demo fleet (inventories/demo, scripts/demo.sh) as the integration tests reach it."""

import json
import os
import subprocess
import urllib.request

from gpufleet_testlib import ROOT

CACHE = os.environ.get("GPUFLEET_CACHE", os.path.expanduser("~/.cache/gpufleet-sglang"))
INVENTORY = os.path.join(ROOT, "inventories", "demo")
HOSTS = ["gpufleet-demo-1", "gpufleet-demo-2", "gpufleet-demo-3"]
ROUTER = "http://10.213.0.11:30080"      # inventories/demo: the router on gpufleet-demo-1
KEY = "gpufleet-demo-key"                # inventories/demo/group_vars/all.yml


def script(*args, **env):
    """bash ARGS... in the checkout, with the cache the demo's wheelhouses and SSH key live in."""
    return subprocess.run(["bash"] + list(args), cwd=ROOT, env=dict(os.environ, GPUFLEET_CACHE=CACHE, **env),
                          capture_output=True, text=True, check=False, timeout=1800)


def installed_collection(directory):
    """What a user does: build (or download) the tarball and install it into an empty collections path. Returns
    the installed collection's directory and the environment that sees it alone (not the checkout's)."""
    ansible_galaxy = os.path.join(ROOT, ".venv", "bin", "ansible-galaxy")
    build = subprocess.run([ansible_galaxy, "collection", "build", "--output-path", str(directory)], cwd=ROOT,
                           capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr
    tarball = [name for name in os.listdir(str(directory)) if name.startswith("gpufleet-sglang-")][0]
    installed = os.path.join(str(directory), "collections")
    alone = dict(os.environ, GPUFLEET_CACHE=CACHE, ANSIBLE_COLLECTIONS_PATH=installed)
    install = subprocess.run([ansible_galaxy, "collection", "install", "-p", installed, tarball], cwd=str(directory),
                             capture_output=True, text=True, check=False, env=alone)
    assert install.returncode == 0, install.stdout + install.stderr
    return os.path.join(installed, "ansible_collections", "gpufleet", "sglang"), alone


def ansible_playbook(inventories, playbook, *extra, env=None, cwd=None):
    """ansible-playbook -i each of INVENTORIES PLAYBOOK EXTRA..., its CompletedProcess."""
    command = [os.path.join(ROOT, ".venv", "bin", "ansible-playbook")]
    for inventory in inventories:
        command += ["-i", str(inventory)]
    return subprocess.run(command + [playbook] + list(extra), cwd=cwd or ROOT, capture_output=True, text=True,
                          check=False, timeout=1800, env=env)


def recap(stdout):
    """{host: {ok, changed, failed, ...}} from a PLAY RECAP."""
    counts = {}
    for line in stdout[stdout.rindex("PLAY RECAP"):].splitlines()[1:]:
        if ":" in line and "ok=" in line:
            host, rest = line.split(":", 1)
            counts[host.strip()] = {key: int(value) for key, value in (item.split("=") for item in rest.split())}
    return counts


def generate(router, key):
    """A short generation through the router at ROUTER with the API key KEY: (HTTP status, the answer's JSON)."""
    request = urllib.request.Request(router + "/generate", method="POST", headers={
        "Authorization": "Bearer " + key, "Content-Type": "application/json"},
        data=json.dumps({"text": "Hello", "sampling_params": {"max_new_tokens": 4}}).encode())
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, json.loads(response.read())
