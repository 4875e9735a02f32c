"""The converged hosts: a healthy, systemd-managed server running the EAGLE-3 configuration asked for."""

import collections
import json
import os

from gpufleet_testlib import containers
from gpufleet_testlib.playbook import run_in_scenario

testinfra_hosts = ["gpufleet-site-1", "gpufleet-site-2"]
UNIT = "sglang-kimi-k25.service"
API_KEY = "molecule-test-key-3f9c"
DRAFT = "/srv/models/kimi-k25-eagle3"
SITE = os.path.join(os.environ.get("MOLECULE_PROJECT_DIRECTORY", ""), "playbooks", "site.yml")
EAGLE3_FLAGS = ("--speculative-algorithm EAGLE3", "--speculative-draft-model-path " + DRAFT,
                "--speculative-num-steps 3", "--speculative-eagle-topk 1", "--speculative-num-draft-tokens 4",
                "--context-length 262144", "--tp-size 8", "--trust-remote-code", "--enable-metrics",
                "--model-path /srv/models/kimi-k25", "--served-model-name kimi-k2.5")


def http(host, path, key=None):
    """(status, body) of a request made on the host itself."""
    header = "-H 'Authorization: Bearer %s' " % key if key else ""
    out = host.check_output("curl -s %s-w '\\n%%{http_code}' http://127.0.0.1:30000%s" % (header, path))
    body, status = out.rsplit("\n", 1) if "\n" in out else ("", out)
    return int(status), body


def test_unit_active_and_enabled(host):
    service = host.service(UNIT)
    assert service.is_running
    assert service.is_enabled


def test_env_var_set_for_the_unit(host):
    environment = host.check_output("systemctl show -p Environment %s", UNIT)
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in environment


def test_exec_start_has_every_eagle3_flag(host):
    exec_start = host.check_output("systemctl show -p ExecStart %s", UNIT)
    assert "/opt/sglang/venvs/sglang-0.5.9/bin/python -m sglang_standin" in exec_start
    for flag in EAGLE3_FLAGS:
        assert flag in exec_start, flag


def test_env_file_is_root_only(host):
    env_file = host.file("/etc/sglang/kimi-k25.env")
    assert env_file.user == "root" and env_file.mode == 0o600
    assert 'HF_HOME' not in env_file.content_string  # not secret: in the unit, visible with systemctl show


def test_server_runs_as_the_service_user(host):
    pid = host.check_output("systemctl show -p MainPID --value %s", UNIT)
    assert host.check_output("ps -o user= -p %s", pid) == "sglang"


def test_health_and_server_info(host):
    assert http(host, "/health")[0] == 200
    assert http(host, "/server_info")[0] == 401
    status, body = http(host, "/server_info", key=API_KEY)
    info = json.loads(body)
    assert status == 200
    assert info["speculative_algorithm"] == "EAGLE3"
    assert info["speculative_draft_model_path"] == DRAFT
    assert info["internal_states"][0]["avg_spec_accept_length"] == 2.9


def test_the_installed_sglang_is_patched(host):
    purelib = host.check_output("/opt/sglang/venvs/sglang-0.5.9/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'")
    audit = host.check_output("grep -c 'BEGIN gpufleet.sglang delegation_patch' %s/sglang/srt/models/kimi_k25.py", purelib)
    assert audit == "1"


def test_each_platform_the_roles_claim_is_converged(host):
    """meta/main.yml claims Debian 12 and 13: this scenario's two hosts are one of each."""
    expected = {"gpufleet-site-1": "12", "gpufleet-site-2": "13"}[host.backend.get_hostname()]
    assert host.system_info.distribution == "debian"
    assert host.system_info.release.split(".")[0] == expected


def test_a_new_fleet_starts_every_server_at_once(host):
    """Servers that were not running serve nothing a batch would protect: sglang.yml starts them in its
    first play, together, instead of one model load per batch."""
    started = [float(containers.run(name, "sh", "-c", "journalctl -u %s -o short-unix --no-pager | grep -m1 ' Started '"
                                    % UNIT).split()[0]) for name in testinfra_hosts]  # the first start: converge's
    assert abs(started[0] - started[1]) <= 3, started


def test_a_no_op_site_yml_runs_at_most_32_tasks_on_each_server():
    """The controller spends about 60 ms of CPU per host and task (bench/scale.py): a converged server
    costs a run of site.yml 32 tasks at most (ran or skipped), none of them changes anything, and no role
    runs the tasks that converge what a host lacks (each read found nothing: its wanted state matches what
    the converging tasks write, byte for byte).
    Five of them are the refusals that open the run (playbooks/refusals.yml: the type checks of common,
    install and launch, and the settings refusals of install and launch), 27 the roles.
    A task of the run rather than of each host (run_once: the plans the run prints) has one host's
    result and does not count. The first run converges what the tests before this one left
    (test_negative.py unpatches)."""
    for dummy in range(2):
        run = run_in_scenario(SITE)
        assert run.returncode == 0, str(run)
    counts = run.task_counts()
    once = collections.Counter(host for play in run.report["plays"] for task in play["tasks"]
                               if len(task["hosts"]) == 1 for host in task["hosts"])
    for name in testinfra_hosts:
        assert counts[name]["changed"] == 0, counts
        assert counts[name]["ran"] + counts[name]["skipped"] - once[name] <= 32, (counts, once)
        assert not run.ran("for what the host lacks", name), [
            task for task, host, result in run.results() if host == name and not result.get("skipped")]
