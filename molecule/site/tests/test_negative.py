"""Launches that must fail, for the right reason, with a message that says so (run from the controller)."""

import pytest

from gpufleet_testlib.playbook import run_in_scenario

testinfra_hosts = ["gpufleet-site-1"]


def run_negative(case, *extra):
    """negative.yml for one case, with further -e values (key=value strings or JSON)."""
    return run_in_scenario("negative.yml", ["case=" + case] + list(extra), timeout=600)


@pytest.fixture(autouse=True)
def cleanup(host):
    yield
    host.run("systemctl disable --now 'sglang-negative-*' ; rm -f /etc/systemd/system/sglang-negative-* "
             "/etc/sglang/staged/*negative-* /etc/sglang/previous/*negative-* ; "
             "systemctl daemon-reload ; systemctl reset-failed")


def test_unpatched_059_is_caught_by_the_preflight(host):
    run = run_negative("unpatched", "sglang_venv=/opt/sglang/venv-unpatched")
    assert run.returncode != 0, str(run)
    assert run.says("lacks get_embed_and_head, set_eagle3_layers_to_capture, set_embed_and_head")
    assert run.says("Run gpufleet.sglang.patch first")
    assert not host.file("/etc/systemd/system/sglang-negative-unpatched.service").exists


def test_unpatched_059_without_preflight_shows_the_attribute_error_from_the_journal(host):
    run = run_negative("unpatched-no-preflight", "sglang_venv=/opt/sglang/venv-unpatched",
                       '{"sglang_preflight": false}')
    assert run.returncode != 0, str(run)
    assert run.says("the unit stopped before the server became healthy")
    assert run.says("AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute "
                    "'set_eagle3_layers_to_capture'")


def test_shorter_draft_context_with_the_env_var_off(host):
    run = run_negative("context", '{"sglang_allow_overwrite_longer_context_len": false}')
    assert run.returncode != 0, str(run)
    assert run.says("has a context of 131072 tokens, shorter than sglang_context_length 262144")
    assert run.says("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")


def test_shorter_draft_context_without_preflight_fails_with_sglangs_message(host):
    run = run_negative("context-no-preflight",
                       '{"sglang_allow_overwrite_longer_context_len": false, "sglang_preflight": false}')
    assert run.returncode != 0, str(run)
    assert run.says("ValueError: Warning: Target model's context_length (262144) is greater than the derived "
                    "context_length (131072)")


def test_unknown_extra_flag_stops_in_preflight(host):
    run = run_negative("flag", '{"sglang_extra_args": {"no-such-flag": "1"}}')
    assert run.returncode != 0, str(run)
    assert run.says("SGLang 0.5.9 does not know --no-such-flag on the command line: a server started with it "
                    "would exit at once.")


def test_unknown_extra_flag_without_preflight_fails_with_argparses_message(host):
    run = run_negative("flag-no-preflight", '{"sglang_extra_args": {"no-such-flag": "1"}, "sglang_preflight": false}')
    assert run.returncode != 0, str(run)
    assert run.says("unrecognized arguments: --no-such-flag 1")


def test_topk_rule_fails_before_any_change(host):
    run = run_negative("topk", '{"sglang_speculative_num_draft_tokens": 8}')
    assert run.returncode != 0, str(run)
    assert run.says("set sglang_speculative_num_draft_tokens to 4 (it is 8)")
    assert not host.file("/etc/systemd/system/sglang-negative-topk.service").exists


def test_unauthenticated_non_loopback_bind_is_refused(host):
    run = run_negative("open", '{"sglang_host": "0.0.0.0", "sglang_api_key": ""}')
    assert run.returncode != 0, str(run)
    assert run.says("sglang_host is 0.0.0.0, reachable from other machines, and sglang_api_key is empty")
    assert not host.file("/etc/systemd/system/sglang-negative-open.service").exists


def test_a_second_instance_on_the_same_port_is_refused(host):
    run = run_negative("port", '{"sglang_port": 30000}')
    assert run.returncode != 0, str(run)
    assert run.says("Port 30000 is already used by sglang-kimi-k25.service on gpufleet-site-1")
