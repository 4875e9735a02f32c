"""The demo fleet (inventories/demo, scripts/demo.sh) as the integration tests reach it."""

import os
import subprocess

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
