"""Where a no-op playbooks/site.yml spends the controller's CPU: by play and by task.

    make bench-profile    (or: PYTHONPATH=tests python bench/noop_profile.py [--inventory inventories/demo]
                                                                             [--runs 3] [--forks 10] [--top 25])

The fleet must have converged already (`make demo`). Each run loads bench/task_cpu/sitecustomize.py into
ansible-playbook, which records, for every worker (one task on one host), the CPU time it took on the
controller and the Jinja templates it compiled; the rest of the controller's CPU (ansible-playbook itself:
start-up, variables, forking, results) is the total minus the workers'. Printed: the split, each play's
host-tasks and CPU, the tasks that cost the most (median of --runs runs, with the spread, per host), and the
templates compiled most often (Ansible 2.19+ compiles a template each time it renders one, so a derived
variable that others reference is compiled once per reference).
"""

import argparse
import collections
import json
import os
import statistics
import sys
import tempfile

from noop import require_no_op, run, spread

HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "task_cpu")


def profiled_run(inventory, forks):
    """One no-op site.yml with the hook: (wall s, controller CPU s, the workers' records)."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as log:
        env = {"GPUFLEET_TASK_CPU_LOG": log.name,
               "PYTHONPATH": os.pathsep.join(filter(None, [HOOK, os.environ.get("PYTHONPATH")]))}
        wall, cpu, counts = run("playbooks/site.yml", inventory, forks, extra_env=env)
        require_no_op(counts)
        records = [json.loads(line) for line in open(log.name)]
    if not records:
        sys.exit("no worker recorded its task: bench/task_cpu/sitecustomize.py was not loaded (PYTHONPATH?)")
    return wall, cpu, records


def by(records, key):
    """{key: [records]} in the order each key first ran."""
    groups = collections.OrderedDict()
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return groups


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inventory", default="inventories/demo")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--forks", type=int, default=10)
    parser.add_argument("--top", type=int, default=25, help="how many tasks and templates to list")
    args = parser.parse_args()
    runs = [profiled_run(args.inventory, args.forks) for _run in range(args.runs)]

    totals = [cpu for _wall, cpu, _records in runs]
    workers = [sum(record["cpu"] for record in records) for _wall, _cpu, records in runs]
    host_tasks = len(runs[-1][2])
    compiled = [sum(record["compiled"] for record in records) for _wall, _cpu, records in runs]
    print("no-op site.yml, %s, forks %d, median of %d runs (min-max):" % (args.inventory, args.forks, args.runs))
    print("  wall %s s, controller CPU %s s, %d host-tasks" % (
        spread([wall for wall, _cpu, _records in runs]), spread(totals), host_tasks))
    print("  in the workers (the tasks) %s s, %s ms per host-task; in ansible-playbook itself %s s, %s ms per "
          "host-task" % (spread(workers), spread([1000 * w / host_tasks for w in workers], "%.0f"),
                         spread([t - w for t, w in zip(totals, workers)]),
                         spread([1000 * (t - w) / host_tasks for t, w in zip(totals, workers)], "%.0f")))
    print("  templates compiled %s, %s per host-task" % (
        spread(compiled, "%d"), spread([c / float(host_tasks) for c in compiled], "%.1f")))

    def per_run(group_key):
        """{group: (host-tasks, [CPU s of each run], [templates of each run])}."""
        table = collections.OrderedDict()
        for _wall, _cpu, records in runs:
            for name, rows in by(records, group_key).items():
                hosts, cpus, templates = table.setdefault(name, (len(rows), [], []))
                cpus.append(sum(row["cpu"] for row in rows))
                templates.append(sum(row["compiled"] for row in rows))
        return table

    print("\nby play: host-tasks, worker CPU s, share of the workers' CPU")
    median_workers = statistics.median(workers)
    for play, (hosts, cpus, _templates) in per_run(lambda record: record["play"]).items():
        print("  %3d %s %4.0f%%  %s" % (hosts, spread(cpus), 100 * statistics.median(cpus) / median_workers, play))

    print("\nthe %d tasks that cost the most: hosts, ms per host, templates compiled per host" % args.top)
    tasks = per_run(lambda record: record["task"])
    ranked = sorted(tasks.items(), key=lambda item: -statistics.median(item[1][1]))
    for name, (hosts, cpus, templates) in ranked[:args.top]:
        print("  %2d %-20s %5.0f  %s" % (hosts, spread([1000 * c / hosts for c in cpus], "%.0f"),
                                         statistics.median(templates) / hosts, name))

    print("\nthe %d templates compiled most often in a run (times, first 100 characters)" % args.top)
    most = collections.Counter()
    for record in runs[-1][2]:
        for source, times in record["templates"]:
            most[source] += times
    for source, times in most.most_common(args.top):
        print("  %4d %s" % (times, " ".join(source.split())[:100]))


if __name__ == "__main__":
    main()
