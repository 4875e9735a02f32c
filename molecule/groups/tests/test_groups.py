"""A two-host tensor-parallel group beside two single-host servers, behind the real sglang-router:
the group is one unit of a batch (never split, never half up), batches are sized by sglang_batch
from the inventory, and a controller killed inside a batch costs one re-run, not a host's capacity."""

import json
import os
import signal
import subprocess
import time

from gpufleet_testlib import ROOT, containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.playbook import ANSIBLE_PLAYBOOK, run_in_scenario
from gpufleet_testlib.standin import http
from gpufleet_testlib.traffic import WorkerWatch, registered

testinfra_hosts = ["gpufleet-groups-router"]
RANK0, RANK1, SINGLE3, SINGLE4 = ("gpufleet-groups-%d" % number for number in (1, 2, 3, 4))
SERVERS = [RANK0, RANK1, SINGLE3, SINGLE4]
ADDRESS = dict((name, "10.213.6.%d" % number) for name, number in zip(SERVERS, (11, 12, 13, 14)))
WORKERS = ["http://%s:30000" % ADDRESS[name] for name in (RANK0, SINGLE3, SINGLE4)]  # rank 1 serves no HTTP
ROUTER = "http://10.213.6.10:30080"
API_KEY = "molecule-groups-key-41a8"
UNIT = "sglang-kimi-k25.service"
SGLANG = os.path.join(ROOT, "playbooks", "sglang.yml")


def unit(name, *properties):
    out = containers.run(name, "systemctl", "show", UNIT, *["-p" + prop for prop in properties])
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def unit_line(name, flag):
    text = containers.run(name, "cat", "/etc/systemd/system/" + UNIT)
    return [line.strip() for line in text.splitlines() if flag in line]


def wait_all_registered(seconds=90):
    deadline, workers = time.time() + seconds, None
    while time.time() < deadline:
        try:
            workers = registered(ROUTER, API_KEY)
        except OSError:
            workers = None
        if workers and sorted(worker["url"] for worker in workers if worker["is_healthy"]) == WORKERS:
            return workers
        time.sleep(0.5)
    raise AssertionError("the router has %s" % workers)


def unit_moment(name, prop):
    """A unit's *TimestampMonotonic property in seconds of the host's CLOCK_MONOTONIC, which the containers
    share with the controller (time.monotonic()): no sampling, and no docker exec latency in it."""
    return int(unit(name, prop)[prop]) / 1e6


def unit_starts_since(name, since):
    """How many times systemd started the unit since the wall-clock time since (journal's own records)."""
    log = containers.run(name, "journalctl", "-u", UNIT, "--since", "@%d" % since, "--no-pager", "-o", "cat")
    return sum(1 for line in log.splitlines() if line.startswith("Started "))


def test_the_group_serves_once_whole_and_only_its_rank_0_is_a_worker():
    assert http("http://%s:30000/health" % ADDRESS[RANK0])[0] == 200
    assert unit(RANK1, "ActiveState")["ActiveState"] == "active"
    assert "--node-rank 1" in " ".join(unit_line(RANK1, "--node-rank"))
    try:
        http("http://%s:30000/health" % ADDRESS[RANK1], timeout=2)
        raise AssertionError("rank 1 serves HTTP")
    except OSError:
        pass
    wait_all_registered()


