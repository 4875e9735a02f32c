"""gpufleet.sglang.host_state's reads of a host, tried with what an attacker (or a careless hand) leaves at the
paths it reads: each is owed or named in one sentence, never followed, never read whole, never an exception."""

import json
import os

import pytest

from gpufleet_testlib.bounded import MIB, bounded
from gpufleet_testlib.modules import run_module
from ansible_collections.gpufleet.sglang.plugins.module_utils._host_state import file_owes, python_package_owes
from ansible_collections.gpufleet.sglang.plugins.modules import host_state


def test_a_link_to_a_file_with_the_right_content_is_drift(tmp_path):
    """The converge's copy would replace the link: a read that follows it hides the drift."""
    outside = tmp_path / "outside.conf"
    outside.write_text("blacklist nouveau\n")
    wanted = tmp_path / "gpufleet-blacklist-nouveau.conf"
    os.symlink(str(outside), str(wanted))
    assert file_owes({"path": str(wanted), "content": "blacklist nouveau\n"}) == [
        "%s is a symbolic link, not a regular file" % wanted]


def test_a_sparse_file_of_gigabytes_is_owed_without_being_read(tmp_path):
    sparse = tmp_path / "cuda.sh"
    with open(str(sparse), "wb") as handle:
        handle.truncate(2 * 1024 * MIB)
    for wanted in ({"content": "six b\n"}, {"sha256": "0" * 64}, {"lines": ["x"]}):
        owes = bounded(lambda: file_owes(dict(wanted, path=str(sparse))), seconds=5, memory=MIB)
        assert owes in (["%s differs from its template" % sparse],
                        ["%s is 2048 MiB, more than a file this role writes" % sparse])


def test_a_directory_where_a_file_is_wanted_is_not_a_regular_file(tmp_path):
    (tmp_path / "settings.json").mkdir()
    assert file_owes({"path": str(tmp_path / "settings.json"), "content": "{}"}) == [
        "%s is not a regular file" % (tmp_path / "settings.json")]


def test_bytes_that_are_not_utf8_differ_from_the_text_a_lossy_decode_would_give(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b"key: \xff\n")
    assert file_owes({"path": str(path), "content": "key: \ufffd\n"}) == ["%s differs from its template" % path]
    assert file_owes({"path": str(path), "lines": ["key: \ufffd"]}) == ["%s is not UTF-8 text" % path]


@pytest.mark.parametrize("site_packages", ["file", "dangling link"])
def test_a_venv_whose_site_packages_is_not_a_directory_has_nothing_installed(tmp_path, site_packages):
    lib = tmp_path / "venv" / "lib" / "python3.12"
    lib.mkdir(parents=True)
    if site_packages == "file":
        (lib / "site-packages").write_text("")
    else:
        os.symlink(str(tmp_path / "nowhere"), str(lib / "site-packages"))
    assert python_package_owes({"venv": str(tmp_path / "venv"), "name": "sglang-router", "version": "0.3.2"}) == [
        "sglang-router 0.3.2 is not in %s (not installed)" % (tmp_path / "venv")]


def test_a_dist_info_name_that_is_not_utf8_is_reported_escaped(tmp_path):
    site = tmp_path / "venv" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    os.mkdir(os.path.join(bytes(site), b"sglang_router-0.3.2\xff.dist-info"))
    result = run_module(host_state, {"python_packages": [
        {"venv": str(tmp_path / "venv"), "name": "sglang-router", "version": "0.3.2"}]})
    assert not result.get("failed"), result
    assert result["owes"] == ["sglang-router 0.3.2 is not in %s (found '0.3.2\\udcff')" % (tmp_path / "venv")]
    json.dumps(result)


def test_a_nul_in_a_path_fails_the_task_naming_the_option(tmp_path):
    result = run_module(host_state, {"files": [{"path": str(tmp_path) + "/a\0b", "content": ""}]})
    assert result["failed"] and result["msg"].startswith("files names a path with a NUL byte")
    assert "Traceback" not in json.dumps(result)
