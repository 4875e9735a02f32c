"""The fleet behind the real sglang-router: registration, keys, and draft rollouts that clients never
notice, with the router's retries and circuit breaker off so that only the drain protects them.
Runs after test_upgrade.py, on the fleet it leaves (every server on the v2 draft)."""

import contextlib
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from gpufleet_testlib import containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.playbook import ANSIBLE_PLAYBOOK
from gpufleet_testlib.standin import http
from gpufleet_testlib.traffic import ClientLoad, WorkerWatch, registered
from upgrade_fleet import (ADMIN_KEY, API_KEY, MODELS, PLAYBOOKS, SERVERS, WORKERS, drafts, main_pid, playbook,
                           router_url, server_info, upgrade, url, wait_all_registered)

testinfra_hosts = ["gpufleet-upgrade-router"]
DRAFT_CHECK = "Check the draft's context length against the served one"  # the launch role's preflight
LEAVE = "Take this server out of every router"  # the lifecycle's leave
OUT_OF_ROUTERS = "Say how long the server was out of the routers"  # the lifecycle's rejoin


@pytest.fixture(scope="module")
def router():
    return router_url()


def drain_waits(run):
    return [result for task, _host, result in run.results() if "Wait for the requests in flight" in task]


def test_the_router_fronts_every_server_with_its_key(router):
    workers = wait_all_registered()
    assert all(worker["model_id"] == "kimi-k2.5" for worker in workers)  # it read /model_info with the key


@pytest.mark.parametrize("args", [["--check", "--diff"], []])
def test_a_rerun_restarts_nothing_and_registers_nothing(router, args):
    pid = main_pid("gpufleet-upgrade-router", "sglang-router.service")
    run = playbook("router.yml", args=args)
    assert run.returncode == 0, str(run)
    assert run.changed("gpufleet-upgrade-router") == 0
    assert not run.ran("for what the host lacks")  # every read found the router's venv, settings and keys in place
    assert main_pid("gpufleet-upgrade-router", "sglang-router.service") == pid


def test_a_key_changed_on_the_host_is_found_put_back_and_the_router_restarted(router, host):
    """The keys are read by their SHA-256 (a host whose router is in place costs one task): one changed on
    disk is still found, in check mode too, without either key in any output."""
    pid = main_pid("gpufleet-upgrade-router", "sglang-router.service")
    host.check_output("printf wrong > /etc/sglang-router/api_key")
    checked = playbook("router.yml", args=["--check", "--diff"])
    assert checked.returncode == 0, str(checked)
    assert checked.changed("gpufleet-upgrade-router") > 0
    assert API_KEY not in json.dumps(checked.report) and ADMIN_KEY not in json.dumps(checked.report)
    assert main_pid("gpufleet-upgrade-router", "sglang-router.service") == pid
    run = playbook("router.yml")
    assert run.returncode == 0, str(run)
    assert host.check_output("cat /etc/sglang-router/api_key") == API_KEY
    assert main_pid("gpufleet-upgrade-router", "sglang-router.service") != pid
    wait_all_registered()


def test_a_router_beyond_loopback_without_keys_is_refused_before_any_change(router):
    pid = main_pid("gpufleet-upgrade-router", "sglang-router.service")
    run = playbook("router.yml", [{"sglang_router_api_key": ""}])
    assert run.returncode != 0
    assert run.says("sglang_router_host is 0.0.0.0, reachable from other machines, and the router has no API key"), \
        str(run)
    assert run.changed("gpufleet-upgrade-router") == 0
    assert main_pid("gpufleet-upgrade-router", "sglang-router.service") == pid
    wait_all_registered()


def test_the_keys_are_nowhere_to_be_seen(host):
    pid = host.check_output("systemctl show -p MainPID --value sglang-router.service")
    seen = "\n".join([
        host.check_output("ps -eo args"),
        host.check_output("tr '\\0' ' ' < /proc/%s/cmdline", pid),
        host.check_output("systemctl show sglang-router.service"),
        host.check_output("systemctl cat sglang-router.service"),
        host.check_output("journalctl -u sglang-router.service --no-pager"),
        host.check_output("cat /etc/sglang-router/settings.json /etc/sglang-router/workers.json"),
    ])
    assert API_KEY not in seen and ADMIN_KEY not in seen
    for name in ("api_key", "admin_key"):
        key_file = host.file("/etc/sglang-router/" + name)
        assert (key_file.user, key_file.group, key_file.mode) == ("root", "sglang-router", 0o640)
    assert host.run("runuser -u nobody -- cat /etc/sglang-router/api_key").rc != 0
    assert host.check_output("ps -o user= -p %s", pid) == "sglang-router"