def test_a_settings_change_takes_two_servers_a_batch_and_restarts_the_group_whole():
    pids = dict((name, unit(name, "MainPID")["MainPID"]) for name in SERVERS)
    probe = HealthProbe(dict((name, "http://%s:30000" % ADDRESS[name]) for name in (RANK0, SINGLE3, SINGLE4)),
                        interval=0.2, limit=900)
    since = time.time()
    probe.start()
    try:
        run = run_in_scenario(SGLANG, ["sglang_mem_fraction_static=0.8"])
    finally:
        probe.stop()
    assert run.returncode == 0, str(run)
    # sglang_batch 2 from group_vars, the group counting once: the plan and the batches run agree.
    assert run.says("Restarting 4 of 4 host(s), 2 at a time"), str(run)
    assert run.says("Batches: [%s, %s, %s] -> [%s]" % (RANK0, RANK1, SINGLE3, SINGLE4)), str(run)
    batches = [sorted(play["tasks"][0]["hosts"]) for play in run.report["plays"]
               if play["play"]["name"].startswith("SGLang restarted batch by batch")]
    assert batches == [sorted([RANK0, RANK1, SINGLE3]), [SINGLE4]]
    for name in SERVERS:
        assert unit(name, "MainPID")["MainPID"] != pids[name], name
        assert unit_line(name, "--mem-fraction-static") == ["--mem-fraction-static 0.8 \\"]
    # Never half up, read from systemd's own moments rather than sampled: rank 1 started once, in its
    # group's restart (stopped and started beside rank 0, not minutes apart as batches are), and its
    # new process ran before rank 0 answered /health again.
    assert unit_starts_since(RANK1, since) == 1
    for prop in ("ActiveExitTimestampMonotonic", "ExecMainStartTimestampMonotonic"):
        assert abs(unit_moment(RANK1, prop) - unit_moment(RANK0, prop)) < 10, prop
    rank1_started = unit_moment(RANK1, "ExecMainStartTimestampMonotonic") - probe.started
    down = [moment for moment, state in probe.samples if not state[RANK0]]
    back = [moment for moment, state in probe.samples if state[RANK0] and moment > down[0]]
    assert down and back and back[0] > rank1_started, (down[:1], back[:1], rank1_started)
    # The single host of the second batch stayed up while the first batch was down, and the other way round.
    assert not any(not state[SINGLE4] and not (state[RANK0] and state[SINGLE3]) for _moment, state in probe.samples)
    print("group change: most down at once %d of 3 servers, downtime %s" % (
        probe.most_down_at_once(), dict((name, round(probe.downtime(name), 1)) for name in (RANK0, SINGLE3, SINGLE4))))
    assert probe.most_down_at_once() <= 2
    wait_all_registered()


def test_a_controller_killed_inside_a_batch_costs_one_rerun_and_no_capacity():
    """SIGKILL to ansible-playbook while the first batch restarts: its servers come back on the new
    settings but out of the router, the status view says so, and one more run finishes the change,
    that batch first, with every server in the router again."""
    watch = WorkerWatch(ROUTER, API_KEY, interval=0.1)
    watch.start()
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_NOCOLOR="1")
    command = [ANSIBLE_PLAYBOOK, "-i", os.environ["MOLECULE_INVENTORY_FILE"], SGLANG, "-e",
               "sglang_mem_fraction_static=0.75"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.time() + 300
        while time.time() < deadline and not any(urls is not None and WORKERS[0] not in urls
                                                 for _moment, urls in watch.samples):
            time.sleep(0.1)
        assert proc.poll() is None, "the run ended before the first batch left the router"
        time.sleep(1.5)  # inside the batch: left, and restarting
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        watch.stop()
    # Left out: the first batch's worker is not in the router, and the host says why.
    time.sleep(8)
    urls = [worker["url"] for worker in registered(ROUTER, API_KEY)]
    assert WORKERS[0] not in urls, urls
    left = json.loads(containers.run(RANK0, "cat", "/etc/sglang/staged/kimi-k25.left"))
    assert left["routers"] == ["gpufleet-groups-router"]
    status = run_in_scenario(os.path.join(ROOT, "playbooks", "status.yml"), args=["--check"])
    assert status.returncode == 0, str(status)
    assert status.says("LEFT by a run since %s" % left["since"]), str(status)

    rerun = run_in_scenario(SGLANG, ["sglang_mem_fraction_static=0.75"])
    assert rerun.returncode == 0, str(rerun)
    first = [play for play in rerun.report["plays"] if play["play"]["name"].startswith("SGLang restarted")][0]
    assert RANK0 in first["tasks"][0]["hosts"]  # the host left out went first, with its group
    assert rerun.says("out of the routers since %s" % left["since"])
    wait_all_registered()
    for name in SERVERS:
        assert containers.run(name, "sh", "-c", "test -e /etc/sglang/staged/kimi-k25.left && echo left || true") == ""
        assert unit_line(name, "--mem-fraction-static") == ["--mem-fraction-static 0.75 \\"]
    again = run_in_scenario(SGLANG, ["sglang_mem_fraction_static=0.75"])
    assert again.returncode == 0 and again.says("No host owes a restart."), str(again)
