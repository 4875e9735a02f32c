"""The one reader and writer of files on a host, tried with what an attacker can leave at a path."""

import json
import os

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from ansible_collections.gpufleet.sglang.plugins.module_utils import _host_files
from ansible_collections.gpufleet.sglang.plugins.module_utils._host_files import HostFileError


def test_a_regular_file_is_read_and_a_missing_one_is_none(tmp_path):
    (tmp_path / "unit").write_bytes(b"[Unit]\n")
    assert _host_files.read(str(tmp_path / "unit"), 1024) == b"[Unit]\n"
    assert _host_files.read(str(tmp_path / "none"), 1024) is None
    assert _host_files.read(str(tmp_path / "unit" / "below"), 1024) is None  # a file where a directory would be


def test_a_link_is_refused_even_to_a_file_with_the_right_content(tmp_path):
    (tmp_path / "outside").write_bytes(b"right\n")
    os.symlink(str(tmp_path / "outside"), str(tmp_path / "wanted"))
    with pytest.raises(HostFileError, match="wanted is a symbolic link, not a regular file"):
        _host_files.read(str(tmp_path / "wanted"), 1024)


def test_a_fifo_a_device_and_a_directory_are_refused_at_once(tmp_path):
    os.mkfifo(str(tmp_path / "fifo"))
    os.mkdir(str(tmp_path / "dir"))
    for name in ("fifo", "dir"):
        with pytest.raises(HostFileError, match="%s is not a regular file" % name):
            bounded(lambda: _host_files.read(str(tmp_path / name), 1024), seconds=5)
    with pytest.raises(HostFileError, match="/dev/zero is not a regular file"):
        bounded(lambda: _host_files.read("/dev/zero", 1024), seconds=5, memory=MIB)


def test_a_sparse_file_past_the_cap_is_refused_without_reading_it(tmp_path):
    sparse = tmp_path / "config.json"
    with open(str(sparse), "wb") as handle:
        handle.truncate(2 * 1024 * MIB)
    with pytest.raises(HostFileError, match=r"config.json is 2048 MiB, more than a config.json can be \(4 MiB\)"):
        bounded(lambda: _host_files.read(str(sparse), 4 * MIB, "config.json"), seconds=5, memory=MIB)


def test_a_nul_in_a_path_is_named(tmp_path):
    with pytest.raises(HostFileError, match="contains a NUL byte"):
        _host_files.read(str(tmp_path) + "/a\0b", 1024)


@pytest.mark.parametrize("text, says", [
    ("[1, 2]", "holds a JSON list, not a JSON object"),
    ('"x"', "holds a JSON string, not a JSON object"),
    ("null", "holds a JSON null, not a JSON object"),
    ("7", "holds a JSON number, not a JSON object"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": -Infinity}', "-Infinity is not a JSON number"),
    ('{"a": 1e999}', "the number 1e999 is out of range"),
    ('{"a": %s}' % ("9" * 5000), "is not JSON"),
    ("[" * 100000 + "]" * 100000, "nested deeper than 32 levels"),
    ('{"a": ' * 40 + "1" + "}" * 40, "nested deeper than 32 levels"),
    ("{\"a\": \"\xff\"}", "is not JSON"),
    ("{", "is not JSON"),
])
def test_json_that_is_not_a_plain_object_is_one_sentence(text, says):
    data = text.encode("latin-1")
    with pytest.raises(HostFileError, match=r"^config\.json (.*)%s" % says.replace("(", r"\(").replace(".", r"\.")):
        bounded(lambda: _host_files.load_json(data, "config.json"), seconds=10)


def test_a_plain_object_parses():
    assert _host_files.load_json(b'{"a": [1, 2.5, {"b": null}]}', "x") == {"a": [1, 2.5, {"b": None}]}


def test_a_write_replaces_the_file_whole_and_never_goes_through_a_link(tmp_path):
    target = tmp_path / "kimi-k25.restart"
    outside = tmp_path / "outside"
    outside.write_text("untouched")
    # Links an attacker could plant at the names the old code wrote through (.tmp) and at the target itself.
    os.symlink(str(outside), str(target) + ".tmp")
    os.symlink(str(outside), str(target))
    _host_files.write(str(target), json.dumps(["x"]).encode(), mode=0o600)
    assert outside.read_text() == "untouched"
    assert not os.path.islink(str(target)) and json.loads(target.read_text()) == ["x"]
    assert oct(os.stat(str(target)).st_mode & 0o777) == "0o600"
    assert sorted(os.listdir(str(tmp_path))) == ["kimi-k25.restart", "kimi-k25.restart.tmp", "outside"]


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "settings"
    target.mkdir()  # a directory where the file goes: the rename fails
    with pytest.raises(OSError):
        _host_files.write(str(target), b"new")
    assert target.is_dir() and os.listdir(str(tmp_path)) == ["settings"]
