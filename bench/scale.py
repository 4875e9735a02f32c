"""How the collection scales with the fleet: a no-op playbooks/site.yml and a draft rollout
(playbooks/upgrade_draft.yml, batch 25%) at 3, 10 and 30 hosts, with two forks settings, with Ansible's
default strategy and with Mitogen's, side by side in the same run.

    make bench-scale    (or: PYTHONPATH=tests python bench/scale.py [--sizes 3,10,30] [--forks 5,30]
                         [--runs 3] [--strategies linear,mitogen_linear] [--keep])

The fleet is light systemd containers from the local base image (no GPU; the SGLang process is the
stand-in, as in the demo), reached over SSH as the deploy user with passwordless sudo, pipelining and
ControlPersist (ansible.cfg), with the demo's settings (inventories/demo/group_vars) and sglang-router
on the first host in front of all of them. Each size gets its own inventory (the first N hosts) and is
converged first (untimed, batch 100%); then, round by round, every (forks, strategy) pair runs the
no-op site.yml, and after those, the rollouts (alternating between two drafts). Per measurement: wall
time, controller CPU seconds (ansible-playbook and what it waited for), tasks per host, CPU ms per
host-task: the median of --runs rounds with the spread (min-max). Then the ratios: CPU per host-task
at the largest size over the smallest, and Mitogen over the default. A strategy that fails is reported
with its error, and the other measurements go on.
"""

import argparse
import collections
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

from gpufleet_testlib import router, sglang_wheels
from noop import ROOT, run, spread

IMAGE = os.environ.get("GPUFLEET_BASE_IMAGE", "gpufleet-sglang/debian12-systemd:bookworm")
NETWORK, SUBNET = "gpufleet-scale", "10.213.16.0/24"
REPO = "gpufleet-scale-cuda-repo"
CACHE = os.path.dirname(sglang_wheels.CACHE)   # GPUFLEET_CACHE, as the tests and the demo resolve it
DRAFTS = ["/srv/models/kimi-k25-eagle3-v2", "/srv/models/kimi-k25-eagle3-v3"]   # tests/standin/deploy.yml
SYSTEMD = ["--cap-add", "SYS_ADMIN", "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
           "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw", "--tmpfs", "/run", "--tmpfs", "/run/lock", "-e", "container=docker"]


def host(index):
    return "gpufleet-scale-%02d" % index, "10.213.16.%d" % (10 + index)


def sh(*command, **kwargs):
    return subprocess.run(list(command), check=True, capture_output=True, text=True, **kwargs).stdout


def start_fleet(size, key):
    """size systemd containers with sshd and the deploy user, and the stand-in CUDA repository."""
    subprocess.run(["bash", os.path.join(ROOT, "scripts/engine.sh")], check=True)  # and the inotify limit
    subprocess.run(["bash", os.path.join(ROOT, "scripts/base-image.sh"), "bookworm"], check=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/standin/nvidia_repo/build.py")], check=True,
                   env=dict(os.environ, GPUFLEET_CACHE=CACHE))
    # The wheelhouses tests/standin/deploy.yml copies to each host, as scripts/demo.sh makes them.
    sglang_wheels.wheelhouse("0.5.9")
    router.wheelhouse("3.11")
    stop_fleet(size)
    sh("docker", "network", "create", "--subnet", SUBNET, NETWORK)
    sh("docker", "run", "-d", "--name", REPO, "--network", NETWORK, "--ip", "10.213.16.10", "-v", CACHE + ":/srv/cache:ro",
       IMAGE, "python3", "-m", "http.server", "8080", "--directory", "/srv/cache/nvidia-standin-repo")
    for index in range(1, size + 1):
        name, address = host(index)
        sh("docker", "run", "-d", "--name", name, "--hostname", name, "--network", NETWORK, "--ip", address,
           "--restart", "always", *SYSTEMD, IMAGE, "/sbin/init")
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
    with open(key + ".pub") as handle:
        public = handle.read().strip()
    with open(os.path.join(ROOT, "scripts/ssh-login.sh")) as handle:
        login = handle.read()
    for index in range(1, size + 1):
        name = host(index)[0]
        for dummy in range(60):
            state = subprocess.run(["docker", "exec", name, "systemctl", "is-system-running"], capture_output=True,
                                   text=True, check=False).stdout.strip()
            if state in ("running", "degraded"):
                break
            time.sleep(1)
        sh("docker", "exec", "-i", name, "bash", "-s", "--", "deploy", public, input=login)


