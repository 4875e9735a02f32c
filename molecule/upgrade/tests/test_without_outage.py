"""Keeping the fleet there: sglang.yml after a draft rollout, settings changes, an SGLang version change
and a patch re-applied, each batch by batch behind the router, rolled back on failure, never a
silent revert. Runs after test_via_router.py, on the fleet it leaves (drafts rolled out by
upgrade_draft.yml, which the inventory does not name)."""

import json
import os
import subprocess

import pytest

from gpufleet_testlib import containers
from gpufleet_testlib.health_probe import HealthProbe
from gpufleet_testlib.traffic import ClientLoad, WorkerWatch
from upgrade_fleet import (ADMIN_KEY, API_KEY, MODELS, SERVERS, UNIT, main_pid, main_pids, playbook, recorded_draft,
                           router_url, server_info, url, wait_all_registered)

testinfra_hosts = ["gpufleet-upgrade-1"]
INVENTORY_DRAFT = MODELS + "kimi-k25-eagle3"
OLD_VENV, NEW_VENV = "/opt/sglang/venvs/sglang-0.5.9", "/opt/sglang/venvs/sglang-0.5.10"
CACHE = os.environ.get("GPUFLEET_CACHE", os.path.expanduser("~/.cache/gpufleet-sglang"))
SCENARIO_ENV = {"SGLANG_STANDIN_LOAD_DELAY": "3", "SGLANG_STANDIN_GENERATE_DELAY": "2",
                "SGLANG_STANDIN_TOKEN_DELAY": "0.01"}
V0510 = ["sglang_version=0.5.10", "sglang_wheelhouse=%s/wheelhouse-0.5.10" % CACHE]


def site(*extra, args=()):
    return playbook("sglang.yml", extra, args)


def unit_line(name, flag):
    text = containers.run(name, "cat", "/etc/systemd/system/sglang-kimi-k25.service")
    return [line.strip() for line in text.splitlines() if flag in line]


def draft_in(unit_text):
    return unit_text.split("--speculative-draft-model-path ")[1].split()[0]


def pending(name):
    return containers.run(name, "sh", "-c", "cat /etc/sglang/staged/kimi-k25.restart 2>/dev/null || true").strip()


class Watched(object):
    """A playbook run with a health probe on every server and clients plus a worker watch on the router."""

    def __init__(self, clients=False):
        self.probe = HealthProbe(dict((name, url(name)) for name in SERVERS), limit=900)
        self.watch = WorkerWatch(router_url(), ADMIN_KEY)
        self.load = ClientLoad(router_url(), API_KEY, clients=6) if clients else None

    def run(self, *extra, args=()):
        for part in (self.probe, self.watch, self.load):
            if part:
                part.start()
        try:
            return site(*extra, args=args)
        finally:
            for part in (self.load, self.watch, self.probe):
                if part:
                    part.stop()

    def assert_one_host_at_a_time(self, run, what):
        """The run passed, every server restarted, never two at once, no client request failed."""
        assert run.returncode == 0, str(run)
        downtime = dict((name, round(self.probe.downtime(name), 1)) for name in SERVERS)
        clients = "" if not self.load else ", clients %d requests %d failed" % (len(self.load.records),
                                                                                len(self.load.failed))
        print("%s: most down at once %d, per-host downtime %s, fewest in the router %d%s" % (
            what, self.probe.most_down_at_once(), downtime, self.watch.fewest_registered(), clients))
        assert self.probe.most_down_at_once() <= 1 and self.watch.fewest_registered() == len(SERVERS) - 1
        assert all(seconds > 0 for seconds in downtime.values())
        assert self.load is None or self.load.failed == []


@pytest.fixture(scope="module", autouse=True)
def the_0510_wheel():
    subprocess.run(["python3", os.path.join(os.environ["MOLECULE_PROJECT_DIRECTORY"], "tests", "gpufleet_testlib",
                                            "sglang_wheels.py"), "--wheelhouse", "0.5.10"], check=True)


