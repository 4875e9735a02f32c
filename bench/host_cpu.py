"""What a no-op playbooks/site.yml costs the hosts: each module it runs there, and the CPU its process takes.

    make bench-host-cpu    (or: PYTHONPATH=tests:.collections python bench/host_cpu.py [--runs 3])

The demo fleet must have converged (`make demo`). The bench copies bench/host_cpu/module_cpu.py into
each demo container (removed after) and runs the floor (bench/floor.yml: facts and a ping) and a no-op site.yml
with it as ansible_python_interpreter: it runs each module with the host's python3 and notes the module's
name and its process's CPU time. Printed per module: calls per run, CPU seconds per run on all hosts and
per call (median of --runs runs with the spread, min-max), the total, and the floor's ping per call: what any
module costs before it does anything (Python's start and the import of Ansible's module_utils from the
AnsiballZ zip, compiled on every call). The figures are CPU on the hosts, which bench/noop.py's controller CPU
does not count; here the hosts are containers on the same machine.
"""

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys

from gpufleet_testlib import containers
from noop import require_no_op, run, spread
from out_of_routers import HOSTS

SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_cpu", "module_cpu.py")
INTERPRETER = "/usr/local/bin/gpufleet-module-cpu"
LOG = "/var/tmp/gpufleet-module-cpu.jsonl"


def install(name):
    """The shim as an executable on the host, with the host's python3 in its first line."""
    with open(SHIM, "rb") as shim:
        subprocess.run(["docker", "exec", "-i", name, "sh", "-c", "{ echo '#!/usr/bin/python3'; cat; } > %s && "
                        "chmod 0755 %s && rm -f %s" % (INTERPRETER, INTERPRETER, LOG)], stdin=shim, check=True)


def calls(playbook, forks, check):
    """Run playbook through the shim; returns [(module, CPU s)] of every module call on every host."""
    for name in HOSTS:
        containers.run(name, "rm", "-f", LOG)
    _wall, _cpu, counts = run(playbook, "inventories/demo", forks,
                              extra_args=["-e", "ansible_python_interpreter=" + INTERPRETER])
    if check:
        require_no_op(counts)
    found = []
    for name in HOSTS:
        for line in containers.run(name, "cat", LOG).splitlines():
            record = json.loads(line)
            found.append((record["module"].rsplit(".", 1)[-1], record["cpu"]))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--forks", type=int, default=10)
    args = parser.parse_args()
    for name in HOSTS:
        install(name)
    try:
        floors, sites = [], []
        for _index in range(args.runs):
            floors.append(calls("bench/floor.yml", args.forks, check=False))
            sites.append(calls("playbooks/site.yml", args.forks, check=True))
    finally:
        for name in HOSTS:
            containers.run(name, "rm", "-f", INTERPRETER, LOG)

    table = collections.defaultdict(lambda: ([], []))   # module: ([calls per run], [CPU s per run])
    for found in sites:
        per_module = collections.defaultdict(list)
        for module, cpu in found:
            per_module[module].append(cpu)
        for module, cpus in per_module.items():
            table[module][0].append(len(cpus))
            table[module][1].append(sum(cpus))
    totals = [sum(cpu for _module, cpu in found) for found in sites]
    pings = [statistics.mean(cpu for module, cpu in found if module == "ping") for found in floors]
    print("no-op site.yml on %d demo hosts, forks %d, median of %d runs (min-max): CPU on the hosts" % (
        len(HOSTS), args.forks, args.runs))
    print("  %s s in %d module calls; the floor's ping: %s ms per call" % (
        spread(totals), len(sites[-1]), spread([1000 * ping for ping in pings], "%.0f")))
    print("  %-22s %6s %18s %18s" % ("module", "calls", "CPU s per run", "ms per call"))
    for module, (counts, cpus) in sorted(table.items(), key=lambda item: -statistics.median(item[1][1])):
        print("  %-22s %6d %18s %18s" % (module, statistics.median(counts), spread(cpus),
                                         spread([1000 * cpu / count for cpu, count in zip(cpus, counts)], "%.0f")))


if __name__ == "__main__":
    sys.exit(main())