def stop_fleet(size):
    names = [host(index)[0] for index in range(1, size + 1)] + [REPO]
    subprocess.run(["docker", "rm", "-f"] + names, capture_output=True, check=False)
    subprocess.run(["docker", "network", "rm", NETWORK], capture_output=True, check=False)


def write_inventory(directory, size, key):
    """The demo's settings for the first size hosts, the router on the first."""
    group_vars = os.path.join(directory, "group_vars")
    os.makedirs(group_vars)
    demo = os.path.join(ROOT, "inventories/demo/group_vars")
    for name in os.listdir(demo):
        with open(os.path.join(demo, name)) as handle:
            settings = yaml.safe_load(handle)
        if name == "all.yml":
            settings["ansible_ssh_private_key_file"] = key
        if name == "sglang_servers.yml":
            settings["cuda_repo_url"] = "http://%s:8080" % REPO
        with open(os.path.join(group_vars, name), "w") as handle:
            yaml.safe_dump(settings, handle)
    hosts = dict(host(index) for index in range(1, size + 1))
    inventory = {"sglang_servers": {"hosts": dict((name, {"ansible_host": address}) for name, address in hosts.items())},
                 "sglang_routers": {"hosts": {host(1)[0]: None}}}
    with open(os.path.join(directory, "hosts.yml"), "w") as handle:
        yaml.safe_dump(inventory, handle)
    return directory


def converge(inventory):
    """The stand-in and site.yml on every host at once (untimed; run() stops the bench if one fails)."""
    run("tests/standin/deploy.yml", inventory, 30, {"GPUFLEET_CACHE": CACHE})
    run("playbooks/site.yml", inventory, 30, {"GPUFLEET_CACHE": CACHE},
        ["-e", "sglang_batch=100%", "-e", "sglang_draft_from_inventory=true"])


def strategy_env(strategy):
    if strategy == "linear":
        return {}
    import ansible_mitogen  # the PyPI package mitogen
    return {"ANSIBLE_STRATEGY_PLUGINS": os.path.join(os.path.dirname(ansible_mitogen.__file__), "plugins", "strategy"),
            "ANSIBLE_STRATEGY": strategy}


def measure(playbook, inventory, forks, strategy, extra=()):
    """run() of noop.py, or the reason the run failed."""
    try:
        return run(playbook, inventory, forks, extra_env=dict(strategy_env(strategy), GPUFLEET_CACHE=CACHE),
                   extra_args=list(extra))
    except (SystemExit, ImportError) as error:
        return str(error).strip().splitlines()[-1][:300] if str(error).strip() else repr(error)


def measure_one(playbook, inventory, fork, strategy, draft):
    """floor (bench/floor.yml), noop (site.yml, which must change nothing) or rollout (to draft, batch 25%)."""
    if playbook == "floor":
        return measure("bench/floor.yml", inventory, fork, strategy)
    if playbook == "rollout":
        return measure("playbooks/upgrade_draft.yml", inventory, fork, strategy,
                       ["-e", "sglang_batch=25%", "-e", "sglang_draft_model_path=" + draft])
    item = measure("playbooks/site.yml", inventory, fork, strategy)
    if not isinstance(item, str) and any(row["changed"] for row in item[2].values()):
        return "not a no-op: changed tasks per host %s" % dict((host, row["changed"]) for host, row in item[2].items())
    return item


