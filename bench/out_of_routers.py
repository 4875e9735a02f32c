"""How long each server is out of the routers in a rolling change, and what that time goes to: a draft
rollout and a one-setting change on the demo fleet, the collection at --before (a git ref, in a temporary
worktree) beside the collection as checked out, alternating, in one run.

    make bench-out    (or: PYTHONPATH=tests:.collections python bench/out_of_routers.py [--runs 3] [--before REF])

The router tells when a server leaves and comes back (its /workers, polled every 0.1 s from the
controller): the seconds a server is not registered, averaged over the three servers. The collection as
checked out also notes its own breakdown per host (drain, restart until healthy, gates, rejoin;
sglang_lifecycle_out_of_routers), read from the JSON callback. The draft rollouts alternate between two
drafts on the hosts; the settings changes give sglang_mem_fraction_static a new value each time. The
stand-in restarts in --load-delay s. Also each run's wall time and controller CPU (ansible-playbook and the
processes it waited for). Prints each run, then the median of --runs runs with the spread (min-max) and the
ratio after / before. Traffic goes only to the demo containers.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.traffic import WorkerWatch
from gpufleet_testlib.worktree import collection_at
from noop import children_cpu, spread

HOSTS = ["gpufleet-demo-1", "gpufleet-demo-2", "gpufleet-demo-3"]
ADMIN_KEY = "gpufleet-demo-admin"    # inventories/demo/group_vars/sglang_routers.yml
WORKERS = ["http://10.213.0.1%d:30000" % index for index in (1, 2, 3)]  # inventories/demo/hosts.yml
DRAFTS = ["/srv/models/kimi-k25-eagle3", "/srv/models/kimi-k25-eagle3-b"]
# The last commit before every rollout had one prepare phase (its draft rollout staged inside the batch).
BEFORE = "a473d2f"
BREAKDOWN = ("drain", "restart", "gates", "rejoin")


def playbook(tree, path, *extra):
    """ansible-playbook with the collection of tree on the demo inventory; returns the JSON report."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(tree, ".collections"),
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    done = subprocess.run([os.path.join(ROOT, ".venv", "bin", "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "demo"), os.path.join(tree, path)] + list(extra),
                          cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit("%s failed:\n%s\n%s" % (path, done.stdout[-3000:], done.stderr[-2000:]))
    return json.loads(done.stdout)


def noted(report):
    """{part: seconds per host, mean} from the hosts' sglang_lifecycle_out_of_routers, or {}."""
    found = []
    for play in report.get("plays", []):
        for task in play["tasks"]:
            for result in task["hosts"].values():
                out = (result.get("ansible_facts") or {}).get("sglang_lifecycle_out_of_routers")
                if out:
                    found.append(out)
    return dict((part, statistics.mean(float(out[part]) for out in found)) for part in BREAKDOWN) if found else {}


def measure(router, change):
    """Seconds out of the router per host, the run's wall time and its controller CPU, and the noted parts."""
    watch = WorkerWatch(router, ADMIN_KEY, interval=0.1)
    watch.start()
    cpu, start = children_cpu(), time.monotonic()
    try:
        report = change()
    finally:
        watch.stop()
    return dict({"out s/host": statistics.mean(watch.out_time(url) for url in WORKERS),
                 "run s": time.monotonic() - start, "CPU s": children_cpu() - cpu}, **noted(report))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="the git ref to compare with")
    parser.add_argument("--load-delay", type=float, default=5.0)
    parser.add_argument("--gate-requests", type=int, default=4, help="sglang_gate_requests (the role's default is 16)")
    parser.add_argument("--generate-delay", type=float, default=0.0,
                        help="seconds the stand-in takes per /generate (a batch of prompts takes as long as one)")
    args = parser.parse_args()

    subprocess.run(["bash", "scripts/demo.sh", "up"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    fleet = ["-e", json.dumps({"sglang_env": {"SGLANG_STANDIN_LOAD_DELAY": str(args.load_delay),
                                              "SGLANG_STANDIN_GENERATE_DELAY": str(args.generate_delay)},
                               "sglang_gate_requests": args.gate_requests})]
    playbook(ROOT, "tests/standin/deploy.yml")
    for name in HOSTS:
        containers.run(name, "sh", "-c", "[ -d %s ] || cp -a %s %s" % (DRAFTS[1], DRAFTS[0], DRAFTS[1]))
    draft, fraction = [DRAFTS[0]], ["0.85"]  # what the servers run; a rollout must not change the fraction
    playbook(ROOT, "playbooks/site.yml", *(fleet + ["-e", "sglang_draft_model_path=" + draft[0]]))
    router = "http://%s:30080" % containers.address(HOSTS[0])
    results = dict(((change, flow), []) for change in ("draft", "settings") for flow in ("before", "after"))

    def rollout(tree):
        draft[0] = DRAFTS[1 - DRAFTS.index(draft[0])]
        return playbook(tree, "playbooks/upgrade_draft.yml", *(fleet + [
            "-e", "sglang_draft_model_path=" + draft[0], "-e", "sglang_mem_fraction_static=" + fraction[0]]))

    def settings(tree, value):
        fraction[0] = value
        return playbook(tree, "playbooks/sglang.yml", *(fleet + [
            "-e", "sglang_draft_model_path=" + draft[0], "-e", "sglang_mem_fraction_static=" + value]))

    with collection_at(args.before) as old:
        print("stand-in restart %.1f s, /generate %.1f s; %d gate requests; before: %s" % (
            args.load_delay, args.generate_delay, args.gate_requests, args.before))
        step = 0
        for run in range(args.runs):
            flows = (("before", old), ("after", ROOT)) if run % 2 == 0 else (("after", ROOT), ("before", old))
            for change in ("draft", "settings"):
                for flow, tree in flows:
                    step += 1
                    value = "0.%02d" % (70 + step)
                    figures = measure(router, (lambda tree=tree: rollout(tree)) if change == "draft" else
                                      (lambda tree=tree, value=value: settings(tree, value)))
                    results[(change, flow)].append(figures)
                    print("run %d %-8s %-6s %s" % (run + 1, change, flow, ", ".join(
                        "%s %.1f" % item for item in figures.items())))
    print("median (min-max) of %d runs: seconds out of the router per host; the whole run's wall time and "
          "controller CPU:" % args.runs)
    for change in ("draft", "settings"):
        for figure in ("out s/host", "run s", "CPU s"):
            before = [figures[figure] for figures in results[(change, "before")]]
            after = [figures[figure] for figures in results[(change, "after")]]
            print("%-8s %-10s before %s, after %s: after / before %.2fx" % (
                change, figure, spread(before, "%.1f"), spread(after, "%.1f"),
                statistics.median(after) / statistics.median(before)))
        print("%-8s after's own note per host: %s" % (change, ", ".join(
            "%s %s" % (part, spread([figures[part] for figures in results[(change, "after")]], "%.1f"))
            for part in BREAKDOWN if part in results[(change, "after")][0])))


if __name__ == "__main__":
    sys.exit(main())
