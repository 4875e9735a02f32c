"""Draft rollouts behind sglang-router: gpufleet.sglang's flow (stage, drain, restart, gates, restore)
against a naive stop -> fetch -> start, as clients of the router see them.

    make bench-rollout    (or: PYTHONPATH=tests python bench/rollout.py [--runs 3] [--transfer-mb 100] [--load-delay 5])

Runs on the demo fleet (three systemd containers, the router on the first; `make demo` brings them
up, this script does too), with the router's retries and circuit breaker off so that only the drain
protects the clients. The SGLang process is the stand-in with a load delay and a /generate that
takes --generate-delay s; the draft is a folder on the controller with a config.json and a blob of
--transfer-mb random bytes, so fetching it takes real time. Per run and flow, while 12 clients on the
controller send requests through the router: failed requests, p50/p99 latency (and p99 before the
rollout, steady state), per-host time out of the router, per-host downtime. Prints the median of
--runs runs with the spread (min-max) and the ratios. Traffic goes only to the demo containers.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.traffic import ClientLoad, WorkerWatch

HOSTS = ["gpufleet-demo-1", "gpufleet-demo-2", "gpufleet-demo-3"]
KEY = "gpufleet-demo-key"            # inventories/demo/group_vars/all.yml
ADMIN_KEY = "gpufleet-demo-admin"    # inventories/demo/group_vars/sglang_routers.yml
# The routers register the servers by ansible_host (inventories/demo/hosts.yml).
WORKERS = ["http://10.213.0.1%d:30000" % index for index in (1, 2, 3)]


def playbook(path, *extra):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".collections"))
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i", "inventories/demo", path]
                   + list(extra), cwd=ROOT, check=True, env=env, stdout=subprocess.DEVNULL)


def make_draft(directory, accept, transfer_mb):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump({"architectures": ["LlamaForCausalLMEagle3"], "max_position_embeddings": 131072,
                   "eagle_config": {"eagle_aux_hidden_state_layer_ids": [2, 30, 58]},
                   "standin_accept_length": accept}, handle)
    with open(os.path.join(directory, "model.safetensors"), "wb") as handle:
        for dummy in range(transfer_mb):
            handle.write(os.urandom(1 << 20))


def measure(router, servers, action):
    """Run action while clients use the router; returns the figures of that rollout."""
    load = ClientLoad(router, KEY).start()
    time.sleep(10)  # steady state first
    steady = load.latency(0.99)
    before = len(load.records)
    probe = HealthProbe(dict((name, "http://%s:30000" % ip) for name, ip in servers.items()))
    watch = WorkerWatch(router, ADMIN_KEY)
    probe.start()
    watch.start()
    start = time.monotonic()
    action()
    elapsed = time.monotonic() - start
    probe.stop()
    watch.stop()
    load.stop()
    during = load.records[before:]
    times = sorted(record[1] for record in during if record[2])
    return {"wall s": elapsed, "requests": len(during), "failed": sum(1 for record in during if not record[2]),
            "p50 s": times[len(times) // 2] if times else float("nan"),
            "p99 s": times[min(len(times) - 1, int(0.99 * len(times)))] if times else float("nan"),
            "steady p99 s": steady,
            "out of router s/host": statistics.mean(watch.out_time(url) for url in WORKERS),
            "down s/host": statistics.mean(probe.downtime(name) for name in HOSTS),
            "most down": probe.most_down_at_once()}


def summary(label, runs):
    keys = list(runs[0])
    parts = []
    for key in keys:
        values = [run[key] for run in runs]
        parts.append("%s %.2f (%.2f-%.2f)" % (key, statistics.median(values), min(values), max(values)))
    print("%-9s median (min-max) of %d: %s" % (label, len(runs), "; ".join(parts)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--transfer-mb", type=int, default=100)
    parser.add_argument("--load-delay", type=float, default=5.0)
    parser.add_argument("--generate-delay", type=float, default=1.0)
    parser.add_argument("--gate-requests", type=int, default=4)
    args = parser.parse_args()

    fleet = json.dumps({"sglang_env": {"SGLANG_STANDIN_LOAD_DELAY": str(args.load_delay),
                                       "SGLANG_STANDIN_GENERATE_DELAY": str(args.generate_delay)},
                        "sglang_router_retries": False, "sglang_router_circuit_breaker": False,
                        "sglang_router_health_check_interval_secs": 2, "sglang_gate_requests": args.gate_requests})
    subprocess.run(["bash", "scripts/demo.sh", "up"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    playbook("tests/standin/deploy.yml")
    playbook("playbooks/site.yml", "-e", fleet)
    servers = dict((name, containers.address(name)) for name in HOSTS)
    router = "http://%s:30080" % servers[HOSTS[0]]

    ours, naive = [], []
    with tempfile.TemporaryDirectory() as work:
        print("draft: %d MB; stand-in load delay %.1f s (the server's own restart); /generate %.1f s; "
              "router retries and circuit breaker off" % (args.transfer_mb, args.load_delay, args.generate_delay))
        for run in range(args.runs):
            staged, plain = (os.path.join(work, "%s-%d" % (kind, run)) for kind in ("staged", "naive"))
            make_draft(staged, 3.3 + 0.01 * run, args.transfer_mb)
            make_draft(plain, 3.3 + 0.01 * run, args.transfer_mb)
            ours.append(measure(router, servers, lambda: playbook(
                "playbooks/upgrade_draft.yml", "-e", fleet, "-e", "sglang_draft_model_path=bench-draft-%d" % run,
                "-e", "sglang_draft_copy_from=" + staged)))
            naive.append(measure(router, servers, lambda: playbook(
                "bench/naive_upgrade.yml", "-e", fleet, "-e", "naive_draft_from=" + plain,
                "-e", "naive_draft_to=/srv/models/bench-naive-%d" % run)))
            print("run %d: gpufleet %s" % (run + 1, json.dumps(dict((k, round(v, 2)) for k, v in ours[-1].items()))))
            print("run %d: naive    %s" % (run + 1, json.dumps(dict((k, round(v, 2)) for k, v in naive[-1].items()))))
    summary("gpufleet", ours)
    summary("naive", naive)
    out = statistics.median(run["out of router s/host"] for run in ours)
    print("gpufleet: failed requests %d (goal 0); p99 during / steady %.2fx (goal <= 2x); time out of the router "
          "per host %.1f s = restart %.1f s + in-flight wait and gates %.1f s"
          % (statistics.median(run["failed"] for run in ours),
             statistics.median(run["p99 s"] / run["steady p99 s"] for run in ours), out, args.load_delay,
             out - args.load_delay))
    print("naive / gpufleet failed requests: %s / %s"
          % (statistics.median(run["failed"] for run in naive), statistics.median(run["failed"] for run in ours)))


if __name__ == "__main__":
    sys.exit(main())
