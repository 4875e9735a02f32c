"""Tier 3: EAGLE-3 on the real SGLang 0.5.9 server, a tiny Kimi-K2.5 target that repeats its last token with
an EAGLE-3 draft made from its weights to agree with it (tests/real_sglang/tiny_weights.py), started by the
collection's unit on the CPU (what only the CPU needs is in eagle.yml). Unpatched, the server dies where the
seed's launches died, and the launch gate fails the host quoting SGLang's AttributeError. Patched by the
collection, it serves speculative tokens, and SGLang itself reports their acceptance: in each answer, in
/server_info (what the collection's acceptance gate reads) and in /metrics (what its alert rules read)."""

import json

import pytest

from gpufleet_testlib.playbook import run_in_scenario
from gpufleet_testlib.standin import http

testinfra_hosts = ["gpufleet-real-1"]
ATTRIBUTE_ERROR = "AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute 'set_eagle3_layers_to_capture'"
EAGLE = "http://10.213.7.11:31000"
KEY = "molecule-real-key-9b17"
# --speculative-num-steps 3 (the role's default): at most 3 draft tokens and the target's own one per verify.
MAX_ACCEPT_LENGTH = 4.0


@pytest.fixture(autouse=True)
def cleanup(host):
    yield
    host.run("systemctl disable --now sglang-eagle.service; rm -f /etc/systemd/system/sglang-eagle.service "
             "/etc/sglang/staged/*eagle* /etc/sglang/previous/*eagle* /etc/sglang/eagle.*; "
             "systemctl daemon-reload; systemctl reset-failed")


def eagle(venv, *extra):
    return run_in_scenario("eagle.yml", ["sglang_venv=" + venv] + list(extra), timeout=900)


def cursor(host):
    """Where the journal is now (the runs of earlier tests are before it)."""
    return host.check_output("journalctl -n 0 --show-cursor --no-pager").split("cursor: ", 1)[1].strip()


def journal(host, since):
    return host.check_output("journalctl -u sglang-eagle.service --no-pager --after-cursor %s", since)


def test_unpatched_the_real_server_dies_with_the_seeds_attribute_error_and_the_gate_says_so(host):
    """The preflight, which would refuse it before the start, is off: this is what a launch without it meets."""
    since = cursor(host)
    run = eagle("/opt/sglang/venvs/unpatched-0.5.9", '{"sglang_preflight": false}')
    assert run.returncode != 0
    assert run.says("the unit stopped before the server became healthy"), str(run)
    assert run.says(ATTRIBUTE_ERROR), str(run)
    text = journal(host, since)
    assert "sglang/srt/model_executor/model_runner.py" in text and ATTRIBUTE_ERROR in text


def test_unpatched_the_preflight_refuses_it_before_anything_starts(host):
    run = eagle("/opt/sglang/venvs/unpatched-0.5.9")
    assert run.returncode != 0
    assert run.says("lacks get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head"), str(run)
    assert not host.file("/etc/systemd/system/sglang-eagle.service").exists


def test_patched_the_real_server_serves_speculative_tokens_and_reports_their_acceptance(host):
    """The venv the fleet runs, patched by the converge's site run: the gate passes (health and the speculative
    configuration the unit asks for), and greedy decoding accepts every draft token (the target repeats
    its prompt's last token, and the draft agrees by construction)."""
    since = cursor(host)
    run = eagle("/opt/sglang/venvs/sglang-0.5.9")
    assert run.returncode == 0, str(run)
    assert not run.says(ATTRIBUTE_ERROR)
    status, body = http(EAGLE + "/generate", KEY, {"text": "t5 t6 t7", "sampling_params": {
        "max_new_tokens": 16, "temperature": 0, "ignore_eos": True}}, timeout=600)
    assert status == 200, body
    answer = json.loads(body)
    assert answer["output_ids"] == [7] * 16  # "t7" is token 7
    meta = answer["meta_info"]
    assert meta["spec_verify_ct"] >= 4 and meta["spec_accept_length"] == MAX_ACCEPT_LENGTH, meta
    assert meta["spec_accept_histogram"][-1] == meta["spec_verify_ct"], meta  # every verify accepted all three
    status, body = http(EAGLE + "/server_info", KEY)
    info = json.loads(body)
    assert info["speculative_algorithm"] == "EAGLE3" and info["speculative_draft_model_path"] == "/srv/models/eagle3-agree"
    assert info["internal_states"][0]["avg_spec_accept_length"] > 3.0, info["internal_states"]
    status, body = http(EAGLE + "/metrics")
    samples = [line for line in body.decode().splitlines() if line.startswith("sglang:spec_accept_length{")]
    # The alert rules' metric, by that name: a gauge of the last decode batch, whose verify max_new_tokens may cut
    # short (16 tokens: the prefill's, then 4, 4, 4 and 3).
    assert samples and float(samples[0].rsplit(" ", 1)[1]) >= 3.0, samples
    assert "Traceback (most recent call last)" not in journal(host, since)
