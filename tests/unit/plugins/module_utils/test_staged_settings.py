"""Staged, live and previous settings of one instance, on a temporary tree."""

import os

import pytest

from gpufleet_testlib.staged import make_layout, stage
from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files
from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged


@pytest.fixture
def layout(tmp_path):
    return make_layout(str(tmp_path))


def live_text(layout, name):
    return staged.read_text(layout.live[name])


def test_a_first_start_owes_every_file_and_has_nothing_to_roll_back(layout):
    stage(layout)
    state = staged.inspect(layout)
    assert state["pending"] and not state["has_live"] and not state["has_previous"]
    assert state["differing"] == ["kimi-k25.env", "kimi-k25.yaml", "sglang-kimi-k25.service"]
    assert state["staged_venv"] == "/opt/sglang/venvs/sglang-0.5.9" and state["live_venv"] is None
    assert staged.swap(layout) == state["differing"]
    assert staged.inspect(layout)["owed"] == [staged.SWAPPED]  # until the restart is done: settle
    assert staged.settle(layout) and not staged.inspect(layout)["pending"]
    assert staged.to_roll_back(layout) == ["kimi-k25.env", "kimi-k25.yaml", "sglang-kimi-k25.service"]


def test_swap_keeps_mode_and_makes_the_old_set_the_rollback_point(layout):
    stage(layout)
    staged.swap(layout)
    stage(layout, venv="/opt/sglang/venvs/sglang-0.5.10", env="A=2\n")
    state = staged.inspect(layout)
    assert state["differing"] == ["kimi-k25.env", "sglang-kimi-k25.service"]
    assert (state["live_venv"], state["staged_venv"]) == ("/opt/sglang/venvs/sglang-0.5.9",
                                                          "/opt/sglang/venvs/sglang-0.5.10")
    assert staged.swap(layout) == ["kimi-k25.env", "sglang-kimi-k25.service"]
    assert live_text(layout, "kimi-k25.env") == "A=2\n"
    assert os.stat(layout.live["kimi-k25.env"]).st_mode & 0o777 == 0o600
    assert os.stat(layout.live["kimi-k25.yaml"]).st_mode & 0o777 == 0o640
    assert staged.inspect(layout)["previous_venv"] == "/opt/sglang/venvs/sglang-0.5.9"
    assert staged.rollback(layout) == ["kimi-k25.env", "sglang-kimi-k25.service"]
    assert live_text(layout, "kimi-k25.env") == "A=1\n"
    assert staged.unit_venv(layout.live[layout.unit]) == "/opt/sglang/venvs/sglang-0.5.9"
    assert staged.rollback(layout) == []  # nothing left to put back
    assert staged.inspect(layout)["pending"]  # the staged settings are still owed


def test_nothing_staged_for_a_file_is_not_a_difference(layout):
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    os.unlink(layout.staged("kimi-k25.yaml"))
    assert not staged.inspect(layout)["pending"]


def test_an_owed_restart_survives_until_settled(layout):
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    assert staged.owe(layout, "kimi_k25.py patched") is True
    assert staged.owe(layout, "kimi_k25.py patched") is False
    state = staged.inspect(layout)
    assert state["pending"] and state["differing"] == [] and state["owed"] == ["kimi_k25.py patched"]
    assert staged.settle(layout) is True and staged.settle(layout) is False
    assert not staged.inspect(layout)["pending"]


def test_the_model_and_the_draft_of_the_live_unit_are_read_from_its_exec_start(layout):
    stage(layout, draft="/srv/models/my draft")
    staged.swap(layout)
    assert staged.inspect(layout)["live_draft"] == "/srv/models/my draft"
    assert staged.inspect(layout)["live_model"] == "moonshotai/Kimi-K2.5"


def test_a_failed_copy_leaves_the_live_file_as_it_was(layout, monkeypatch):
    stage(layout)
    staged.swap(layout)
    stage(layout, env="A=2\n")

    def broken(descriptor):
        raise OSError("disk full")
    monkeypatch.setattr(_host_files.os, "fsync", broken)
    with pytest.raises(OSError):
        staged.swap(layout)
    assert live_text(layout, "kimi-k25.env") == "A=1\n"
    assert [name for name in os.listdir(os.path.dirname(layout.live["kimi-k25.env"])) if ".gpufleet-" in name] == []


def test_code_changed_in_a_venv_no_server_runs_owes_nothing(layout):
    stage(layout, venv="/opt/sglang/venvs/sglang-0.5.9")
    staged.swap(layout)
    staged.settle(layout)
    assert staged.owe(layout, "installed 0.5.10", venv="/opt/sglang/venvs/sglang-0.5.10") is False
    assert staged.owe(layout, "patched 0.5.9", venv="/opt/sglang/venvs/sglang-0.5.9/") is True
    assert staged.owed_reasons(layout) == ["patched 0.5.9"]


