"""The collection's own unit, gates and router in front of the real SGLang 0.5.9 server on the CPU."""

import json
import os
import time

from gpufleet_testlib import containers
from gpufleet_testlib.playbook import run_in_scenario
from gpufleet_testlib.standin import http

testinfra_hosts = ["gpufleet-real-1"]
HOST = "gpufleet-real-1"
SERVER = "http://10.213.7.11:30000"
ROUTER = "http://10.213.7.10:30080"
KEY = "molecule-real-key-9b17"
UNIT = "sglang-kimi-k25.service"
VENV = "/opt/sglang/venvs/sglang-0.5.9"
SGLANG = os.path.join(os.environ.get("MOLECULE_PROJECT_DIRECTORY", ""), "playbooks", "sglang.yml")


def main_pid():
    return containers.run(HOST, "systemctl", "show", "-p", "MainPID", "--value", UNIT).strip()


def generate(base, key=KEY, tokens=4):
    # ignore_eos (SGLang's SamplingParams): the tiny random model may sample its end-of-sequence token first.
    return http(base + "/generate", key, {"input_ids": [1, 2, 3],
                                          "sampling_params": {"max_new_tokens": tokens, "ignore_eos": True}},
                timeout=120)


def test_the_unit_runs_sglangs_own_launch_server(host):
    pid = main_pid()
    cmdline = host.check_output("tr '\\0' ' ' < /proc/%s/cmdline", pid)
    assert cmdline.startswith(VENV + "/bin/python -m sglang.launch_server ")
    assert KEY not in cmdline  # the key is in the --config file, not on the command line
    assert "--config /etc/sglang/kimi-k25.yaml" in cmdline
    assert host.check_output("%s/bin/python -c 'import sglang; print(sglang.__version__)'", VENV) == "0.5.9"
    environ = host.check_output("tr '\\0' '\\n' < /proc/%s/environ", pid)
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in environ.splitlines()
    assert "SGLANG_USE_CPU_ENGINE=1" in environ.splitlines()


def test_health_generate_server_info_and_the_key_from_the_config_file():
    assert http(SERVER + "/health_generate", timeout=120)[0] == 200
    assert http(SERVER + "/server_info")[0] == 401  # SGLang enforces the key it read from --config
    status, body = http(SERVER + "/server_info", KEY)
    info = json.loads(body)
    assert status == 200 and info["version"] == "0.5.9" and info["device"] == "cpu"
    assert info["served_model_name"] == "tiny-llama" and info["speculative_algorithm"] is None
    status, body = http(SERVER + "/generate", KEY,
                        {"text": "t5 t6 t7", "sampling_params": {"max_new_tokens": 3, "ignore_eos": True}}, timeout=120)
    assert status == 200 and json.loads(body)["meta_info"]["completion_tokens"] == 3  # through its tokenizer
    status, body = generate(SERVER)
    assert status == 200 and len(json.loads(body)["output_ids"]) == 4


def test_metrics_carry_the_gauges_the_drain_waits_on():
    status, body = http(SERVER + "/metrics")
    text = body.decode()
    assert status == 200
    for gauge in ("sglang:num_running_reqs{", "sglang:num_queue_reqs{"):
        assert any(line.startswith(gauge) for line in text.splitlines()), gauge


def requests_served():
    """SGLang's own count of finished requests (sglang:num_requests_total, one per prompt)."""
    _status, body = http(SERVER + "/metrics")
    return sum(float(line.rsplit(" ", 1)[1]) for line in body.decode().splitlines()
               if line.startswith("sglang:num_requests_total{"))


def test_the_acceptance_gate_sends_its_prompts_as_one_batch_and_the_real_server_answers_each():
    before = requests_served()
    run = run_in_scenario("gate.yml", ["sglang_gate_requests=5"])
    assert run.returncode == 0, str(run)
    assert run.ran("Gate the new draft on its acceptance length over a batch of short generations")
    assert requests_served() - before == 5


def test_the_router_fronts_the_real_server():
    deadline, workers = time.time() + 60, []
    while time.time() < deadline:
        status, body = http(ROUTER + "/workers", KEY)
        workers = json.loads(body)["workers"] if status == 200 else []
        if workers and workers[0]["is_healthy"]:
            break
        time.sleep(1)
    assert [worker["url"] for worker in workers] == [SERVER] and workers[0]["is_healthy"], workers
    status, body = generate(ROUTER)
    assert status == 200 and len(json.loads(body)["output_ids"]) == 4


def test_the_preflight_refuses_what_the_servers_own_parser_refuses(host):
    """server_flags reads the flags from the release's source; SGLang's argparse, run from the same venv, agrees."""
    pid = main_pid()
    run = run_in_scenario(SGLANG, ['{"sglang_extra_args": {"device": "cpu", "load-format": "dummy", '
                                   '"max-total-tokens": 4096, "no-such-flag": "1"}}'])
    assert run.returncode != 0
    assert run.says("SGLang 0.5.9 does not know --no-such-flag on the command line"), str(run)
    assert main_pid() == pid
    parser = host.run("%s/bin/python -c 'from sglang.srt.server_args import prepare_server_args; "
                      "prepare_server_args([\"--model-path\", \"/srv/models/llama\", \"--no-such-flag\", \"1\"])'",
                      VENV)
    assert parser.rc == 2 and "unrecognized arguments: --no-such-flag 1" in parser.stderr
    flags = run_in_scenario(SGLANG, args=["--check"])
    assert flags.returncode == 0, str(flags)
    result = flags.result("Check the command line and the config file's keys", HOST)
    assert result["sglang_version"] == "0.5.9" and result["unknown"] == []


def test_a_settings_change_restarts_the_real_server_through_the_lifecycle():
    """Out of the router (the drain read the real gauges), restarted, gated on /health_generate, back in."""
    pid = main_pid()
    started = time.monotonic()
    run = run_in_scenario(SGLANG, ["sglang_mem_fraction_static=0.12"])
    elapsed = time.monotonic() - started
    assert run.returncode == 0, str(run)
    assert main_pid() != pid
    waits = [result for task, _host, result in run.results() if "Wait for the requests in flight" in task]
    # The real gauges were read (running and queued, one sample each for its one rank), not a /metrics without them.
    assert waits and waits[0]["metrics"] and waits[0]["samples"] >= 2, waits
    gate = run.result("Wait for /health_generate", HOST)
    print("real server restart: run %.1f s, /health_generate after %s s" % (elapsed, gate["elapsed"]))
    assert gate["msg"].startswith(UNIT + " healthy after ") and gate["msg"].endswith("no speculative decoding")
    assert json.loads(http(SERVER + "/server_info", KEY)[1])["mem_fraction_static"] == 0.12