def test_a_rollout_takes_one_server_down_at_a_time_and_fails_no_client_request(router):
    """Watched three ways at once: each server's /health from the controller, the router's worker list, and
    clients sending requests through the router."""
    probe = HealthProbe(dict((name, url(name, "")) for name in SERVERS), limit=900)
    watch = WorkerWatch(router, ADMIN_KEY)
    load = ClientLoad(router, API_KEY)
    for part in (probe, watch, load):
        part.start()
    try:
        run = upgrade(MODELS + "kimi-k25-eagle3-v3")
    finally:
        for part in (load, watch, probe):
            part.stop()
    assert run.returncode == 0, str(run)
    downtime = dict((name, round(probe.downtime(name), 1)) for name in SERVERS)
    print("probe: %d samples over %.0f s, per-host downtime %s, most hosts down at once: %d"
          % (len(probe.samples), probe.samples[-1][0], downtime, probe.most_down_at_once()))
    print("clients: %d requests, %d failed, p50 %.2f s, p99 %.2f s; fewest workers in the router: %d; out: %s"
          % (len(load.records), len(load.failed), load.latency(0.5), load.latency(0.99), watch.fewest_registered(),
             dict((worker, round(watch.out_time(worker), 1)) for worker in WORKERS)))
    assert probe.most_down_at_once() <= 1
    assert all(seconds > 0 for seconds in downtime.values())  # each server really restarted
    assert len(load.records) >= 200
    assert load.failed == []
    assert load.servers == set("%s:30000" % name for name in SERVERS)  # every server was seen serving
    assert watch.fewest_registered() == len(SERVERS) - 1  # never more than one out of the router
    assert all(watch.seen(url) and watch.out_time(url) > 0 for url in WORKERS)  # each one was in it and left it
    assert len(drain_waits(run)) == len(SERVERS)  # every server was drained before it stopped
    out = [result["msg"] for task, _host, result in run.results() if task.endswith(OUT_OF_ROUTERS)]
    print("\n".join(out))
    assert sorted(line.split()[0] for line in out) == SERVERS and all("restart until healthy" in line for line in out)
    order = [(task, host) for task, host, _result in run.results()]
    first_out = next(index for index, (task, _host) in enumerate(order) if task.endswith(LEAVE))
    checked = [host for task, host in order[:first_out] if task.endswith(DRAFT_CHECK)]
    assert sorted(checked) == SERVERS  # every host staged and checked the draft before the first left the router
    assert set(drafts().values()) == {MODELS + "kimi-k25-eagle3-v3"}
    assert all(server_info(name)["speculative_draft_model_path"] == MODELS + "kimi-k25-eagle3-v3" for name in SERVERS)


def test_without_the_drain_clients_see_failures(router):
    load = ClientLoad(router, API_KEY)
    load.start()
    try:
        run = upgrade(MODELS + "kimi-k25-eagle3-v2", "sglang_router_drain=false")
    finally:
        load.stop()
    assert run.returncode == 0, str(run)
    print("without the drain: %d requests, %d failed" % (len(load.records), len(load.failed)))
    assert len(load.failed) > 0  # the probe sees what the drain prevents
    wait_all_registered()


@pytest.mark.parametrize("extra, messages", [
    ("sglang_router_admin_key=not-the-key", ["refuses the key (401 on GET /workers)"]),
    ("sglang_router_worker_url=http://nowhere:30000", ["does not know http://nowhere:30000; it has registered "]
     + ["%s (healthy)" % url for url in WORKERS]),
])
def test_a_router_problem_stops_the_host_before_it_stops(router, extra, messages):
    pids = dict((name, main_pid(name)) for name in SERVERS)
    before = drafts()
    run = upgrade(MODELS + "kimi-k25-eagle3-v3", extra)
    assert run.returncode != 0
    assert all(run.says(message) for message in messages), str(run)
    assert dict((name, main_pid(name)) for name in SERVERS) == pids
    assert drafts() == before
    wait_all_registered()