def test_sglang_yml_after_a_rollout_stops_with_the_drift_and_changes_nothing():
    pids = main_pids()
    before = dict((name, recorded_draft(name)) for name in SERVERS)
    for args in (["--check", "--diff"], []):
        run = site(args=args)
        assert run.returncode != 0
        for name in SERVERS:
            assert run.says("%s runs the draft %s" % (name, before[name]["requested"])), str(run)
        assert run.says("rolled out by playbooks/upgrade_draft.yml, but the inventory names " + INVENTORY_DRAFT)
        assert run.says("-e sglang_draft_from_inventory=true")
        assert main_pids() == pids
        assert dict((name, recorded_draft(name)) for name in SERVERS) == before
        assert all(pending(name) == "" for name in SERVERS)


def status(*extra):
    """status.yml in check mode: (the run, {host: row} from its JSON)."""
    path = "/tmp/gpufleet-status-%d.json" % os.getpid()
    run = playbook("status.yml", ["sglang_status_json=" + path] + list(extra), ["--check"])
    assert run.returncode == 0, str(run)
    with open(path) as handle:
        rows = dict((row["host"], row) for row in json.load(handle))
    os.unlink(path)
    return run, rows


def test_status_shows_the_drift_each_host_has():
    run, rows = status()
    assert run.says("DRAFT UNIT | INVENTORY | SERVED")
    for name in SERVERS:
        row = rows[name]
        assert row["draft_inventory"] == INVENTORY_DRAFT and row["draft_unit"] == row["draft_served"] != INVENTORY_DRAFT
        assert (row["sglang_version"], row["venv"], row["patch"]) == ("0.5.9", OLD_VENV, "complete")
        assert row["healthy"] and row["routers"] == {"gpufleet-upgrade-router": "in"}
        # A rollout stopped by a router problem earlier (test_via_router.py) staged its draft on every host before
        # the first one left: the hosts it did not reach show that staged unit pending, differing in the draft only.
        assert row["restart_pending"] in ([], [UNIT]) and row["accept_length"] > 3
        if row["restart_pending"]:
            live = containers.run(name, "cat", "/etc/systemd/system/" + UNIT)
            staged = containers.run(name, "cat", "/etc/sglang/staged/" + UNIT)
            assert staged.replace(draft_in(staged), draft_in(live)) == live != staged


def test_back_to_the_inventory_draft_with_a_patch_reapplied_one_host_at_a_time():
    # The patch undone under every running server (the release's own file back), as a reinstall would.
    for name in SERVERS:
        containers.run(name, OLD_VENV + "/bin/pip", "install", "--quiet", "--force-reinstall", "--no-deps",
                       "--no-index", "--find-links", "/var/cache/sglang/wheelhouse", "sglang==0.5.9")
    watched = Watched(clients=True)
    run = watched.run("sglang_draft_from_inventory=true")
    watched.assert_one_host_at_a_time(run, "inventory draft + patch")
    for name in SERVERS:
        assert server_info(name)["speculative_draft_model_path"] == INVENTORY_DRAFT
        assert recorded_draft(name)["from_inventory"] is True
        assert pending(name) == ""  # the restart the patch owed was done, and forgotten
    assert run.says("srt/models/kimi_k25.py patched in " + OLD_VENV)


def test_a_settings_change_restarts_one_host_at_a_time_behind_the_router():
    pids = main_pids()
    run = site("sglang_mem_fraction_static=0.8", args=["--check", "--diff"])
    assert run.returncode == 0, str(run)
    assert run.says("Would restart 2 of 2 host(s), 1 at a time")
    assert main_pids() == pids and unit_line(SERVERS[0], "--mem-fraction-static") == ["--mem-fraction-static 0.85 \\"]
    watched = Watched(clients=True)
    run = watched.run("sglang_mem_fraction_static=0.8")
    watched.assert_one_host_at_a_time(run, "settings change")
    # Each host's batch (leave, apply, rejoin, the prunes) with no task of its own for an include, for the
    # validation of an entry point without options, or for a draft record that is already on the host (42 before;
    # 31, then 34 with the planned absence: leave's silence, and rejoin's end of it and its report, skipped here
    # where no Alertmanager is).
    batch = run.task_counts("SGLang restarted batch by batch, out of the routers, gated, rolled back on failure")
    assert sorted(batch) == SERVERS and all(row["ran"] + row["skipped"] <= 34 for row in batch.values()), batch
    assert all(unit_line(name, "--mem-fraction-static") == ["--mem-fraction-static 0.8 \\"] for name in SERVERS)
    rerun = site("sglang_mem_fraction_static=0.8")
    assert rerun.returncode == 0 and rerun.says("No host owes a restart.") and rerun.changed(SERVERS[0]) == 0


