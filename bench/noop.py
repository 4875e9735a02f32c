"""A no-op playbooks/site.yml against Ansible's own floor, on the same hosts over the same connection.

    make bench-noop    (or: PYTHONPATH=tests python bench/noop.py [--inventory inventories/demo] [--runs 3] [--forks 10]
                                                              [--baseline CHECKOUT])

The fleet must have converged already (`make demo` does it for the demo fleet, over SSH as the
deploy user with sudo, pipelining and ControlPersist). Each round runs the floor (bench/floor.yml:
gather facts, one ansible.builtin.ping) and then site.yml, side by side, so that both see the same
load on this shared machine. Per playbook: wall time, the controller's CPU time (ansible-playbook and
the processes it waited for), the tasks each host ran and skipped (from the ansible.posix.json
callback), CPU seconds per host-task; the median of --runs rounds with the spread (min-max), and the
site/floor ratio. A site.yml run that changes anything is not a no-op: the bench stops and says so.
With --baseline, each round also runs the site.yml of another checkout of this collection (made with
`git worktree add`, say), on the same hosts, between the floor and this one: a change's no-op cost
measured side by side with the code before it.
"""

import argparse
import os
import resource
import statistics
import sys
import time

from gpufleet_testlib import ROOT
from gpufleet_testlib.playbook import run_playbook


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(playbook, inventory, forks, extra_env=None, extra_args=(), root=ROOT):
    """One ansible-playbook run of the checkout at root: wall s, controller CPU s, and per-host (ran, skipped,
    changed) counts. The inventory is always this checkout's."""
    env = dict(ANSIBLE_CONFIG=os.path.join(root, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(root, ".collections"), **(extra_env or {}))
    cpu, start = children_cpu(), time.monotonic()
    result = run_playbook(os.path.join(root, playbook), os.path.join(ROOT, inventory),
                          args=["--forks", str(forks)] + list(extra_args), timeout=7200, env=env)
    wall, cpu = time.monotonic() - start, children_cpu() - cpu
    if result.returncode != 0 or not result.report:
        sys.exit("%s failed (rc %d):\n%s" % (playbook, result.returncode, result))
    return wall, cpu, result.task_counts()


def require_no_op(counts, root=ROOT):
    """Stop the bench when a site.yml run (its per-host counts from run()) changed anything: not a no-op."""
    changed = dict((host, row["changed"]) for host, row in counts.items() if row["changed"])
    if changed:
        sys.exit("site.yml of %s changed something (changed tasks per host: %s): converge the fleet first"
                 % (root, changed))


def spread(values, fmt="%.2f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (statistics.median(values), min(values), max(values))


def summary(name, rounds):
    walls = [wall for wall, _cpu, _counts in rounds]
    cpus = [cpu for _wall, cpu, _counts in rounds]
    counts = rounds[-1][2]
    host_tasks = sum(row["ran"] + row["skipped"] for row in counts.values())
    per_host = sorted(set((row["ran"], row["skipped"]) for row in counts.values()))
    print("%-8s wall %s s   controller CPU %s s   %d hosts, tasks per host (ran+skipped): %s   "
          "CPU per host-task %s ms" % (
              name, spread(walls), spread(cpus), len(counts), ", ".join("%d+%d" % pair for pair in per_host),
              spread([1000.0 * cpu / host_tasks for cpu in cpus], "%.1f")))
    return statistics.median(walls), statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inventory", default="inventories/demo")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--forks", type=int, default=10)
    parser.add_argument("--baseline", help="another checkout of the collection (with its own .collections link) "
                                           "whose site.yml runs beside this one's")
    args = parser.parse_args()
    floor, site, baseline = [], [], []
    for index in range(args.runs):
        floor.append(run("bench/floor.yml", args.inventory, args.forks))
        runs = [("baseline", baseline, os.path.abspath(args.baseline))] if args.baseline else []
        for _name, rounds, root in runs + [("site.yml", site, ROOT)]:
            rounds.append(run("playbooks/site.yml", args.inventory, args.forks, root=root))
            require_no_op(rounds[-1][2], root)
        print("round %d: floor %.1f s, site.yml %.1f s%s" % (
            index + 1, floor[-1][0], site[-1][0], ", baseline %.1f s" % baseline[-1][0] if baseline else ""),
            flush=True)
    print("median of %d rounds (min-max), forks %d, inventory %s:" % (args.runs, args.forks, args.inventory))
    floor_wall, floor_cpu = summary("floor", floor)
    if baseline:
        base_wall, base_cpu = summary("baseline", baseline)
        print("baseline / floor: wall %.1fx, controller CPU %.1fx" % (base_wall / floor_wall, base_cpu / floor_cpu))
    site_wall, site_cpu = summary("site.yml", site)
    print("site.yml / floor: wall %.1fx, controller CPU %.1fx" % (site_wall / floor_wall, site_cpu / floor_cpu))
    if baseline:
        print("site.yml / baseline: wall %.2fx, controller CPU %.2fx" % (site_wall / base_wall, site_cpu / base_cpu))


if __name__ == "__main__":
    main()
