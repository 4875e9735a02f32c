"""A server's settings and records as an attacker, a full disk or a hand can leave them: each read is bounded and
named, a damaged record says how to go on (and with the reset, is read and written as its safe meaning), a write
never goes through a link."""

import json
import os

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.modules import run_module
from gpufleet_testlib.staged import make_layout, stage
from ansible_collections.gpufleet.sglang.plugins.module_utils import _staged_settings as staged
from ansible_collections.gpufleet.sglang.plugins.modules import staged_settings


@pytest.fixture
def layout(tmp_path):
    layout = make_layout(str(tmp_path))
    stage(layout)
    staged.swap(layout)
    staged.settle(layout)
    return layout


def inspect_module(layout, **args):
    return run_module(staged_settings, dict(instance=layout.instance, settings_dir=layout.settings_dir,
                                            unit_dir=layout.unit_dir, **args))


def test_a_fifo_or_a_link_to_dev_zero_at_a_staged_file_is_named_at_once(layout):
    os.unlink(layout.staged("kimi-k25.env"))
    os.mkfifo(layout.staged("kimi-k25.env"))
    with pytest.raises(staged.SettingsError, match="kimi-k25.env is not a regular file"):
        bounded(lambda: staged.inspect(layout), seconds=5)
    os.unlink(layout.staged("kimi-k25.env"))
    os.symlink("/dev/zero", layout.staged("kimi-k25.env"))
    with pytest.raises(staged.SettingsError, match="kimi-k25.env is a symbolic link, not a regular file"):
        bounded(lambda: staged.inspect(layout), seconds=5, memory=MIB)


def test_a_directory_at_the_live_config_fails_the_task_naming_it(layout):
    os.unlink(layout.config_file)
    os.mkdir(layout.config_file)
    result = inspect_module(layout)
    assert result["failed"] and result["msg"].startswith("%s is not a regular file" % layout.config_file)
    assert "remove what is there" in result["msg"]


def test_an_unbalanced_quote_in_the_live_unit_is_named_and_the_reset_reads_it_as_naming_nothing(layout):
    unit = layout.live[layout.unit]
    text = open(unit).read().replace("ExecStart=", "ExecStart='", 1)
    with open(unit, "w") as handle:
        handle.write(text)
    result = inspect_module(layout)
    assert result["failed"] and "its ExecStart cannot be split into words (No closing quotation)" in result["msg"]
    assert staged.RESET in result["msg"] and unit in result["msg"]
    reset = inspect_module(layout, reset_damaged_records=True)
    assert not reset.get("failed") and reset["live_venv"] is None and reset["differing"] == [layout.unit]


@pytest.mark.parametrize("record, body", [
    ("marker", b'["settings swapped in'),  # cut short by a full disk
    ("marker", b'{"reasons": []}'),
    ("marker", b"[1, null]"),
    ("left_record", b"[]"),
    ("left_record", b'{"since": 5, "routers": "router-1"}'),
    ("left_record", b"\xff\xfe"),
])
def test_a_damaged_record_names_the_file_and_the_reset_puts_its_safe_meaning(layout, record, body):
    path = getattr(layout, record)
    with open(path, "wb") as handle:
        handle.write(body)
    result = inspect_module(layout)
    assert result["failed"] and result["msg"].startswith("%s is damaged (" % path)
    assert "-e %s" % staged.RESET in result["msg"] and "Traceback" not in result["msg"]
    checked = run_module(staged_settings, dict(instance=layout.instance, settings_dir=layout.settings_dir,
                                               unit_dir=layout.unit_dir, reset_damaged_records=True), check_mode=True)
    assert checked["repaired"] == [path] and open(path, "rb").read() == body  # check mode writes nothing
    reset = inspect_module(layout, reset_damaged_records=True)
    assert reset["changed"] and reset["repaired"] == [path]
    if record == "marker":
        assert reset["owed"] == [staged.DAMAGED_RESTART] and reset["pending"]
    else:
        assert reset["left"]["routers"] == [] and "out of the routers since" in reset["owes"][-1]
    again = inspect_module(layout)
    assert not again.get("failed") and again["repaired"] == []  # written as the module writes it


def test_a_record_is_never_written_through_a_link_at_its_old_temporary_name(layout, tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("untouched")
    os.symlink(str(outside), layout.marker + ".tmp")
    os.symlink(str(outside), layout.left_record + ".tmp")
    assert staged.owe(layout, "kimi_k25.py patched") and staged.leave(layout, ["router-1"])
    assert outside.read_text() == "untouched"
    assert staged.owed_reasons(layout) == ["kimi_k25.py patched"]
    assert json.loads(open(layout.left_record).read())["routers"] == ["router-1"]


def test_a_swap_never_writes_through_a_link_planted_at_a_live_file(layout, tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("untouched")
    os.unlink(layout.env_file)
    os.symlink(str(outside), layout.env_file)
    with pytest.raises(staged.SettingsError, match="is a symbolic link"):
        staged.swap(layout)
    assert outside.read_text() == "untouched"