def test_a_settings_change_that_fails_to_start_is_rolled_back_on_the_first_host():
    """A failure that only the start shows: the preflight, which refuses an unknown flag, is off here."""
    pids = main_pids()
    run = site("sglang_mem_fraction_static=0.8", '{"sglang_extra_args": {"no-such-flag": "1"}, "sglang_preflight": false}')
    assert run.returncode != 0
    assert run.says("gpufleet-upgrade-1 failed its restart and was rolled back to the settings it served with"), str(run)
    assert run.says("unrecognized arguments: --no-such-flag 1")
    assert main_pid(SERVERS[0]) != pids[SERVERS[0]]  # restarted twice: the bad settings, then the old ones
    assert float(server_info(SERVERS[0])["mem_fraction_static"]) == 0.8
    assert all(main_pid(name) == pids[name] for name in SERVERS[1:])  # later batches untouched
    wait_all_registered()
    # The bad settings are staged everywhere, but a server that restarts on its own keeps the live ones.
    assert all(pending(name) == "" and unit_line(name, "--no-such-flag") == [] for name in SERVERS)
    containers.run(SERVERS[-1], "systemctl", "restart", "sglang-kimi-k25.service")
    containers.run(SERVERS[-1], "sh", "-c", "for i in $(seq 60); do curl -sf localhost:30000/health && exit 0; "
                                            "sleep 0.5; done; exit 1")
    rows = status()[1]
    assert all(rows[name]["restart_pending"] == ["sglang-kimi-k25.service"] for name in SERVERS)


def test_an_sglang_upgrade_whose_server_is_unhealthy_goes_back_to_the_old_venv():
    pids = main_pids()
    deploy = playbook(os.path.join("..", "tests", "standin", "deploy.yml"), V0510)
    assert deploy.returncode == 0, str(deploy)
    assert main_pids() == pids  # installing a release beside the running one touches no server
    containers.run(SERVERS[0], "touch", NEW_VENV + "/standin-unhealthy")
    try:
        run = site(*V0510, "sglang_mem_fraction_static=0.8", "sglang_health_timeout=15")
    finally:
        containers.run(SERVERS[0], "rm", "-f", NEW_VENV + "/standin-unhealthy")
    assert run.returncode != 0
    assert run.says("gpufleet-upgrade-1 failed its restart and was rolled back to the settings it served with "
                    "(sglang-kimi-k25.service, venv %s)" % OLD_VENV), str(run)
    assert unit_line(SERVERS[0], "bin/python") == ["ExecStart=%s/bin/python -m sglang_standin \\" % OLD_VENV]
    assert server_info(SERVERS[0])["version"] == "0.5.9"
    assert all(main_pid(name) == pids[name] for name in SERVERS[1:])
    wait_all_registered()


def test_an_sglang_upgrade_rolls_host_by_host_onto_its_own_patched_venv():
    watched = Watched()
    watched.assert_one_host_at_a_time(watched.run(*V0510, "sglang_mem_fraction_static=0.8"), "0.5.9 -> 0.5.10")
    for name in SERVERS:
        assert server_info(name)["version"] == "0.5.10"
        assert unit_line(name, "bin/python") == ["ExecStart=%s/bin/python -m sglang_standin \\" % NEW_VENV]
        venvs = containers.run(name, "ls", "/opt/sglang/venvs").split()
        assert venvs == ["sglang-0.5.10", "sglang-0.5.9"]  # the rollback point stays (sglang_venvs_keep 2)
    rows = status(*V0510)[1]
    assert all((rows[name]["sglang_version"], rows[name]["venv"], rows[name]["patch"], rows[name]["restart_pending"])
               == ("0.5.10", NEW_VENV, "complete", []) for name in SERVERS)