def test_a_run_that_dies_between_swap_and_restart_leaves_the_restart_owed(layout):
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    staged.owe(layout, "patched")
    stage(layout, env="A=2\n")
    staged.swap(layout)  # ... and the controller dies here
    assert staged.inspect(layout)["pending"] and staged.inspect(layout)["differing"] == []
    staged.rollback(layout)  # a rollback restarted with the old settings forgets only the swap
    assert staged.settle(layout, staged.SWAPPED) is True and staged.settle(layout, staged.SWAPPED) is False
    assert staged.owed_reasons(layout) == ["patched"]


def test_what_is_owed_a_start_a_restart_and_a_rejoin(layout):
    stage(layout)
    assert staged.what_is_owed(staged.inspect(layout), "inactive") == {
        "owes": ["kimi-k25.env", "kimi-k25.yaml", "sglang-kimi-k25.service", "first start"], "running": False,
        "serving": False}
    staged.swap(layout)
    staged.settle(layout)
    assert staged.what_is_owed(staged.inspect(layout), "active") == {"owes": [], "running": True, "serving": True}
    assert staged.leave(layout, ["router-1"], now=0) is True and staged.leave(layout, ["router-1"]) is False
    state = staged.inspect(layout)
    assert state["left"] == {"since": "1970-01-01T00:00:00Z", "routers": ["router-1"]}
    assert staged.what_is_owed(state, "active") == {
        "owes": ["out of the routers since 1970-01-01T00:00:00Z"], "running": True, "serving": False}
    assert staged.rejoin(layout) is True and staged.rejoin(layout) is False
    assert staged.inspect(layout)["left"] is None


def test_a_check_run_counts_what_it_would_have_staged(layout):
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    assert staged.inspect(layout, would_stage=["kimi-k25.env"])["differing"] == ["kimi-k25.env"]
    assert staged.inspect(layout, would_stage=["kimi-k25.env"])["pending"]


def test_the_ports_of_other_instances_and_the_venv(layout, tmp_path):
    stage(layout)
    staged.swap(layout)
    other = staged.Layout("other", os.path.dirname(layout.live["kimi-k25.env"]), os.path.dirname(layout.live[layout.unit]))
    with open(other.live[other.unit], "w") as handle:
        handle.write("[Service]\nExecStart=/v/bin/python -m sglang.launch_server --port 30000 --tp-size 8\n")
    state = staged.inspect(layout, venv=str(tmp_path / "venv"), port=30000)
    assert state["port_users"] == ["sglang-other.service"] and state["venv_exists"] is False
    assert staged.inspect(layout, port=30001)["port_users"] == []


def test_only_an_unconfirmed_swap_is_rolled_back_and_never_a_first_start(layout):
    stage(layout)
    staged.swap(layout)
    assert not staged.unconfirmed(layout)  # a first start: no rollback point
    staged.settle(layout)
    stage(layout, env="A=2\n")
    staged.swap(layout)
    assert staged.unconfirmed(layout)
    staged.settle(layout)  # a healthy restart confirmed it
    assert not staged.unconfirmed(layout)


def test_the_layout_the_roles_read(layout):
    names = staged.Layout("kimi-k25").as_dict()
    assert (names["unit"], names["unit_path"], names["env_file"], names["config_file"]) == (
        "sglang-kimi-k25.service", "/etc/systemd/system/sglang-kimi-k25.service", "/etc/sglang/kimi-k25.env",
        "/etc/sglang/kimi-k25.yaml")
    assert (names["staged_dir"], names["previous_dir"], names["left_record"]) == (
        "/etc/sglang/staged", "/etc/sglang/previous", "/etc/sglang/staged/kimi-k25.left")


def test_a_draft_rollout_sees_what_changes_beyond_the_draft(layout):
    stage(layout, draft="/w/draft/aaa")
    staged.swap(layout)
    staged.settle(layout)
    stage(layout, draft="/w/draft/bbb")
    state = staged.inspect(layout)
    assert state["differing"] == ["sglang-kimi-k25.service"] and state["beyond_draft"] == []
    stage(layout, draft="/w/draft/bbb", venv="/opt/sglang/venvs/sglang-0.5.10", env="A=2\n")
    assert staged.inspect(layout)["beyond_draft"] == ["kimi-k25.env", "sglang-kimi-k25.service"]
    stage(layout, draft="/w/draft/aaa")
    assert staged.inspect(layout, would_stage=["sglang-kimi-k25.service"])["beyond_draft"] == []
    assert staged.inspect(layout, would_stage=["kimi-k25.yaml"])["beyond_draft"] == ["kimi-k25.yaml"]
