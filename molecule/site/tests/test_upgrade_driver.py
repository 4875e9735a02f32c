"""A driver branch change on the serving fleet: cuda_driver.yml reboots one host at a time, and a
host's server must be healthy with its speculative configuration again before the next one goes.
Runs last (the file name sorts after the others): the hosts stay on the new branch."""

import os

from gpufleet_testlib import containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.playbook import run_in_scenario

testinfra_hosts = ["gpufleet-site-1"]
SERVERS = ["gpufleet-site-1", "gpufleet-site-2"]
PLAYBOOK = os.path.join(os.environ.get("MOLECULE_PROJECT_DIRECTORY", ""), "playbooks", "cuda_driver.yml")


def boot_id(name):
    return containers.run(name, "cut", "-d ", "-f22", "/proc/1/stat").strip()


def driver(name):
    return containers.run(name, "nvidia-smi", "--query-gpu=name,driver_version,compute_cap,memory.total",
                          "--format=csv,noheader").splitlines()[0].split(", ")[1]


def test_a_new_driver_branch_reboots_one_host_at_a_time_and_gates_its_server():
    boots = dict((name, boot_id(name)) for name in SERVERS)
    probe = HealthProbe(dict((name, "http://%s:30000" % containers.address(name)) for name in SERVERS), limit=900)
    probe.start()
    try:
        run = run_in_scenario(PLAYBOOK, ["cuda_driver_branch=590", "cuda_driver_state=latest"])
    finally:
        probe.stop()
    assert run.returncode == 0, str(run)
    downtime = dict((name, round(probe.downtime(name), 1)) for name in SERVERS)
    print("driver 580 -> 590: most down at once %d, per-host downtime %s, capacity per 5 s %s"
          % (probe.most_down_at_once(), downtime, probe.capacity()))
    assert probe.most_down_at_once() == 1 and all(seconds > 0 for seconds in downtime.values())
    assert all(boot_id(name) != boots[name] for name in SERVERS)  # each host rebooted
    assert all(driver(name) == "590.48.01" for name in SERVERS)
    gates = [host for task, host, _result in run.results() if "Wait for /health_generate" in task]
    assert sorted(gates) == SERVERS  # each server was gated after its host's reboot