def report(results):
    """One line per (playbook, size, forks, strategy), then the ratios."""
    per_host_task = {}
    columns = ("playbook", "hosts", "forks", "strategy", "wall s", "controller CPU s", "tasks/host",
               "CPU ms per host-task")
    print("\n%-8s %5s %5s %-15s %-22s %-22s %-14s %s" % columns)
    for (playbook, size, forks, strategy), rounds in sorted(results.items()):
        failures = [item for item in rounds if isinstance(item, str)]
        if failures:
            print("%-8s %5d %5d %-15s FAILED: %s" % (playbook, size, forks, strategy, failures[0]))
            continue
        walls = [wall for wall, _cpu, _counts in rounds]
        cpus = [cpu for _wall, cpu, _counts in rounds]
        counts = rounds[-1][2]
        host_tasks = sum(row["ran"] + row["skipped"] for row in counts.values())
        per_task = [1000.0 * cpu / host_tasks for cpu in cpus]
        per_host_task[playbook, size, forks, strategy] = statistics.median(per_task)
        print("%-8s %5d %5d %-15s %-22s %-22s %-14s %s" % (
            playbook, size, forks, strategy, spread(walls, "%.1f"), spread(cpus, "%.1f"),
            "%d-%d" % (min(row["ran"] + row["skipped"] for row in counts.values()),
                       max(row["ran"] + row["skipped"] for row in counts.values())),
            spread(per_task, "%.1f")))
        per_host_task[playbook, size, forks, strategy, "wall"] = statistics.median(walls)
        per_host_task[playbook, size, forks, strategy, "cpu"] = statistics.median(cpus)
    keys = sorted(set(key[:4] for key in per_host_task if len(key) == 4))
    sizes = sorted(set(key[1] for key in keys))
    print()
    for playbook, forks, strategy in sorted(set((key[0], key[2], key[3]) for key in keys)):
        small, large = (playbook, sizes[0], forks, strategy), (playbook, sizes[-1], forks, strategy)
        if small in per_host_task and large in per_host_task and small != large:
            print("%-8s forks %-3d %-15s CPU per host-task, %d hosts / %d hosts: %.2fx" % (
                playbook, forks, strategy, sizes[-1], sizes[0], per_host_task[large] / per_host_task[small]))
    for playbook, size, forks, strategy in keys:
        floor = ("floor", size, forks, strategy)
        if playbook == "noop" and floor in per_host_task:
            print("site.yml no-op / floor %3d hosts forks %-3d %-15s wall %.1fx, controller CPU %.1fx" % (
                size, forks, strategy, per_host_task[(playbook, size, forks, strategy, "wall")]
                / per_host_task[floor + ("wall",)], per_host_task[(playbook, size, forks, strategy, "cpu")]
                / per_host_task[floor + ("cpu",)]))
    for playbook, size, forks, strategy in keys:
        if strategy == "linear":
            continue
        base = (playbook, size, forks, "linear")
        if base in per_host_task:
            print("%-8s %3d hosts forks %-3d %s / linear: wall %.2fx, controller CPU %.2fx" % (
                playbook, size, forks, strategy,
                per_host_task[(playbook, size, forks, strategy, "wall")] / per_host_task[base + ("wall",)],
                per_host_task[(playbook, size, forks, strategy, "cpu")] / per_host_task[base + ("cpu",)]))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="3,10,30")
    parser.add_argument("--forks", default="5,30")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--strategies", default="linear,mitogen_linear")
    parser.add_argument("--playbooks", default="floor,noop,rollout",
                        help="floor: bench/floor.yml (facts and a ping); noop: site.yml on the converged fleet; "
                             "rollout: upgrade_draft.yml at batch 25%%")
    parser.add_argument("--keep", action="store_true", help="leave the fleet running afterwards")
    parser.add_argument("--key", help="the SSH key of a fleet an earlier --keep run left: measure on it, make none")
    args = parser.parse_args()
    sizes = sorted(int(size) for size in args.sizes.split(","))
    forks = [int(value) for value in args.forks.split(",")]
    strategies = args.strategies.split(",")
    playbooks = args.playbooks.split(",")
    workdir = tempfile.mkdtemp(prefix="gpufleet-scale.")
    key = args.key or os.path.join(workdir, "id_ed25519")
    if not args.key:
        start_fleet(sizes[-1], key)
    print("fleet: %d systemd containers over SSH (%s)" % (sizes[-1], IMAGE), flush=True)
    results = collections.defaultdict(list)
    rollouts = 0
    try:
        for size in sizes:
            inventory = write_inventory(os.path.join(workdir, "fleet-%d" % size), size, key)
            converge(inventory)
            print("%d hosts converged" % size, flush=True)
            # The floor and the no-op round by round, side by side; the rollouts after them.
            phases = [[name for name in playbooks if name != "rollout"]] + [["rollout"]] * ("rollout" in playbooks)
            for phase in phases:
                for index, fork, strategy, playbook in itertools.product(range(args.runs), forks, strategies, phase):
                    draft = None
                    if playbook == "rollout":
                        draft, rollouts = DRAFTS[rollouts % 2], rollouts + 1
                    item = measure_one(playbook, inventory, fork, strategy, draft)
                    results[playbook, size, fork, strategy].append(item)
                    print("%-8s %2d hosts forks %-3d %-15s round %d: %s" % (
                        playbook, size, fork, strategy, index + 1,
                        item if isinstance(item, str) else "%.1f s wall, %.1f s CPU" % item[:2]), flush=True)
        report(results)
    finally:
        if not (args.keep or args.key):
            stop_fleet(sizes[-1])


if __name__ == "__main__":
    main()
