"""gpufleet.sglang.staged_settings: check mode changes nothing, diff shows the unit only."""

import os

import pytest

from gpufleet_testlib.modules import run_module
from gpufleet_testlib.staged import make_layout, stage
from ansible_collections.gpufleet.sglang.plugins.modules import staged_settings
from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged


@pytest.fixture
def layout(tmp_path):
    return make_layout(str(tmp_path))


def args(layout, **extra):
    return dict(instance="kimi-k25", settings_dir=os.path.dirname(layout.live["kimi-k25.env"]),
                unit_dir=os.path.dirname(layout.live[layout.unit]), **extra)


def test_swap_in_check_mode_reports_and_changes_nothing(layout):
    stage(layout)
    staged.swap(layout)
    stage(layout, venv="/opt/sglang/venvs/sglang-0.5.10", env="SECRET=2\n")
    result = run_module(staged_settings, args(layout, state="swap"), check_mode=True, diff=True)
    assert result["changed"] and result["files"] == ["kimi-k25.env", "sglang-kimi-k25.service"]
    assert "sglang-0.5.10" in result["diff"]["after"] and "sglang-0.5.9" in result["diff"]["before"]
    assert "SECRET" not in str(result)
    assert staged.inspect(layout)["live_venv"] == "/opt/sglang/venvs/sglang-0.5.9"
    result = run_module(staged_settings, args(layout, state="swap"))
    assert result["changed"] and staged.inspect(layout)["live_venv"] == "/opt/sglang/venvs/sglang-0.5.10"
    assert not run_module(staged_settings, args(layout, state="swap"))["changed"]
    assert run_module(staged_settings, args(layout))["owed"] == [staged.SWAPPED]  # a restart, until settled


def test_owe_and_settle_are_idempotent_and_honest_in_check_mode(layout):
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    result = run_module(staged_settings, args(layout, state="owe", reason="patched"), check_mode=True)
    assert result["changed"] and result["owed"] == ["patched"] and staged.owed_reasons(layout) == []
    assert run_module(staged_settings, args(layout, state="owe", reason="patched"))["changed"]
    assert not run_module(staged_settings, args(layout, state="owe", reason="patched"))["changed"]
    assert run_module(staged_settings, args(layout))["pending"]
    assert run_module(staged_settings, args(layout, state="settle"))["changed"]
    assert not run_module(staged_settings, args(layout))["pending"]


def test_owe_needs_a_reason(layout):
    result = run_module(staged_settings, args(layout, state="owe"))
    assert result["failed"] and "reason" in result["msg"]
