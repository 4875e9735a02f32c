"""A one-setting change on a serving fleet: this collection's playbooks/sglang.yml (staged on every host
at once, then restarts batch by batch behind the router) against the flow before it (every changed
server restarted at once by a handler), side by side in one run.

    make bench-settings   (or: PYTHONPATH=tests:.collections python bench/settings_change.py [--runs 3] [--before REF])

Runs on the demo fleet (three systemd containers, the router on the first; this script brings it up),
the stand-in as the SGLang process with a --load-delay s restart. The flow before is the collection at
--before (a git ref, checked out in a temporary worktree). Each run changes sglang_mem_fraction_static
once per flow (alternating, both on the same fleet and venv), while a probe on the controller polls
every server's /health. Per run and flow: wall time of the run, its no-restart part (batched: its
first play, which stages on every host and restarts nothing; before: from the start until the
first server goes down, as its handler restarts at the end of that work), the time until the first
server goes down, most servers down at once, and capacity over time (the share of healthy servers
per 5 s). Prints the median of --runs runs with the spread (min-max), and the ratios.
Traffic goes only to the demo containers.
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.worktree import collection_at

HOSTS = ["gpufleet-demo-1", "gpufleet-demo-2", "gpufleet-demo-3"]
# The last commit before batched restarts: its sglang.yml restarts every changed server at once.
BEFORE = "c021ad0"
VENV = "/opt/sglang/venv"  # the layout of the flow before; both flows run it here


def playbook(tree, path, *extra):
    """Runs the playbook; returns the seconds its first play took."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(tree, ".collections"),
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    done = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "demo"), os.path.join(tree, path)] + list(extra),
                          cwd=tree, check=True, env=env, capture_output=True, text=True)
    first = json.loads(done.stdout)["plays"][0]["play"]["duration"]
    return (moment(first["end"]) - moment(first["start"])).total_seconds()


def moment(text):
    return datetime.datetime.fromisoformat(text.rstrip("Z"))


def measure(servers, change, staged_first):
    """change() runs the playbook and returns its first play's seconds; staged_first: that play is the
    no-restart part."""
    probe = HealthProbe(dict((name, "http://%s:30000" % ip) for name, ip in servers.items()))
    probe.start()
    time.sleep(1)
    start = probe.samples[-1][0]
    first_play = change()
    elapsed = probe.samples[-1][0] - start
    time.sleep(1)
    probe.stop()
    first_down = next((moment for moment, state in probe.samples if moment >= start and not all(state.values())),
                      start + elapsed) - start
    return {"wall s": elapsed, "no-restart s": first_play if staged_first else first_down,
            "first down s": first_down, "most down": probe.most_down_at_once(), "capacity": probe.capacity()}


def summary(label, runs):
    parts = []
    for key in ("wall s", "no-restart s", "first down s", "most down"):
        values = [run[key] for run in runs]
        parts.append("%s %.1f (%.1f-%.1f)" % (key, statistics.median(values), min(values), max(values)))
    print("%-8s median (min-max) of %d: %s" % (label, len(runs), "; ".join(parts)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="the git ref of the flow to compare with")
    parser.add_argument("--load-delay", type=float, default=5.0)
    args = parser.parse_args()

    subprocess.run(["bash", "scripts/demo.sh", "up"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    fleet = ["-e", "sglang_venv=" + VENV, "-e", '{"sglang_env": {"SGLANG_STANDIN_LOAD_DELAY": "%s"}}' % args.load_delay]
    playbook(ROOT, "tests/standin/deploy.yml", *fleet)
    playbook(ROOT, "playbooks/site.yml", *fleet)
    servers = dict((name, containers.address(name)) for name in HOSTS)
    batched, before = [], []
    with collection_at(args.before) as old:
        flows = (("batched", ROOT, batched), ("before", old, before))
        print("stand-in restart %.1f s; flow before: %s" % (args.load_delay, args.before))
        for run in range(args.runs):
            for number, (label, tree, results) in enumerate(flows):
                value = "0.%02d" % (70 + 2 * run + number)  # a new value every time
                results.append(measure(servers, lambda: playbook(
                    tree, "playbooks/sglang.yml", *(fleet + ["-e", "sglang_mem_fraction_static=" + value])),
                    staged_first=label == "batched"))
                last = results[-1]
                print("run %d %-8s wall %.1f s, no-restart %.1f s, first down %.1f s, most down %d, capacity "
                      "per 5 s: %s" % (run + 1, label, last["wall s"], last["no-restart s"], last["first down s"],
                                       last["most down"], last["capacity"]))
    summary("batched", batched)
    summary("before", before)
    ratio = statistics.median(run["no-restart s"] for run in batched) / statistics.median(
        run["no-restart s"] for run in before)
    print("most down at once: batched %d, before %d (goal: never more than one batch, 1 here)" % (
        max(run["most down"] for run in batched), max(run["most down"] for run in before)))
    print("no-restart part, batched / before: %.2fx (goal <= 1.2x); whole run: %.2fx" % (
        ratio, statistics.median(run["wall s"] for run in batched) / statistics.median(run["wall s"] for run in before)))


if __name__ == "__main__":
    sys.exit(main())
