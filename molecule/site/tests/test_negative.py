"""Launches that must fail, for the right reason, with a message that says so (run from the controller)."""

import os
import subprocess

import pytest

testinfra_hosts = ["gpufleet-site-1"]
HERE = os.path.dirname(os.path.abspath(__file__))


def run_negative(case, *extra):
    command = ["ansible-playbook", "-i", os.environ["MOLECULE_INVENTORY_FILE"],
               os.path.join(HERE, "..", "negative.yml"), "-e", "case=" + case]
    for item in extra:
        command += ["-e", item]
    # One JSON line per result: messages are not folded the way the YAML callback folds them.
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_CALLBACK_RESULT_FORMAT="json")
    result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600, env=env)
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(autouse=True)
def cleanup(host):
    yield
    host.run("systemctl disable --now 'sglang-negative-*' ; rm -f /etc/systemd/system/sglang-negative-* ; "
             "systemctl daemon-reload ; systemctl reset-failed")


def test_unpatched_059_is_caught_by_the_preflight(host):
    rc, out = run_negative("unpatched", "sglang_venv=/opt/sglang/venv-unpatched")
    assert rc != 0
    assert "lacks get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head" in out
    assert "Run gpufleet.sglang.patch first" in out
    assert not host.file("/etc/systemd/system/sglang-negative-unpatched.service").exists


def test_unpatched_059_without_preflight_shows_the_attribute_error_from_the_journal(host):
    rc, out = run_negative("unpatched-no-preflight", "sglang_venv=/opt/sglang/venv-unpatched",
                           '{"sglang_preflight": false}')
    assert rc != 0
    assert "the unit stopped before the server became healthy" in out
    assert "AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute " \
           "'set_eagle3_layers_to_capture'" in out


def test_shorter_draft_context_with_the_env_var_off(host):
    rc, out = run_negative("context", '{"sglang_allow_overwrite_longer_context_len": false}')
    assert rc != 0
    assert "has a context of 131072 tokens, shorter than sglang_context_length 262144" in out
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in out


def test_shorter_draft_context_without_preflight_fails_with_sglangs_message(host):
    rc, out = run_negative("context-no-preflight",
                           '{"sglang_allow_overwrite_longer_context_len": false, "sglang_preflight": false}')
    assert rc != 0
    assert "ValueError: Warning: Target model's context_length (262144) is greater than the derived " \
           "context_length (131072)" in out


def test_unknown_extra_flag(host):
    rc, out = run_negative("flag", '{"sglang_extra_args": {"no-such-flag": "1"}}')
    assert rc != 0
    assert "unrecognized arguments: --no-such-flag 1" in out


def test_topk_rule_fails_before_any_change(host):
    rc, out = run_negative("topk", '{"sglang_speculative_num_draft_tokens": 8}')
    assert rc != 0
    assert "set sglang_speculative_num_draft_tokens to 4 (it is 8)" in out
    assert not host.file("/etc/systemd/system/sglang-negative-topk.service").exists


def test_unauthenticated_non_loopback_bind_is_refused(host):
    rc, out = run_negative("open", '{"sglang_host": "0.0.0.0", "sglang_api_key": ""}')
    assert rc != 0
    assert "sglang_host is 0.0.0.0, reachable from other machines, and sglang_api_key is empty" in out
    assert not host.file("/etc/systemd/system/sglang-negative-open.service").exists


def test_a_second_instance_on_the_same_port_is_refused(host):
    rc, out = run_negative("port", '{"sglang_port": 30000}')
    assert rc != 0
    assert "Port 30000 is already used by sglang-kimi-k25.service on gpufleet-site-1" in out