def test_a_router_that_is_down_stops_the_host_and_a_restart_loses_no_worker(host, router):
    pids = dict((name, main_pid(name)) for name in SERVERS)
    host.run("systemctl stop sglang-router.service")
    try:
        run = upgrade(MODELS + "kimi-k25-eagle3-v3")
    finally:
        host.run("systemctl start sglang-router.service")
    assert run.returncode != 0
    assert run.says("cannot be reached"), str(run)
    assert dict((name, main_pid(name)) for name in SERVERS) == pids
    wait_all_registered()  # the router came back with every worker (workers.json)


def test_a_controller_killed_mid_drain_leaves_nothing_out_for_good(router):
    command = [ANSIBLE_PLAYBOOK, "-i", os.environ["MOLECULE_INVENTORY_FILE"], os.path.join(PLAYBOOKS, "upgrade_draft.yml"),
               "-e", "sglang_draft_model_path=%skimi-k25-eagle3-v3" % MODELS]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 300
        while time.time() < deadline and len(registered(router, ADMIN_KEY)) == len(SERVERS):
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGKILL)  # after a host left the router, before it came back
    finally:
        proc.wait()
    assert len(registered(router, ADMIN_KEY)) == len(SERVERS) - 1
    run = playbook("router.yml")  # the next run of the router play puts it back
    assert run.returncode == 0, str(run)
    wait_all_registered()


def other_draft(server):
    """The stand-in draft that server does not serve now (the tests alternate v2 and v3)."""
    return MODELS + ("kimi-k25-eagle3-v2" if drafts()[server].endswith("v3") else "kimi-k25-eagle3-v3")


@contextlib.contextmanager
def long_request_once_out_of_the_router(router, server):
    """While the block runs a playbook: a 20 s request (2000 new tokens at 10 ms) sent to server itself the
    moment it leaves the router. Yields {"reply": (status, body)}, final once the block has ended."""
    url = "http://%s:30000" % containers.address(server)
    answer = {"reply": (None, "the run ended before %s left the router" % server)}
    run_over = threading.Event()

    def send():
        while url in [worker["url"] for worker in registered(router, ADMIN_KEY)]:
            if run_over.wait(0.05):
                return
        try:
            answer["reply"] = http(url + "/generate", API_KEY, timeout=120,
                                   body={"text": "a long answer", "sampling_params": {"max_new_tokens": 2000}})
        except OSError as exc:  # the server went away under it
            answer["reply"] = (None, str(exc))

    request = threading.Thread(target=send)
    request.start()
    try:
        yield answer
    finally:
        run_over.set()
        request.join()


def test_a_request_in_flight_finishes_before_its_server_restarts(router):
    """Deterministic where client traffic is not: a 20 s request sent to the first server itself the moment it
    leaves the router, so that it is in flight when the drain starts however long the run took to get there; the
    drain waits for it."""
    first = SERVERS[0]
    other = other_draft(first)
    pid = main_pid(first)
    with long_request_once_out_of_the_router(router, first) as answer:
        run = upgrade(other, args=["--limit", first])
    assert run.returncode == 0, str(run)
    status, reply = answer["reply"]
    assert status == 200, reply  # a server stopped under it would have dropped the connection
    assert json.loads(reply)["meta_info"]["completion_tokens"] == 2000
    waits = drain_waits(run)
    assert len(waits) == 1 and waits[0]["polls"] >= 2
    assert main_pid(first) != pid and drafts()[first] == other
    wait_all_registered()


def test_a_drain_that_runs_out_of_time_puts_the_running_server_back(router):
    """The rescue of a batch that failed after its server left the routers and before anything stopped: the
    server kept runs, the lifecycle's abort asks its /health (gpufleet.sglang.health_info) and puts it back into
    the router. A 20 s request is in flight when the drain starts, and the drain may wait 2 s."""
    first = SERVERS[0]
    other = other_draft(first)
    pid, before = main_pid(first), drafts()
    with long_request_once_out_of_the_router(router, first) as answer:
        run = upgrade(other, "sglang_drain_timeout=2", args=["--limit", first])
    assert run.returncode != 0
    assert run.says("still has 1 requests in flight after 2 s"), str(run)
    assert run.result("Ask whether the server it kept answers", first)["healthy"] is True, str(run)
    assert answer["reply"][0] == 200, answer  # never stopped under it
    assert main_pid(first) == pid and drafts() == before
    wait_all_registered()  # back in the router
