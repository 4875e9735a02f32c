"""Tier 3: EAGLE-3 on the real SGLang 0.5.9 server, a tiny Kimi-K2.5 target with a tiny EAGLE-3 draft,
started by the collection's unit on the CPU. Unpatched, the server dies where the seed's launches died,
and the launch gate fails the host quoting SGLang's AttributeError. Patched by the collection, it gets
past that, into the draft worker, and stops where the CPU cannot go on: the draft's KV cache copy is a
Triton kernel, and Triton has no driver without a GPU."""

import pytest

from gpufleet_testlib.playbook import run_in_scenario

testinfra_hosts = ["gpufleet-real-1"]
ATTRIBUTE_ERROR = "AttributeError: 'KimiK25ForConditionalGeneration' object has no attribute 'set_eagle3_layers_to_capture'"
TRITON_STOP = "RuntimeError: 0 active drivers ([]). There should only be one."


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


def test_patched_the_real_server_gets_past_the_wrapper_and_stops_at_the_gpu_only_draft_kv_copy(host):
    """The venv the fleet runs, patched by the converge's site run: SGLang's model runner builds the target and
    captures its layers, the EAGLE worker builds the draft, and the draft's KV cache pool calls a Triton kernel."""
    since = cursor(host)
    run = eagle("/opt/sglang/venvs/sglang-0.5.9")
    assert run.returncode != 0
    assert not run.says(ATTRIBUTE_ERROR), str(run)
    assert run.says(TRITON_STOP), str(run)
    text = journal(host, since)
    assert "sglang/srt/speculative/eagle_worker.py" in text  # the draft worker is being built
    assert "sglang/srt/mem_cache/memory_pool.py" in text and "_init_kv_copy_and_warmup" in text
    assert "object has no attribute" not in text
