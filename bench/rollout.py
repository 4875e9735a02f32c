"""Downtime of a draft upgrade: gpufleet.sglang's rollout against a naive stop -> fetch -> start.

    make bench-rollout    (or: PYTHONPATH=tests python bench/rollout.py [--transfer-mb 400] [--load-delay 5])

Runs on the demo fleet (three systemd containers, `make demo` brings them up; this script
does too). The SGLang process is the stand-in with a load delay; the draft is a folder on the
controller with a config.json and a blob of --transfer-mb random bytes, so fetching it takes
real time. Both flows run on the same fleet, one after the other, while a probe on the
controller polls every host's /health (container addresses only) every 0.1 s. Prints per-host
downtime, fleet capacity over time, and the ratio of the two flows' downtime.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from gpufleet_testlib import ROOT
from gpufleet_testlib.health_probe import HealthProbe

HOSTS = ["gpufleet-demo-1", "gpufleet-demo-2", "gpufleet-demo-3"]
KEY = "bench-key"
FLEET_VARS = {"sglang_host": "0.0.0.0", "sglang_api_key": KEY}


def run(*command, **extra_env):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"), **extra_env)
    subprocess.run(list(command), cwd=ROOT, check=True, env=env, stdout=subprocess.DEVNULL)


def playbook(path, *extra):
    run(os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", "inventories/demo", path, *extra)


def address(name):
    return subprocess.check_output(
        ["docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", name], text=True).strip()


def make_draft(directory, accept, transfer_mb):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump({"architectures": ["LlamaForCausalLMEagle3"], "max_position_embeddings": 131072,
                   "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]},
                   "standin_accept_length": accept}, handle)
    with open(os.path.join(directory, "model.safetensors"), "wb") as handle:
        for dummy in range(transfer_mb):
            handle.write(os.urandom(1 << 20))


def measure(label, addresses, action):
    probe = HealthProbe(dict((name, "http://%s:30000" % ip) for name, ip in addresses.items()))
    probe.start()
    time.sleep(1)
    start = time.monotonic()
    action()
    elapsed = time.monotonic() - start
    time.sleep(1)
    probe.stop()
    per_host = dict((name, probe.downtime(name)) for name in HOSTS)
    print("%-10s wall %6.1f s | downtime per host: %s | most hosts down at once: %d"
          % (label, elapsed, ", ".join("%s %.1f s" % (n[-1], d) for n, d in per_host.items()),
             probe.most_down_at_once()))
    print("%-10s capacity per 5 s: %s" % ("", probe.capacity()))
    return per_host


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transfer-mb", type=int, default=400)
    parser.add_argument("--load-delay", type=float, default=5.0)
    args = parser.parse_args()

    fleet = json.dumps(dict(FLEET_VARS, sglang_env={"SGLANG_STANDIN_LOAD_DELAY": str(args.load_delay)}))
    run("bash", "scripts/demo.sh", "up")
    playbook("tests/standin/deploy.yml")
    playbook("playbooks/site.yml", "-e", fleet)
    addresses = dict((name, address(name)) for name in HOSTS)

    with tempfile.TemporaryDirectory() as work:
        ours, naive = os.path.join(work, "draft-staged"), os.path.join(work, "draft-naive")
        make_draft(ours, 3.3, args.transfer_mb)
        make_draft(naive, 3.3, args.transfer_mb)
        print("draft: %d MB; stand-in load delay %.1f s (the server's own restart time)"
              % (args.transfer_mb, args.load_delay))
        staged = measure("gpufleet", addresses, lambda: playbook(
            "playbooks/upgrade_draft.yml", "-e", fleet, "-e", "sglang_draft_model_path=bench-draft",
            "-e", "sglang_draft_copy_from=" + ours))
        plain = measure("naive", addresses, lambda: playbook(
            "bench/naive_upgrade.yml", "-e", fleet, "-e", "naive_draft_from=" + naive,
            "-e", "naive_draft_to=/srv/models/bench-naive"))

    ours_mean = sum(staged.values()) / len(staged)
    naive_mean = sum(plain.values()) / len(plain)
    print("mean downtime per host: gpufleet %.1f s (restart %.1f s + %.1f s), naive %.1f s; naive / gpufleet = %.2fx"
          % (ours_mean, args.load_delay, ours_mean - args.load_delay, naive_mean, naive_mean / ours_mean))
    print("goal (restart + under 5 s): %s" % ("met" if ours_mean - args.load_delay < 5 else "NOT met"))


if __name__ == "__main__":
    sys.exit(main())
